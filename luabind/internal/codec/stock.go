package codec

import (
	"slices"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Stock keeps the tables of earlier payloads for the next one. A call builds
// its payload from the stock's free tables (with Filling set),
// and notes each table it built in used; when the hook returns and
// LeavesInput proved that it kept none of them, they go back to the stock,
// emptied, except that an object the hook left in shape keeps its keys (and
// its old values, until then) for the next payload of the same keys, which
// only sets the values (Stock.take). Building a payload then allocates nothing: no table, no Go map
// (two per gopher-lua table), no key list, which was most of what a call
// allocated and, on two cores, most of what the collector had to chase.
//
// Only tables of at most maxStockKeys keys or items are kept, and at most
// maxStock of them, so a state holds a few KiB more at most; a payload with
// bigger or more tables builds the rest anew.
type Stock struct {
	Filling bool
	objects []*lua.LTable
	arrays  []*lua.LTable
	used    []*lua.LTable
}

const (
	maxStock     = 16
	maxStockKeys = 32
)

// ObjectTable returns a table marked as an object holding keys[i] = vals[i]
// (newObjectTable's rules), from the stock when it can.
func (c *Codec) ObjectTable(keys, vals []lua.LValue) *lua.LTable {
	s := &c.Stock
	if !s.takes(len(keys)) {
		return newObjectTable(c.L, c.ObjectMT, keys, vals)
	}
	t := s.take(keys, vals)
	if t == nil {
		t = newObjectTable(c.L, c.ObjectMT, keys, vals)
	}
	t.Metatable = c.ObjectMT
	s.note(t)
	return t
}

// take returns a table of the stock holding keys[i] = vals[i], or nil when
// the stock has none. A table that held the same keys in the same order
// last time only has its values set.
func (s *Stock) take(keys, vals []lua.LValue) *lua.LTable {
	if t := s.sameKeys(keys); t != nil {
		r := (*rawTable)(unsafe.Pointer(t))
		for i, k := range keys {
			r.strdict[string(k.(lua.LString))] = vals[i]
		}
		return t
	}
	t := pop(&s.objects)
	if t != nil {
		r := (*rawTable)(unsafe.Pointer(t))
		emptyObject(r)
		fillObject(r, keys, vals)
	}
	return t
}

// sameKeys takes from the stock an object table that holds exactly keys,
// in that order (and nothing else: Done kept its keys only when the hook
// left its shape alone), or returns nil.
func (s *Stock) sameKeys(keys []lua.LValue) *lua.LTable {
	if len(keys) == 0 {
		return nil
	}
	for j := len(s.objects) - 1; j >= 0; j-- {
		t := s.objects[j]
		r := (*rawTable)(unsafe.Pointer(t))
		if len(r.keys) != len(keys) || r.keys[0] != keys[0] || !slices.Equal(r.keys, keys) {
			continue
		}
		last := len(s.objects) - 1
		s.objects[j], s.objects[last] = s.objects[last], nil
		s.objects = s.objects[:last]
		return t
	}
	return nil
}

// emptyObject empties an object table whose keys Done kept.
func emptyObject(r *rawTable) {
	if len(r.keys) == 0 {
		return
	}
	clear(r.strdict)
	clear(r.k2i)
	clear(r.keys)
	r.keys = r.keys[:0]
}

// ArrayTable returns a table marked as an array holding vals (none nil),
// from the stock when it can.
func (c *Codec) ArrayTable(vals []lua.LValue) *lua.LTable {
	s := &c.Stock
	stocked := s.takes(len(vals))
	var t *lua.LTable
	if stocked {
		t = pop(&s.arrays)
	}
	if t == nil {
		t = c.L.CreateTable(len(vals), 0)
		for i, v := range vals {
			t.RawSetInt(i+1, v)
		}
	} else {
		r := (*rawTable)(unsafe.Pointer(t))
		r.array = append(r.array, vals...)
	}
	t.Metatable = c.ArrayMT
	if stocked {
		s.note(t)
	}
	return t
}

// takes reports whether a table of n keys or items is built from the stock
// and goes back to it.
func (s *Stock) takes(n int) bool {
	return s.Filling && DirectTables && n <= maxStockKeys
}

// pop takes the last table of list, or returns nil.
func pop(list *[]*lua.LTable) *lua.LTable {
	n := len(*list)
	if n == 0 {
		return nil
	}
	t := (*list)[n-1]
	(*list)[n-1] = nil
	*list = (*list)[:n-1]
	return t
}

func (s *Stock) note(t *lua.LTable) {
	if len(s.used) < maxStock {
		s.used = append(s.used, t)
	}
}

// Done ends a call: keep says that the hook returned and kept none of the
// payload's tables, which then go back to the stock, emptied; otherwise
// they are left to the collector.
func (s *Stock) Done(keep bool, arrayMT *lua.LTable) {
	s.Filling = false
	if keep && DirectTables {
		for _, t := range s.used {
			// Every part, whatever the table is: a hook may have written
			// into it (LeavesInput lets a plain value be written).
			r := (*rawTable)(unsafe.Pointer(t))
			clear(r.array)
			r.array = r.array[:0]
			clear(r.dict)
			// An object whose shape the hook left alone (no key added
			// or removed: a removal leaves its key in the key list, an
			// addition lengthens all three) keeps its keys and their
			// index for a payload of the same keys (ObjectTable), which
			// then only sets the values; the old values stay until then.
			if t.Metatable == arrayMT || len(r.strdict) != len(r.keys) || len(r.k2i) != len(r.keys) {
				clear(r.strdict)
				clear(r.k2i)
				clear(r.keys)
				r.keys = r.keys[:0]
			}
			if t.Metatable == arrayMT {
				if len(s.arrays) < maxStock {
					s.arrays = append(s.arrays, t)
				}
				continue
			}
			if len(s.objects) < maxStock {
				s.objects = append(s.objects, t)
			}
		}
	}
	clear(s.used)
	s.used = s.used[:0]
}

// Len returns the number of tables the stock holds for the next call.
func (s *Stock) Len() int { return len(s.objects) + len(s.arrays) }
