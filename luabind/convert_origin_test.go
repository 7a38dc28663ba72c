package luabind

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// trickyNumbers is a toolInput whose numbers do not survive a trip through
// float64 and back to encoding/json's formatting: past 2^53, past int64,
// long fractions, exponents, -0, texts that are not the shortest form.
const trickyNumbers = `{"id": 9007199254740993, "big": 12345678901234567890123, "huge": -123456789012345678901234567890e5,
  "frac": 0.1000000000000000055, "exp": 1E+2, "small": 1.5e-7, "neg0": -0, "zero": 0.0, "one": 1.0,
  "int64": 9223372036854775807, "uint64": 18446744073709551615, "max": 1.7976931348623157e308, "tiny": 5e-324,
  "s": "\u00e9\n\/\ud83d\ude00", "nested": {"a": [1.0, 2.50, 9007199254740993, {"b": 1e1}], "c": []},
  "cmd": "ls"}`

// compact returns text without insignificant white space, as a test oracle.
func compact(t testing.TB, text string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		t.Fatalf("compact %s: %v", text, err)
	}
	return b.String()
}

// mutated runs a PreToolUse hook with body as its function's body (input is
// the payload) on toolInput and returns the input its mutate outcome carries.
func mutated(t *testing.T, body, toolInput string) string {
	t.Helper()
	f := load(t, `hook.register("PreToolUse", nil, function(input)
`+body+`
end)`, Options{})
	out, err := call(t, f, 0, preToolUse("any", toolInput))
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	if out == nil || out.Input == nil {
		t.Fatalf("hook returned %+v, want a mutate", out)
	}
	return string(out.Input)
}

// TestMutateKeepsTheTextOfValuesItDidNotChange: a rewrite changes only what
// the hook changed; every number, string and key it left alone comes back as
// the text it came in (compacted), not as float64 formatting.
func TestMutateKeepsTheTextOfValuesItDidNotChange(t *testing.T) {
	want := compact(t, trickyNumbers)
	t.Run("unchanged", func(t *testing.T) {
		if got := mutated(t, `return hook.mutate(input.toolInput)`, trickyNumbers); got != want {
			t.Errorf("returned unchanged, came back\n  %s\nwant\n  %s", got, want)
		}
	})
	t.Run("one field changed", func(t *testing.T) {
		got := mutated(t, `local t = input.toolInput t.cmd = "ls -la" return hook.mutate(t)`, trickyNumbers)
		if w := strings.Replace(want, `"cmd":"ls"`, `"cmd":"ls -la"`, 1); got != w {
			t.Errorf("with cmd changed, came back\n  %s\nwant\n  %s", got, w)
		}
	})
	t.Run("legacy modifiedInput", func(t *testing.T) {
		got := mutated(t, `return {decision = "allow", modifiedInput = input.toolInput, extra = 1}`, trickyNumbers)
		if got != want {
			t.Errorf("as modifiedInput, came back\n  %s\nwant\n  %s", got, want)
		}
	})
	t.Run("a copy built by the hook", func(t *testing.T) {
		got := mutated(t, `
local function copy(v)
  if type(v) ~= "table" then return v end
  local c = json.type(v) == "array" and json.array() or json.object()
  for k, x in pairs(v) do c[k] = copy(x) end
  return c
end
return hook.mutate(copy(input.toolInput))`, trickyNumbers)
		if got != want {
			t.Errorf("copied, came back\n  %s\nwant\n  %s", got, want)
		}
	})
}

