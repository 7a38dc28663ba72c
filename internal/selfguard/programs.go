package selfguard

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// program judges one program run with args.
func (p *parser) program(name string, argv, args []word, x *call) {
	switch {
	case name == "":
		p.unknownProgram(argv, args)
	case p.g.cmds[name]:
		p.luahook(name, args)
	case name == "go":
		p.goRun(args)
	case name == "cd" || name == "pushd":
		p.cd(args)
	case name == "popd":
		p.addCwd("")
	case name == "git":
		p.git(args)
	case name == "find":
		p.find(args)
	case name == "eval":
		if text, ok := joinKnown(args); ok {
			p.withSource(text)
		} else {
			p.unsure("it evals a string that is not known")
		}
	case name == "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a.text, "="); ok && a.unk == srcNone {
				p.withSource(v)
			}
		}
	case name == "apply_patch" || name == "applypatch":
		p.applyPatch(args, x)
	case shells[shellName(name)]:
		p.shell(args, x)
	default:
		if letters, ok := interpreterLetters(name); ok && !(name == "perl" && perlInPlace(args)) {
			p.interpreter(name, letters, args, x)
			return
		}
		p.writer(name, args, x)
	}
}

// unknownProgram judges a program whose name is not known ($X, $(…)):
// denied when the line names something protected in it.
func (p *parser) unknownProgram(argv, args []word) {
	prog := argv[0]
	for _, w := range argv {
		if !w.whole || w.subst == "" {
			continue
		}
		prog = w
		break
	}
	if p.g.mentions(prog.subst) || p.g.mentions(strings.ReplaceAll(prog.text, "\x00", " ")) {
		p.unsure("the program it runs is computed from one of them")
		return
	}
	for _, a := range args {
		if p.g.mentions(a.text) || p.g.mentions(a.subst) {
			p.unsure("the program it runs on one of them is not known")
			return
		}
	}
}

// The luahook commands the agent may not run, and what each does.
var luahookEffects = map[string]string{
	"trust":   "marks a folder's policies as trusted, so that luahook runs them",
	"untrust": "removes a folder's trust record, which changes the policies luahook runs",
	"install": "changes an agent's hook settings, which decide whether luahook runs",
}

// luahook judges a luahook command line: trust, untrust, install, add
// --force and add --upgrade are refused, whatever the global flags before
// them.
func (p *parser) luahook(prog string, args []word) {
	sub, help, force, upgrade := "", false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.unk != srcNone {
			if sub == "" {
				p.found = &finding{command: prog + " " + strings.ReplaceAll(t, "\x00", "…"),
					effect: "may change which policies luahook runs (its subcommand is not known)"}
				return
			}
			continue
		}
		switch {
		case t == "-h" || t == "--help":
			help = true
		case t == "--force" || strings.HasPrefix(t, "--force="):
			v := strings.TrimPrefix(t, "--force")
			force = v == "" || !strings.Contains("=false =0 =f =F =FALSE =False", v)
		case t == "--upgrade" || strings.HasPrefix(t, "--upgrade="):
			v := strings.TrimPrefix(t, "--upgrade")
			upgrade = v == "" || !strings.Contains("=false =0 =f =F =FALSE =False", v)
		case strings.HasPrefix(t, "-"):
			if n := strings.TrimLeft(t, "-"); !strings.Contains(n, "=") && sub == "" &&
				(n == "dir" || n == "config" || n == "cache-dir" || n == "log-level") {
				i++ // a global flag's value
			}
		case sub == "":
			sub = t
		}
	}
	if help {
		return
	}
	if effect, ok := luahookEffects[sub]; ok {
		p.found = &finding{command: prog + " " + sub, effect: effect}
		return
	}
	switch {
	case sub == "add" && force:
		p.found = &finding{command: prog + " add --force", effect: "replaces policy files in luahook's policy folder"}
	case sub == "add" && upgrade:
		p.found = &finding{command: prog + " add --upgrade", effect: "replaces policy files in luahook's policy folder and rewrites its config"}
	}
}

// goFlagsWithValue are the go command's build flags that take a value.
var goFlagsWithValue = map[string]bool{"C": true, "exec": true, "tags": true, "ldflags": true, "gcflags": true,
	"asmflags": true, "mod": true, "modfile": true, "overlay": true, "pgo": true, "p": true, "toolexec": true,
	"buildmode": true, "compiler": true, "gccgoflags": true, "installsuffix": true, "pkgdir": true, "covermode": true,
	"coverpkg": true, "o": true}

