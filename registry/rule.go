package registry

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/luahook/luahook"
)

// An argKind is what a Tool(pattern) matcher matches its pattern against.
type argKind int

const (
	argCommand argKind = iota // a shell command line
	argPath                   // a file the tool reads or writes
	argSearch                 // the folder a search runs in (the cwd when absent)
	argURL                    // a URL
)

// toolArgs is the one table of the tools a Tool(pattern) matcher knows, by
// lower-case name (compared case-insensitively), with the toolInput fields
// that hold the argument: the first one present is used. The names are those
// of Claude Code, Codex, Copilot, Cursor and Gemini CLI. A Tool(pattern)
// matches the tool it names only, not the other agents' names for it.
var toolArgs = map[string]struct {
	kind   argKind
	fields []string
}{
	"bash":                {argCommand, []string{"command"}},
	"shell":               {argCommand, []string{"command"}},
	"run_shell_command":   {argCommand, []string{"command"}},
	"exec_command":        {argCommand, []string{"command", "cmd"}},
	"run_command":         {argCommand, []string{"command", "CommandLine"}},
	"run_terminal_cmd":    {argCommand, []string{"command"}},
	"powershell":          {argCommand, []string{"command"}},
	"read":                {argPath, pathFields},
	"write":               {argPath, pathFields},
	"edit":                {argPath, pathFields},
	"multiedit":           {argPath, pathFields},
	"notebookedit":        {argPath, pathFields},
	"read_file":           {argPath, pathFields},
	"write_file":          {argPath, pathFields},
	"edit_file":           {argPath, pathFields},
	"replace":             {argPath, pathFields},
	"view":                {argPath, pathFields},
	"create":              {argPath, pathFields},
	"grep":                {argSearch, []string{"path", "dir_path"}},
	"glob":                {argSearch, []string{"path", "dir_path"}},
	"search_file_content": {argSearch, []string{"path", "dir_path"}},
	"list_directory":      {argSearch, []string{"path", "dir_path"}},
	"webfetch":            {argURL, []string{"url"}},
	"web_fetch":           {argURL, []string{"url"}},
}

var pathFields = []string{"file_path", "notebook_path", "path", "absolute_path", "target_file"}

// An argRule is the pattern of a Tool(pattern) matcher.
type argRule struct {
	kind   argKind
	fields []string
	re     *regexp.Regexp // commands, URLs, and paths (after anchoring)
	domain string         // WebFetch(domain:host)
	anchor pathAnchor
}

// pathAnchor says what a path pattern is relative to.
type pathAnchor int

const (
	anchorCwd  pathAnchor = iota // "/x", "./x", "x/y": the payload's cwd
	anchorRoot                   // "//x", and "~/x" after expansion
	anchorName                   // "x" without a slash: the file's name, in any folder
)

func parseRule(tool, pattern string, closed bool) (Matcher, string) {
	a, ok := toolArgs[strings.ToLower(tool)]
	if !closed {
		return Matcher{}, fmt.Sprintf("%s( is not closed: a Tool(pattern) matcher ends with its \")\"", tool)
	}
	if !ok {
		return Matcher{}, fmt.Sprintf("%s(...) names no tool with a known argument (known: %s); "+
			"for a regular expression's group write %s(?:...)", tool, knownTools(), tool)
	}
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return Matcher{}, fmt.Sprintf("an empty pattern in %s() (write %s alone to match every call; "+
			"check that the parentheses are balanced)", tool, tool)
	}
	r := &argRule{kind: a.kind, fields: a.fields}
	var form, reason string
	switch a.kind {
	case argCommand:
		form, reason = r.parseCommand(pattern)
	case argURL:
		form, reason = r.parseURL(pattern)
	default:
		form, reason = r.parsePath(pattern)
	}
	if reason != "" {
		return Matcher{}, fmt.Sprintf("%s(%s): %s", tool, pattern, reason)
	}
	return Matcher{some: true, ascii: true, names: []string{tool}, rule: r, form: tool + " " + form}, ""
}

