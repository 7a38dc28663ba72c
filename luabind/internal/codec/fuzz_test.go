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
			if len(r.strdict) != 0 || len(r.k2i) != 0 || len(r.keys) != 0 || len(r.array) != 0 {
				t.Fatalf("a table went back to the stock holding %d keys, %d items", len(r.keys), len(r.array))
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
