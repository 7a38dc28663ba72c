// Package lint finds, in a Lua hook file, what would fail or do nothing
// once the file runs: an assignment to a global inside a function (the
// globals are read-only once the file has loaded, so it fails at call time),
// an assignment to a local of the file's top level inside a function (each
// pooled state has its own, so calls do not share the value), a read of a global the sandbox does not define and the file never assigns
// (a typo such as `hooks` for `hook`), a read of a field a sandbox module
// does not have (`re.mach`, `json.encde`), and a stage given to a hook of an
// event that has no stages.
//
// It works in two steps, because what a file may name depends on the state
// it runs in. Scan walks the parsed chunk once, when the file is compiled,
// and keeps only what the second step needs: where each global is read and
// assigned. Check then compares that with the globals of a real sandboxed
// state after the file has loaded (so a library granted by allow_libs, and
// every global the file's top level set, count as defined).
//
// A warning never stops a load. A comment `-- luahook: ignore RULE[, RULE]`
// at the end of a line silences the rules it names on that line; alone on
// its line, on the next one (`-- luahook: ignore` without rules silences
// every rule there).
package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/yuin/gopher-lua/ast"
)

// The rules, as warnings and ignore comments name them.
const (
	// RuleGlobalAssign is an assignment to a global inside a function body.
	RuleGlobalAssign = "global-assign"
	// RuleUpvalueAssign is an assignment to a local declared outside every
	// function (the chunk's own locals, those of its top-level blocks)
	// inside a function that runs as a hook: one the file gives to
	// hook.register, a function of the file it calls by name (a local
	// function, a global one; transitively), or one nested in those. The
	// value belongs to one pooled state, and the calls that run in the
	// others do not see it. Writing a field of such a local (`cache[k] =
	// v`) is not one: the lint cannot tell a cache, which is fine per
	// state, from a counter kept in a table. A function run otherwise (at
	// load, or by another file through a module) is not looked at: a lib
	// module's lazily built cache or a forward declaration it wires is
	// fine.
	RuleUpvalueAssign = "upvalue-assign"
	// RuleUndefinedGlobal is a read of a global that nothing defines.
	RuleUndefinedGlobal = "undefined-global"
	// RuleUnknownField is a read of a field a sandbox module does not have.
	RuleUnknownField = "unknown-field"
	// RuleStageIgnored is a stage given to a hook of an event other than
	// PreToolUse, the only event whose hooks run in stages.
	RuleStageIgnored = "stage-ignored"
	// RuleBadIgnore is an ignore comment naming a rule that does not exist.
	RuleBadIgnore = "bad-ignore"
)

// Rules lists every rule, in the order the documentation gives them.
var Rules = []string{RuleGlobalAssign, RuleUpvalueAssign, RuleUndefinedGlobal, RuleUnknownField, RuleStageIgnored, RuleBadIgnore}

// Warning is one finding: the file and line it is about, the rule, and what
// to do.
type Warning struct {
	Path    string `json:"file"`
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String returns "path:line: warning: message [rule]", the form luahook
// check prints.
func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: warning: %s [%s]", w.Path, w.Line, w.Message, w.Rule)
}

// MaxRefs bounds the global reads and assignments Scan keeps of one chunk,
// and so the memory a file's facts hold for its lifetime (about 60 bytes
// each): a file that names globals more often than that (far more than any
// policy does) is linted up to that point only. Every global assignment
// still counts as a definition.
const MaxRefs = 1 << 13

// Facts is what Scan learned of a chunk: its global reads and assignments
// and its ignore comments. It is immutable and safe for concurrent use.
type Facts struct {
	path    string
	reads   []globalRef
	assigns []globalRef
	// upvalues are the assignments to a local of the top level inside a
	// function that runs as a hook.
	upvalues []globalRef
	// defined holds every global the chunk assigns, anywhere.
	defined map[string]bool
	ignores ignores
	bad     []Warning // ignore comments naming unknown rules
}

// globalRef is one read or assignment of a global.
type globalRef struct {
	name string
	line int
	// fields is the chain of constant field names read from the global
	// (`hook.events.PreToolUse`: events, PreToolUse), with their lines.
	fields []field
	inFunc bool // inside a function body (not the top level)
}

type field struct {
	name string
	line int
}

