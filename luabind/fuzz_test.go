package luabind

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// FuzzToolInputRoundTrip feeds arbitrary bytes as a tool input to a hook that
// returns it unchanged: valid JSON objects come back with the same meaning,
// anything else is a clean failure, and nothing panics.
func FuzzToolInputRoundTrip(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `{"n":9007199254740992,"f":1.5e-7}`,
		`{"e":[],"o":{}}`, `{"a":`, `[1]`, `{"a":"\ud800"}`, `{"a":1e400}`} {
		f.Add([]byte(s))
	}
	file := load(f, `hook.register("PreToolUse", nil, function(input) return hook.mutate(input.toolInput) end)`, Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := call(t, file, 0, preToolUse("any", string(data)))
		var want map[string]any
		if json.Unmarshal(data, &want) != nil {
			if err == nil && out != nil && out.Input != nil {
				var got any
				if json.Unmarshal(out.Input, &got) != nil {
					t.Fatalf("invalid input %q came back as invalid JSON %q", data, out.Input)
				}
			}
			return
		}
		if err != nil {
			// Valid JSON the hook cannot carry (numbers out of float64 range,
			// nesting past the limit) must fail cleanly, which it did.
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out.Input, &got); err != nil {
			t.Fatalf("input %s came back as invalid JSON %q: %v", data, out.Input, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %s came back as %s", data, out.Input)
		}
	})
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
	file := load(f, `hook.register("Stop", nil, function() end)`, Options{MaxStates: 1})
	st, err := file.pool.get(context.Background(), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { file.pool.put(st) })
	f.Fuzz(func(t *testing.T, before, data []byte) {
		st.stock.filling = true
		st.dec.decode(before) // valid or not: what it built goes back
		st.stock.filling = false
		st.stock.done(true, st.arrayMT)
		for _, tb := range append(append([]*lua.LTable{}, st.stock.objects...), st.stock.arrays...) {
			r := (*rawTable)(unsafe.Pointer(tb))
			if len(r.strdict) != 0 || len(r.k2i) != 0 || len(r.keys) != 0 || len(r.array) != 0 {
				t.Fatalf("a table went back to the stock holding %d keys, %d items", len(r.keys), len(r.array))
			}
		}

		st.stock.filling = true
		refilled, err1 := st.dec.decode(data)
		st.stock.filling = false
		fresh, err2 := st.dec.decode(data)
		defer st.stock.done(false, st.arrayMT)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("decode %q: refilled %v, fresh %v", data, err1, err2)
		}
		if err1 != nil {
			return
		}
		a, errA := st.enc.encode(refilled)
		b, errB := st.enc.encode(fresh)
		if (errA == nil) != (errB == nil) || string(a) != string(b) {
			t.Fatalf("after %q, %q decodes to %s (%v) from the stock, %s (%v) fresh", before, data, a, errA, b, errB)
		}
	})
}
