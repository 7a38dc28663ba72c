package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// openJSON opens the json module:
//
//	json.encode(v) -> string       compact JSON; errors name the path ($.a[2])
//	json.decode(s) -> value        objects and arrays come back marked
//	json.null                      the JSON null (nil cannot sit in a table)
//	json.array([t]) -> t           marks t (or a new table) to encode as an array
//	json.object([t]) -> t          marks t (or a new table) to encode as an object
//	json.type(v) -> string         "object", "array", "null", "string", ...
func (st *state) openJSON() {
	L := st.L
	// The marks are hidden from getmetatable (which returns their name) and
	// cannot be replaced by setmetatable: Lua code cannot give JSON tables
	// metamethods, which leavesInput counts on.
	st.ArrayMT = L.CreateTable(0, 2)
	st.ArrayMT.RawSetString("__name", lua.LString("json.array"))
	st.ArrayMT.RawSetString("__metatable", lua.LString("json.array"))
	st.ObjectMT = L.CreateTable(0, 2)
	st.ObjectMT.RawSetString("__name", lua.LString("json.object"))
	st.ObjectMT.RawSetString("__metatable", lua.LString("json.object"))

	nullMT := L.CreateTable(0, 3)
	nullMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("null"))
		return 1
	}))
	nullMT.RawSetString("__metatable", lua.LString("protected"))
	st.Null = L.NewUserData()
	st.Null.Metatable = nullMT

	mod := L.CreateTable(0, 6)
	mod.RawSetString("encode", L.NewFunction(st.jsonEncode))
	mod.RawSetString("decode", L.NewFunction(st.jsonDecode))
	mod.RawSetString("null", st.Null)
	mod.RawSetString("array", L.NewFunction(func(L *lua.LState) int { return st.jsonMark(L, st.ArrayMT) }))
	mod.RawSetString("object", L.NewFunction(func(L *lua.LState) int { return st.jsonMark(L, st.ObjectMT) }))
	mod.RawSetString("type", L.NewFunction(st.jsonType))
	L.G.Global.RawSetString("json", mod)
}

func (st *state) jsonEncode(L *lua.LState) int {
	v := L.CheckAny(1)
	raw, err := st.Enc.Encode(v)
	if err != nil {
		L.RaiseError("json.encode: %s", err.Error())
	}
	L.Push(lua.LString(raw))
	return 1
}

func (st *state) jsonDecode(L *lua.LState) int {
	s := L.CheckString(1)
	// The decoder only reads its input, and copies every string it keeps.
	v, err := st.Dec.Decode(unsafe.Slice(unsafe.StringData(s), len(s)))
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	L.Push(v)
	return 1
}

func (st *state) jsonMark(L *lua.LState, mt *lua.LTable) int {
	t := L.OptTable(1, nil)
	if t == nil {
		t = L.NewTable()
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && cur != st.ArrayMT && cur != st.ObjectMT {
		L.ArgError(1, "the table already has a metatable")
	}
	t.Metatable = mt
	L.Push(t)
	return 1
}

func (st *state) jsonType(L *lua.LState) int {
	v := L.CheckAny(1)
	typ := v.Type().String()
	switch v := v.(type) {
	case *lua.LTable:
		if v.Metatable == st.ArrayMT || (v.Metatable != st.ObjectMT && v.MaxN() > 0) {
			typ = "array"
		} else {
			typ = "object"
		}
	case *lua.LUserData:
		if v == st.Null {
			typ = "null"
		}
	}
	L.Push(lua.LString(typ))
	return 1
}
