package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

func init() {
	// lua.MaxArrayIndex is a gopher-lua package variable, so this applies to
	// the whole process. Its default, 2^26, lets one instruction such as
	// `t[2^26-1] = 1` fill the table's array part with 67 million nils (about
	// 1 GiB, seconds of work the context cannot interrupt). With 2^20 the worst
	// single store is 16 MiB; integer keys from 2^20 up live in the hash part,
	// where they still work, but `#t` of an array longer than 2^20-1 elements
	// stops at 2^20-1. It is set in init so that no Lua state can be running
	// while it changes.
	lua.MaxArrayIndex = 1 << 20
}

// The standard functions and libraries the sandbox withholds, with what to
// say when a hook reaches for one.
func withheld(name string) (why string, ok bool) {
	switch name {
	case "io", "package", "debug", "channel", "coroutine":
		return "the " + name + " library is not available in the luahook sandbox", true
	case "dofile", "loadfile", "load", "loadstring":
		return name + " is not available in the luahook sandbox (use require for modules in hooks.d/lib)", true
	case "getfenv", "setfenv", "collectgarbage", "newproxy", "_printregs", "module":
		return name + " is not available in the luahook sandbox", true
	}
	return "", false
}

// openSandbox opens the allowed standard libraries and replaces what must not
// be reachable: base, table, string (size-capped), math, a small os, and io or
// the full os when the options grant them.
func (st *state) openSandbox() {
	L := st.L
	libs := []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.OsLibName, lua.OpenOs},
	}
	if st.sh.opts.allows("io") {
		libs = append(libs, struct {
			name string
			fn   lua.LGFunction
		}{lua.IoLibName, lua.OpenIo})
	}
	for _, lib := range libs {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	st.globals = g
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "getfenv", "setfenv",
		"collectgarbage", "_printregs", "newproxy", "module", "require", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("type", L.NewFunction(luaType))
	g.RawSetString("print", L.NewFunction(st.mods.Print))
	g.RawSetString("rawset", L.NewFunction(st.baseRawset))
	g.RawSetString("setmetatable", L.NewFunction(st.baseSetmetatable))
	g.RawSetString("require", L.NewFunction(st.require))
	st.mods.CapStrings()
	st.mods.CapDate()
	if !st.sh.opts.allows("os") {
		st.restrictOS()
	}
	g.Metatable = st.guardMeta()
}

// restrictOS keeps only os.time, os.clock, os.date and os.difftime.
func (st *state) restrictOS() {
	L := st.L
	full := L.G.Global.RawGetString("os").(*lua.LTable)
	small := L.CreateTable(0, 4)
	for _, name := range []string{"time", "clock", "date", "difftime"} {
		small.RawSetString(name, full.RawGetString(name))
	}
	mt := L.CreateTable(0, 2)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("os.%s is not available in the luahook sandbox (allowed: os.time, os.clock, os.date, os.difftime)",
			L.Get(2).String())
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected"))
	small.Metatable = mt
	L.G.Global.RawSetString("os", small)
}

// guardMeta is the metatable of the globals: reading a withheld name raises a
// clear error instead of returning nil.
func (st *state) guardMeta() *lua.LTable {
	L := st.L
	mt := L.CreateTable(0, 2)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		if name, ok := L.Get(2).(lua.LString); ok {
			if why, ok := withheld(string(name)); ok {
				L.RaiseError("%s", why)
			}
		}
		return 0
	}))
	return mt
}

// freeze makes the globals read-only once the chunk has run: their values
// move to a backing table and _G becomes an empty proxy whose __newindex
// raises, so that a hook call cannot leave state behind in a pooled state.
func (st *state) freeze() {
	L := st.L
	g := st.globals
	// Move the globals into a backing table rather than copy them: the globals
	// table keeps its identity (environments point at it) and becomes an empty
	// proxy, and no second set of maps is built per state.
	backing := &lua.LTable{}
	*backing = *g
	*g = lua.LTable{}
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", backing)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("assignment to global '%s' inside a hook call (globals are read-only once the file has loaded; use local, or the store module)",
			L.Get(2).String())
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected"))
	g.Metatable = mt
	st.backing = backing
	st.frozen = true
	st.mods.Protect(g, backing)
}

// baseRawset is rawset that refuses the read-only tables (the modules, the
// frozen globals, rt), whose __newindex guards would otherwise be bypassed.
func (st *state) baseRawset(L *lua.LState) int {
	t := L.CheckTable(1)
	k := L.CheckAny(2)
	v := L.CheckAny(3)
	if what, ok := st.mods.ReadOnly(t); ok {
		L.RaiseError("rawset: %s is read-only", what)
	}
	if k == lua.LNil {
		L.ArgError(2, "table index is nil")
	}
	L.RawSet(t, k, v)
	L.SetTop(1)
	return 1
}

// baseSetmetatable is setmetatable as in Lua 5.1: tables only (gopher-lua
// would also set the shared metatable of every number, boolean or function),
// and protected metatables stay.
func (st *state) baseSetmetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	L.CheckTypes(2, lua.LTNil, lua.LTTable)
	if mt, ok := t.Metatable.(*lua.LTable); ok && mt.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = L.Get(2)
	L.SetTop(1)
	return 1
}

// openModules opens luahook's own modules, in the order of the globals
// they become.
func (st *state) openModules() {
	st.mods.OpenJSON()
	st.openHook()
	st.mods.OpenLog()
	st.mods.OpenRe()
	st.mods.OpenStore()
	st.mods.OpenEnv()
	st.mods.OpenMemo()
	st.mods.OpenSession()
	st.mods.OpenFS()
	st.rt = st.newRT()
	st.mods.Protect(st.rt, nil)
}

// typeNames are type's results, boxed once: type(x) allocates nothing.
var typeNames = func() (names [lua.LTChannel + 1]lua.LValue) {
	for t := range names {
		names[t] = lua.LString(lua.LValueType(t).String())
	}
	return names
}()

// luaType is Lua's type(v).
func luaType(L *lua.LState) int {
	t := L.CheckAny(1).Type()
	if int(t) >= len(typeNames) {
		L.Push(lua.LString(t.String()))
		return 1
	}
	L.Push(typeNames[t])
	return 1
}

// snapshotGlobals returns the globals the reuse analysis may trust, as the
// sandbox opened them (a shallow copy: the module tables are sealed).
func (st *state) snapshotGlobals() *lua.LTable {
	t := &lua.LTable{}
	for _, name := range []string{"type", "tostring", "tonumber", "rawequal", "error", "next", "rawget", "select",
		"assert", "unpack", "pairs", "ipairs", "string", "math", "table", "re", "json", "hook"} {
		t.RawSetString(name, st.globals.RawGetString(name))
	}
	return t
}
