package luabind

import (
	"encoding/json"
	"reflect"
	"testing"
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
