package luabind

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// A repeated key is ambiguous (Lua would see the last value, a host may act
// on the first), so the payload is refused, in toolInput and in every object
// nested in it; json.decode refuses it too.
func TestDuplicateKeysInToolInputAreRejected(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input)
  if input.toolInput.command == "rm -rf /" then return hook.deny("refused") end
end)
hook.register("Stop", nil, function(input) return hook.context(json.encode(json.decode(input.prompt))) end)`, Options{})
	for _, tc := range []struct{ toolInput, key string }{
		{`{"command":"rm -rf /","command":"ls"}`, "command"},
		{`{"a":{"x":1,"y":2,"x":3}}`, "x"},
		{`{"a":[{"k":1},{"k":1,"k":2}]}`, "k"},
		{`{"` + strings.Repeat("k", 100) + `":1,"` + strings.Repeat("k", 100) + `":2}`, strings.Repeat("k", 64) + "…"},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22,"w":23,"x":24,"y":25,"z":26,"aa":27,"bb":28,"cc":29,"dd":30,"ee":31,"ff":32,"gg":33,"a":34}`, "a"},
	} {
		out, err := call(t, f, 0, preToolUse("bash", tc.toolInput))
		if err == nil {
			t.Errorf("%s: answered %+v, want a rejection", tc.toolInput, out)
			continue
		}
		want := `duplicate key "` + tc.key + `" in toolInput`
		if fl := failure(t, err); fl.Kind != luahook.FailRejected || !strings.Contains(fl.Message, want) {
			t.Errorf("%s: failure %v, want rejected: %q", tc.toolInput, fl, want)
		}
	}
	out, err := call(t, f, 0, preToolUse("bash", `{"command":"rm -rf /","a":{"command":"ls"}}`))
	if err != nil || out == nil || out.Reason != "refused" {
		t.Errorf("the same key in two objects: %v, %v; want the hook's denial", out, err)
	}
	_, err = call(t, f, 1, &luahook.Input{Event: luahook.Stop, Prompt: `{"a":1,"a":2}`})
	if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, `json.decode: duplicate key "a"`) {
		t.Errorf("json.decode of a duplicate key: %v", fl)
	}
}

// valuesPayload returns a toolInput of exactly n JSON values (n >= 3): the
// object, its command, an array and n-3 empty arrays in it.
func valuesPayload(n int) string {
	return `{"command":"rm -rf /","pad":[` + strings.TrimSuffix(strings.Repeat("[],", n-3), ",") + `]}`
}

// The payload's conversion into Lua tables is bounded by its number of JSON
// values: at the cap it is converted, one past it is refused before the hook
// runs, naming the limit.
func TestToolInputValuesAreCappedAtMaxInputValues(t *testing.T) {
	src := `hook.register("PreToolUse", nil, function(input) return hook.deny("ran " .. #input.toolInput.pad) end)`
	for _, tc := range []struct {
		name  string
		opts  Options
		limit int
	}{
		{"option", Options{MaxInputValues: 1000}, 1000},
		{"default", Options{}, DefaultMaxInputValues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, src, tc.opts)
			out, err := call(t, f, 0, preToolUse("bash", valuesPayload(tc.limit)))
			if err != nil || out == nil || out.Reason != "ran "+strconv.Itoa(tc.limit-3) {
				t.Fatalf("at the cap: %+v, %v; want the hook to run", out, err)
			}
			_, err = call(t, f, 0, preToolUse("bash", valuesPayload(tc.limit+1)))
			want := "hooks.d/test.lua: the payload's toolInput has more than " + strconv.Itoa(tc.limit) + " JSON values (max_input_values)"
			if fl := failure(t, err); fl.Kind != luahook.FailRejected || fl.Message != want {
				t.Fatalf("one past the cap: %v\nwant rejected: %s", fl, want)
			}
			if s := f.Stats(); s.Busy != 0 || s.Discarded != 0 {
				t.Errorf("stats %+v: the refused call's state must go back to the pool", s)
			}
		})
	}
	f := load(t, src, Options{MaxInputValues: -1})
	if out, err := call(t, f, 0, preToolUse("bash", valuesPayload(DefaultMaxInputValues+10))); err != nil || out == nil {
		t.Errorf("a negative MaxInputValues turns the cap off: %v, %v", out, err)
	}
}

// The conversion watches the caller's context: a caller that gives up
// while a large payload is being converted gets its answer at once.
func TestPayloadConversionStopsWhenTheCallersContextEnds(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function() return hook.deny("ran") end)`, Options{MaxInputValues: -1})
	in := preToolUse("bash", valuesPayload(2_500_000)) // 7.5 MiB: seconds to convert whole

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	_, err := f.Registrations()[0].Hook.Call(ctx, in)
	took := time.Since(start)
	if fl := failure(t, err); fl.Kind != luahook.FailAborted || !strings.Contains(fl.Message, "converting the payload") {
		t.Errorf("failure %v, want aborted while converting the payload", fl)
	}
	if took > 500*time.Millisecond {
		t.Errorf("the call returned %v after it started, its caller gave up after 10ms", took)
	}
}

// json.decode in a hook keeps the same bounds as the payload's conversion:
// the cap on values, and the hook's deadline (a prompt of 2.5 million empty
// arrays is refused, or stopped, rather than converted for seconds).
func TestJSONDecodeIsBoundedLikeThePayload(t *testing.T) {
	src := `hook.register("Stop", nil, function(input) json.decode(input.prompt) return hook.deny("decoded") end)`
	f := load(t, src, Options{MaxInputValues: 1000})
	prompt := func(n int) *luahook.Input { return &luahook.Input{Event: luahook.Stop, Prompt: valuesPayload(n)} }
	if out, err := call(t, f, 0, prompt(1000)); err != nil || out == nil {
		t.Errorf("at the cap: %v, %v", out, err)
	}
	_, err := call(t, f, 0, prompt(1001))
	if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, "json.decode: more than 1000 JSON values (max_input_values)") {
		t.Errorf("one past the cap: %v", fl)
	}
	f = load(t, src, Options{MaxInputValues: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	in := prompt(2_500_000)
	start := time.Now()
	_, err = f.Registrations()[0].Hook.Call(ctx, in)
	if fl := failure(t, err); fl.Kind != luahook.FailTimeout {
		t.Errorf("a json.decode past the deadline: %v, want a timeout", fl)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("the call returned after %v with a 20ms deadline", took)
	}
}
