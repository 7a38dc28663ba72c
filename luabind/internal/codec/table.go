package codec

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
// DirectTables is false and tables are built with RawSetString as before.
type rawTable struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// DirectTables reports whether rawTable matches lua.LTable field for field
// (and the release is the one it was written against: Pinned).
var DirectTables = Pinned && sameLayout(reflect.TypeFor[lua.LTable](), reflect.TypeFor[rawTable]())

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
	if !DirectTables {
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

// NewLookupTable returns a table holding fields (string keys) that Lua code
// can only reach by name, never iterate: a metatable behind __metatable,
// read by the VM through RawGetString. Its fields are in the string
// dictionary alone, without the key list and key-index map that iteration
// needs, which are most of a small table's memory (the module proxies of
// every pooled state have one each). Without DirectTables it is an ordinary
// table.
func NewLookupTable(L *lua.LState, fields map[string]lua.LValue) *lua.LTable {
	if !DirectTables {
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

// NoOtherKeys reports, through the mirror, that t has no key but strings
// and array indexes; false when the mirror is off (DirectTables) or t has
// one.
func NoOtherKeys(t *lua.LTable) bool {
	return DirectTables && len((*rawTable)(unsafe.Pointer(t)).dict) == 0
}

// NewTable returns a table without a metatable holding keys[i] = vals[i]
// (newObjectTable's rules), built at its final size: what a builder of
// outcome tables returns when the stock may not provide it.
func NewTable(L *lua.LState, keys, vals []lua.LValue) *lua.LTable {
	return newObjectTable(L, lua.LNil, keys, vals)
}

// FreshTable is NewTable from the stock (Stock.take): a table Stock.Done took back,
// which goes back to the stock when the call ends as the payload's tables
// do. Only a call of a function LeavesOutcomes approved may take one, and
// only for that function itself (CalledBy).
func (c *Codec) FreshTable(keys, vals []lua.LValue) *lua.LTable {
	if !DirectTables || len(keys) > maxStockKeys {
		return NewTable(c.L, keys, vals)
	}
	s := &c.Stock
	t := s.take(keys, vals)
	if t == nil {
		t = NewTable(c.L, keys, vals)
	}
	t.Metatable = lua.LNil
	s.note(t)
	return t
}

// frameLayout locates, through reflection, lua.LState's currentFrame and the
// Idx, Fn and Parent fields of the call frame it points to (gopher-lua
// v1.1.2); ok is false when a release lays them out otherwise, and then
// CalledBy answers no.
var frameLayout = func() (l struct {
	ok                       bool
	current, idx, fn, parent uintptr
}) {
	cur, ok := reflect.TypeFor[lua.LState]().FieldByName("currentFrame")
	if !Pinned || !ok || cur.Type.Kind() != reflect.Pointer || cur.Type.Elem().Kind() != reflect.Struct {
		return l
	}
	frame := cur.Type.Elem()
	idx, ok1 := frame.FieldByName("Idx")
	fn, ok2 := frame.FieldByName("Fn")
	parent, ok3 := frame.FieldByName("Parent")
	if !ok1 || !ok2 || !ok3 || idx.Type != reflect.TypeFor[int]() ||
		fn.Type != reflect.TypeFor[*lua.LFunction]() || parent.Type != cur.Type {
		return l
	}
	l.ok, l.current, l.idx, l.fn, l.parent = true, cur.Offset, idx.Offset, fn.Offset, parent.Offset
	return l
}()

// CalledBy reports whether the Go function running on L was called by fn
// itself from the outermost frame of L's call stack: by the hook function
// the host called, not by a function it called, nor by itself recursively,
// nor from a metamethod or another coroutine's stack.
func CalledBy(L *lua.LState, fn *lua.LFunction) bool {
	l := &frameLayout
	if !l.ok || L == nil || fn == nil {
		return false
	}
	cur := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), l.current))
	if cur == nil {
		return false
	}
	caller := *(*unsafe.Pointer)(unsafe.Add(cur, l.parent))
	return caller != nil && *(*int)(unsafe.Add(caller, l.idx)) == 0 &&
		*(**lua.LFunction)(unsafe.Add(caller, l.fn)) == fn
}
