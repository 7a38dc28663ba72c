package codec

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The pinned gopher-lua must have the layout newObjectTable writes, or the
// payload's tables silently fall back to the slow path.
func TestDirectTablesMatchTheGopherLuaLayout(t *testing.T) {
	if !DirectTables {
		t.Fatal("lua.LTable's fields differ from rawTable: update rawTable for this gopher-lua")
	}
	type other struct {
		Metatable lua.LValue
		array     []lua.LValue
		dict      map[lua.LValue]lua.LValue
		strdict   map[string]lua.LValue
		k2i       map[lua.LValue]int
		keys      []lua.LValue
	}
	if sameLayout(reflect.TypeFor[lua.LTable](), reflect.TypeFor[other]()) {
		t.Error("sameLayout accepted fields in another order")
	}
}

// A table built at once is the table RawSetString builds key by key: same
// values, same iteration order, and the same behaviour when Lua then adds,
// changes and removes keys.
func TestObjectTablesBehaveLikeTablesBuiltKeyByKey(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	mt := L.NewTable()
	for round := range 200 {
		n := rng.IntN(12)
		keys := make([]lua.LValue, n)
		vals := make([]lua.LValue, n)
		for i := range n {
			keys[i] = lua.LString(fmt.Sprint("k", rng.IntN(8))) // repeats
			vals[i] = lua.LNumber(rng.IntN(100))
		}
		fast := newObjectTable(L, mt, keys, vals)
		slow := L.CreateTable(0, n)
		slow.Metatable = mt
		for i, k := range keys {
			slow.RawSetString(string(k.(lua.LString)), vals[i])
		}
		if fast.Metatable != mt {
			t.Fatal("metatable not set")
		}
		check := func(when string) {
			t.Helper()
			if a, b := dump(fast), dump(slow); a != b {
				t.Fatalf("round %d, %s: built at once %s, key by key %s", round, when, a, b)
			}
		}
		check("built")
		L.SetGlobal("t1", fast)
		L.SetGlobal("t2", slow)
		if err := L.DoString(`
for _, t in ipairs({t1, t2}) do
  t.added = 1; t.k3 = nil; t.k5 = "five"; t[1] = "one"; t.other = {}
end`); err != nil {
			t.Fatal(err)
		}
		slow.RawSetString("other", lua.LTrue)
		fast.RawSetString("other", lua.LTrue)
		check("after Lua changed it")
	}
}

// dump lists a table's pairs in next() order.
func dump(t *lua.LTable) string {
	s := ""
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		s += fmt.Sprintf("%v=%v ", k, v)
	}
	return s
}

// CalledBy finds gopher-lua's call frames (frameLayout), and tells the
// function the host called from a function it calls and from itself
// called again.
func TestCalledByFindsGopherLuaCallFrames(t *testing.T) {
	if !frameLayout.ok {
		t.Fatal("lua.LState's currentFrame or its call frame's Idx, Fn, Parent not found: CalledBy always answers no")
	}
	L := lua.NewState()
	defer L.Close()
	var got []bool
	var top *lua.LFunction
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		got = append(got, CalledBy(L, top))
		return 0
	}))
	if err := L.DoString(`function f(again)
  probe()
  local function helper() probe() end
  helper()
  if not again then f(true) end
  return probe()
end`); err != nil {
		t.Fatal(err)
	}
	top = L.GetGlobal("f").(*lua.LFunction)
	L.Push(top)
	if err := L.PCall(0, 0, nil); err != nil {
		t.Fatal(err)
	}
	// f: probe, helper's probe, f(true): probe, helper's probe, tail probe; f's tail probe.
	want := []bool{true, false, false, false, false, true}
	if !slices.Equal(got, want) {
		t.Fatalf("probes %v, want %v", got, want)
	}
}