// goRun judges go run of luahook's own command (go run ./cmd/luahook
// trust).
func (p *parser) goRun(args []word) {
	if len(args) == 0 || args[0].text != "run" {
		return
	}
	i := 1
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || args[i].unk != srcNone {
			break
		}
		if n := strings.TrimLeft(t, "-"); !strings.Contains(n, "=") && goFlagsWithValue[n] {
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	pkg := args[i]
	if pkg.unk != srcNone {
		if p.g.mentions(pkg.text) || p.g.mentions(pkg.subst) {
			p.unsure("the package go run runs is not known")
		}
		return
	}
	rest := args[i+1:]
	t := pkg.text
	if strings.HasSuffix(t, ".go") {
		t = filepath.Dir(t)
		for len(rest) > 0 && strings.HasSuffix(rest[0].text, ".go") {
			rest = rest[1:]
		}
	}
	t, _, _ = strings.Cut(t, "@")
	t = strings.TrimRight(t, "/")
	if t == "." || t == ".." || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		if c := p.knownCwd(); c != "" {
			t = join(c, t)
		}
	}
	if p.g.cmds[programName(t)] {
		p.luahook("go run "+pkg.text, rest)
	}
}

// cd moves the working folders.
func (p *parser) cd(args []word) {
	for _, a := range args {
		if a.unk == srcNone && len(a.text) > 1 && a.text[0] == '-' {
			continue // -L, -P, -e
		}
		if a.unk != srcNone {
			p.addCwd("")
			return
		}
		p.chdir(a.text)
		return
	}
	p.chdir(p.g.home)
}

// shells are the shells whose -c string and standard input are parsed.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true,
	"mksh": true, "yash": true, "posh": true, "rbash": true, "busybox-sh": true}

// shellName drops a version from a shell's name (bash5 -> bash).
func shellName(name string) string { return strings.TrimRight(name, "0123456789.") }

// shell parses what a shell runs: its -c string (with $0, $1, ... the
// words after it), or the script it reads from a here-document or from
// a command whose output the line knows. A script file is not read.
func (p *parser) shell(args []word, x *call) {
	k, inline, stdin := 0, false, false
	for k < len(args) && !inline {
		w := args[k]
		t := w.text
		if w.unk != srcNone {
			break
		}
		if t == "-" || t == "--" {
			k++
			stdin = stdin || t == "-"
			break
		}
		if strings.HasPrefix(t, "--") {
			switch t {
			case "--rcfile", "--init-file":
				k++
			case "--command":
				inline = true
			}
		} else if len(t) > 1 && (t[0] == '-' || t[0] == '+') {
			body := t[1:]
			inline = t[0] == '-' && strings.IndexByte(body, 'c') >= 0
			stdin = stdin || strings.IndexByte(body, 's') >= 0
			if strings.ContainsAny(body, "oO") {
				k++
			}
		} else {
			break
		}
		k++
	}
	if inline {
		if k >= len(args) {
			return
		}
		w := args[k]
		if w.unk != srcNone {
			p.unsure("a shell runs a command line that is not known")
			return
		}
		pos, hasPos := p.pos, p.hasPos
		p.pos, p.hasPos = args[k+1:], true
		p.withSource(w.text)
		p.pos, p.hasPos = pos, hasPos
		return
	}
	if k < len(args) && !stdin {
		return // a script file
	}
	for _, s := range x.stdin {
		p.withSource(s)
	}
	if len(x.stdin) == 0 && x.upKnown {
		p.withSource(x.upOut)
	}
}

// interpreterLetters returns the options that take inline code for an
// interpreter's name ("python3.12" included).
func interpreterLetters(name string) (string, bool) {
	letters := map[string]string{"python": "c", "perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep", "php": "r",
		"lua": "e", "luajit": "e", "deno": "", "bun": "e", "osascript": "e", "pwsh": "c", "powershell": "c",
		"awk": "", "gawk": "", "mawk": "", "nawk": "", "tclsh": "", "rscript": "e"}
	if l, ok := letters[name]; ok {
		return l, true
	}
	l, ok := letters[strings.TrimRight(name, "0123456789.")]
	return l, ok
}

