package luabind

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzToolInputRoundTrip feeds arbitrary bytes as a tool input to a hook that
// returns it unchanged: a JSON object the hook could carry comes back as its
// own text, compacted, byte for byte (numbers float64 cannot hold, escapes
// and all); anything else is a clean failure, and nothing panics.
func FuzzToolInputRoundTrip(f *testing.F) {
	for _, s := range fuzzToolInputSeeds {
		f.Add([]byte(s))
	}
	file := load(f, `hook.register("PreToolUse", nil, function(input) return hook.mutate(input.toolInput) end)`, Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := call(t, file, 0, preToolUse("any", string(data)))
		var want map[string]any
		if json.Unmarshal(data, &want) != nil || want == nil {
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
			// nesting past the limit, a key twice) must fail cleanly, which it did.
			return
		}
		if w := compact(t, string(data)); string(out.Input) != w {
			t.Fatalf("input %q came back as\n  %q\nwant\n  %q", data, out.Input, w)
		}
	})
}

// fuzzToolInputSeeds are tool inputs with texts a float64 round trip or a
// re-encoding would change.
var fuzzToolInputSeeds = []string{`{}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `{"n":9007199254740992,"f":1.5e-7}`,
	`{"e":[],"o":{}}`, `{"a":`, `[1]`, `{"a":"\ud800"}`, `{"a":1e400}`, trickyNumbers,
	`{"n":9007199254740993,"m":-9007199254740993,"i":[18446744073709551616,1e22,1E-7,0.1000000000000000055]}`,
	`{"z":-0,"y":-0.0,"x":0e10,"w":1.0e+0,"v":2.2250738585072011e-308,"u":4.9406564584124654e-324}`,
	`{ "a" : { "b" : [ 1 , 2.000 , "\/" ] } , "\u0063" : "\uDBFF\uDFFF" }`,
	"{\"raw\":\"\xff\xfe\u2028\"}", `{"a":1,"a":2}`}

// FuzzMutateChangesOnlyWhatItChanged feeds arbitrary tool inputs to a hook
// that sets the first key of the toolInput to null: what comes back is the
// input's own compacted text with that one value replaced, every other
// number, string and key as it came.
func FuzzMutateChangesOnlyWhatItChanged(f *testing.F) {
	for _, s := range fuzzToolInputSeeds {
		f.Add([]byte(s))
	}
	file := load(f, `hook.register("PreToolUse", nil, function(input)
  local t = input.toolInput
  local k = next(t)
  if k ~= nil then t[k] = json.null end
  return hook.mutate(t)
end)`, Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil || doc == nil {
			return
		}
		out, err := call(t, file, 0, preToolUse("any", string(data)))
		if err != nil {
			return // valid JSON the hook cannot carry, refused cleanly
		}
		c := compact(t, string(data))
		want := c
		if len(doc) > 0 {
			dec := json.NewDecoder(strings.NewReader(c))
			dec.Token()                        // '{'
			dec.Token()                        // the first key
			from := int(dec.InputOffset()) + 1 // after the ':'
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			want = c[:from] + "null" + c[dec.InputOffset():]
		}
		if string(out.Input) != want {
			t.Fatalf("input %q came back as\n  %q\nwant\n  %q", data, out.Input, want)
		}
	})
}

// FuzzMutateReorderedKeepsNumbers feeds arbitrary tool inputs to a hook that
// rebuilds every object with its keys in reverse order: every number comes
// back as the text it came as (and every string with its value), found by
// key wherever the key now stands.
func FuzzMutateReorderedKeepsNumbers(f *testing.F) {
	for _, s := range fuzzToolInputSeeds {
		f.Add([]byte(s))
	}
	file := load(f, `
local function reversed(v)
  if type(v) ~= "table" then return v end
  if json.type(v) == "array" then
    local a = json.array()
    for i = 1, #v do a[i] = reversed(v[i]) end
    return a
  end
  local ks = {}
  for k in pairs(v) do ks[#ks + 1] = k end
  local o = json.object()
  for i = #ks, 1, -1 do o[ks[i]] = reversed(v[ks[i]]) end
  return o
end
hook.register("PreToolUse", nil, function(input) return hook.mutate(reversed(input.toolInput)) end)`, Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]any
		if decodeNumbers(distinctInvalid(data), &want) != nil || want == nil {
			return
		}
		out, err := call(t, file, 0, preToolUse("any", string(data)))
		if err != nil {
			return // valid JSON the hook cannot carry, refused cleanly
		}
		var got map[string]any
		if err := decodeNumbers(distinctInvalid(out.Input), &got); err != nil {
			t.Fatalf("input %q came back as invalid JSON %q: %v", data, out.Input, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q came back as\n  %q", data, out.Input)
		}
	})
}

// distinctInvalid replaces each byte that is not valid UTF-8 with a private-use
// character of its own (U+E000 + the byte): encoding/json would turn every
// such byte into U+FFFD, making keys "\xaf" and "\xad" one key, so that which
// of the two a decoded map keeps would depend on their order. The hook passes
// the bytes through as they came; this keeps them apart for the comparison.
func distinctInvalid(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, 0xE000+rune(b[0]))
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// FuzzEncodeInputAlongsideAnyText encodes a decoded document alongside an
// arbitrary text, as if the payload's toolInput had changed after it was
// decoded: the encoder never panics and writes valid JSON whatever the text.
func FuzzEncodeInputAlongsideAnyText(f *testing.F) {
	for i, s := range fuzzToolInputSeeds {
		f.Add([]byte(s), []byte(fuzzToolInputSeeds[(i+1)%len(fuzzToolInputSeeds)]))
		f.Add([]byte(s), []byte(s))
	}
	f.Add([]byte(`{"a":1,"b":"x"}`), []byte(`{"a":0x1p0,"b":"x`+"\x01"+`"}`))
	f.Add([]byte(`{"a":1,"b":true}`), []byte(`{"a":1_0,"b":tru}`))
	file := load(f, `hook.register("Stop", nil, function() end)`, Options{MaxStates: 1})
	st, err := file.pool.get(context.Background(), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { file.pool.put(st) })
	f.Fuzz(func(t *testing.T, doc, text []byte) {
		v, err := st.Dec.Decode(doc)
		if err != nil {
			return
		}
		out, err := st.Enc.EncodeInput(v, text)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q encoded alongside %q as invalid JSON %q", doc, text, out)
		}
	})
}
