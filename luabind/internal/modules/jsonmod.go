package modules

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// OpenJSON opens the json module:
//
//	json.encode(v) -> string       compact JSON; errors name the path ($.a[2])
//	json.decode(s) -> value        objects and arrays come back marked
//	json.null                      the JSON null (nil cannot sit in a table)
//	json.array([t]) -> t           marks t (or a new table) to encode as an array
//	json.object([t]) -> t          marks t (or a new table) to encode as an object
//	json.type(v) -> string         "object", "array", "null", "string", ...
func (m *Modules) OpenJSON() {
	L := m.L
	// The marks are hidden from getmetatable (which returns their name) and
	// cannot be replaced by setmetatable: Lua code cannot give JSON tables
	// metamethods, which luabind's leavesInput counts on.
	m.codec.ArrayMT = L.CreateTable(0, 2)
	m.codec.ArrayMT.RawSetString("__name", lua.LString("json.array"))
	m.codec.ArrayMT.RawSetString("__metatable", lua.LString("json.array"))
	m.codec.ObjectMT = L.CreateTable(0, 2)
	m.codec.ObjectMT.RawSetString("__name", lua.LString("json.object"))
	m.codec.ObjectMT.RawSetString("__metatable", lua.LString("json.object"))

	nullMT := L.CreateTable(0, 3)
	nullMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("null"))
		return 1
	}))
	nullMT.RawSetString("__metatable", lua.LString("protected"))
	m.codec.Null = L.NewUserData()
	m.codec.Null.Metatable = nullMT

	mod := L.CreateTable(0, 6)
	mod.RawSetString("encode", L.NewFunction(m.jsonEncode))
	mod.RawSetString("decode", L.NewFunction(m.jsonDecode))
	mod.RawSetString("null", m.codec.Null)
	mod.RawSetString("array", L.NewFunction(func(L *lua.LState) int { return m.jsonMark(L, m.codec.ArrayMT) }))
	mod.RawSetString("object", L.NewFunction(func(L *lua.LState) int { return m.jsonMark(L, m.codec.ObjectMT) }))
	mod.RawSetString("type", L.NewFunction(m.jsonType))
	L.G.Global.RawSetString("json", mod)
}

func (m *Modules) jsonEncode(L *lua.LState) int {
	v := L.CheckAny(1)
	raw, err := m.codec.Enc.Encode(v)
	if err != nil {
		L.RaiseError("json.encode: %s", err.Error())
	}
	L.Push(lua.LString(raw))
	return 1
}

func (m *Modules) jsonDecode(L *lua.LState) int {
	s := L.CheckString(1)
	// The decoder only reads its input, and copies every string it keeps.
	v, err := m.codec.Dec.Decode(unsafe.Slice(unsafe.StringData(s), len(s)))
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	L.Push(v)
	return 1
}

func (m *Modules) jsonMark(L *lua.LState, mt *lua.LTable) int {
	t := L.OptTable(1, nil)
	if t == nil {
		t = L.NewTable()
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && cur != m.codec.ArrayMT && cur != m.codec.ObjectMT {
		L.ArgError(1, "the table already has a metatable")
	}
	t.Metatable = mt
	L.Push(t)
	return 1
}

func (m *Modules) jsonType(L *lua.LState) int {
	v := L.CheckAny(1)
	typ := v.Type().String()
	switch v := v.(type) {
	case *lua.LTable:
		if v.Metatable == m.codec.ArrayMT || (v.Metatable != m.codec.ObjectMT && v.MaxN() > 0) {
			typ = "array"
		} else {
			typ = "object"
		}
	case *lua.LUserData:
		if v == m.codec.Null {
			typ = "null"
		}
	}
	L.Push(lua.LString(typ))
	return 1
}
