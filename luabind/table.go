package luabind

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// rawTable mirrors lua.LTable's fields (gopher-lua v1.1.2). A table built
// key by key with RawSetString grows its key list from nothing, rehashes its
// key-index map as it fills, and boxes every key into an interface twice;
// the tables the payload becomes on every call have their keys known up
// front, so newObjectTable builds them at their final size instead, with
// keys boxed once per state. If a gopher-lua release changes the layout,
// directTables is false and tables are built with RawSetString as before.
type rawTable struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// directTables reports whether rawTable matches lua.LTable field for field.
var directTables = sameLayout(reflect.TypeFor[lua.LTable](), reflect.TypeFor[rawTable]())

func sameLayout(got, want reflect.Type) bool {
	if got.Size() != want.Size() || got.NumField() != want.NumField() {
		return false
	}
	for i := range got.NumField() {
		g, w := got.Field(i), want.Field(i)
		if g.Name != w.Name || g.Type != w.Type || g.Offset != w.Offset {
			return false
		}
	}
	return true
}

// newObjectTable returns a table with metatable mt holding keys[i] =
// vals[i], iterated in that order: the table RawSetString would build, key
// by key. Every key is an LString and no value is nil (a JSON null is
// json.null); a repeated key keeps its first place and its last value.
func newObjectTable(L *lua.LState, mt lua.LValue, keys, vals []lua.LValue) *lua.LTable {
	n := len(keys)
	if !directTables {
		t := L.CreateTable(0, n)
		t.Metatable = mt
		for i, k := range keys {
			t.RawSetString(string(k.(lua.LString)), vals[i])
		}
		return t
	}
	t := &lua.LTable{Metatable: mt}
	if n == 0 {
		return t
	}
	fillObject((*rawTable)(unsafe.Pointer(t)), keys, vals)
	return t
}

// fillObject sets keys[i] = vals[i] in an empty object table (one with no
// keys, or none yet), in that order.
func fillObject(r *rawTable, keys, vals []lua.LValue) {
	n := len(keys)
	if n == 0 {
		return
	}
	if r.strdict == nil {
		r.strdict = make(map[string]lua.LValue, n)
		r.k2i = make(map[lua.LValue]int, n)
		r.keys = make([]lua.LValue, 0, n)
	}
	for i, k := range keys {
		r.strdict[string(k.(lua.LString))] = vals[i]
		if _, ok := r.k2i[k]; !ok {
			r.k2i[k] = len(r.keys)
			r.keys = append(r.keys, k)
		}
	}
}

// newLookupTable returns a table holding fields (string keys) that Lua code
// can only reach by name, never iterate: a metatable behind __metatable,
// read by the VM through RawGetString. Its fields are in the string
// dictionary alone, without the key list and key-index map that iteration
// needs, which are most of a small table's memory (the module proxies of
// every pooled state have one each). Without directTables it is an ordinary
// table.
func newLookupTable(L *lua.LState, fields map[string]lua.LValue) *lua.LTable {
	if !directTables {
		t := L.CreateTable(0, len(fields))
		for k, v := range fields {
			t.RawSetString(k, v)
		}
		return t
	}
	t := &lua.LTable{}
	(*rawTable)(unsafe.Pointer(t)).strdict = fields
	return t
}
