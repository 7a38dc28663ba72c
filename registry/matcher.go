package registry

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// MaxMatcherBytes caps a matcher's length: a longer one is a load error.
// Real matchers are a few names or a short expression; the cap keeps a
// generated file from compiling a megabyte regular expression per state.
const MaxMatcherBytes = 4096

// MatcherForms is the list of matcher forms every matcher error ends with.
const MatcherForms = `a matcher is "" or "*" (every tool); names "bash|edit" or "Edit, Write" ` +
	`(exact, case-insensitive); "@capability" (toolCapabilities; may be mixed with names: "bash|@shell"); ` +
	`Tool(pattern) (Bash(git push:*), Bash(npm run test *), Edit(src/**), Read(./.env), WebFetch(domain:example.com)); ` +
	`else a regular expression (RE2, full match, case-insensitive: mcp__github__.*)`

// A MatcherError is a matcher that does not parse.
type MatcherError struct {
	Matcher string
	Reason  string
}

func (e *MatcherError) Error() string {
	m := e.Matcher
	if len(m) > 80 {
		m = strings.ToValidUTF8(m[:80], "") + "..."
	}
	return fmt.Sprintf("matcher %q: %s; %s", m, e.Reason, MatcherForms)
}

// Matcher selects the payloads a hook runs for. It is parsed once, at
// registration, so that a hook whose name-only matcher does not match costs a
// few string comparisons per call and allocates nothing. Every comparison is
// case-insensitive: tool names, regular expressions, capabilities, and the
// commands, paths and URLs of Tool(pattern). The zero Matcher matches
// everything.
type Matcher struct {
	some  bool     // false: every payload (the zero value, "" and "*")
	ascii bool     // every name is ASCII
	names []string // exact names, or the tool of a Tool(pattern) matcher
	caps  []string // @capabilities, compared with toolCapabilities
	re    *regexp.Regexp
	rule  *argRule // Tool(pattern): names holds the tool
	form  string
}

// ParseMatcher parses a matcher for a hook on event. The forms, tried in this
// order on the trimmed matcher:
//
//   - "" or "*": every tool.
//   - Tool(pattern), Claude Code's permission-rule form: the tool (exactly
//     that name), and its argument matched by pattern. The tools and where
//     their argument is: Bash, Shell, run_shell_command, exec_command,
//     run_command, run_terminal_cmd, PowerShell: the command (toolInput
//     .command), as "cmd:*" or "cmd *" (cmd, or cmd and a space and
//     anything) or a glob with "*", matched against the whole command line
//     and each command in it (split at ; & | newlines, parentheses, braces
//     and backquotes). Read, Write, Edit, MultiEdit, NotebookEdit, read_file,
//     write_file, edit_file, replace, view, create: the file (file_path,
//     notebook_path, path, absolute_path or target_file); Grep, Glob,
//     search_file_content, list_directory: the folder searched (path or
//     dir_path, else the cwd); as a path glob ("*" and "?" within a path
//     element, "**" across, a trailing "/" for everything below): "//x" is
//     the absolute /x, "~/x" below the home folder, "/x", "./x" and "a/b"
//     below the payload's cwd, and a pattern without "/" the file's name in
//     any folder; the path is resolved against the cwd and cleaned (links
//     are not followed). WebFetch, web_fetch: the url, as "domain:host"
//     (host or a subdomain) or a glob. An argument that is absent, not a
//     string, or given twice selects the hook. Name(...) for a name not in
//     this list is an error (a regular expression's group is Name(?:...)).
//   - a "|" or "," list of which an element starts with "@": each element is
//     an @capability, matched against the payload's toolCapabilities (when
//     it declares none, those luahook.KnownToolCapabilities gives its tool
//     name: an agent's own tool), or an exact name.
//   - a value made only of letters, digits, "_", "-", spaces, "|" and ",":
//     a list of exact names.
//   - anything else: an RE2 regular expression that must match the whole
//     name (anchors are allowed and change nothing).
//
// @capability and Tool(pattern) need a tool, so they are errors on events
// other than PreToolUse and PostToolUse; there the other forms match the
// event's key (the sub-agent target, notification kind or compaction
// trigger), and on events without a key every matcher matches. An empty
// event is taken for a tool event. A matcher that is none of these forms is
// a *MatcherError.
//
// A Tool(pattern) matcher chooses which hooks run; it does not parse shell:
// a guard that must hold whatever the spelling of the command ("git" push,
// env git push, /usr/bin/git push) matches the tool and reads the command.
func ParseMatcher(event luahook.Event, s string) (Matcher, error) {
	m, reason := parseMatcher(event, s)
	if reason != "" {
		return Matcher{}, &MatcherError{Matcher: s, Reason: reason}
	}
	return m, nil
}

