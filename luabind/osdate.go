package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// maxDateFormatBytes bounds os.date's format, and so its result: each
// conversion writes at most a few dozen bytes. gopher-lua's os.date takes
// seconds and 10 times a 16 MiB format's size in memory.
const maxDateFormatBytes = 256

// capDate replaces os.date with one that refuses a format past
// maxDateFormatBytes, before restrictOS picks it.
func (st *state) capDate() {
	L := st.L
	mod := L.G.Global.RawGetString("os").(*lua.LTable)
	date := mod.RawGetString("date").(*lua.LFunction).GFunction
	mod.RawSetString("date", L.NewFunction(func(L *lua.LState) int {
		if f, ok := L.Get(1).(lua.LString); ok && len(f) > maxDateFormatBytes {
			L.RaiseError("os.date: format of %d bytes exceeds the %d-byte limit", len(f), maxDateFormatBytes)
		}
		return date(L)
	}))
}
