package selfguard

import (
	"path"
	"strings"
)

// maxJudged bounds the paths one command line has judged (each may cost
// a few system calls).
const maxJudged = 256

// unsure records that the line cannot be judged, when it names something
// protected or runs in a protected folder: a denial that says why.
func (p *parser) unsure(why string) {
	if p.found == nil && (p.mention || p.inProtected()) {
		p.found = &finding{unsure: why}
	}
}

// call is one program run, behind its wrappers.
type call struct {
	stdin   []string // here-documents and here-strings it reads
	upOut   string   // what the command piped into it prints, when known
	upKnown bool
}

// judgeCommand judges a simple command: its assignments, its
// redirections, and the program it runs.
func (p *parser) judgeCommand(c *rawCmd) {
	k := 0
	for k < len(c.words) && isAssignment(c.words[k]) {
		name, val := splitAssignment(c.words[k])
		p.assign(name, p.expand(val, false))
		k++
	}
	var argv []word
	for _, w := range c.words[k:] {
		argv = append(argv, p.expand(w, true)...)
		if len(argv) > maxTokens {
			p.fail("the command has more than %d words", maxTokens)
			return
		}
	}
	x := &call{upOut: p.lastOut, upKnown: c.pipeIn && p.lastKnown}
	p.lastOut, p.lastKnown = "", false
	for _, r := range c.redirs {
		switch r.op {
		case ">", ">>", ">|", "&>", "&>>", "<>":
			for _, t := range p.expand(r.word, false) {
				p.judge(t, false)
			}
		case ">&":
			for _, t := range p.expand(r.word, false) {
				if !isFD(t.text) {
					p.judge(t, false)
				}
			}
		case "<<":
			x.stdin = append(x.stdin, r.body)
		case "<<<":
			for _, t := range p.expand(r.word, false) {
				if t.unk == srcNone {
					x.stdin = append(x.stdin, t.text)
				}
			}
		}
	}
	if p.done() || len(argv) == 0 {
		return
	}
	name, args := p.unwrap(argv, x)
	if p.done() {
		return
	}
	p.program(name, argv, args, x)
	if c.pipeOut {
		p.lastOut, p.lastKnown = output(name, args, x)
	}
}

// splitAssignment splits NAME=value into the name and the value's pieces.
func splitAssignment(w []piece) (string, []piece) {
	name, rest, _ := strings.Cut(w[0].s, "=")
	name = strings.TrimSuffix(name, "+")
	var val []piece
	if rest != "" {
		val = append(val, piece{k: pLit, s: rest})
	}
	return name, append(val, w[1:]...)
}