// writeHints are what inline code that changes a file holds (lower-case).
var writeHints = []string{"write", "link", "remove", "rename", "rmtree", "rmdir", "rm(", "rmsync", "truncate",
	"chmod", "chown", "copy", "move", "mkdir", "system", "exec", "spawn", "popen", "subprocess", "shell", "`",
	">", "'w", `"w`, "'a", `"a`, "'x", `"x`, "+", "touch", "replace", "put_contents", "fopen", "dump", "save",
	"set-content", "out-file", "remove-item", "new-item", "move-item", "copy-item", "delete", "del "}

// interpreter judges inline code (python -c, node -e, awk's program, a
// here-document fed to it): when it names something protected and holds
// anything that could write a file, the guard cannot tell.
func (p *parser) interpreter(name, letters string, args []word, x *call) {
	var code []string
	awk := strings.HasSuffix(name, "awk")
	for k := 0; k < len(args); k++ {
		t := args[k].text
		if awk && !strings.HasPrefix(t, "-") {
			code = append(code, t) // the program
			break
		}
		if awk && (t == "-f" || t == "-v") {
			k++
			continue
		}
		if t == "--eval" || t == "--command" || strings.EqualFold(t, "-command") || (name == "deno" && t == "eval") {
			if k+1 < len(args) {
				code = append(code, args[k+1].text)
			}
			break
		}
		if len(t) > 1 && t[0] == '-' && t[1] != '-' && letters != "" {
			if at := strings.IndexAny(t[1:], letters); at >= 0 {
				if rest := t[2+at:]; rest != "" {
					code = append(code, rest)
				} else if k+1 < len(args) {
					code = append(code, args[k+1].text)
					k++
				}
			}
		}
	}
	code = append(code, x.stdin...)
	for _, c := range code {
		if !p.g.mentions(c) {
			continue
		}
		lc := strings.ToLower(c)
		for _, h := range writeHints {
			if strings.Contains(lc, h) {
				p.unsure("inline " + name + " code names one of them")
				return
			}
		}
	}
}

// perlInPlace reports whether perl's options hold -i (edit in place).
func perlInPlace(args []word) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			break
		}
		if len(t) < 2 || t[0] != '-' || t[1] == '-' {
			continue
		}
		for k := 1; k < len(t); k++ {
			switch t[k] {
			case 'i':
				return true
			case 'e', 'E', 'I', 'M', 'm', 'x', 'C', 'd', 'D', '0', 'l':
				k = len(t) // the rest is a value
			}
		}
	}
	return false
}

// applyPatch judges the files of an apply_patch text (Codex), given as
// its argument or on its standard input.
func (p *parser) applyPatch(args []word, x *call) {
	var texts []string
	for _, a := range args {
		if a.unk != srcNone {
			if p.g.mentions(a.subst) {
				p.unsure("it applies a patch that is not known")
			}
			continue
		}
		texts = append(texts, a.text)
	}
	texts = append(texts, x.stdin...)
	if x.upKnown {
		texts = append(texts, x.upOut)
	}
	for _, t := range texts {
		patchFiles(t, func(f string) { p.judge(plainWord(f), true) })
	}
}

// find judges find's actions: -delete, the commands of -exec and -ok
// ({} stands for every path below the starting points that the
// expression's -name tests let through), -fprint files.
func (p *parser) find(args []word) {
	k := 0
	for k < len(args) && (args[k].text == "-H" || args[k].text == "-L" || args[k].text == "-P" ||
		strings.HasPrefix(args[k].text, "-O") || args[k].text == "-D") {
		if args[k].text == "-D" {
			k++
		}
		k++
	}
	var starts []word
	for k < len(args) {
		t := args[k].text
		if args[k].unk == srcNone && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == ",") {
			break
		}
		starts = append(starts, args[k])
		k++
	}
	if len(starts) == 0 {
		starts = []word{plainWord(".")}
	}
	ctx := &findCtx{filter: findFilterOf(args[k:])}
	for _, s := range starts {
		if s.unk != srcNone || s.glob {
			p.judge(s, true) // denied only when it names something protected
			continue
		}
		for _, c := range p.cwds {
			if c != "" || isAbsText(s.text) {
				ctx.roots = append(ctx.roots, join(c, s.text))
			}
		}
	}
	below := word{text: "\x00", pat: "\x00", unk: srcFind, whole: true, find: ctx}
	for ; k < len(args) && !p.done(); k++ {
		switch t := args[k].text; t {
		case "-delete":
			p.judge(below, true)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if k+1 < len(args) {
				p.judge(args[k+1], false)
				k++
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			var sub []word
			k++
			for ; k < len(args) && args[k].text != ";" && args[k].text != "+"; k++ {
				a := args[k]
				if a.unk == srcNone && strings.Contains(a.text, "{}") {
					a = below
				}
				sub = append(sub, a)
			}
			if len(sub) > 0 {
				x := &call{}
				name, subArgs := p.unwrap(sub, x)
				if !p.done() {
					p.program(name, sub, subArgs, x)
				}
			}
		}
	}
}

