package luabind_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
	"github.com/luahook/luahook/runner"
)

func TestLuaDenyEndsTheToolCallWithItsReason(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-guard.lua", `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then
    return hook.deny("rm -rf is not allowed")
  end
end, { name = "bash-safety", stage = "validate" })`)

	res := g.pre(`{"command":"rm -rf /"}`)
	if !res.Denied() || res.Reason != "rm -rf is not allowed" {
		t.Fatalf("denied=%v reason %q", res.Denied(), res.Reason)
	}
	if got, want := outcomeJSON(t, res), `{"action":"deny","reason":"rm -rf is not allowed"}`; got != want {
		t.Errorf("outcome %s, want %s", got, want)
	}
	tr := res.Trace[0]
	if tr.Name != "bash-safety" || tr.Kind != luahook.KindLua || tr.Source != "10-guard.lua:1" || tr.Stage != luahook.StageValidate || tr.Failure != nil {
		t.Errorf("trace %+v", tr)
	}

	res = g.pre(`{"command":"ls -la"}`)
	if res.Denied() || res.Input != nil || res.Trace[0].Outcome != nil {
		t.Errorf("harmless command: %+v", res)
	}
	if got := outcomeJSON(t, res); got != `{}` {
		t.Errorf("outcome %s, want {} (no objection)", got)
	}
}

// Each file raises an error if it runs out of order, so a wrong order is a
// failure in the trace as well as a wrong final input.
const (
	mutatorA = `hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  if ti.b ~= nil then error("10-a.lua ran after 20-b.lua") end
  ti.a = "from a"
  return hook.mutate(ti)
end)`
	mutatorB = `hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  if ti.a ~= "from a" then error("20-b.lua did not see 10-a.lua's field") end
  ti.b = "from b"
  return hook.mutate(ti)
end)`
)

func TestLuaMutationsChainAcrossFilesInFileNameOrder(t *testing.T) {
	for _, order := range [][]string{{"10-a.lua", "20-b.lua"}, {"20-b.lua", "10-a.lua"}} {
		t.Run("loaded "+strings.Join(order, ", "), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			src := map[string]string{"10-a.lua": mutatorA, "20-b.lua": mutatorB}
			for _, name := range order {
				g.load(name, src[name])
			}
			in := bashCall(`{"command":"ls"}`)
			res := g.r.PreToolUse(t.Context(), in)
			for _, tr := range res.Trace {
				if tr.Failure != nil {
					t.Errorf("%s failed: %v", tr.Name, tr.Failure)
				}
			}
			if want := []string{"10-a.lua:PreToolUse", "20-b.lua:PreToolUse"}; !slices.Equal(traceNames(res), want) {
				t.Errorf("trace %v, want %v", traceNames(res), want)
			}
			if got, want := string(res.Input), `{"command":"ls","a":"from a","b":"from b"}`; got != want {
				t.Errorf("final input %s, want %s", got, want)
			}
			if res.Denied() || res.Outcome().Action != luahook.ActionMutate {
				t.Errorf("result %+v, want a mutate outcome", res)
			}
			if string(in.ToolInput) != `{"command":"ls"}` {
				t.Errorf("caller's input changed to %s", in.ToolInput)
			}
		})
	}
}

func TestLuaMutatorsRunBeforeValidatorsWhateverTheRegistrationOrder(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	// Each hook appends its name to store["order"]; validators check that
	// they see the final input.
	const prelude = `local function mark(name) store.set("order", (store.get("order") or "") .. name .. " ") end
local function validator(name)
  return function(input)
    mark(name)
    if input.toolInput.x ~= 1 or input.toolInput.y ~= 2 then
      return hook.deny(name .. " did not see the final input")
    end
  end
end
local function mutator(name, key, value)
  return function(input)
    mark(name)
    input.toolInput[key] = value
    return hook.mutate(input.toolInput)
  end
end
`
	g.load("10-first.lua", prelude+`
hook.register("PreToolUse", "bash", validator("v1"), { name = "v1", stage = "validate" })
hook.register("PreToolUse", "bash", mutator("m1", "x", 1), { name = "m1" })`)
	g.load("20-second.lua", prelude+`