func knownTools() string {
	names := make([]string, 0, len(toolArgs))
	for n := range toolArgs {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// parseCommand reads a command pattern: "cmd:*" or "cmd *" (the command is
// cmd, or cmd followed by a space and anything), else a glob where "*" is
// any text. Runs of spaces match runs of white space.
func (r *argRule) parseCommand(p string) (form, reason string) {
	prefix, isPrefix := strings.CutSuffix(p, ":*")
	if !isPrefix {
		prefix, isPrefix = strings.CutSuffix(p, " *")
	}
	if isPrefix {
		prefix = strings.TrimSpace(prefix)
		if prefix == "" {
			return "", "an empty command prefix"
		}
		r.re = regexp.MustCompile(`^(?is:` + commandGlob(prefix) + `(?:\s.*)?)$`)
		return fmt.Sprintf("command prefix %q", prefix), ""
	}
	r.re = regexp.MustCompile(`^(?is:` + commandGlob(p) + `)$`)
	return fmt.Sprintf("command glob %q", p), ""
}

func commandGlob(p string) string {
	var b strings.Builder
	for _, f := range strings.Fields(p) {
		if b.Len() > 0 {
			b.WriteString(`\s+`)
		}
		for i, lit := range strings.Split(f, "*") {
			if i > 0 {
				b.WriteString(`.*`)
			}
			b.WriteString(regexp.QuoteMeta(lit))
		}
	}
	return b.String()
}

func (r *argRule) parseURL(p string) (form, reason string) {
	if host, ok := strings.CutPrefix(p, "domain:"); ok {
		host = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(host), "."))
		if host == "" || strings.ContainsAny(host, "/*: ") {
			return "", fmt.Sprintf("%q is not a domain name", host)
		}
		r.domain = host
		return fmt.Sprintf("url domain %q", host), ""
	}
	r.re = regexp.MustCompile(`^(?is:` + globRegexp(p, ".*", ".") + `)$`)
	return fmt.Sprintf("url glob %q", p), ""
}

// parsePath reads a path pattern the way Claude Code's permission rules do:
// "//x" is the absolute path /x, "~/x" is below the home folder, "/x", "./x"
// and "x/y" are below the payload's cwd, and a pattern without a slash
// matches the file's name in any folder. "*" and "?" stay inside one path
// element, "**" crosses elements, and a trailing "/" means everything below.
func (r *argRule) parsePath(p string) (form, reason string) {
	var rest string
	switch {
	case strings.HasPrefix(p, "//"):
		r.anchor, rest = anchorRoot, p[1:]
	case p == "~" || strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", "~ needs the home folder: " + err.Error()
		}
		r.anchor, rest = anchorRoot, path.Join(home, p[1:])+strings.Repeat("/", boolInt(strings.HasSuffix(p, "/")))
	case strings.HasPrefix(p, "/"):
		r.anchor, rest = anchorCwd, p[1:]
	case strings.HasPrefix(p, "./"):
		r.anchor, rest = anchorCwd, p[2:]
	case !strings.Contains(p, "/"):
		r.anchor, rest = anchorName, p
	default:
		r.anchor, rest = anchorCwd, p
	}
	for el := range strings.SplitSeq(rest, "/") {
		if el == ".." {
			return "", `".." in a path pattern (write an absolute path as //path)`
		}
	}
	if strings.HasSuffix(rest, "/") {
		rest += "**"
	}
	re := globRegexp(rest, "[^/]*", "[^/]")
	form = map[pathAnchor]string{anchorCwd: "path below cwd", anchorRoot: "path", anchorName: "file name"}[r.anchor]
	if r.anchor == anchorRoot {
		re = "/" + strings.TrimPrefix(re, "/")
	}
	r.re = regexp.MustCompile(`^(?is:` + re + `)$`)
	return fmt.Sprintf("%s %q", form, p), ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// globRegexp turns a glob into a regular expression: "**" is any text, "*"