func parseMatcher(event luahook.Event, raw string) (Matcher, string) {
	if len(raw) > MaxMatcherBytes {
		return Matcher{}, fmt.Sprintf("%d bytes, over the limit of %d", len(raw), MaxMatcherBytes)
	}
	if !utf8.ValidString(raw) {
		return Matcher{}, "not valid UTF-8"
	}
	s := strings.TrimSpace(raw)
	if s == "" || s == "*" {
		return Matcher{}, ""
	}
	toolEvent := event == luahook.PreToolUse || event == luahook.PostToolUse || event == ""
	if tool, pattern, closed, ok := ruleForm(s); ok {
		if !toolEvent {
			return Matcher{}, fmt.Sprintf("Tool(pattern) needs a tool, and %s has none", event)
		}
		return parseRule(tool, pattern, closed)
	}
	if hasCapability(s) {
		if !toolEvent {
			return Matcher{}, fmt.Sprintf("@capability needs a tool, and %s has none", event)
		}
		return parseList(s, true)
	}
	if isNameList(s) {
		return parseList(s, false)
	}
	return parseRegexp(s)
}

// ruleForm splits "Tool(pattern)": a name, "(", anything, ")" at the end.
// closed is false when a known tool's "(" is not closed at the end (an
// error); an unknown name's unclosed "(" is left to the regular expression
// ("mcp__(get|list)_.*"), and "name(?:...)" is always a regular expression.
func ruleForm(s string) (tool, pattern string, closed, ok bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !allBytes(s[:open], isNameByte) || strings.HasPrefix(s[open+1:], "?") {
		return "", "", false, false
	}
	tool = s[:open]
	if !strings.HasSuffix(s, ")") {
		_, known := toolArgs[strings.ToLower(tool)]
		return tool, "", false, known
	}
	return tool, s[open+1 : len(s)-1], true, true
}

func hasCapability(s string) bool {
	for part := range strings.FieldsFuncSeq(s, isListSep) {
		if strings.HasPrefix(strings.TrimSpace(part), "@") {
			return true
		}
	}
	return false
}

func isListSep(r rune) bool { return r == '|' || r == ',' }

