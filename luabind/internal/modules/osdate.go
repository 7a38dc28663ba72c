package modules

import (
	lua "github.com/yuin/gopher-lua"
)

// MaxDateFormatBytes bounds os.date's format, and so its result: each
// conversion writes at most a few dozen bytes. gopher-lua's os.date takes
// seconds and 10 times a 16 MiB format's size in memory.
const MaxDateFormatBytes = 256

// CapDate replaces os.date with one that refuses a format past
// MaxDateFormatBytes. The sandbox calls it before it trims the os library,
// so that the trimmed library picks the capped os.date.
func (m *Modules) CapDate() {
	L := m.L
	mod := L.G.Global.RawGetString("os").(*lua.LTable)
	date := mod.RawGetString("date").(*lua.LFunction).GFunction
	mod.RawSetString("date", L.NewFunction(func(L *lua.LState) int {
		if f, ok := L.Get(1).(lua.LString); ok && len(f) > MaxDateFormatBytes {
			L.RaiseError("os.date: format of %d bytes exceeds the %d-byte limit", len(f), MaxDateFormatBytes)
		}
		return date(L)
	}))
}
