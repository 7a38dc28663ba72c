package codec

import (
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// newTestCodec returns a codec on a plain state with the JSON marks, closed
// when the test ends.
func newTestCodec(tb testing.TB) *Codec {
	L := lua.NewState()
	tb.Cleanup(L.Close)
	c := &Codec{Null: L.NewUserData(), ArrayMT: L.NewTable(), ObjectMT: L.NewTable()}
	c.Init(L, 100_000, 16<<20)
	return c
}

// FuzzStockTablesMatchFresh decodes a payload into tables refilled from the
// stock after another payload's tables went back to it, and checks that they
// are the tables a fresh decode builds: the same JSON, keys in the same order,
// nothing left over from the payload before; and that tables go back empty.
func FuzzStockTablesMatchFresh(f *testing.F) {
	seeds := [][2]string{
		{`{"a":1,"b":[1,2],"c":{"d":"e"}}`, `{"c":{"x":null},"a":[{"b":2}]}`},
		{`{"k":[[],{}],"z":"zz"}`, `{"z":"y","k":{}}`},
		{`{"a":{"a":{"a":{}}}}`, `[]`},
		{`{"a":`, `{"b":[true,false,null]}`},
		{`{"x":1,"x":2,"y":[1,[2,[3]]]}`, `{"y":[],"x":{"y":1}}`},
		{`{"a":1,"b":{"c":"d"}}`, `{"a":2,"b":{"c":"e"}}`},
		{`{"a":1,"b":{"c":"d"}}`, `{"b":{"c":"e"},"a":2}`},
		{`{"a":1,"b":2}`, `{"a":1}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	st := newTestCodec(f)
	f.Fuzz(func(t *testing.T, before, data []byte) {
		st.Stock.Filling = true
		st.Dec.Decode(before) // valid or not: what it built goes back
		st.Stock.Filling = false
		st.Stock.Done(true, st.ArrayMT)
		for _, tb := range append(append([]*lua.LTable{}, st.Stock.objects...), st.Stock.arrays...) {
			r := (*rawTable)(unsafe.Pointer(tb))
			// An object may keep its keys for a payload of the same keys
			// (Stock.take), never anything else.
			if len(r.strdict) != len(r.keys) || len(r.k2i) != len(r.keys) || len(r.array) != 0 || len(r.dict) != 0 ||
				tb.Metatable == st.ArrayMT && len(r.keys) != 0 {
				t.Fatalf("a table went back to the stock holding %d keys (%d, %d), %d items", len(r.keys), len(r.strdict), len(r.k2i), len(r.array))
			}
		}

		st.Stock.Filling = true
		refilled, err1 := st.Dec.Decode(data)
		st.Stock.Filling = false
		fresh, err2 := st.Dec.Decode(data)
		defer st.Stock.Done(false, st.ArrayMT)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("decode %q: refilled %v, fresh %v", data, err1, err2)
		}
		if err1 != nil {
			return
		}
		a, errA := st.Enc.Encode(refilled)
		b, errB := st.Enc.Encode(fresh)
		if (errA == nil) != (errB == nil) || string(a) != string(b) {
			t.Fatalf("after %q, %q decodes to %s (%v) from the stock, %s (%v) fresh", before, data, a, errA, b, errB)
		}
	})
}

// TestStockKeepsKeysOnlyOfTablesLeftInShape: a payload table whose values a
// hook changed keeps its keys for the next payload of the same keys, which
// then reads its own values; one that a hook added a key to, or removed one
// from, goes back empty, so that the next payload never sees the key.
func TestStockKeepsKeysOnlyOfTablesLeftInShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*lua.LTable)
	}{
		{"a value changed", func(tb *lua.LTable) { tb.RawSetString("a", lua.LString("x")) }},
		{"a key added", func(tb *lua.LTable) { tb.RawSetString("z", lua.LTrue) }},
		{"a key removed", func(tb *lua.LTable) { tb.RawSetString("a", lua.LNil) }},
		{"a key removed and another added", func(tb *lua.LTable) {
			tb.RawSetString("a", lua.LNil)
			tb.RawSetString("z", lua.LTrue)
		}},
		{"an item added", func(tb *lua.LTable) { tb.RawSetInt(1, lua.LTrue) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestCodec(t)
			st.Stock.Filling = true
			v, err := st.Dec.Decode([]byte(`{"a":1,"b":"c"}`))
			if err != nil {
				t.Fatal(err)
			}
			tc.change(v.(*lua.LTable))
			st.Stock.Filling = false
			st.Stock.Done(true, st.ArrayMT)

			st.Stock.Filling = true
			v, err = st.Dec.Decode([]byte(`{"a":2,"b":"d"}`))
			st.Stock.Filling = false
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Enc.Encode(v)
			if err != nil || string(got) != `{"a":2,"b":"d"}` {
				t.Fatalf("refilled from the stock: %s, %v", got, err)
			}
			n := 0
			v.(*lua.LTable).ForEach(func(lua.LValue, lua.LValue) { n++ })
			if n != 2 {
				t.Fatalf("the refilled table iterates %d keys, want 2", n)
			}
		})
	}
}
