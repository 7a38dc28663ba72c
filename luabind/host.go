package luabind

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/luabind/internal/hostbridge"
)

// HostModules are a host's modules (package host), checked once and
// shared by every file given them (Options.Host). They are immutable.
type HostModules struct {
	set *hostbridge.Set
}

// NewHostModules checks mods: each name, each member's kind, the
// signatures of functions and of the methods Lua may call, and the values
// (integers beyond 2^53, channels and functions inside them). The error
// names the module and the member.
func NewHostModules(mods []host.Module) (*HostModules, error) {
	set, err := hostbridge.Compile(mods)
	if err != nil {
		return nil, err
	}
	return &HostModules{set: set}, nil
}

// Names returns the modules' names (after "host."), sorted.
func (h *HostModules) Names() []string { return h.set.Names() }

// requireHost is require("host.NAME"): the module, built in this state on
// its first require and cached like a lib module's value.
func (st *state) requireHost(L *lua.LState, name string) int {
	mod := name[min(len(name), len("host.")):]
	hm := st.sh.opts.Host
	if hm == nil {
		L.RaiseError("require %q: %v", name, hostbridge.Missing(mod))
	}
	if st.host == nil {
		st.host = hm.set.NewState(L, hostEnv{st}, hostbridge.Limits{
			File: st.sh.path, MaxStringBytes: st.sh.opts.MaxStringBytes, MaxValues: st.sh.opts.MaxInputValues,
		})
	}
	v, err := st.host.Require(mod)
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	st.loaded[name] = v
	L.Push(v)
	return 1
}

// hostEnv is a state as the bridge sees it.
type hostEnv struct{ st *state }

func (e hostEnv) CallContext() context.Context { return e.st.ctx }
func (e hostEnv) HookName() string             { return e.st.name }
func (e hostEnv) CallInput() *luahook.Input    { return e.st.in }
func (e hostEnv) Seal(t *lua.LTable, path, what string) {
	e.st.mods.SealTable(t, path, what)
}
func (e hostEnv) Contents(t *lua.LTable) *lua.LTable { return e.st.mods.Contents(t) }

// CallSession returns the session id of the call in progress and true, or
// false between calls and while the file loads: the session module acts on
// that session's ledger.
func (st *state) CallSession() (string, bool) {
	if st.in == nil {
		return "", false
	}
	return st.in.SessionID, true
}

// CallTool returns the tool name and raw tool input of the call in
// progress and true, or false between calls and while the file loads:
// session.digest names the call the way the ledger records it.
func (st *state) CallTool() (string, []byte, bool) {
	if st.in == nil {
		return "", nil, false
	}
	return st.in.ToolName, st.in.ToolInput, true
}

// CallCwd returns the cwd of the call in progress and true, or false
// between calls and while the file loads: the fs module reads the project
// folder it names.
func (st *state) CallCwd() (string, bool) {
	if st.in == nil {
		return "", false
	}
	return st.in.Cwd, true
}
