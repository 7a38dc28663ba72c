package luabind

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func TestHookAskAndContinueBuildTheirOutcomes(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) return hook.ask("force push to " .. input.toolInput.command .. "?") end)
hook.register("Stop", nil, function() return hook.continue("run the tests") end)
hook.register("PreToolUse", nil, function() return hook.ask() end)`, Options{})
	out, err := call(t, f, 0, preToolUse("bash", `{"command":"main"}`))
	if err != nil || out == nil || out.Action != luahook.ActionAsk || out.Reason != "force push to main?" {
		t.Errorf("hook.ask: %+v, %v", out, err)
	}
	out, err = call(t, f, 1, &luahook.Input{Event: luahook.Stop, Cwd: "/"})
	if err != nil || out == nil || out.Action != luahook.ActionContinue || out.Reason != "run the tests" {
		t.Errorf("hook.continue: %+v, %v", out, err)
	}
	_, err = call(t, f, 2, preToolUse("bash", `{}`))
	if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, "bad argument #1 to ask") {
		t.Errorf("hook.ask(): %v, want an argument error", fl)
	}
}

// withNative returns a PreToolUse payload sent by an agent, its native
// payload native.
func withNative(toolInput, native string) *luahook.Input {
	in := preToolUse("Bash", toolInput)
	in.Agent, in.Native = "claude", json.RawMessage(native)
	return in
}

func TestAgentAndNativeReachLua(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input)
  return hook.deny(input.agent .. " " .. input.native.tool_name .. " " .. input.native.permission_mode)
end)`, Options{})
	out, err := call(t, f, 0, withNative(`{"command":"ls"}`, `{"tool_name":"Bash","permission_mode":"plan","tool_input":{"command":"ls"}}`))
	if err != nil || out == nil || out.Reason != "claude Bash plan" {
		t.Errorf("got %+v, %v", out, err)
	}
}

// toolInput and native are converted under one cap on values: a payload
// whose two documents together are over max_input_values is refused, and
// a duplicate key in native is refused as in toolInput (for a hook that may
// read native: see TestNativeIsConvertedOnlyForHooksThatMayReadIt).
func TestToolInputAndNativeShareMaxInputValues(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) local _ = input.native; return hook.deny("ran") end)`, Options{MaxInputValues: 100})
	half := valuesPayload(50)
	if out, err := call(t, f, 0, withNative(half, half)); err != nil || out == nil || out.Reason != "ran" {
		t.Fatalf("100 values in all: %+v, %v; want the hook to run", out, err)
	}
	_, err := call(t, f, 0, withNative(half, valuesPayload(51)))
	want := "hooks.d/test.lua: the payload's toolInput and native have more than 100 JSON values (max_input_values)"
	if fl := failure(t, err); fl.Kind != luahook.FailRejected || fl.Message != want {
		t.Errorf("101 values in all: %v\nwant rejected: %s", fl, want)
	}
	in := preToolUse("Bash", "")
	in.ToolInput, in.Native = nil, json.RawMessage(valuesPayload(101))
	_, err = call(t, f, 0, in)
	want = "hooks.d/test.lua: the payload's native has more than 100 JSON values (max_input_values)"
	if fl := failure(t, err); fl.Kind != luahook.FailRejected || fl.Message != want {
		t.Errorf("native alone over the cap: %v\nwant rejected: %s", fl, want)
	}
	_, err = call(t, f, 0, withNative(`{}`, `{"a":1,"a":2}`))
	if fl := failure(t, err); fl.Kind != luahook.FailRejected || !strings.Contains(fl.Message, `duplicate key "a" in native`) {
		t.Errorf("a duplicate key in native: %v", fl)
	}
	if s := f.Stats(); s.Busy != 0 || s.Discarded != 0 {
		t.Errorf("stats %+v: the refused calls' states must go back to the pool", s)
	}
}

// native, a copy of most of the payload, is converted only for the hooks
// that may read it (codec.MayReadField): a hook that reads other fields
// only is called without it (so a native over the caps or with a key twice
// does not concern it), and every hook that may reach it sees it whole.
func TestNativeIsConvertedOnlyForHooksThatMayReadIt(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) return hook.deny("ran " .. input.toolInput.command) end)
hook.register("PreToolUse", nil, function(input) return hook.deny(json.encode(input.native)) end)
hook.register("PreToolUse", nil, function(input) local k = "nat" .. "ive"; return hook.deny(input[k].tool_name) end)
hook.register("PreToolUse", nil, function(input) local seen = "none"; for k in pairs(input) do if k == "native" then seen = k end end; return hook.deny(seen) end)`,
		Options{MaxInputValues: 100})
	over := withNative(`{"command":"ls"}`, valuesPayload(101))
	if out, err := call(t, f, 0, over); err != nil || out == nil || out.Reason != "ran ls" {
		t.Errorf("a hook that never reads native: %+v, %v; want it to run", out, err)
	}
	if out, err := call(t, f, 0, withNative(`{"command":"ls"}`, `{"a":1,"a":2}`)); err != nil || out == nil || out.Reason != "ran ls" {
		t.Errorf("a hook that never reads native, native with a key twice: %+v, %v; want it to run", out, err)
	}
	if _, err := call(t, f, 1, over); failure(t, err).Kind != luahook.FailRejected {
		t.Errorf("a hook that reads native must still be held to the cap: %v", err)
	}
	in := withNative(`{"command":"ls"}`, `{"tool_name":"Bash"}`)
	for i, want := range []string{`{"tool_name":"Bash"}`, "Bash", "native"} {
		if out, err := call(t, f, i+1, in); err != nil || out == nil || out.Reason != want {
			t.Errorf("hook %d: %+v, %v; want %q", i+1, out, err, want)
		}
	}
}
