package modules

import (
	lua "github.com/yuin/gopher-lua"
)

// OpenEnv opens the env module: env.get(name) returns the variable's value,
// or nil when it is unset. Reading a name that Config.Env does not list
// is an error (not a silent nil), so that a missing grant is found at once.
func (m *Modules) OpenEnv() {
	L := m.L
	mod := L.CreateTable(0, 1)
	mod.RawSetString("get", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		if !m.cfg.Env[name] {
			L.RaiseError("env.get: %q is not an allowed environment variable (the configuration lists the names Lua hooks may read)", name)
		}
		v, ok := m.cfg.LookupEnv(name)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LString(v))
		return 1
	}))
	L.G.Global.RawSetString("env", mod)
}
