package registry

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
)

// MaxShownChars bounds each value an explanation quotes from the payload
// (a tool name, a command, a path): enough to recognise it, short enough
// for one line.
const MaxShownChars = 120

// Explain reports what Match reports for key and in, and why, in words
// for an operator: which part of the matcher selected the payload or which
// part failed, quoting the value it read from the payload (cut to
// MaxShownChars characters). For a Tool(pattern) matcher it names the
// toolInput field read and the pattern the argument failed. It walks the
// matcher the way Match does, with the same tests, so the two agree on
// every input.
func (m *Matcher) Explain(key string, in *luahook.Input) (ok bool, why string) {
	if !m.some {
		return true, "every payload (matcher *)"
	}
	what := keyName(in)
	if key == "" {
		return true, "the payload has no " + what + ", and every matcher selects such a payload"
	}
	for _, n := range m.names {
		if !strings.EqualFold(n, key) {
			continue
		}
		if m.rule == nil {
			return true, fmt.Sprintf("%s %s is in the list %s", what, shown(key), form(m.listForm()))
		}
		ok, why := m.rule.explain(in, form(m.patternForm()))
		return ok, fmt.Sprintf("%s %s is %s; %s", what, shown(key), n, why)
	}
	if m.re != nil {
		if m.re.MatchString(key) {
			return true, fmt.Sprintf("%s %s matches the regular expression %s", what, shown(key), form(m.re.String()))
		}
		return false, fmt.Sprintf("%s %s does not match the regular expression %s", what, shown(key), form(m.re.String()))
	}
	if m.caps != nil && in != nil {
		caps, declared := in.ToolCapabilities, true
		if len(caps) == 0 {
			caps, declared = luahook.KnownToolCapabilities(key), false
		}
		for _, have := range caps {
			for _, c := range m.caps {
				if !strings.EqualFold(c, have) {
					continue
				}
				if declared {
					return true, fmt.Sprintf("toolCapabilities %s has @%s", shownList(caps), c)
				}
				return true, fmt.Sprintf("no toolCapabilities declared: the agents' tool %s is %s, which has @%s", shown(key), shownList(caps), c)
			}
		}
	}
	var parts []string
	switch {
	case m.rule != nil:
		return false, fmt.Sprintf("%s %s is not %s, the tool of this Tool(pattern) matcher", what, shown(key), form(m.names[0]))
	case m.names != nil:
		parts = append(parts, fmt.Sprintf("%s %s is not in the list %s", what, shown(key), form(strings.Join(m.names, "|"))))
	}
	if m.caps != nil {
		have := "the payload has no toolCapabilities"
		switch {
		case in != nil && len(in.ToolCapabilities) > 0:
			have = "toolCapabilities " + shownList(in.ToolCapabilities)
		case luahook.KnownToolCapabilities(key) != nil:
			have = "no toolCapabilities declared: the agents' tool " + shown(key) + " is " + shownList(luahook.KnownToolCapabilities(key))
		}
		parts = append(parts, fmt.Sprintf("%s, none of @%s", have, form(strings.Join(m.caps, "|@"))))
	}
	return false, strings.Join(parts, "; ")
}

// listForm is the matcher's list as written: names and @capabilities.
func (m *Matcher) listForm() string {
	_, list, _ := strings.Cut(m.form, " ")
	if strings.HasPrefix(m.form, "names or capabilities ") {
		list = strings.TrimPrefix(m.form, "names or capabilities ")
	}
	return list
}

// patternForm is a Tool(pattern) matcher's pattern as String shows it
// (`command prefix "git push"`), without the tool.
func (m *Matcher) patternForm() string { return strings.TrimPrefix(m.form, m.names[0]+" ") }

// Explain reports whether the entry runs for the payload in, whose match
// key is key, and why: the event first (an entry of another event never
// runs), then its matcher (Matcher.Explain).
func (e *Entry) Explain(key string, in *luahook.Input) (ok bool, why string) {
	if in != nil && in.Event != e.Event {
		return false, fmt.Sprintf("registered for %s, the payload is %s", e.Event, in.Event)
	}
	return e.Match.Explain(key, in)
}

// keyName says what the match key of in is: the tool name, or the key of
// an observational event.
func keyName(in *luahook.Input) string {
	if in == nil {
		return "tool name"
	}
	switch in.Event {
	case luahook.SubagentStart, luahook.SubagentStop:
		return "sub-agent target"
	case luahook.Notification:
		return "notification kind"
	case luahook.PreCompact, luahook.PostCompact:
		return "compaction trigger"
	case luahook.PreToolUse, luahook.PostToolUse, "":
		return "tool name"
	}
	return "match key"
}

// form cuts a part of the matcher itself (its list, expression or
// pattern, up to MaxMatcherBytes) to MaxShownChars characters, so that
// a reason stays readable, and bounded, whatever the matcher.
func form(s string) string {
	cut := luahook.TruncateChars(s, MaxShownChars)
	if len(cut) < len(s) {
		return cut + "…"
	}
	return s
}