// TestMutateFormatsTheValuesItChanged: what the hook changed is written from
// its Lua value, compared by path with the value the original text at the
// same path stands for: moved values, array items shifted by a removal, keys
// added and removed, a number changed to another type.
func TestMutateFormatsTheValuesItChanged(t *testing.T) {
	tests := []struct {
		name, in, body, want string
	}{
		{"a changed number", `{"a":9007199254740993,"b":9007199254740993}`,
			`t.a = t.a + 2`, `{"a":9007199254740994,"b":9007199254740993}`},
		{"-0 changed to 0", `{"a":-0,"b":-0}`, `t.a = 0`, `{"a":0,"b":-0}`},
		{"moved onto an equal value", `{"a":9007199254740993,"b":9007199254740993}`,
			`t.b = t.a`, `{"a":9007199254740993,"b":9007199254740993}`},
		{"moved onto another value", `{"a":9007199254740993,"b":1}`,
			`t.b = t.a`, `{"a":9007199254740993,"b":9007199254740992}`},
		{"moved to a new key", `{"a":0.1000000000000000055}`,
			`t.c = t.a`, `{"a":0.1000000000000000055,"c":0.1}`},
		{"array shifted by a removal", `{"a":[1E0,9007199254740993,9007199254740993]}`,
			`table.remove(t.a, 1)`, `{"a":[9007199254740992,9007199254740993]}`},
		{"array grown", `{"a":[1E0,2E0]}`, `t.a[3] = 3`, `{"a":[1E0,2E0,3]}`},
		{"key removed", `{"a":1E0,"b":2E0,"c":3E0}`, `t.b = nil`, `{"a":1E0,"c":3E0}`},
		{"key added", `{"a":1E0,"b":2E0}`, `t.c = 1`, `{"a":1E0,"b":2E0,"c":1}`},
		{"number to string", `{"a":1E0}`, `t.a = "1E0"`, `{"a":"1E0"}`},
		{"string changed", `{"a":"\u0061","b":"\u0062"}`, `t.a = "x"`, `{"a":"x","b":"\u0062"}`},
		{"object to array", `{"a":{"x":1E0}}`, `t.a = json.array({1})`, `{"a":[1]}`},
		{"array to object", `{"a":[1E0]}`, `t.a = {x = 1}`, `{"a":{"x":1}}`},
		{"keys reordered in a new table", `{"a":1E0,"b":2E0,"\u0063":3E0}`,
			`local n = json.object() n.c = t.c n.b = t.b n.a = t.a t = n`,
			`{"\u0063":3E0,"b":2E0,"a":1E0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mutated(t, `local t = input.toolInput `+tt.body+` return hook.mutate(t)`, tt.in)
			if got != tt.want {
				t.Errorf("%s on %s came back\n  %s\nwant\n  %s", tt.body, tt.in, got, tt.want)
			}
		})
	}
}

// TestJSONEncodeFormatsNumbersAsEncodingJSON: json.encode knows no original
// text; it writes a table from the payload as encoding/json would.
func TestJSONEncodeFormatsNumbersAsEncodingJSON(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) return hook.deny(json.encode(input.toolInput)) end)`, Options{})
	out, err := call(t, f, 0, preToolUse("any", `{"a":9007199254740993,"b":1E0,"c":"\u0061"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":9007199254740992,"b":1,"c":"a"}`; out.Reason != want {
		t.Errorf("json.encode gave %s, want %s", out.Reason, want)
	}
}

// TestToolInputOutOfFloat64RangeIsRefused: a number past float64's range
// cannot be carried at all, so the payload is refused before the hook runs
// rather than passed on changed or unread.
func TestToolInputOutOfFloat64RangeIsRefused(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) return hook.mutate(input.toolInput) end)`, Options{})
	for _, text := range []string{`{"a":1e400}`, `{"a":-1e309}`, `{"a":[1,{"b":17976931348623159e292}]}`} {
		out, err := call(t, f, 0, preToolUse("any", text))
		if err == nil {
			t.Errorf("%s: came back %+v, want a failure", text, out)
			continue
		}
		if fl := failure(t, err); !strings.Contains(fl.Message, "out of the float64 range") {
			t.Errorf("%s: failure %q, want it to say the number is out of the float64 range", text, fl.Message)
		}
	}
}

// decodeNumbers decodes data into v keeping every number's text
// (json.Number), so that comparing two values compares numbers exactly.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// BenchmarkEncodeInputAlongside measures what walking the original text costs
// a mutate's encoding: the 100 KiB toolInput encoded plainly, then alongside
// its text.
func BenchmarkEncodeInputAlongside(b *testing.B) {
	file := load(b, `hook.register("Stop", nil, function() end)`, Options{MaxStates: 1})
	st, err := file.pool.get(context.Background(), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { file.pool.put(st) })
	text := []byte(bigToolInput())
	v, err := st.Dec.Decode(text)
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name string
		orig []byte
	}{{"plain", nil}, {"alongside", text}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.Enc.EncodeInput(v, bb.orig); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
