package luabind

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// Registration is one hook.register call of a loaded file: the hook's spec
// as the call gave it (kind lua, no owner; Matcher "" when the file gave nil,
// Name "" when opts.name is not given, the zero values of the other options
// for their defaults; Source is "path:line" of the call), and what only a Lua
// registration has.
type Registration struct {
	luahook.Spec
	ID   string // "path#n", n counting registrations in order from 1
	Line int    // line of the hook.register call
}

// Specs returns the specs of regs, in order, for registering them under the
// file's owner (registry.Registry.ReplaceOwner), as the engine does for every
// hooks.d file.
func Specs(regs []Registration) []luahook.Spec {
	specs := make([]luahook.Spec, len(regs))
	for i, r := range regs {
		specs[i] = r.Spec
	}
	return specs
}

// File is a loaded Lua file: its registrations and the pool of states that
// run them. Its hooks may be called concurrently from any goroutine.
type File struct {
	sh       *shared
	regs     []Registration
	pool     *pool
	warnings []Warning // the linter's, found at Load (lint.go)
}

// shared is what every state of one file shares. Everything in it is
// immutable after Load or guarded for concurrent use.
type shared struct {
	chunk  *Chunk
	path   string
	opts   Options
	log    *slog.Logger
	store  StoreBackend
	ref    []Registration // the first state's registrations, for the determinism check
	re     modules.Regexps
	libs   libCache
	envSet map[string]bool
}

// Load runs a compiled file once in a fresh sandboxed state, under
// Options.LoadTimeout and ctx, and collects its hook.register calls. It is all
// or nothing: a runtime error, a load timeout or an invalid registration is a
// *LoadError naming the file and the line, and no hook is returned. The state
// that ran the file becomes the first state of the file's pool.
func Load(ctx context.Context, c *Chunk, opts Options) (*File, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, &LoadError{Path: c.path, Message: err.Error(), Err: err}
	}
	sh := &shared{
		chunk:  c,
		path:   c.path,
		opts:   opts,
		log:    opts.Logger,
		store:  opts.Store,
		envSet: make(map[string]bool, len(opts.AllowEnv)),
	}
	for _, name := range opts.AllowEnv {
		sh.envSet[name] = true
	}
	st, err := newState(ctx, sh)
	sh.opts.Chunks = nil // what the file required at load stays in sh.libs
	if err != nil {
		return nil, err
	}
	sh.ref = st.regs
	f := &File{sh: sh, warnings: lintFile(st)}
	f.pool = newPool(opts.MaxStates, f.grow)
	f.pool.adopt(st)
	f.regs = make([]Registration, len(st.regs))
	for i, r := range st.regs {
		r.Hook = &luaHook{file: f, index: i, name: hookName(r)}
		f.regs[i] = r
	}
	return f, nil
}

// Path returns the file's path, as given to Compile.
func (f *File) Path() string { return f.sh.path }

// Registrations returns the file's registrations in registration order. Their
// Hooks run on the file's pool.
func (f *File) Registrations() []Registration { return slices.Clone(f.regs) }

// Requires returns the lib modules the file has required so far (at load and
// during calls), in first-require order, so that the engine can reload the
// file when one of them changes.
func (f *File) Requires() []string { return f.sh.libs.names() }

// NamesGlobal reports whether the file's code, or a lib module it has
// required, reads the global name anywhere in its functions: the engine
// feeds the session ledger only when some file reads the session module.
// It reads compiled code, runs nothing, and may say yes for code that never
// runs.
func (f *File) NamesGlobal(name string) bool {
	if protoNamesGlobal(f.sh.chunk.proto, name) {
		return true
	}
	for _, ch := range f.sh.libs.chunkList() {
		if protoNamesGlobal(ch.proto, name) {
			return true
		}
	}
	return false
}

// protoNamesGlobal reports whether p or a function nested in it holds a
// GETGLOBAL of name.
func protoNamesGlobal(p *lua.FunctionProto, name string) bool {
	if p == nil {
		return false
	}
	for _, inst := range p.Code {
		// gopher-lua's encoding: the opcode in the top 6 bits, Bx in the low 18
		if int(inst>>26) == lua.OP_GETGLOBAL {
			if k := int(inst & 0x3ffff); k < len(p.Constants) {
				if s, ok := p.Constants[k].(lua.LString); ok && string(s) == name {
					return true
				}
			}
		}
	}
	for _, sub := range p.FunctionPrototypes {
		if protoNamesGlobal(sub, name) {
			return true
		}
	}
	return false
}

// Close retires the file: its idle states are closed now and its busy ones
// when their calls return. A call made after Close still runs, on the version
// of the code it was registered with (a caller may have read the registry
// just before a reload swapped the file out): it builds a fresh state from
// the compiled chunk, and that state is closed when the call returns. A
// retired file keeps no state, and once its last call has returned nothing
// of luabind refers to it any more: only what the host keeps of it (its
// hooks in a registry snapshot, a list of retired files) keeps it in
// memory. Close is idempotent.
func (f *File) Close() { f.pool.retire() }

// Stats counts the file's states.
type Stats struct {
	Idle      int  // waiting in the pool
	Busy      int  // running a call
	Created   int  // built since Load, the first one included
	Discarded int  // closed after a timeout, a cancellation or an error
	Retired   bool // Close was called: states are closed as their calls return
}

// Stats returns the current counts of the file's states.
func (f *File) Stats() Stats { return f.pool.stats() }

// grow builds a further state for the pool: it re-runs the chunk and checks
// that the new state registered exactly what the first one did.
func (f *File) grow(ctx context.Context) (*state, error) {
	st, err := newState(ctx, f.sh)
	if err != nil {
		if ctx.Err() != nil {
			return nil, contextFailure(ctx, "while building a new Lua state")
		}
		return nil, luahook.AsFailure(fmt.Errorf("building a new Lua state: %w", err))
	}
	if err := sameRegistrations(f.sh.path, f.sh.ref, st.regs); err != nil {
		st.close()
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: err.Error(), Err: err}
	}
	return st, nil
}

func sameRegistrations(path string, want, got []Registration) error {
	const advice = "a file must register the same hooks every time it runs; " +
		"decide with constants, not with the clock, the store or random numbers"
	if len(want) != len(got) {
		return fmt.Errorf("%s: not deterministic: a new Lua state registered %d hooks, the first one %d (%s)",
			path, len(got), len(want), advice)
	}
	for i := range want {
		w, g := want[i], got[i]
		w.Hook, g.Hook = nil, nil
		if w != g {
			return fmt.Errorf("%s: not deterministic: registration #%d differs in a new Lua state "+
				"(%s %q at line %d, first %s %q at line %d) (%s)",
				path, i+1, g.Event, g.Matcher, g.Line, w.Event, w.Matcher, w.Line, advice)
		}
	}
	return nil
}

func hookName(r Registration) string {
	if r.Name != "" {
		return r.Name
	}
	return r.ID
}