// isFD reports whether a >& target is a descriptor ("2", "-"), not a file.
func isFD(t string) bool {
	t = strings.TrimSuffix(t, "-")
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// wrapper describes a program that runs the program named after its own
// options (sudo, env, xargs, ...): hooks.d/lib/shell/args.lua's table.
type wrapper struct {
	shortArg  string   // letters of options that take a value
	longArg   []string // long options that take a value
	assigns   bool     // NAME=value words may come before the program
	stop      string   // letters after which it runs no program
	skip      int      // operands before the program (timeout's duration)
	split     byte     // the letter whose value is a command line (env -S)
	splitLong string
	chdir     byte // the letter whose value is the program's folder (env -C)
	chdirLong string
	command   byte // the letter whose value is a command line (flock -c)
	xargs     bool // the program gets the items read from standard input
	join      bool // the rest is one command line (watch)
}

var wrappers = map[string]wrapper{
	"sudo": {shortArg: "ugprCDhTUtc", longArg: []string{"user", "group", "prompt", "role", "close-from", "chdir", "host",
		"type", "command-timeout", "other-user", "login-class"}, assigns: true, stop: "elvVK", chdir: 'D', chdirLong: "chdir"},
	"doas":   {shortArg: "uC", stop: "L"},
	"pkexec": {longArg: []string{"user"}},
	"env": {shortArg: "uCSP", longArg: []string{"unset", "chdir", "split-string", "block-signal", "default-signal",
		"ignore-signal"}, assigns: true, split: 'S', splitLong: "split-string", chdir: 'C', chdirLong: "chdir"},
	"nice": {shortArg: "n", longArg: []string{"adjustment"}}, "nohup": {}, "setsid": {}, "unbuffer": {},
	"builtin": {}, "exec": {shortArg: "a"}, "command": {stop: "vV"}, "time": {},
	"timeout": {shortArg: "sk", longArg: []string{"signal", "kill-after"}, skip: 1},
	"stdbuf":  {shortArg: "ioe", longArg: []string{"input", "output", "error"}},
	"ionice":  {shortArg: "cnpPu", longArg: []string{"class", "classdata", "pid", "pgid", "uid"}, stop: "pPu"},
	"chrt":    {skip: 1, stop: "p"}, "taskset": {skip: 1, stop: "p"},
	"flock": {shortArg: "wEc", longArg: []string{"timeout", "conflict-exit-code", "command"}, skip: 1, stop: "c",
		command: 'c'},
	"caffeinate": {shortArg: "tw"},
	// script runs a command in a terminal of its own (luahook trust --watch
	// needs one): util-linux's script -c CMD [FILE], BSD's script [FILE [CMD...]].
	"script": {shortArg: "cEIOBTmot", longArg: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing",
		"logging-format", "output-limit"}, command: 'c', splitLong: "command", skip: 1},
	"xargs": {shortArg: "adEILnPs", longArg: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args",
		"max-procs", "max-chars", "process-slot-var"}, xargs: true},
	"watch":   {shortArg: "nq", longArg: []string{"interval", "equexit"}, join: true},
	"busybox": {}, "fakeroot": {}, "torsocks": {}, "proxychains": {shortArg: "f"}, "proxychains4": {shortArg: "f"},
	"firejail": {}, "strace": {shortArg: "eoOpPsSuIXabE"}, "ltrace": {shortArg: "eoOpuaAlLnsS"}, "nocorrect": {},
	"noglob": {},
}

// unwrap finds the program argv runs behind its wrappers: its name
// (lower-case, without folder; "" when it is not known) and its
// arguments. Command lines the wrappers hold (env -S, watch, flock -c)
// are parsed; a wrapper's folder option (env -C, sudo -D) moves the
// working folder.
func (p *parser) unwrap(argv []word, x *call) (string, []word) {
	i := 0
	var later []string
	var items []word
	last := ""
	for i < len(argv) {
		w := argv[i]
		if w.unk != srcNone {
			break
		}
		name := programName(w.text)
		spec, ok := wrappers[name]
		if !ok {
			break
		}
		j, stop := i+1, false
		value := func(v string, c byte, long string) {
			switch {
			case c != 0 && (c == spec.split || c == spec.command) || long != "" && (long == spec.splitLong):
				later = append(later, v)
			case c != 0 && c == spec.chdir || long != "" && long == spec.chdirLong:
				p.chdir(v)
			}
		}
	opts:
		for j < len(argv) {
			a := argv[j]
			t := a.text
			switch {
			case a.unk != srcNone:
				break opts
			case t == "--":
				j++
				break opts
			case spec.assigns && isEnvAssign(t):
				j++
			case strings.HasPrefix(t, "--"):
				lname, val, eq := strings.Cut(t[2:], "=")
				if full := longMatch(lname, spec.longArg); full != "" {
					if !eq && j+1 < len(argv) {
						j++
						val = argv[j].text
					}
					value(val, 0, full)
					if full == spec.splitLong {
						stop = true
					}
				}
				j++
			case len(t) > 1 && t[0] == '-':
				for k := 1; k < len(t); k++ {
					c := t[k]
					if strings.IndexByte(spec.stop, c) >= 0 {
						stop = true
					}
					if strings.IndexByte(spec.shortArg, c) >= 0 {
						val := t[k+1:]
						if val == "" && j+1 < len(argv) {
							j++
							val = argv[j].text
						}
						value(val, c, "")
						if c == spec.split {
							stop = true
						}
						break
					}
				}
				j++
			default:
				break opts
			}
			if stop {
				break
			}
		}
		if stop {
			if name == "sudo" && j < len(argv) {
				// sudo -e FILE edits FILE
				for _, a := range argv[j:] {
					if !strings.HasPrefix(a.text, "-") {
						p.judge(a, false)
					}
				}
			}
			for _, l := range later {
				p.withSource(l)
			}
			return name, argv[i+1:]
		}
		j += spec.skip
		last = name
		if spec.xargs {
			items = p.stdinItems(x)
		}
		if spec.join {
			if text, ok := joinKnown(argv[min(j, len(argv)):]); ok {
				later = append(later, text)
			} else {
				p.unsure("watch runs a command line that is not known")
			}
			i = len(argv)
			break
		}
		i = j
	}
	for _, l := range later {
		p.withSource(l)
	}
	if i >= len(argv) {
		if items != nil && last == "xargs" {
			return "echo", items
		}
		return last, nil
	}
	args := append(argv[i+1:len(argv):len(argv)], items...)
	if argv[i].unk != srcNone {
		return "", args
	}
	return programName(argv[i].text), args
}