// isNameList reports whether s is made only of the characters of a name list
// (as Claude Code decides between a list and a regular expression).
func isNameList(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isNameByte(c) || c == ' ' || c == '|' || c == ',') {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func isCapabilityByte(c byte) bool { return isNameByte(c) || c == '.' || c == ':' }

func parseList(s string, withCaps bool) (Matcher, string) {
	m := Matcher{some: true, ascii: true}
	var forms []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '|' && s[i] != ',' {
			continue
		}
		part := strings.TrimSpace(s[start:i])
		start = i + 1
		switch {
		case part == "":
			return Matcher{}, "an empty element (a stray | or ,)"
		case withCaps && part[0] == '@':
			c := part[1:]
			if c == "" || len(c) > luahook.MaxCapabilityBytes || !allBytes(c, isCapabilityByte) {
				return Matcher{}, fmt.Sprintf("%q is not a capability (@ then up to %d letters, digits, _ - . :)", part, luahook.MaxCapabilityBytes)
			}
			m.caps = append(m.caps, c)
			forms = append(forms, "@"+c)
		case !allBytes(part, isNameByte):
			if withCaps {
				return Matcher{}, fmt.Sprintf("%q is neither a tool name (letters, digits, _ -) nor an @capability", part)
			}
			return Matcher{}, fmt.Sprintf("%q is not a tool name (no spaces inside a name; separate names with | or ,)", part)
		default:
			m.names = append(m.names, part)
			forms = append(forms, part)
		}
	}
	switch {
	case m.caps == nil:
		m.form = "names " + strings.Join(forms, "|")
	case m.names == nil:
		m.form = "capability " + strings.Join(forms, "|")
	default:
		m.form = "names or capabilities " + strings.Join(forms, "|")
	}
	return m, ""
}

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func parseRegexp(s string) (Matcher, string) {
	// Parse s alone first: wrapped in ^(?i:...)$ unparsed, "a)|(b" would
	// compile and no longer be anchored.
	tree, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return Matcher{}, "not a regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	}
	if emptyAlternative(tree) {
		return Matcher{}, "a regular expression with an empty alternative (a stray |) would match nothing or everything"
	}
	re, err := regexp.Compile("^(?i:" + s + ")$")
	if err != nil {
		return Matcher{}, "not a regular expression: " + err.Error()
	}
	return Matcher{some: true, re: re, form: "regex " + re.String()}, ""
}

func emptyAlternative(re *syntax.Regexp) bool {
	for _, sub := range re.Sub {
		if re.Op == syntax.OpAlternate && sub.Op == syntax.OpEmptyMatch || emptyAlternative(sub) {
			return true
		}
	}
	return false
}

// String returns the parsed form, as "luahook list" shows it: "*", "names
// bash|shell", "regex ^(?i:mcp__github__.*)$", "capability @shell" or
// `Bash command prefix "git push"`.
func (m *Matcher) String() string {
	if !m.some {
		return "*"
	}
	return m.form
}

// ReadsToolInput reports whether the matcher looks at the tool input (the
// Tool(pattern) form), so that its verdict can change when a hook rewrites
// the input.
func (m *Matcher) ReadsToolInput() bool { return m.rule != nil }

// Match reports whether the matcher selects the payload in, whose match key
// for the event fired is key (luahook.Input.MatchKey; the tool name for tool
// events). An empty key is selected by every matcher. in supplies the
// toolCapabilities, toolInput and cwd that @capability and Tool(pattern)
// read; a Tool(pattern) whose argument is absent or cannot be read matches
// (its hook runs rather than being skipped on input the matcher cannot judge).
func (m *Matcher) Match(key string, in *luahook.Input) bool { return m.match(key, in, true) }

// MatchTool is Match without a Tool(pattern) matcher's test of the
// argument: whether the hook may run for this tool whatever its input.
func (m *Matcher) MatchTool(key string, in *luahook.Input) bool { return m.match(key, in, false) }

func (m *Matcher) match(key string, in *luahook.Input, withArg bool) bool {
	if !m.some || key == "" {
		return true
	}
	// ASCII strings of different lengths never fold to each other; only
	// non-ASCII keys (the Kelvin sign folds to k) need the full comparison.
	quick := m.ascii && isASCII(key)
	for _, n := range m.names {
		if quick && len(n) != len(key) {
			continue
		}
		if strings.EqualFold(n, key) {
			return m.rule == nil || !withArg || m.rule.match(in)
		}
	}
	if m.re != nil {
		return m.re.MatchString(key)
	}
	if m.caps != nil && in != nil {
		caps := in.ToolCapabilities
		if len(caps) == 0 {
			// None declared: those of its name, if it is an agent's tool
			// (a payload in luahook's own format naming "bash").
			caps = luahook.KnownToolCapabilities(key)
		}
		for _, have := range caps {
			for _, c := range m.caps {
				if strings.EqualFold(c, have) {
					return true
				}
			}
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
