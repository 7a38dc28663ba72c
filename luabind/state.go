package luabind

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/luabind/internal/hostbridge"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// state is one sandboxed Lua state of a file's pool, with the functions its
// run of the chunk registered. A state is used by one goroutine at a time.
type state struct {
	L    *lua.LState
	sh   *shared
	regs []Registration // collected while the chunk runs
	fns  []*lua.LFunction
	// lean[i]: fns[i] provably keeps no reference to its input (leavesInput)
	lean []bool
	// leanOut[i]: nor to the outcome tables it builds (codec.LeavesOutcomes),
	// which its own calls of hook.deny and the like take from the stock.
	leanOut []bool
	// native[i]: fns[i] may read its input's native field
	// (codec.MayReadField); the field is converted only for those that may.
	native []bool

	loading bool
	frozen  bool
	globals *lua.LTable // _G: after loading, an empty proxy of backing
	backing *lua.LTable // the globals once frozen
	// pristine holds the sandbox's globals as it opened them, until the
	// reuse analysis has read them (decideLean).
	pristine *lua.LTable

	rt *lua.LTable

	loaded    map[string]lua.LValue // require's cache: module name -> value
	requiring []string              // modules being loaded, for cycle errors
	// requireErr is the Go error behind the last require that failed.
	requireErr error
	// host is the bridge to the host's modules, made by the first
	// require("host.NAME"); nil in states that never required one.
	host *hostbridge.State

	// The call in progress (zero between calls).
	ctx   context.Context // set by run
	in    *luahook.Input
	name  string
	fn    int         // the registered function called
	input *lua.LTable // the converted payload, between prepare and run
	prep  prepared    // what luaHook.Prepare returns
	// stockOut: fns[fn] is running and leanOut[fn] holds (outcomeTable)
	stockOut bool
	// into receives the outcome the call returns (prepared.RunInto); nil:
	// a new one
	into *luahook.Outcome

	// Codec converts the payload, json.encode/decode and the store's tables;
	// its Null, ArrayMT and ObjectMT are the json module's marks.
	codec.Codec
	// mods are the sandbox's modules (json, log, re, store, env, the capped
	// string library, ...) and the read-only record of its tables.
	mods modules.Modules
}

// CallContext returns the context of the call in progress, or nil: the
// log module's records are logged with it.
func (st *state) CallContext() context.Context { return st.ctx }

// HookName returns the name of the hook being called, or "": the log
// module's records carry it.
func (st *state) HookName() string { return st.name }

// modulesConfig is what the modules of sh's states share.
func (sh *shared) modulesConfig() modules.Config {
	return modules.Config{
		Path:           sh.path,
		Logger:         sh.log,
		Store:          sh.store,
		Ledger:         sh.opts.Ledger,
		MaxStringBytes: sh.opts.MaxStringBytes,
		Env:            sh.envSet,
		LookupEnv:      sh.opts.LookupEnv,
		Regexps:        &sh.re,
	}
}

// newState builds a sandboxed state and runs the file's chunk in it.
func newState(ctx context.Context, sh *shared) (*state, error) {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		MinimizeStackMemory: true,
		CallStackSize:       callStackSize,
		RegistrySize:        registrySize,
		RegistryMaxSize:     registryMaxSize,
		RegistryGrowStep:    registryGrowStep,
	})
	st := &state{L: L, sh: sh, loaded: map[string]lua.LValue{}}
	st.Codec.Init(L, sh.opts.MaxInputValues, sh.opts.MaxStringBytes)
	st.mods.Init(L, sh.modulesConfig(), &st.Codec, st)
	st.prep.st = st
	if err := st.open(); err != nil {
		L.Close()
		return nil, &LoadError{Path: sh.path, Message: "building the sandbox: " + err.Error(), Err: err}
	}
	lctx, cancel := context.WithTimeout(ctx, sh.opts.LoadTimeout)
	defer cancel()
	L.SetContext(lctx)
	st.loading = true
	L.Push(L.NewFunctionFromProto(sh.chunk.proto))
	err := L.PCall(0, 0, nil)
	st.loading = false
	L.RemoveContext()
	if st.host != nil {
		st.host.EndCall()
	}
	if err != nil {
		L.Close()
		return nil, st.loadError(ctx, lctx, err)
	}
	st.freeze()
	st.decideLean()
	st.pristine = nil
	L.SetTop(0)
	return st, nil
}

// open builds the sandbox and the modules.
func (st *state) open() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	st.openSandbox()
	st.openModules()
	st.mods.Seal()
	st.pristine = st.snapshotGlobals()
	setConcatCap(st.L, st.sh.opts.MaxStringBytes)
	st.L.SetTop(0)
	return nil
}

func (st *state) close() { st.L.Close() }

// loadError turns a failed run of the chunk into a *LoadError naming the
// file's line: the error's own position, or the file's frame in the traceback
// (for errors raised inside a lib module).
func (st *state) loadError(ctx, lctx context.Context, err error) *LoadError {
	path := st.sh.path
	msg, trace := err.Error(), ""
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		msg, trace = errorText(ae.Object), ae.StackTrace
	}
	le := &LoadError{Path: path, Line: lineIn(path, msg, trace), Message: msg, Err: err}
	if re := st.requireErr; re != nil && strings.Contains(msg, re.Error()) {
		le.Err = re // the load failed on it: keep its type (a refused lib module)
	}
	if src, _, text := splitPosition(msg); src == path {
		le.Message = text
	}
	switch {
	case ctx.Err() != nil:
		le.Message = "loading was cancelled: " + ctx.Err().Error()
		le.Err = ctx.Err()
	case lctx.Err() != nil:
		le.Message = fmt.Sprintf("loading timed out after %v (the top level of a hook file must finish quickly; do the work inside the hook functions)",
			st.sh.opts.LoadTimeout)
		le.Err = lctx.Err()
	}
	return le
}

// errorText renders a Lua error value without running any Lua code.
func errorText(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case *lua.LTable:
		if s, ok := v.RawGetString("message").(lua.LString); ok {
			return string(s)
		}
		return "error object is a table (raise a string, or a table with a message field)"
	case *lua.LNilType:
		return "error raised with nil"
	}
	return v.String()
}