hook.register("PreToolUse", "bash", validator("v2"), { name = "v2", stage = "validate" })
hook.register("PreToolUse", "bash", mutator("m2", "y", 2), { name = "m2", stage = "mutate" })`)

	res := g.pre(`{"command":"ls"}`)
	if got := g.text("order"); got != "m1 m2 v1 v2 " {
		t.Errorf("call order %q, want \"m1 m2 v1 v2 \"", got)
	}
	if want := []string{"m1", "m2", "v1", "v2"}; !slices.Equal(traceNames(res), want) {
		t.Errorf("trace %v, want execution order %v", traceNames(res), want)
	}
	if res.Denied() || string(res.Input) != `{"command":"ls","x":1,"y":2}` {
		t.Errorf("denied=%v (%q) input %s", res.Denied(), res.Reason, res.Input)
	}
}

func TestLuaValidatorMutationIgnoredWhenOpenDeniedWhenClosed(t *testing.T) {
	for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
		t.Run(string(policy), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			g.load("10-guard.lua", fmt.Sprintf(`hook.register("PreToolUse", "bash", function(input)
  return hook.mutate({ command = "rm -rf /" })
end, { name = "guard", stage = "validate", failure_policy = %q })
hook.register("PreToolUse", "bash", function() store.incr("after") end, { name = "after", stage = "validate" })`, policy))

			res := g.pre(`{"command":"ls"}`)
			msg := `PreToolUse validator "guard" attempted to mutate tool arguments`
			if !g.log.has(msg) {
				t.Errorf("no warning %q logged", msg)
			}
			if res.Input != nil {
				t.Errorf("validator's mutation applied: %s", res.Input)
			}
			if policy == luahook.FailOpen {
				if res.Denied() || res.Trace[0].Skipped != runner.SkipValidatorMutation || g.count("after") != 1 {
					t.Errorf("open: denied=%v skipped=%q after=%d", res.Denied(), res.Trace[0].Skipped, g.count("after"))
				}
				return
			}
			if !res.Denied() || res.Reason != msg || g.count("after") != 0 {
				t.Errorf("closed: denied=%v reason %q after=%d", res.Denied(), res.Reason, g.count("after"))
			}
		})
	}
}

func TestLuaFirstDenyWins(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-ok.lua", `hook.register("PreToolUse", nil, function() store.incr("ok"); return hook.allow() end)`)
	g.load("20-no.lua", `hook.register("PreToolUse", nil, function() return hook.deny("first deny") end)`)
	g.load("30-later.lua", `hook.register("PreToolUse", nil, function() store.incr("later"); return hook.deny("second deny") end)`)
	g.load("40-val.lua", `hook.register("PreToolUse", nil, function() store.incr("val") end, { stage = "validate" })`)

	res := g.pre(`{"command":"rm -rf /"}`)
	if !res.Denied() || res.Reason != "first deny" {
		t.Fatalf("denied=%v reason %q, want the first deny", res.Denied(), res.Reason)
	}
	if g.count("ok") != 1 || g.count("later") != 0 || g.count("val") != 0 {
		t.Errorf("calls ok=%d later=%d val=%d; want 1, 0, 0", g.count("ok"), g.count("later"), g.count("val"))
	}
	if len(res.Trace) != 4 || res.Trace[2].Skipped != runner.SkipNotReached || res.Trace[3].Skipped != runner.SkipNotReached {
		t.Errorf("trace %+v, want the last two not reached", res.Trace)
	}
	if o := res.Outcome(); o.Action != luahook.ActionDeny || o.Input != nil {
		t.Errorf("outcome %+v", o)
	}
}

func TestLuaLegacyOutcomeTablesAreNormalised(t *testing.T) {
	cases := []struct {
		name, ret string
		denied    bool
		reason    string
		input     string // the final input, "" when unchanged
	}{
		{"block with reason", `{ decision = "block", reason = "legacy no" }`, true, "legacy no", ""},
		{"block without reason", `{ decision = "block" }`, true, luahook.DefaultBlockReason, ""},
		{"block with empty reason", `{ decision = "block", reason = "" }`, true, luahook.DefaultBlockReason, ""},
		{"block with blank reason", `{ decision = "block", reason = "  " }`, true, luahook.DefaultBlockReason, ""},
		{"modifiedInput", `{ modifiedInput = { command = "ls -la" } }`, false, "", `{"command":"ls -la"}`},
		{"allow", `{ decision = "allow" }`, false, "", ""},
		{"allow with modifiedInput", `{ decision = "allow", modifiedInput = { command = "pwd" } }`, false, "", `{"command":"pwd"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			g.load("10-legacy.lua", `hook.register("PreToolUse", "bash", function() return `+c.ret+` end)`)
			res := g.pre(`{"command":"ls"}`)
			if f := res.Trace[0].Failure; f != nil {
				t.Fatalf("failure %v", f)
			}
			if res.Denied() != c.denied || res.Reason != c.reason || string(res.Input) != c.input {
				t.Errorf("denied=%v reason %q input %s; want %v %q %s", res.Denied(), res.Reason, res.Input, c.denied, c.reason, c.input)
			}
		})
	}
	t.Run("UserPromptSubmit block", func(t *testing.T) {
		g := newLuaRig(t, runner.Options{})
		g.load("10-legacy.lua", `hook.register("UserPromptSubmit", nil, function() return { decision = "block" } end)`)
		res := g.fire(t.Context(), luahook.UserPromptSubmit)
		if !res.Denied() || res.Reason != luahook.DefaultBlockReason {
			t.Errorf("denied=%v reason %q", res.Denied(), res.Reason)
		}
	})
}

