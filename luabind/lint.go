package luabind

import (
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/lint"
)

// Warning is a finding of the linter on a loaded file or a lib module it
// required while loading: an assignment to a global inside a function
// (global-assign), an assignment to a local of the file's top level in
// code a hook runs (upvalue-assign: a value of one pooled state), a read of
// a global nothing defines (undefined-global), a read of a field a sandbox
// module does not have (unknown-field), a stage on an event without stages
// (stage-ignored), an ignore comment naming an unknown rule (bad-ignore). A warning never stops a load; a comment
// `-- luahook: ignore RULE` silences RULE on its line, or, alone on its
// line, on the next one.
type Warning = lint.Warning

// LintRules lists the rules of the linter, by the names warnings and
// ignore comments give them.
func LintRules() []string { return slices.Clone(lint.Rules) }

// Warnings returns what the linter found in the file and in the lib modules
// it required while it loaded, by file and line. A lib module first
// required during a hook call is not linted.
func (f *File) Warnings() []Warning { return slices.Clone(f.warnings) }

// lintFile checks the chunks st ran while loading (the file's, then its lib
// modules') against st's globals, once they are frozen.
func lintFile(st *state) []Warning {
	env := lintEnv{st: st}
	regs := make([]lint.Registration, len(st.regs))
	for i, r := range st.regs {
		regs[i] = lint.Registration{Line: r.Line, Event: string(r.Event), Stage: string(r.Stage)}
	}
	out := st.sh.chunk.lint.Check(env, regs)
	for _, ch := range st.sh.libs.chunkList() {
		out = append(out, ch.lint.Check(env, nil)...)
	}
	return out
}

// lintEnv is the sandbox of a loaded state, as the linter sees it.
type lintEnv struct{ st *state }

func (e lintEnv) Global(name string) (any, bool) {
	v := e.st.backing.RawGetString(name)
	return v, v != lua.LNil
}

func (e lintEnv) GlobalNames() []string { return stringKeys(e.st.backing) }

func (e lintEnv) Withheld(name string) (string, bool) { return withheld(name) }

func (e lintEnv) Module(v any) (lint.Module, bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, false
	}
	if _, ro := e.st.mods.ReadOnly(t); !ro {
		return nil, false
	}
	c := e.st.mods.Contents(t)
	if c == t {
		return nil, false // read-only but not a module proxy (rt)
	}
	return lintModule{c}, true
}

// lintModule is the contents of a sandbox module.
type lintModule struct{ t *lua.LTable }

func (m lintModule) Field(name string) (any, bool) {
	v := m.t.RawGetString(name)
	return v, v != lua.LNil
}

func (m lintModule) Fields() []string { return stringKeys(m.t) }

// stringKeys returns t's string keys, sorted.
func stringKeys(t *lua.LTable) []string {
	var out []string
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if s, ok := k.(lua.LString); ok {
			out = append(out, string(s))
		}
	}
	slices.Sort(out)
	return out
}
