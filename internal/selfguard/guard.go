// Package selfguard keeps a coding agent from changing what steers it: the
// policy folder luahook runs, its config file, its trust records and the
// agent settings files luahook install writes, and from running the luahook
// commands that change which policies run (luahook trust, untrust, install,
// add --force).
//
// A Guard judges one PreToolUse payload (Check): a file tool (write, edit,
// multi-edit, notebook edit, apply_patch, delete, ...) whose path is
// protected, or a shell command that would write, move, delete, link or
// change the mode of a protected path, is denied with a reason that names
// what is protected and tells the agent to ask the user. Reading is never
// denied.
//
// # What it reads
//
// A file tool's paths are resolved against the payload's cwd, cleaned, and
// compared at path-component boundaries with each protected path, as
// written and with the symbolic links of its existing part followed (the
// protected paths' own links are followed once, by New), so that a link
// into the policy folder leads to it.
//
// A shell command is first looked at cheaply: unless it names a protected
// path's name or luahook, uses a construct that could spell one without
// naming it (brace expansion, $'…', a variable assigned on the line, a
// glob), or runs a destructive program (rm, mv, git checkout, ...) from a
// folder near a protected path, it is allowed without being parsed: an
// ordinary command costs a few substring searches. Otherwise it is parsed
// (quotes, escapes, $'…', variables assigned on the line, brace expansion,
// globs, $(…), `…`, here-documents, sh -c strings, eval, wrappers such as
// sudo, env, xargs and timeout, find -exec, cd) within fixed bounds, and
// each path it writes is judged as a file tool's is. What it cannot judge
// — a bound passed, eval of an unknown string, a written path that comes
// from a command's output on a line naming a protected path, inline code of
// an interpreter naming one — is denied (fail closed).
//
// # What it cannot see
//
// A program that writes files on its own (a script, make, a build tool)
// is not seen, nor a path spelled at run time from what the line does not
// say (an environment variable, a file's content). A shell command that
// writes through a symbolic link without naming the protected path is not
// seen either; creating such a link (ln naming a protected path) is denied.
// Removing the file system's root, the home folder or a folder above it is
// left to the policies (luahook's dangerous-commands policy names it
// better).
package selfguard

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/luahook/luahook"
)

// Path is one protected path and what it is.
type Path struct {
	// Path is absolute: that file or folder and everything below it. A
	// relative path (".claude/settings.json") is protected below every
	// folder: any path whose components hold it.
	Path string
	// What names it in a denial: "luahook's policy folder", "luahook's
	// config file", ... Empty: "a path luahook protects".
	What string
}

// Options build a Guard.
type Options struct {
	// Paths are the protected paths.
	Paths []Path
	// Commands are the program names that run luahook (compared without
	// folder, case and ".exe"); "luahook" is always one.
	Commands []string
	// Home is the folder ~ and $HOME stand for. Empty: os.UserHomeDir.
	Home string
	// Base is the folder a payload without an absolute cwd is taken to
	// run in. Empty: the process's working folder.
	Base string
}

// Guard judges PreToolUse payloads. It is immutable and safe for
// concurrent use.
type Guard struct {
	roots []root
	// relRoots are the indexes in roots of the relative entries.
	rel     []int
	cmds    map[string]bool
	home    string
	base    string
	fold    bool     // paths compare case-insensitively (macOS, Windows)
	needles []string // names whose mention sends a command to the parser
	// byFirst lists the needles by their first byte, for the look at raw
	// input: one pass over it, whatever the number of needles
	byFirst [256][]string
	// lastCwd caches the last payload cwd cleaned: agents send the same
	// one call after call
	lastCwd atomic.Pointer[[2]string]
	// near are folders (clean, absolute) from which a destructive command
	// may reach a protected path without naming it: each absolute
	// protected path's parent.
	nearDirs []string
}

// root is one protected path in one spelling (as given, or with its
// symbolic links followed).
type root struct {
	path  string   // clean, absolute, slash-separated; "" for a relative entry
	comps []string // its components (a relative entry's, or the absolute path's)
	what  string
	shown string // the path as a denial shows it
}

// New returns a Guard protecting o.Paths. Paths compare as the file
// system does: case-insensitively on macOS and Windows.
func New(o Options) *Guard {
	return newGuard(o, runtime.GOOS == "darwin" || runtime.GOOS == "windows")
}

func newGuard(o Options, fold bool) *Guard {
	g := &Guard{cmds: map[string]bool{"luahook": true}, home: o.Home, base: o.Base, fold: fold}
	if g.home == "" {
		g.home, _ = os.UserHomeDir()
	}
	if g.base == "" {
		g.base, _ = os.Getwd()
	}
	g.home, g.base = slashClean(g.home), slashClean(g.base)
	for _, c := range o.Commands {
		if n := programName(c); n != "" {
			g.cmds[n] = true
		}
	}
	for _, p := range o.Paths {
		g.add(p)
	}
	g.setNeedles()
	return g
}

