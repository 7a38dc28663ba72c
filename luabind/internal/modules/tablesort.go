package modules

import (
	lua "github.com/yuin/gopher-lua"
)

// sortCheckPeriod is how much work table.sort does between two checks of the
// context: a unit is a comparison, or 1 KiB of two strings compared.
const sortCheckPeriod = 1 << 8

// tableSort is table.sort as Lua 5.1 implements it (ltablib.c's auxsort),
// which, unlike gopher-lua's, watches the context: a comparison of two long
// strings reads them whole, and substrings share their memory, so 500 strings
// of 15 MiB cost nothing to make and seconds to sort. An order function that
// is not a strict order gets Lua 5.1's "invalid order function for sorting".
func (m *Modules) tableSort(L *lua.LState) int {
	so := &sorter{L: L, t: L.CheckTable(1)}
	if L.Get(2) != lua.LNil {
		so.less = L.CheckFunction(2)
	}
	so.sort(1, so.t.Len())
	return 0
}

type sorter struct {
	L           *lua.LState
	t           *lua.LTable
	less        *lua.LFunction // nil: the < operator
	work, check int
}

// lt reports whether a sorts before b, counting the work.
func (so *sorter) lt(a, b lua.LValue) bool {
	L := so.L
	n := 1
	if x, ok := a.(lua.LString); ok {
		if y, ok := b.(lua.LString); ok {
			n += min(len(x), len(y)) >> 10
		}
	}
	if so.work += n; so.work >= so.check {
		so.check = so.work + sortCheckPeriod
		raiseIfDone(L, "table.sort")
	}
	if so.less == nil {
		return L.LessThan(a, b)
	}
	L.Push(so.less)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	r := lua.LVAsBool(L.Get(-1))
	L.Pop(1)
	return r
}

func (so *sorter) get(i int) lua.LValue { return so.t.RawGetInt(i) }

func (so *sorter) swap(i, j int) {
	a, b := so.t.RawGetInt(i), so.t.RawGetInt(j)
	so.t.RawSetInt(i, b)
	so.t.RawSetInt(j, a)
}

// sort sorts t[l..u]: quicksort on the median of three, recursing into the
// smaller part, so at most log2(n) deep.
func (so *sorter) sort(l, u int) {
	for l < u {
		if so.lt(so.get(u), so.get(l)) {
			so.swap(l, u)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		if so.lt(so.get(i), so.get(l)) {
			so.swap(i, l)
		} else if so.lt(so.get(u), so.get(i)) {
			so.swap(i, u)
		}
		if u-l == 2 {
			break
		}
		pivot := so.get(i)
		so.swap(i, u-1)
		// a[l] <= pivot == a[u-1] <= a[u]: partition a[l+1..u-2]
		i, j := l, u-1
		for {
			for i++; so.lt(so.get(i), pivot); i++ {
				if i > u {
					so.L.RaiseError("invalid order function for sorting")
				}
			}
			for j--; so.lt(pivot, so.get(j)); j-- {
				if j < l {
					so.L.RaiseError("invalid order function for sorting")
				}
			}
			if j < i {
				break
			}
			so.swap(i, j)
		}
		so.swap(u-1, i)
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		so.sort(j, i)
	}
}