// is star, "?" is one, and "/**/", a leading "**/" and a trailing "/**" also
// match no folder at all.
func globRegexp(g, star, one string) string {
	var b strings.Builder
	for i := 0; i < len(g); {
		switch {
		case strings.HasPrefix(g[i:], "/**/"):
			b.WriteString(`/(?:.*/)?`)
			i += 4
		case i == 0 && strings.HasPrefix(g, "**/"):
			b.WriteString(`(?:.*/)?`)
			i += 3
		case g[i:] == "/**":
			b.WriteString(`(?:/.*)?`)
			i += 3
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(`.*`)
			i += 2
		case g[i] == '*':
			b.WriteString(star)
			i++
		case g[i] == '?':
			b.WriteString(one)
			i++
		default:
			j := i + 1
			for j < len(g) && g[j] != '*' && g[j] != '?' && g[j] != '/' {
				j++
			}
			b.WriteString(regexp.QuoteMeta(g[i:j]))
			i = j
		}
	}
	return b.String()
}

// match tests the argument of in. An argument that is absent or not a
// string matches: the rule cannot tell, and a guard must not be skipped.
func (r *argRule) match(in *luahook.Input) bool {
	if in == nil {
		return true
	}
	arg, ok := stringField(in.ToolInput, r.fields)
	switch r.kind {
	case argCommand:
		return !ok || r.matchCommand(arg)
	case argURL:
		return !ok || r.matchURL(arg)
	case argSearch:
		if !ok || arg == "" {
			arg = in.Cwd
		}
	}
	if arg == "" {
		return true
	}
	return r.matchPath(arg, in.Cwd)
}

// matchCommand matches the whole command line and each command in it (split
// at ; & | newlines, parentheses, braces and backquotes), each trimmed: so
// "Bash(git push:*)" matches "cd x && git push". Splitting too eagerly
// (inside quotes) only makes more candidates; it never hides one.
func (r *argRule) matchCommand(cmd string) bool {
	_, ok := r.commandMatch(cmd)
	return ok
}

// commandMatch is matchCommand, with the part of cmd that matched: the
// whole line or the first command in it that does (trimmed).
func (r *argRule) commandMatch(cmd string) (string, bool) {
	if line := strings.TrimSpace(cmd); r.re.MatchString(line) {
		return line, true
	}
	start := 0
	for i := 0; i <= len(cmd); i++ {
		if i < len(cmd) && !strings.ContainsRune(";&|\n\r(){}`", rune(cmd[i])) {
			continue
		}
		if seg := strings.TrimSpace(cmd[start:i]); seg != "" && r.re.MatchString(seg) {
			return seg, true
		}
		start = i + 1
	}
	return "", false
}

func (r *argRule) matchURL(raw string) bool {
	if r.re != nil {
		return r.re.MatchString(strings.TrimSpace(raw))
	}
	host, ok := urlHost(raw)
	if !ok {
		return true // cannot tell which host: match
	}
	return r.inDomain(host)
}

// urlHost returns the lower-case host of the URL raw; ok is false when it
// has none.
func urlHost(raw string) (host string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), true
}

// inDomain reports whether host is the rule's domain or below it.
func (r *argRule) inDomain(host string) bool {
	return host == r.domain || strings.HasSuffix(host, "."+r.domain)
}

// matchPath resolves p against cwd, cleans it (so "src/../.env" is ".env";
// links are not followed) and matches it as the rule's anchor says.
func (r *argRule) matchPath(p, cwd string) bool {
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(cwd, p)
	}
	p = path.Clean(p)
	switch r.anchor {
	case anchorName:
		return r.re.MatchString(path.Base(p))
	case anchorRoot:
		return !path.IsAbs(p) || r.re.MatchString(p)
	}
	if !path.IsAbs(p) {
		return r.re.MatchString(p) // no cwd: the path is relative to it already
	}
	base := path.Clean(cwd)
	if cwd == "" || !path.IsAbs(base) {
		return true // cannot tell what the path is below: match
	}
	if base == "/" {
		return r.re.MatchString(p[1:])
	}
	if len(p) == len(base) && strings.EqualFold(p, base) {
		return r.re.MatchString("")
	}
	if len(p) > len(base) && p[len(base)] == '/' && strings.EqualFold(p[:len(base)], base) {
		return r.re.MatchString(p[len(base)+1:])
	}
	return false
}