// stdinItems returns the items xargs reads: the words of the output piped
// into it when known, else one unknown word.
func (p *parser) stdinItems(x *call) []word {
	if x.upKnown {
		var out []word
		for _, f := range strings.Fields(x.upOut) {
			out = append(out, plainWord(f))
			if len(out) > maxFields {
				return []word{overflow}
			}
		}
		return out
	}
	return []word{{text: "\x00", pat: "\x00", unk: srcStdin, whole: true}}
}

// isEnvAssign reports whether t is NAME=value.
func isEnvAssign(t string) bool {
	name, _, ok := strings.Cut(t, "=")
	return ok && isAssignName(name+"=")
}

// longMatch returns the long option of names that name (possibly
// abbreviated, as GNU getopt_long takes any unique prefix) selects, or "".
func longMatch(name string, names []string) string {
	hit := ""
	for _, n := range names {
		if n == name {
			return n
		}
		if name != "" && strings.HasPrefix(n, name) {
			hit = n
		}
	}
	return hit
}

// joinKnown joins the texts of ws with blanks, unless one is unknown.
func joinKnown(ws []word) (string, bool) {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if w.unk != srcNone {
			return "", false
		}
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " "), true
}

// chdir moves the working folders to dir (cd, env -C): each folder the
// line may be in, with dir resolved against it, is one it may be in now.
func (p *parser) chdir(dir string) {
	dir = p.g.expandHome(dir)
	if dir == "" || dir == "-" || strings.IndexByte(dir, 0) >= 0 || strings.ContainsAny(dir, "*?[") {
		p.addCwd("")
		return
	}
	for _, c := range p.cwds {
		switch {
		case isAbsText(dir):
			p.addCwd(slashClean(dir))
		case c != "":
			p.addCwd(join(c, dir))
		}
	}
}

// addCwd adds a working folder the line may be in ("": unknown).
func (p *parser) addCwd(c string) {
	for _, x := range p.cwds {
		if x == c {
			return
		}
	}
	if len(p.cwds) >= maxCwds {
		c = ""
		for _, x := range p.cwds {
			if x == "" {
				return
			}
		}
	}
	p.cwds = append(p.cwds, c)
}

// inProtected reports whether a working folder the line may be in is in a
// protected folder (its links followed: looked up once, when first asked).
func (p *parser) inProtected() bool {
	for ; p.insideChecked < len(p.cwds); p.insideChecked++ {
		if c := p.cwds[p.insideChecked]; c != "" {
			if h, ok := p.g.matchPath(c, false, p.res); ok && h.rel != relHolds {
				p.inside = true
			}
		}
	}
	return p.inside
}