func TestLuaPreToolUseCollectsContextFromEveryOutcome(t *testing.T) {
	cases := []struct {
		name    string
		rets    []string
		context string
		as      luahook.ContextAs
		denied  bool
	}{
		{"none", []string{"nil", "hook.allow()"}, "", "", false},
		{"inline by default", []string{`hook.context("a")`, `{ action = "allow", additionalContext = "b" }`}, "a\nb", luahook.ContextInline, false},
		{"separate wins", []string{`hook.context("a", "inline")`, `{ contextAs = "separate" }`, `hook.context("c", "inline")`}, "a\nc", luahook.ContextSeparate, false},
		{"the denier's own context is kept", []string{`hook.context("a")`, `{ action = "deny", reason = "no", additionalContext = "why" }`}, "a\nwhy", luahook.ContextInline, true},
		{"mutation's context", []string{`{ action = "mutate", input = { command = "ls -la" }, additionalContext = "rewrote", contextAs = "separate" }`}, "rewrote", luahook.ContextSeparate, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			for i, ret := range c.rets {
				g.load(fmt.Sprintf("%02d.lua", i), `hook.register("PreToolUse", nil, function() return `+ret+` end)`)
			}
			res := g.pre(`{"command":"ls"}`)
			if res.AdditionalContext != c.context || res.ContextAs != c.as || res.Denied() != c.denied {
				t.Errorf("context %q as %q denied %v; want %q %q %v", res.AdditionalContext, res.ContextAs, res.Denied(), c.context, c.as, c.denied)
			}
		})
	}
}

const bashSchema = `{
	"type": "object",
	"required": ["command"],
	"properties": {
		"command": {"type": "string"},
		"timeout": {"type": "integer", "maximum": 600},
		"env": {"type": "object", "additionalProperties": {"type": "string"}}
	}
}`