// Scan walks a parsed chunk (whose nesting the caller has bounded) and its
// source, for its ignore comments. path names the file in warnings.
func Scan(path string, stmts []ast.Stmt, src []byte) *Facts {
	f := &Facts{path: path, defined: map[string]bool{}}
	f.ignores, f.bad = scanIgnores(path, src)
	w := walker{facts: f}
	w.push(false)
	w.block(stmts)
	w.pop()
	f.upvalues = w.upvalues()
	return f
}

// sharedAdvice names the places a value shared by calls lives.
const sharedAdvice = "use the store module (store.get, store.set, store.incr: shared by every state, bounded) or the session ledger (session.count, session.mark: per session)"

// Registration is what Check needs of one hook.register call.
type Registration struct {
	Line  int
	Event string
	Stage string
}

// Check returns the warnings of the chunk in env, and of its registrations,
// ordered by line, without the ones its ignore comments silence.
func (f *Facts) Check(env Env, regs []Registration) []Warning {
	out := slices.Clone(f.bad)
	add := func(line int, rule, format string, args ...any) {
		if f.ignores.silences(line, rule) {
			return
		}
		out = append(out, Warning{Path: f.path, Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	for _, a := range f.assigns {
		if a.inFunc {
			add(a.line, RuleGlobalAssign, "assignment to global '%s' inside a function: globals are read-only once the file has loaded, so this fails when the hook runs (for a value of the call, declare it local inside the function; for a value shared by calls, %s: a local of the file's top level is not shared, each pooled Lua state has its own)", a.name, sharedAdvice)
		}
	}
	for _, u := range f.upvalues {
		add(u.line, RuleUpvalueAssign, "assignment to '%s', a local of the file's top level, in code a hook runs: each pooled Lua state has its own '%s', so the calls that run in other states do not see this value (a count counts per state, not per session); for a value shared by calls, %s; a cache each state may rebuild is fine (-- luahook: ignore upvalue-assign)", u.name, u.name, sharedAdvice)
	}
	for _, r := range f.reads {
		f.checkRead(env, r, add)
	}
	for _, r := range regs {
		switch {
		case r.Stage == "" || r.Event == "PreToolUse":
		case r.Event == "PostToolUse" && r.Stage == "validate":
			add(r.Line, RuleStageIgnored, "stage %q is ignored on PostToolUse: its stages are \"mutate\" (the chain that rewrites the tool's output, one hook after another) and none (remove the stage option)", r.Stage)
		case r.Event != "PostToolUse":
			add(r.Line, RuleStageIgnored, "stage %q is ignored on %s: only PreToolUse and PostToolUse hooks run in stages (remove the stage option)", r.Stage, r.Event)
		}
	}
	slices.SortStableFunc(out, func(a, b Warning) int { return a.Line - b.Line })
	return out
}

func (f *Facts) checkRead(env Env, r globalRef, add func(int, string, string, ...any)) {
	v, ok := env.Global(r.name)
	if !ok {
		if f.defined[r.name] {
			return
		}
		if why, ok := env.Withheld(r.name); ok {
			add(r.line, RuleUndefinedGlobal, "%s", why)
			return
		}
		names := env.GlobalNames()
		for n := range f.defined {
			names = append(names, n)
		}
		add(r.line, RuleUndefinedGlobal, "read of undefined global '%s'%s", r.name, suggest(r.name, names))
		return
	}
	path := r.name
	for _, fl := range r.fields {
		m, ok := env.Module(v)
		if !ok {
			return // not a sandbox module: its fields are the file's business
		}
		next, ok := m.Field(fl.name)
		if !ok {
			known := m.Fields()
			hint := suggest(fl.name, known)
			if hint == "" && len(known) <= 12 {
				hint = " (known: " + strings.Join(known, ", ") + ")"
			}
			add(fl.line, RuleUnknownField, "%s.%s does not exist%s", path, fl.name, hint)
			return
		}
		v, path = next, path+"."+fl.name
	}
}

// Env is the sandbox as a real state shows it after the file has loaded.
type Env interface {
	// Global returns the value of the global name, if it is set.
	Global(name string) (v any, ok bool)
	// GlobalNames lists the globals that are set, for suggestions.
	GlobalNames() []string
	// Withheld says why name is not available, when the sandbox withholds
	// it on purpose (io, debug, load, ...).
	Withheld(name string) (why string, ok bool)
	// Module returns v as a module of the sandbox (a read-only table whose
	// fields are fixed), or false for any other value.
	Module(v any) (Module, bool)
}

// Module is a read-only table of the sandbox: json, re, hook, hook.events,
// string, ...
type Module interface {
	Field(name string) (v any, ok bool)
	Fields() []string
}
