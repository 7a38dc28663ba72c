package hostbridge

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/hostcall"
	"github.com/luahook/luahook/internal/suggest"
)

// Env is the Lua state the bridge works in, as luabind gives it.
type Env interface {
	// CallContext returns the context of the hook call in progress, or nil
	// (while the file loads).
	CallContext() context.Context
	// HookName and CallInput are the hook call in progress ("" and nil
	// while the file loads).
	HookName() string
	CallInput() *luahook.Input
	// Seal makes t, in place, a read-only proxy of its contents, as the
	// sandbox's modules are (what names it in errors: "the host.acme
	// module"); Contents returns what a proxy shows, or t itself.
	Seal(t *lua.LTable, path, what string)
	Contents(t *lua.LTable) *lua.LTable
}

// Limits are the file's caps, which conversions in both directions keep.
type Limits struct {
	File           string // the hook file, for host.Call
	MaxStringBytes int
	MaxValues      int // < 0: no cap
}

// State is the bridge in one Lua state: the modules it has required, the
// functions and metatables it built, and the hook call in progress. Like
// the state, it is used by one goroutine at a time.
type State struct {
	set *Set
	L   *lua.LState
	env Env
	lim Limits

	viewMT, writableMT *lua.LTable
	fns                map[*function]*lua.LFunction
	setters            map[setterKey]*lua.LFunction

	// The hook call in progress: made on its first host call, dropped by
	// EndCall, so that Memo caches per hook call.
	call *hostcall.Call
	ctx  context.Context
	base context.Context // the context ctx was made from

	// Between a function's guard and its trampoline: the receiver of a
	// method call, and the failure the trampoline reports.
	recv    reflect.Value
	failure string
}

// NewState returns the bridge of a Lua state; nothing is built until a
// module is required.
func (s *Set) NewState(L *lua.LState, env Env, lim Limits) *State {
	return &State{set: s, L: L, env: env, lim: lim}
}

// Require builds module name (after "host.") in the state: a read-only
// table of its members. The error names the modules the host provides.
func (st *State) Require(name string) (lua.LValue, error) {
	m := st.set.mods[name]
	if m == nil {
		return nil, st.set.missing(name)
	}
	L := st.L
	t := L.CreateTable(0, len(m.members))
	for _, mem := range m.members {
		path := "host." + m.name + "." + mem.name
		var v lua.LValue
		switch {
		case mem.fn != nil:
			v = st.function(mem.fn)
		case mem.writable != nil:
			v = st.newWritable(m, mem)
		default:
			c := st.converter(m)
			c.seal, c.path = true, path
			var err *pathError
			if v, err = c.value(mem.value, 0, true); err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
		}
		t.RawSetString(mem.name, v)
	}
	st.env.Seal(t, "host."+m.name, "the host."+m.name+" module")
	return t, nil
}

// missing is the error of a require of a module the host does not have.
func (s *Set) missing(name string) error {
	if len(s.names) == 0 {
		return fmt.Errorf("no host module %q: this host provides no host modules", name)
	}
	msg := fmt.Sprintf("no host module %q (this host provides: %s)", name, strings.Join(s.names, ", "))
	if near := suggest.Nearest(name, s.names, 2); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", "host."+near)
	}
	return fmt.Errorf("%s", msg)
}

// Missing is the error of require("host."+name) when the host gave no
// modules at all.
func Missing(name string) error { return (&Set{}).missing(name) }

// EndCall forgets the hook call that ended (its host.Call and its Memo).
func (st *State) EndCall() { st.call, st.ctx, st.base = nil, nil, nil }

// callContext returns the context host functions get in this hook call,
// carrying its host.Call: made on first use, and again whenever the
// state's context is another one (a session's next evaluation).
func (st *State) callContext() context.Context {
	ctx := st.env.CallContext()
	if ctx == nil {
		ctx = st.L.Context() // the file's top level, or a session's evaluation
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if st.ctx == nil || st.base != ctx {
		st.base = ctx
		st.call = &hostcall.Call{Hook: st.env.HookName(), File: st.lim.File, Input: snapshot(st.env.CallInput())}
		st.ctx = hostcall.With(ctx, st.call)
	}
	return st.ctx
}

func (st *State) converter(m *module) converter {
	return converter{L: st.L, st: st, mod: m, types: &st.set.types, maxString: st.lim.MaxStringBytes, maxValues: st.lim.MaxValues}
}

// view is a struct as Lua sees it: a private copy, read-only.
type view struct {
	v       reflect.Value // addressable: the copy
	ti      *typeInfo
	mod     *module
	methods bool
}

// newView returns a read-only view of a private copy of v (a struct).
func (st *State) newView(m *module, v reflect.Value, exposed bool) *lua.LUserData {
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	ud := st.L.NewUserData()
	ud.Value = &view{v: cp, ti: st.set.types.info(v.Type(), exposed), mod: m, methods: exposed}
	ud.Metatable = st.viewMeta()
	return ud
}

// viewMeta is the metatable of every view of the state.
func (st *State) viewMeta() *lua.LTable {
	if st.viewMT != nil {
		return st.viewMT
	}
	L := st.L
	mt := L.CreateTable(0, 4)
	mt.RawSetString("__index", L.NewFunction(st.viewIndex))
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		vw := checkView(L)
		L.RaiseError("host value %s is read-only (assignment to %s)", vw.v.Type(), L.Get(2).String())
		return 0
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		vw := checkView(L)
		L.Push(lua.LString("host." + vw.mod.name + ": " + vw.v.Type().String()))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("protected"))
	st.viewMT = mt
	return mt
}

func checkView(L *lua.LState) *view {
	vw, ok := L.CheckUserData(1).Value.(*view)
	if !ok {
		L.ArgError(1, "not a host value")
	}
	return vw
}

// viewIndex reads a method (of an exposed value) or a field of a view.
func (st *State) viewIndex(L *lua.LState) int {
	vw := checkView(L)
	key, ok := L.Get(2).(lua.LString)
	if !ok {
		return 0
	}
	if vw.methods {
		if me := vw.ti.methods[string(key)]; me != nil {
			L.Push(st.function(me.fn))
			return 1
		}
	}
	f := vw.ti.fields[string(key)]
	if f == nil {
		return 0
	}
	lv, err := st.readField(vw.mod, vw.v, f)
	if err != nil {
		L.RaiseError("host.%s: %s.%s: %v", vw.mod.name, vw.v.Type(), f.name, err)
	}
	L.Push(lv)
	return 1
}

// readField converts field f of struct v: a field of a hidden kind, or
// an interface holding one, reads as nil.
func (st *State) readField(m *module, v reflect.Value, f *field) (lua.LValue, *pathError) {
	fv, err := v.FieldByIndexErr(f.index)
	if err != nil { // through a nil embedded pointer
		return lua.LNil, nil
	}
	if hiddenKind(fv.Kind()) || (fv.Kind() == reflect.Interface && !fv.IsNil() && hiddenKind(fv.Elem().Kind())) {
		return lua.LNil, nil
	}
	c := st.converter(m)
	return c.value(fv, 0, false)
}