// shown quotes a value from the payload, cut to MaxShownChars characters.
func shown(s string) string {
	cut := luahook.TruncateChars(s, MaxShownChars)
	if len(cut) < len(s) {
		return strconv.Quote(cut) + "…"
	}
	return strconv.Quote(cut)
}

// shownList quotes a list of values, each as shown does, at most 8 of them.
func shownList(vs []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vs {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(vs)-i)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shown(v))
	}
	b.WriteByte(']')
	return b.String()
}

// explain is match with the reason: pattern is the rule's form
// (`command prefix "git push"`).
func (r *argRule) explain(in *luahook.Input, pattern string) (bool, string) {
	if in == nil {
		return true, "no payload to read the argument from, so the hook runs"
	}
	arg, ok := stringField(in.ToolInput, r.fields)
	field := r.fieldRead(in, ok, arg)
	if !ok && r.kind != argSearch {
		return true, fmt.Sprintf("toolInput has no %s to read (absent, not a string, or given twice), so the hook runs "+
			"rather than skip input the matcher cannot judge", field)
	}
	read := fmt.Sprintf("toolInput.%s %s", field, shown(arg))
	switch r.kind {
	case argCommand:
		if seg, ok := r.commandMatch(arg); ok {
			if seg == strings.TrimSpace(arg) {
				return true, fmt.Sprintf("%s matches %s", read, pattern)
			}
			return true, fmt.Sprintf("%s has the command %s, which matches %s", read, shown(seg), pattern)
		}
		return false, fmt.Sprintf("%s does not match %s, neither whole nor any command in it", read, pattern)
	case argURL:
		return r.explainURL(arg, read, pattern)
	case argSearch:
		if !ok || arg == "" {
			arg = in.Cwd
			read = fmt.Sprintf("no folder in toolInput (%s), so the cwd %s", field, shown(arg))
		}
	}
	if arg == "" {
		if r.kind == argSearch {
			return true, "no folder in toolInput and no cwd, so the hook runs"
		}
		return true, read + " is empty, so the hook runs"
	}
	return r.explainPath(arg, in.Cwd, read, pattern)
}

// fieldRead names the toolInput field stringField read the argument from
// (ok and arg are what it returned): the first of the rule's fields that
// is there, since stringField reads nothing when an earlier one is there
// but not a string. When nothing was read it names them all.
func (r *argRule) fieldRead(in *luahook.Input, ok bool, arg string) string {
	if ok {
		for _, f := range r.fields {
			if v, there := stringField(in.ToolInput, []string{f}); there && v == arg {
				return f
			}
		}
	}
	return strings.Join(r.fields, " or ")
}

// explainURL is matchURL with the reason; read says which value it read.
func (r *argRule) explainURL(raw, read, pattern string) (bool, string) {
	if r.re != nil {
		if r.re.MatchString(strings.TrimSpace(raw)) {
			return true, fmt.Sprintf("%s matches %s", read, pattern)
		}
		return false, fmt.Sprintf("%s does not match %s", read, pattern)
	}
	host, ok := urlHost(raw)
	switch {
	case !ok:
		return true, read + " has no host to compare, so the hook runs"
	case r.inDomain(host):
		return true, fmt.Sprintf("%s: host %s matches %s", read, shown(host), pattern)
	}
	return false, fmt.Sprintf("%s: host %s is neither %s nor below it (%s)", read, shown(host), form(r.domain), pattern)
}

// explainPath is matchPath with the reason; read says which value it read.
func (r *argRule) explainPath(p, cwd, read, pattern string) (bool, string) {
	ok := r.matchPath(p, cwd)
	orig := p
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(cwd, p)
	}
	p = path.Clean(p)
	if p != orig {
		read += " (resolved: " + shown(p) + ")"
	}
	// The cases where matchPath selects a payload it cannot judge come
	// first; every other verdict is matchPath's own.
	switch {
	case r.anchor == anchorName:
		if ok {
			return true, fmt.Sprintf("%s: its file name %s matches %s", read, shown(path.Base(p)), pattern)
		}
		return false, fmt.Sprintf("%s: its file name %s does not match %s", read, shown(path.Base(p)), pattern)
	case r.anchor == anchorRoot && !path.IsAbs(p):
		return ok, read + " is relative and there is no cwd to resolve it, so the hook runs"
	case r.anchor == anchorCwd && path.IsAbs(p) && (cwd == "" || !path.IsAbs(path.Clean(cwd))):
		return ok, read + ": there is no absolute cwd to tell what it is below, so the hook runs"
	case ok:
		return true, fmt.Sprintf("%s matches %s", read, pattern)
	case r.anchor == anchorCwd && path.IsAbs(p) && !below(p, path.Clean(cwd)):
		return false, fmt.Sprintf("%s is not below the cwd %s (%s)", read, shown(cwd), pattern)
	}
	return false, fmt.Sprintf("%s does not match %s", read, pattern)
}

// below reports whether the clean absolute path p is base or below it, as
// matchPath compares them (case-insensitively).
func below(p, base string) bool {
	if base == "/" {
		return true
	}
	return len(p) == len(base) && strings.EqualFold(p, base) ||
		len(p) > len(base) && p[len(base)] == '/' && strings.EqualFold(p[:len(base)], base)
}
