package policytest

import (
	"encoding/json"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/luahook/luahook"
)

// This file generates the mutants of a blocked call: other spellings of the
// same call, which a real shell (or file tool, or web fetch) runs exactly as
// the original. A generator that cannot be sure a spelling means the same
// call leaves it out: a mutant that changed the call would count a policy's
// correct answer as a bypass.

// MaxMutantsPerCase caps the mutants of one test case, so that a suite stays
// fast whatever its cases fire.
const MaxMutantsPerCase = 40

// maxSpelledBytes bounds the command or path a generator reads: a larger one
// gets no mutants (its copies would cost more than they tell).
const maxSpelledBytes = 8 << 10

// maxSpelledWords bounds the simple commands of a line, and the arguments
// of a command, that get spellings of their own: with maxSpelledBytes, it
// bounds what a line's spellings take before the cap picks among them.
const maxSpelledWords = 8

// mutant is one generated payload and what it changed: the field's new
// value, for the report.
type mutant struct {
	in       *luahook.Input
	spelling string
}

// spellings returns the mutants of a PreToolUse payload, in a fixed order
// (each family of spellings in turn, so that the cap keeps a bit of every
// family), without the original and without repeats; field and call name the
// field changed and its original value. A payload no generator knows gets
// none.
func spellings(in *luahook.Input, limit int) (field, call string, out []mutant) {
	var fields map[string]json.RawMessage
	if len(in.ToolInput) == 0 || json.Unmarshal(in.ToolInput, &fields) != nil {
		return "", "", nil
	}
	caps := in.ToolCapabilities
	if caps == nil {
		caps = luahook.KnownToolCapabilities(in.ToolName)
	}
	var families [][]string
	switch {
	case slices.Contains(caps, luahook.CapShell):
		field = "command"
		if !stringField(fields, field, &call) {
			return "", "", nil
		}
		if strings.EqualFold(in.ToolName, "powershell") {
			families = powershellSpellings(call)
		} else {
			families = shellSpellings(call)
		}
	case slices.Contains(caps, luahook.CapFSRead), slices.Contains(caps, luahook.CapFSWrite):
		for _, f := range []string{"file_path", "path", "notebook_path"} {
			if stringField(fields, f, &call) && call != "" {
				field = f
				break
			}
		}
		if field == "" {
			return "", "", nil
		}
		families = pathSpellings(call, in.Cwd)
	case slices.Contains(caps, luahook.CapNetwork):
		field = "url"
		if !stringField(fields, field, &call) {
			return "", "", nil
		}
		families = urlSpellings(call)
	default:
		return "", "", nil
	}
	seen := map[string]bool{call: true}
	for _, s := range roundRobin(families) {
		if len(out) >= limit {
			break
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		raw, err := json.Marshal(s)
		if err != nil {
			continue
		}
		fields[field] = raw
		ti, err := json.Marshal(fields)
		if err != nil {
			continue
		}
		m := *in
		m.ToolInput = ti
		out = append(out, mutant{in: &m, spelling: s})
	}
	return field, call, out
}

// stringField reads fields[name] as a string of at most maxSpelledBytes.
func stringField(fields map[string]json.RawMessage, name string, v *string) bool {
	raw, ok := fields[name]
	if !ok || len(raw) > 2*maxSpelledBytes || json.Unmarshal(raw, v) != nil {
		return false
	}
	return len(*v) <= maxSpelledBytes
}

// roundRobin takes the first spelling of every family, then the second of
// every family, and so on.
func roundRobin(families [][]string) []string {
	var out []string
	for i := 0; ; i++ {
		more := false
		for _, f := range families {
			if i < len(f) {
				out = append(out, f[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// Shell command lines.

// shTok is a token of a command line: a word or an operator, with its place
// in the line.
type shTok struct {
	op         string // the operator ("&&", ";", "\n", ">", "2>", ...); "" for a word
	start, end int    // the token's bytes in the line
	plain      bool   // a word of unquoted literal characters only (plainChar)
}

// shLine is a command line as far as the generators need to know it.
type shLine struct {
	toks []shTok
	// simple: nothing but simple commands (words, assignments,
	// redirections) joined by ; & && || | and newlines; no compound
	// command, substitution, here-document or comment, whose insides the
	// generators would have to understand.
	simple bool
	// whole: the line can be wrapped or extended as a whole: quotes
	// closed, no here-document or comment, no trailing backslash.
	whole bool
	// posix: simple, and nothing a POSIX sh reads differently from bash
	// (no $, backslash, brace, bash-only operator), so that sh -c runs it
	// alike.
	posix bool
}

// shCommand is one simple command of a line: the token of its program
// word and those of its arguments (assignments and redirections left out).
type shCommand struct {
	prog    int
	args    []int
	assigns bool // it starts with VAR=value assignments
	redirs  bool // it has redirections
}

// plainChar reports whether c is literal, in any position, to the shell
// (brace, glob and tilde characters are not).
func plainChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("_./+,:@%^-=", c) >= 0
}

// shKeywords are the reserved words (and bash's) that start compound
// commands: a line that uses one is not simple.
var shKeywords = []string{"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done",
	"case", "esac", "function", "select", "time", "coproc", "[[", "]]", "{", "}", "!", "in"}

// lexShell splits line into tokens; ok is false for a line whose quotes do
// not close.
func lexShell(line string) (l shLine, ok bool) {
	l.simple, l.whole, l.posix = true, true, true
	complexLine := func() { l.simple, l.posix = false, false }
	i, n := 0, len(line)
	for i < n {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '#':
			// A comment runs to the end of the line: nothing can follow it.
			l.whole = false
			complexLine()
			return l, true
		case c == '\n' || strings.IndexByte(";&|()<>", c) >= 0:
			op := shOperator(line[i:])
			switch op {
			case "<<", "<<-":
				l.whole = false
				complexLine()
			case "(", ")", ";;", "<<<", "<(", ">(", "&>", "&>>", "|&":
				complexLine()
			}
			l.toks = append(l.toks, shTok{op: op, start: i, end: i + len(op)})
			i += len(op)
			continue
		}
		// A word: up to an unquoted blank or operator.
		start, plain := i, true
		for i < n {
			c := line[i]
			if c == ' ' || c == '\t' || c == '\n' || strings.IndexByte(";&|()<>", c) >= 0 {
				break
			}
			switch c {
			case '\'':
				j := strings.IndexByte(line[i+1:], '\'')
				if j < 0 {
					return l, false
				}
				plain = false
				i += j + 2
				continue
			case '"':
				j, sub, ok := closeDouble(line, i+1)
				if !ok {
					return l, false
				}
				if sub {
					complexLine()
				}
				if strings.ContainsAny(line[i:j], `$\`) {
					l.posix = false
				}
				plain = false
				i = j
				continue
			case '\\':
				if i+1 >= n {
					return l, false // a backslash that escapes nothing
				}
				if line[i+1] == '\n' {
					complexLine() // a line continuation
				}
				l.posix = false
				plain = false
				i += 2
				continue
			case '$':
				l.posix = false
				plain = false
				if i+1 < n && (line[i+1] == '(' || line[i+1] == '\'' || line[i+1] == '"') {
					complexLine()
				}
				if i+1 < n && line[i+1] == '{' {
					j := strings.IndexByte(line[i:], '}')
					if j < 0 {
						return l, false
					}
					i += j + 1
					continue
				}
			case '`':
				complexLine()
				plain = false
			case '{', '}':
				l.posix = false
				plain = false
			default:
				if !plainChar(c) {
					plain = false
				}
			}
			i++
		}
		// An all-digit word right before a redirection is its file
		// descriptor: "2>".
		if plain && i < n && (line[i] == '<' || line[i] == '>') && strings.Trim(line[start:i], "0123456789") == "" {
			op := shOperator(line[i:])
			l.toks = append(l.toks, shTok{op: line[start:i] + op, start: start, end: i + len(op)})
			i += len(op)
			continue
		}
		l.toks = append(l.toks, shTok{start: start, end: i, plain: plain})
	}
	return l, true
}

// closeDouble returns the index just past the double quote closing the
// string that starts at i, and whether the string substitutes a command.
func closeDouble(line string, i int) (end int, sub bool, ok bool) {
	for i < len(line) {
		switch line[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1, sub, true
		case '`':
			sub = true
		case '$':
			if i+1 < len(line) && line[i+1] == '(' {
				sub = true
			}
		}
		i++
	}
	return 0, false, false
}

// shOperator returns the operator at the start of s.
func shOperator(s string) string {
	for _, op := range []string{"&&", "||", ";;", "|&", "&>>", "&>", "<<<", "<<-", "<<", ">>", ">|", ">&", "<&", "<>", "<(", ">("} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return s[:1]
}

// isRedirect reports whether op redirects (and so takes the next word).
func isRedirect(op string) bool {
	return strings.ContainsAny(op, "<>") && op != "<(" && op != ">("
}

// commands splits a simple line into its simple commands.
func (l shLine) commands(line string) []shCommand {
	var out []shCommand
	cur := shCommand{prog: -1}
	flush := func() {
		if cur.prog >= 0 {
			out = append(out, cur)
		}
		cur = shCommand{prog: -1}
	}
	for i := 0; i < len(l.toks); i++ {
		t := l.toks[i]
		switch {
		case t.op != "" && isRedirect(t.op):
			cur.redirs = true
			i++ // the redirection's target
		case t.op != "":
			flush()
		case cur.prog < 0 && isAssignment(line[t.start:t.end]):
			cur.assigns = true
		case cur.prog < 0:
			cur.prog = i
		default:
			cur.args = append(cur.args, i)
		}
	}
	flush()
	return out
}

// isAssignment reports whether word is NAME=value.
func isAssignment(word string) bool {
	eq := strings.IndexByte(word, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := word[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// shBuiltins are bash's builtins that no program of the same name stands in
// for: a wrapper (sudo, env, xargs...) would not find them, or would run
// something else.
var shBuiltins = []string{".", ":", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
	"compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "enable", "eval", "exec",
	"exit", "export", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "let", "local", "logout",
	"mapfile", "popd", "pushd", "read", "readarray", "readonly", "return", "set", "shift", "shopt",
	"source", "suspend", "times", "trap", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait"}

// textPrograms take arguments that are text or patterns, not paths: a path
// form of such an argument would change what they do.
var textPrograms = []string{"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "sed", "awk", "gawk",
	"perl", "python", "python3", "ruby", "node", "jq", "yq", "expr", "test", "[", "sh", "bash", "zsh", "dash",
	"cmd", "pwsh", "powershell"}

// isTextual reports whether a word names a program that takes text, or a
// Windows program.
func isTextual(word string) bool {
	return slices.Contains(textPrograms, path.Base(word)) || isWindows(word)
}

// binDirs are where a program named without a path is found on every
// usual system.
var binDirs = []string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/"}

// windowsPrograms are programs only Windows has: a line that runs one (or a
// cmdlet, or a .exe) is meant for cmd or PowerShell behind the agent's shell
// tool, not for bash, whose spellings would not be its own.
var windowsPrograms = []string{"cmd", "bcdedit", "reg", "sc", "netsh", "wmic", "vssadmin", "wbadmin", "schtasks",
	"taskkill", "robocopy", "icacls", "cacls", "takeown", "diskpart", "cipher", "fsutil", "bootrec", "del",
	"erase", "rd", "format", "attrib", "xcopy", "cscript", "wscript", "mshta", "rundll32", "regsvr32", "certutil"}

// cmdlet matches a PowerShell command name: Verb-Noun.
var cmdlet = regexp.MustCompile(`^[A-Z][a-z]+-[A-Z][A-Za-z]*$`)

// isWindows reports whether a program word is a Windows program or a cmdlet.
func isWindows(word string) bool {
	base := strings.ToLower(word)
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	for _, ext := range []string{".exe", ".bat", ".cmd", ".ps1"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return slices.Contains(windowsPrograms, base) || cmdlet.MatchString(word)
}

// shellSpellings returns the families of spellings of a bash command line.
// A line for Windows (isWindows) gets only blanks before and after it,
// which every shell ignores.
func shellSpellings(line string) [][]string {
	l, ok := lexShell(line)
	if !ok || len(l.toks) == 0 {
		return nil
	}
	for _, t := range l.toks {
		if t.op == "" && isWindows(line[t.start:t.end]) {
			if !l.whole {
				return nil
			}
			return [][]string{{" " + line, line + " "}}
		}
		if t.op == "" {
			break // the first word tells
		}
	}
	if l.simple {
		for _, c := range l.commands(line) {
			if t := l.toks[c.prog]; isWindows(line[t.start:t.end]) {
				return [][]string{{" " + line, line + " "}}
			}
		}
	}
	edit := func(start, end int, with string) string { return line[:start] + with + line[end:] }
	var quotes, escapes, vars, wrappers, paths, blanks, chains, shells, args []string
	if l.simple {
		cmds := l.commands(line)
		varName := "X"
		if strings.Contains(line, "X") {
			varName = "" // no indirection where the name could clash
		}
		if len(cmds) > maxSpelledWords {
			cmds = cmds[:maxSpelledWords]
		}
		for _, c := range cmds {
			t := l.toks[c.prog]
			p := line[t.start:t.end]
			if !t.plain || slices.Contains(shKeywords, p) || isAssignment(p) || strings.HasPrefix(p, "-") {
				continue
			}
			if len(p) >= 2 {
				quotes = append(quotes, edit(t.start, t.end, p[:1]+"''"+p[1:]), edit(t.start, t.end, `"`+p[:1]+`"`+p[1:]))
				escapes = append(escapes, edit(t.start, t.end, p[:1]+`\`+p[1:]))
			}
			quotes = append(quotes, edit(t.start, t.end, "'"+p+"'"), edit(t.start, t.end, `"`+p+`"`))
			escapes = append(escapes, edit(t.start, t.end, `\`+p))
			if varName != "" {
				// The assignment goes first on the line, so that it is
				// set wherever in a pipeline the command runs.
				vars = append(vars, varName+"="+p+"; "+edit(t.start, t.end, "$"+varName),
					varName+"="+p+"; "+edit(t.start, t.end, "${"+varName+"}"))
			}
			builtin := slices.Contains(shBuiltins, p)
			if !builtin {
				if !c.assigns {
					// sudo and env -i clear the environment that
					// assignments before the program would set.
					for _, w := range []string{"sudo ", "sudo -u root ", "env -i "} {
						wrappers = append(wrappers, edit(t.start, t.start, w))
					}
				}
				for _, w := range []string{"env ", "nice -n 5 ", "timeout 10 ", "nohup ", "command "} {
					wrappers = append(wrappers, edit(t.start, t.start, w))
				}
				if x, ok := viaXargs(line, l, c); ok {
					wrappers = append(wrappers, x)
				}
				if !strings.Contains(p, "/") {
					for _, d := range binDirs[:2] {
						paths = append(paths, edit(t.start, t.end, d+p))
					}
				} else {
					for _, d := range binDirs {
						if base := strings.TrimPrefix(p, d); base != p && !strings.Contains(base, "/") && base != "" {
							paths = append(paths, edit(t.start, t.end, base))
						}
					}
				}
			} else {
				wrappers = append(wrappers, edit(t.start, t.start, "command "))
			}
			// A path form is left out after a program that takes text (and
			// so after a wrapper of one: sudo grep /x f), and after a
			// Windows program (cmd.exe /c), whose options look like paths.
			textual := isTextual(p)
			for k, a := range c.args {
				if k >= maxSpelledWords {
					break
				}
				at := l.toks[a]
				w := line[at.start:at.end]
				if !textual {
					for _, f := range pathForms(w) {
						args = append(args, edit(at.start, at.end, f))
					}
				}
				textual = textual || isTextual(w)
				if varName != "" && at.plain && k < 4 && !strings.Contains(w, "~") {
					args = append(args, varName+"="+w+"; "+edit(at.start, at.end, "$"+varName))
				}
				if at.plain && len(w) >= 2 && k < 4 && !strings.Contains(w, "~") {
					args = append(args, edit(at.start, at.end, w[:1]+"''"+w[1:]), edit(at.start, at.end, `"`+w+`"`))
				}
			}
		}
		// Blanks between words: doubled, or tabs.
		var doubled, tabs strings.Builder
		last := 0
		for k := 1; k < len(l.toks); k++ {
			gap := l.toks[k].start
			if prev := l.toks[k-1].end; prev < gap && strings.Trim(line[prev:gap], " \t") == "" {
				doubled.WriteString(line[last:prev] + line[prev:gap] + " ")
				tabs.WriteString(line[last:prev] + "\t")
				last = gap
			}
		}
		if last > 0 {
			blanks = append(blanks, doubled.String()+line[last:], tabs.String()+line[last:])
		}
	}
	if l.whole {
		blanks = append(blanks, " "+line, "\t"+line, line+" ", line+"\t")
		body := strings.TrimRight(line, " \t\n")
		end := "; "
		for k := len(l.toks) - 1; k >= 0; k-- {
			if t := l.toks[k]; t.end <= len(body) {
				if t.op == ";" || t.op == "&" {
					end = " " // "a &; true" would not parse
				}
				break
			}
		}
		chains = append(chains, "true && "+line, body+end+"true", "( "+body+" )", "{ "+body+end+"}")
		shells = append(shells, "bash -c "+singleQuote(line))
		// Single quotes do not protect $, ` and \ inside the double
		// quotes around the line: a line with any is left out.
		if l.posix && !strings.ContainsAny(line, "\n$`\\") {
			// In double quotes, with no $, ` or \ in the line, only " needs
			// escaping.
			shells = append(shells, `sh -c "`+strings.ReplaceAll(line, `"`, `\"`)+`"`)
		}
	}
	return [][]string{quotes, wrappers, escapes, paths, args, vars, chains, shells, blanks}
}

// viaXargs spells a line that is one simple command as "echo ARGS | xargs
// PROG", when xargs would hand PROG the same arguments: every argument
// plain (nothing xargs would read as a quote, an escape or a separator), no
// redirection, no assignment, nothing else on the line.
func viaXargs(line string, l shLine, c shCommand) (string, bool) {
	if len(l.toks) != len(c.args)+1 || len(c.args) == 0 || c.assigns || c.redirs {
		return "", false
	}
	words := make([]string, len(c.args))
	for i, a := range c.args {
		t := l.toks[a]
		if !t.plain {
			return "", false
		}
		words[i] = line[t.start:t.end]
	}
	// echo would read a leading -n, -e or -E as its own option.
	if strings.HasPrefix(words[0], "-") {
		return "", false
	}
	p := l.toks[c.prog]
	return "echo " + strings.Join(words, " ") + " | xargs " + line[p.start:p.end], true
}

// singleQuote quotes s for a POSIX shell: the shell reads back s exactly.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pathForms returns other spellings of a word that is a path: one that
// starts with /, ~, ./ or ../ and is made of plain characters. None makes
// the last component "." or "..", which rm refuses, nor adds a trailing
// slash, which follows a symbolic link; "/.." is "/" on every system.
func pathForms(w string) []string {
	if w == "" || strings.ContainsAny(w, "=:") {
		return nil
	}
	for i := 0; i < len(w); i++ {
		if !plainChar(w[i]) && w[i] != '~' {
			return nil
		}
	}
	switch {
	case w == "/":
		return []string{"//", "///"}
	case strings.HasPrefix(w, "/"):
		rest := w[1:]
		out := []string{"/./" + rest, "/../" + rest, "//" + rest}
		if i := strings.IndexByte(rest, '/'); i > 0 && i < len(rest)-1 {
			out = append(out, "/"+rest[:i]+"//"+rest[i+1:], "/"+rest[:i]+"/./"+rest[i+1:])
		}
		return out
	case w == "~":
		return []string{"$HOME", `"$HOME"`, "${HOME}"}
	case strings.HasPrefix(w, "~/"):
		rest := w[1:]
		return []string{"$HOME" + rest, `"$HOME"` + rest, "${HOME}" + rest, "~/." + rest, "~/" + rest}
	case strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../"):
		if len(w) > 3 && !strings.HasSuffix(w, "/") {
			return []string{"./" + w, strings.Replace(w, "/", "//", 1)}
		}
	}
	return nil
}

// powershellSpellings returns the families of spellings of a PowerShell
// command line: PowerShell reads its commands, parameters and operators
// regardless of case, so its unquoted text is spelled in lower and upper
// case (quoted strings are left as they are).
func powershellSpellings(line string) [][]string {
	lower, upper, ok := caseOutsideQuotes(line)
	if !ok {
		return nil
	}
	return [][]string{{lower, upper}, {" " + line, line + " "}}
}

// caseOutsideQuotes returns line in lower and in upper case outside its
// quoted strings ('...' and "..."); ok is false when a quote does not close.
func caseOutsideQuotes(line string) (lower, upper string, ok bool) {
	var lo, up strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		if c == '\'' || c == '"' {
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return "", "", false
			}
			lo.WriteString(line[i : i+j+2])
			up.WriteString(line[i : i+j+2])
			i += j + 2
			continue
		}
		if c == '`' || c == '$' || c == '@' {
			// Escapes, variables and here-strings: left as they are.
			return "", "", false
		}
		lo.WriteString(strings.ToLower(string(c)))
		up.WriteString(strings.ToUpper(string(c)))
		i++
	}
	return lo.String(), up.String(), true
}

// pathSpellings returns the families of spellings of a file tool's path: the
// same file through "/./", "//" and "/../" at the root; a relative path
// also as "./path" and joined to the call's cwd. A Windows path (C:\...),
// whose case and separators Windows ignores, in other cases and with
// slashes.
func pathSpellings(p, cwd string) [][]string {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		return [][]string{{strings.ToLower(p), strings.ToUpper(p), strings.ReplaceAll(p, `\`, "/")}}
	}
	if strings.ContainsAny(p, "\x00\n") {
		return nil
	}
	var forms []string
	switch {
	case p == "/":
		forms = []string{"//"}
	case strings.HasPrefix(p, "/"):
		rest := p[1:]
		forms = []string{"/./" + rest, "/../" + rest}
		if i := strings.IndexByte(rest, '/'); i > 0 && i < len(rest)-1 {
			forms = append(forms, "/"+rest[:i]+"//"+rest[i+1:], "/"+rest[:i]+"/./"+rest[i+1:])
		}
	case strings.HasPrefix(p, "~"):
		// Whether the tool expands ~ is the tool's business.
	default:
		forms = []string{"./" + p}
		if strings.HasPrefix(cwd, "/") {
			forms = append(forms, strings.TrimSuffix(cwd, "/")+"/"+p)
		}
	}
	return [][]string{forms}
}

// urlSpellings returns the host of an http(s) URL in upper case: host names
// compare regardless of case (RFC 3986, 3.2.2).
func urlSpellings(raw string) [][]string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil
	}
	i := strings.Index(raw, u.Host)
	if i < 0 {
		return nil
	}
	return [][]string{{raw[:i] + strings.ToUpper(u.Host) + raw[i+len(u.Host):]}}
}