func isAbsText(s string) bool { return strings.HasPrefix(s, "/") }

// judge judges a path the command writes (holding: a removal, a move or a
// recursive change, which also reaches what the path holds).
func (p *parser) judge(w word, holding bool) {
	if p.done() {
		return
	}
	if w.find != nil {
		for _, r := range w.find.roots {
			if h, ok := p.findReach(r, &w.find.filter); ok {
				p.found = &finding{hit: h}
				return
			}
		}
		return
	}
	if w.unk != srcNone {
		known := strings.ReplaceAll(w.text, "\x00", " ")
		switch {
		case w.unk == srcOverflow:
			p.unsure("a word expands to more values than luahook follows")
		case w.unk != srcEnv && p.mention:
			p.unsure("a path it writes comes from a command's output")
		case p.g.mentions(known) || p.g.mentions(w.subst):
			p.unsure("a path it writes is partly unknown and names one of them")
		case !isAbsText(w.text) && p.inProtected():
			p.unsure("it writes a path that is not known, in a protected folder")
		}
		return
	}
	for _, cwd := range p.cwds {
		if p.done() {
			return
		}
		if cwd == "" && !isAbsText(w.text) {
			if p.g.mentions(w.text) {
				p.unsure("it writes a relative path after a cd luahook cannot follow")
			}
			continue
		}
		p.judged++
		if p.judged > maxJudged {
			p.unsure("it names more paths than luahook checks")
			return
		}
		if w.glob {
			pat := w.pat
			if !isAbsText(w.text) {
				pat = escGlob(cwd) + "/" + pat
			}
			if h, ok := p.g.matchPattern(path.Clean(pat), holding, p.res); ok {
				h.target = join(cwd, w.text)
				p.found = &finding{hit: h}
			}
			continue
		}
		if h, ok := p.g.matchPath(join(cwd, w.text), holding, p.res); ok {
			p.found = &finding{hit: h}
		}
		if p.res.spent {
			p.unsure("it names more paths than luahook checks")
		}
	}
}

// judgeAll judges every word of ws.
func (p *parser) judgeAll(ws []word, holding bool) {
	for _, w := range ws {
		p.judge(w, holding)
	}
}

// withCwd runs fn with the working folders moved by a per-command
// folder option (env -C, git -C, patch -d).
func (p *parser) withCwd(dir *word, fn func()) {
	if dir == nil {
		fn()
		return
	}
	saved := p.cwds
	p.cwds = nil
	for _, c := range saved {
		switch {
		case dir.unk != srcNone:
			p.cwds = append(p.cwds, "")
		case isAbsText(dir.text):
			p.cwds = append(p.cwds, slashClean(dir.text))
		case c != "":
			p.cwds = append(p.cwds, join(c, dir.text))
		default:
			p.cwds = append(p.cwds, "")
		}
	}
	fn()
	p.cwds = saved
}

// output returns what a command prints when the line itself says: echo
// and printf of known words, cat of a here-document.
func output(name string, args []word, x *call) (string, bool) {
	switch name {
	case "echo":
		k := 0
		for k < len(args) && len(args[k].text) > 1 && strings.Trim(args[k].text, "-neE") == "" && args[k].text[0] == '-' {
			k++
		}
		return joinKnown(args[k:])
	case "printf":
		if len(args) > 0 && args[0].unk == srcNone && !strings.ContainsAny(args[0].text, `%\`) && len(args) == 1 {
			return args[0].text, true
		}
		if len(args) > 1 && (args[0].text == "%s" || args[0].text == `%s\n`) {
			return joinKnown(args[1:])
		}
	case "cat":
		if len(args) == 0 && len(x.stdin) > 0 {
			return x.stdin[0], true
		}
	}
	return "", false
}