// findCtx is what find's {} and -delete stand for: the paths below roots
// that filter lets through.
type findCtx struct {
	roots  []string
	filter findFilter
}

// findFilter is what a find expression that is a plain conjunction of
// tests says of the names its actions get: they match every -name and
// -iname pattern. usable is false for any other expression (-o, !, -path,
// -prune, ...), which is then taken to let every path through.
type findFilter struct {
	names  []string
	fold   []bool
	usable bool
}

func findFilterOf(expr []word) findFilter {
	var f findFilter
	for k := 0; k < len(expr); k++ {
		a := expr[k]
		switch a.text {
		case "-name", "-iname":
			if k+1 >= len(expr) || expr[k+1].unk != srcNone {
				return findFilter{}
			}
			f.names = append(f.names, expr[k+1].text)
			f.fold = append(f.fold, a.text == "-iname")
			k++
		case "-o", "-or", "!", "-not", ",", "(", ")", "-prune", "-path", "-ipath", "-wholename", "-iwholename",
			"-regex", "-iregex", "-lname", "-ilname", "-samefile", "-inum", "-links":
			return findFilter{}
		case "-exec", "-execdir", "-ok", "-okdir":
			for k++; k < len(expr) && expr[k].text != ";" && expr[k].text != "+"; k++ {
			}
		default:
			if a.unk != srcNone {
				return findFilter{}
			}
		}
	}
	f.usable = len(f.names) > 0
	return f
}

// match reports whether a file name passes every -name test.
func (f *findFilter) match(name string, g *Guard) bool {
	for i, pat := range f.names {
		n := name
		if f.fold[i] || g.fold {
			pat, n = strings.ToLower(pat), strings.ToLower(n)
		}
		if ok, err := path.Match(pat, n); !ok && (err == nil || pat != n) {
			return false
		}
	}
	return true
}

// maxWalk bounds the entries of protected folders one line's find
// filters look at; past it every path counts as let through.
const maxWalk = 4096

// findReach returns the protected path find's actions may reach from
// start: any protected path at, below or above it, unless the -name tests
// let none of them through (a walk of the protected folders below start).
func (p *parser) findReach(start string, f *findFilter) (hit, bool) {
	if !f.usable {
		return p.g.matchPath(start, true, p.res)
	}
	for i := range p.g.roots {
		r := &p.g.roots[i]
		switch {
		case r.path == "":
			for _, c := range r.comps {
				if f.match(c, p.g) {
					if h, ok := p.g.matchPath(start, true, p.res); ok {
						return h, true
					}
					break
				}
			}
		case p.g.under(start, r.path):
			if p.walkMatches(start, f) {
				return hit{target: start, root: r, rel: p.g.relation(start, r, false)}, true
			}
		case p.g.under(r.path, start) && !p.g.catastrophic(start):
			between := split(r.path)[len(split(start)):]
			for _, c := range between {
				if f.match(c, p.g) {
					return hit{target: start, root: r, rel: relHolds}, true
				}
			}
			if p.walkMatches(r.path, f) {
				return hit{target: start, root: r, rel: relHolds}, true
			}
		}
	}
	return hit{}, false
}

// walkMatches reports whether an entry below dir passes f (or the walk
// passed maxWalk entries).
func (p *parser) walkMatches(dir string, f *findFilter) bool {
	found := false
	filepath.WalkDir(filepath.FromSlash(dir), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		p.walked++
		if p.walked > maxWalk || f.match(d.Name(), p.g) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// repoRoot returns the working tree holding dir: the nearest folder at or
// above it holding .git, else dir.
func repoRoot(dir string) string {
	for d, n := dir, 0; n < maxResolveDepth; n++ {
		if _, err := os.Lstat(filepath.FromSlash(d + "/.git")); err == nil {
			return d
		}
		up := parent(d)
		if up == d {
			break
		}
		d = up
	}
	return dir
}