// add adds p in each of its spellings.
func (g *Guard) add(p Path) {
	if strings.TrimSpace(p.Path) == "" {
		return
	}
	what := p.What
	if what == "" {
		what = "a path luahook protects"
	}
	if !filepath.IsAbs(p.Path) {
		rel := strings.Trim(slashClean(p.Path), "/")
		if rel == "" || rel == "." || strings.HasPrefix(rel, "..") {
			return
		}
		g.rel = append(g.rel, len(g.roots))
		g.roots = append(g.roots, root{comps: strings.Split(rel, "/"), what: what, shown: rel})
		return
	}
	abs := slashClean(p.Path)
	g.roots = append(g.roots, root{path: abs, comps: split(abs), what: what, shown: abs})
	if real := resolveExisting(abs, &resolver{left: 64}); real != abs {
		g.roots = append(g.roots, root{path: real, comps: split(real), what: what, shown: abs})
	}
	g.nearDirs = append(g.nearDirs, parent(abs))
}

// setNeedles collects the names whose mention makes a command worth
// parsing: luahook's command names and each protected path's last
// component (and, for a relative entry, each of its components), lower-case
// where paths fold; a needle holding another is dropped.
func (g *Guard) setNeedles() {
	var all []string
	for c := range g.cmds {
		all = append(all, c)
	}
	for _, r := range g.roots {
		if r.path == "" {
			all = append(all, r.comps...)
		} else if len(r.comps) > 0 {
			all = append(all, r.comps[len(r.comps)-1])
		}
	}
	for _, n := range all {
		if g.fold {
			n = strings.ToLower(n)
		}
		if n == "" || n == "." || n == ".." {
			continue
		}
		g.needles = append(g.needles, n)
	}
	// drop duplicates and needles that hold another: a text that holds
	// the longer one holds the shorter.
	kept := g.needles[:0]
	for i, n := range g.needles {
		redundant := false
		for j, m := range g.needles {
			if i != j && strings.Contains(n, m) && (n != m || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			kept = append(kept, n)
		}
	}
	g.needles = kept
	for _, n := range kept {
		g.byFirst[n[0]] = append(g.byFirst[n[0]], n)
	}
}

// hasNeedle reports whether text holds a needle: one pass, each byte
// looked up among the needles' first bytes.
func (g *Guard) hasNeedle(text []byte) bool {
	for i, c := range text {
		for _, n := range g.byFirst[c] {
			if len(text)-i >= len(n) && string(text[i:i+len(n)]) == n {
				return true
			}
		}
	}
	return false
}

// Check judges in: deny is true, with the reason to give the agent, when
// in is a PreToolUse call that would change a protected path or run a
// luahook command that changes which policies run. A nil Guard allows
// everything.
func (g *Guard) Check(in *luahook.Input) (deny bool, reason string) {
	if g == nil || in == nil || in.Event != luahook.PreToolUse {
		return false, ""
	}
	switch toolKind(in) {
	case kindShell:
		return g.checkShell(in)
	case kindWrite:
		return g.checkWrite(in)
	}
	return false, ""
}

// The kinds of tools the guard judges.
const (
	kindOther = iota
	kindShell
	kindWrite
)

// The tools luahook's adapters declare with the shell and fs.write
// capabilities (package agent's table), by lower-case name, for payloads
// that carry no toolCapabilities (luahook's own format).
var (
	shellTools = []string{"bash", "powershell", "exec_command", "local_shell", "shell", "run_shell_command"}
	writeTools = []string{"write", "edit", "multiedit", "notebookedit", "apply_patch", "delete", "create",
		"write_file", "replace"}
)

// toolKind says whether in's tool runs shell commands or writes files: by
// its declared capabilities, else by its name.
func toolKind(in *luahook.Input) int {
	for _, c := range in.ToolCapabilities {
		switch c {
		case "shell":
			return kindShell
		case "fs.write":
			return kindWrite
		}
	}
	name := in.ToolName
	if len(name) > 32 {
		return kindOther
	}
	for _, t := range shellTools {
		if strings.EqualFold(name, t) {
			return kindShell
		}
	}
	for _, t := range writeTools {
		if strings.EqualFold(name, t) {
			return kindWrite
		}
	}
	return kindOther
}

// cwdOf returns in's working folder: its cwd when absolute, else the
// guard's base folder (joined with a relative cwd).
func (g *Guard) cwdOf(in *luahook.Input) string {
	c := in.Cwd
	switch {
	case c == "":
		return g.base
	case filepath.IsAbs(c):
		if last := g.lastCwd.Load(); last != nil && last[0] == c {
			return last[1]
		}
		clean := slashClean(c)
		g.lastCwd.Store(&[2]string{c, clean})
		return clean
	case g.base == "":
		return ""
	}
	return slashClean(filepath.Join(g.base, c))
}

// programName returns the name a program word runs, as the guard compares
// it: without its folder and ".exe", lower-case.
func programName(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToLower(s)
	return strings.TrimSuffix(s, ".exe")
}