func compileSchema(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("bash.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("bash.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLuaMutationIsRevalidatedAgainstTheToolSchema(t *testing.T) {
	const head = "A PreToolUse hook rewrote the arguments for \"bash\" into an invalid shape.\n\nValidation errors:\n"
	cases := []struct {
		name, rewrite string // a Lua table
		input         string // the final input when valid
		reason        string // the denial when not
	}{
		{"valid rewrite passes", `{ command = "ls -la", timeout = 30 }`, `{"command":"ls -la","timeout":30}`, ""},
		{"each error with its path", `{ command = 42, timeout = 9000 }`, "",
			head + "  - /command: got number, want string\n  - /timeout: maximum: got 9,000, want 600"},
		{"nested path and root error", `{ env = { A = 1 } }`, "",
			head + "  - /env/A: got number, want string\n  - input: missing property 'command'"},
		{"fraction is not an integer", `{ command = "ls", timeout = 1.5 }`, "",
			head + "  - /timeout: got number, want integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newLuaRig(t, runner.Options{Schemas: map[string]*jsonschema.Schema{"bash": compileSchema(t, bashSchema)}})
			g.load("10-rewrite.lua", `hook.register("PreToolUse", "bash", function() return hook.mutate(`+c.rewrite+`) end)`)
			res := g.pre(`{"command":"ls"}`)
			if c.reason == "" {
				if res.Denied() || string(res.Input) != c.input {
					t.Errorf("denied=%v reason %q input %s; want the rewrite %s accepted", res.Denied(), res.Reason, res.Input, c.input)
				}
				return
			}
			if !res.Denied() || res.Input != nil {
				t.Fatalf("denied=%v input %s; want a denial", res.Denied(), res.Input)
			}
			if res.Reason != c.reason {
				t.Errorf("reason:\n%s\nwant:\n%s", res.Reason, c.reason)
			}
		})
	}
}

func TestLuaInputReturnedUnchangedIsNotAChange(t *testing.T) {
	g := newLuaRig(t, runner.Options{Schemas: map[string]*jsonschema.Schema{"bash": compileSchema(t, bashSchema)}})
	g.load("10-same.lua", `hook.register("PreToolUse", "bash", function(input) return hook.mutate(input.toolInput) end)`)
	// Not valid against the schema: a re-validation would deny it.
	res := g.pre(`{"timeout":"bad","args":[],"env":{},"n":null}`)
	if res.Denied() || res.Input != nil || res.Outcome().Action != "" {
		t.Errorf("denied=%v (%q) input %s; an unchanged round trip must be no change", res.Denied(), res.Reason, res.Input)
	}
}

func TestLuaMatcherSelectsHooksByToolName(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-match.lua", `for _, m in ipairs({ "Bash | exec", "edit|write", "*", "" }) do
  hook.register("PreToolUse", m, function(input) store.incr(m .. ":" .. input.toolName) end, { name = "matcher " .. m })
end
hook.register("PreToolUse", nil, function(input) store.incr("nil:" .. input.toolName) end, { name = "nil" })`)
	g.pre(`{"command":"ls"}`)
	in := bashCall(`{"path":"a"}`)
	in.ToolName = "write"
	g.r.PreToolUse(t.Context(), in)
	for key, want := range map[string]int{
		"Bash | exec:bash": 1, "edit|write:bash": 0, "*:bash": 1, ":bash": 1, "nil:bash": 1,
		"Bash | exec:write": 0, "edit|write:write": 1, "*:write": 1, ":write": 1, "nil:write": 1,
	} {
		if got := g.count(key); got != want {
			t.Errorf("%s called %d times, want %d", key, got, want)
		}
	}
}

func TestLuaDoneContextAbortsWithoutCallingTheHook(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-h.lua", `hook.register("PreToolUse", nil, function() store.incr("ran") end, { failure_policy = "closed" })`)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := g.r.PreToolUse(ctx, bashCall(`{"command":"ls"}`))
	if g.count("ran") != 0 {
		t.Errorf("hook ran %d times with a done context", g.count("ran"))
	}
	if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailAborted {
		t.Errorf("failure %v, want aborted", f)
	}
}

func TestLuaHookDeadlineIsItsTimeoutOrTheCallersEarlierDeadline(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-rt.lua", `hook.register("Stop", nil, function(input, rt)
  store.set("remaining", rt.remaining_ms())
  store.set("deadline", rt.deadline_ms)
end, { timeout_ms = 3000 })`)
	before := time.Now()
	g.r.Stop(t.Context(), &luahook.Input{})
	if r := g.count("remaining"); r <= 0 || r > 3000 {
		t.Errorf("rt.remaining_ms() = %d, want within (0, 3000] for timeout_ms = 3000", r)
	}
	if d := time.UnixMilli(int64(g.count("deadline"))); d.Before(before.Add(3*time.Second-time.Millisecond)) || d.After(time.Now().Add(3*time.Second)) {
		t.Errorf("rt.deadline_ms = %v, want about 3 s after the call (%v)", d, before)
	}

	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	want, _ := short.Deadline()
	g.r.Stop(short, &luahook.Input{})
	if d := int64(g.count("deadline")); d != want.UnixMilli() {
		t.Errorf("rt.deadline_ms = %d, want the caller's earlier deadline %d", d, want.UnixMilli())
	}
}
