package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// stock keeps the tables of earlier payloads for the next one. A call builds
// its payload from the stock's free tables (inputTable, with filling set),
// and notes each table it built in used; when the hook returns and
// leavesInput proved that it kept none of them, they go back to the stock,
// emptied. Building a payload then allocates nothing: no table, no Go map
// (two per gopher-lua table), no key list, which was most of what a call
// allocated and, on two cores, most of what the collector had to chase.
//
// Only tables of at most maxStockKeys keys or items are kept, and at most
// maxStock of them, so a state holds a few KiB more at most; a payload with
// bigger or more tables builds the rest anew.
type stock struct {
	filling bool
	objects []*lua.LTable
	arrays  []*lua.LTable
	used    []*lua.LTable
}

const (
	maxStock     = 16
	maxStockKeys = 32
)

// objectTable returns a table marked as an object holding keys[i] = vals[i]
// (newObjectTable's rules), from the stock when it can.
func (st *state) objectTable(keys, vals []lua.LValue) *lua.LTable {
	s := &st.stock
	if !s.filling || !directTables || len(keys) > maxStockKeys {
		return newObjectTable(st.L, st.objectMT, keys, vals)
	}
	var t *lua.LTable
	if n := len(s.objects); n > 0 {
		t = s.objects[n-1]
		s.objects[n-1] = nil
		s.objects = s.objects[:n-1]
		t.Metatable = st.objectMT
		fillObject((*rawTable)(unsafe.Pointer(t)), keys, vals)
	} else {
		t = newObjectTable(st.L, st.objectMT, keys, vals)
	}
	s.note(t)
	return t
}

// arrayTable returns a table marked as an array holding vals (none nil),
// from the stock when it can.
func (st *state) arrayTable(vals []lua.LValue) *lua.LTable {
	s := &st.stock
	if s.filling && directTables && len(vals) <= maxStockKeys {
		if n := len(s.arrays); n > 0 {
			t := s.arrays[n-1]
			s.arrays[n-1] = nil
			s.arrays = s.arrays[:n-1]
			t.Metatable = st.arrayMT
			r := (*rawTable)(unsafe.Pointer(t))
			r.array = append(r.array, vals...)
			s.note(t)
			return t
		}
	}
	t := st.L.CreateTable(len(vals), 0)
	t.Metatable = st.arrayMT
	for i, v := range vals {
		t.RawSetInt(i+1, v)
	}
	if s.filling && directTables && len(vals) <= maxStockKeys {
		s.note(t)
	}
	return t
}

func (s *stock) note(t *lua.LTable) {
	if len(s.used) < maxStock {
		s.used = append(s.used, t)
	}
}

// done ends a call: keep says that the hook returned and kept none of the
// payload's tables, which then go back to the stock, emptied; otherwise
// they are left to the collector.
func (s *stock) done(keep bool, arrayMT *lua.LTable) {
	s.filling = false
	if keep && directTables {
		for _, t := range s.used {
			r := (*rawTable)(unsafe.Pointer(t))
			if t.Metatable == arrayMT {
				clear(r.array)
				r.array = r.array[:0]
				if len(s.arrays) < maxStock {
					s.arrays = append(s.arrays, t)
				}
				continue
			}
			clear(r.strdict)
			clear(r.k2i)
			clear(r.keys)
			r.keys = r.keys[:0]
			if len(s.objects) < maxStock {
				s.objects = append(s.objects, t)
			}
		}
	}
	clear(s.used)
	s.used = s.used[:0]
}
