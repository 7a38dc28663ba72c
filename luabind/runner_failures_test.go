package luabind_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/runner"
)

// failingHook is a PreToolUse file whose first hook, "guard", returns ret
// (or runs body) under policy, followed by a hook that counts its calls in
// store["later"].
func failingHook(body string, policy luahook.FailurePolicy, extraOpts string) string {
	return fmt.Sprintf(`hook.register("PreToolUse", "bash", function(input)
  %s
end, { name = "guard", failure_policy = %q%s })
hook.register("PreToolUse", "bash", function() store.incr("later") end, { name = "later" })`, body, policy, extraOpts)
}

// checkFailurePolicy asserts what a failed "guard" hook means under policy:
// open, the hook is skipped and the later hook runs; closed, the call is
// denied with the contract's exact fail-closed reason and the later hook is
// not called.
func checkFailurePolicy(t *testing.T, g *luaRig, res runner.Result, policy luahook.FailurePolicy, kind luahook.FailureKind) {
	t.Helper()
	if res.Input != nil || res.AdditionalContext != "" {
		t.Errorf("a failed hook's outcome was used: input %s context %q", res.Input, res.AdditionalContext)
	}
	if policy == luahook.FailOpen {
		if res.Denied() || g.count("later") != 1 {
			t.Errorf("open: denied=%v (%q), later hook called %d times; want skipped and 1", res.Denied(), res.Reason, g.count("later"))
		}
		return
	}
	if want := failClosedReason(luahook.PreToolUse, "guard", kind); !res.Denied() || !strings.HasPrefix(res.Reason, want) {
		t.Errorf("closed: denied=%v reason\n%q\nwant\n%q", res.Denied(), res.Reason, want)
	}
	if g.count("later") != 0 {
		t.Errorf("closed: later hook called %d times after the denial", g.count("later"))
	}
}

var policies = []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed}

func TestLuaErrorIsAFailureCarryingFileAndLine(t *testing.T) {
	cases := []struct{ name, body, message string }{
		{"error()", `local n = 1
  error("policy table missing")`, "10-guard.lua:3: policy table missing"},
		{"runtime error", `local n = 1
  return input.toolInput.missing.field`, "10-guard.lua:3: "},
	}
	for _, c := range cases {
		for _, policy := range policies {
			t.Run(c.name+"/"+string(policy), func(t *testing.T) {
				g := newLuaRig(t, runner.Options{})
				f := g.load("10-guard.lua", failingHook(c.body, policy, ""))
				res := g.pre(`{"command":"ls"}`)
				fl := res.Trace[0].Failure
				if fl == nil || fl.Kind != luahook.FailError || !strings.Contains(fl.Message, c.message) {
					t.Fatalf("failure %v, want error carrying %q", fl, c.message)
				}
				checkFailurePolicy(t, g, res, policy, luahook.FailError)
				if s := f.Stats(); s.Discarded != 1 || s.Busy != 0 {
					t.Errorf("stats %+v, want the state that raised discarded", s)
				}
			})
		}
	}
}

// A table raised with error() carries no position (Lua adds one to strings
// only); its message field is the message, and the trace's Source still
// names the hook's file and line.
func TestLuaErrorWithATableValueIsAFailError(t *testing.T) {
	for _, c := range []struct{ body, message string }{
		{`error({ message = "quota exceeded" })`, "10-guard.lua:2: quota exceeded"},
		{`error({ code = 7 })`, "10-guard.lua:2: error object is a table (raise a string, or a table with a message field)"},
	} {
		t.Run(c.body, func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			g.load("10-guard.lua", failingHook(c.body, luahook.FailClosed, ""))
			res := g.pre(`{"command":"ls"}`)
			fl := res.Trace[0].Failure
			if fl == nil || fl.Kind != luahook.FailError || fl.Message != c.message {
				t.Fatalf("failure %v, want error %q", fl, c.message)
			}
			if res.Trace[0].Source != "10-guard.lua:1" {
				t.Errorf("trace source %q, want the registration's file:line", res.Trace[0].Source)
			}
			checkFailurePolicy(t, g, res, luahook.FailClosed, luahook.FailError)
		})
	}
}

func TestLuaNonTableReturnIsInvalidOutput(t *testing.T) {
	for _, ret := range []string{`"deny"`, `42`, `true`, `false`, `function() end`} {
		for _, policy := range policies {
			t.Run(ret+"/"+string(policy), func(t *testing.T) {
				checkInvalidOutput(t, "return "+ret, policy)
			})
		}
	}
}

func TestLuaInvalidOutcomeTablesAreInvalidOutput(t *testing.T) {
	for _, ret := range []string{
		`{ action = "deny" }`,
		`{ action = "deny", reason = "  " }`,
		`{ action = "block" }`,
		`{ action = "block", reason = "no" }`,
		`{ action = "mutate", input = "x" }`,
		`{ action = "mutate" }`,
		`{ action = "mutate", input = { 1, 2 } }`,
		`{ action = "allow", input = { command = "ls" } }`,
		`{ additionalContext = "x", contextAs = "sideways" }`,
		`{ action = 1 }`,
		`{ decision = "maybe" }`,
	} {
		for _, policy := range policies {
			t.Run(ret+"/"+string(policy), func(t *testing.T) {
				checkInvalidOutput(t, "return "+ret, policy)
			})
		}
	}
}

// A returned table is an outcome object, as on every transport: one with
// array items or any key that is not a string, one marked json.array, or one
// with a metatable of its own (whose fields a raw read would miss) is
// invalid_output, never "no objection".
func TestLuaArrayShapedAndOddOutcomeTablesAreInvalidOutput(t *testing.T) {
	for _, ret := range []string{
		`{ 1, 2 }`,
		`json.array({ 1 })`,
		`json.array({})`,
		`json.array({ action = "deny", reason = "r" })`,
		`json.object({ 1 })`,
		`{ action = "allow", "extra" }`,
		`{ action = "deny", reason = "r", [true] = 1 }`,
		`{ [1.5] = "x" }`,
		`{ [3] = "sparse" }`,
		`setmetatable({}, { __index = { action = "deny", reason = "hidden" } })`,
		`{ action = "deny", reason = { "r" } }`,
		`{ action = "deny", reason = json.null }`,
		`{ action = "mutate", input = setmetatable({}, { __index = { command = "ls" } }) }`,
	} {
		for _, policy := range policies {
			t.Run(ret+"/"+string(policy), func(t *testing.T) {
				checkInvalidOutput(t, "return "+ret, policy)
			})
		}
	}
}

func checkInvalidOutput(t *testing.T, body string, policy luahook.FailurePolicy) {
	t.Helper()
	g := newLuaRig(t, runner.Options{})
	f := g.load("10-guard.lua", failingHook(body, policy, ""))
	res := g.pre(`{"command":"ls"}`)
	if fl := res.Trace[0].Failure; fl == nil || fl.Kind != luahook.FailInvalidOutput {
		t.Fatalf("failure %v, want invalid_output", fl)
	}
	checkFailurePolicy(t, g, res, policy, luahook.FailInvalidOutput)
	if s := f.Stats(); s.Discarded != 0 {
		t.Errorf("stats %+v: a state that returned a bad value is still sound, want it kept", s)
	}
}

func TestLuaFailClosedReasonNamesTheHookAndTheKind(t *testing.T) {
	kinds := []struct {
		kind luahook.FailureKind
		body string
	}{
		{luahook.FailError, `error("broken")`},
		{luahook.FailInvalidOutput, `return 1`},
		{luahook.FailTimeout, `while true do end`},
	}
	for _, ev := range luahook.Events() {
		for _, k := range kinds {
			t.Run(string(ev)+"/"+string(k.kind), func(t *testing.T) {
				g := newLuaRig(t, runner.Options{})
				g.load("10-guard.lua", fmt.Sprintf(`hook.register(%q, nil, function() %s end, { name = "guard", failure_policy = "closed", timeout_ms = 50 })
hook.register(%[1]q, nil, function() store.incr("later"); return hook.context("more") end, { name = "later" })`, ev, k.body))
				var res runner.Result
				within(t, 10*time.Second, func() { res = g.fire(t.Context(), ev) })
				if fl := res.Trace[0].Failure; fl == nil || fl.Kind != k.kind {
					t.Fatalf("failure %v, want %s", fl, k.kind)
				}
				steering := ev == luahook.PreToolUse || ev == luahook.UserPromptSubmit
				if !steering {
					if res.Denied() || g.count("later") != 1 {
						t.Errorf("closed must behave as open on %s: denied=%v later=%d", ev, res.Denied(), g.count("later"))
					}
					return
				}
				if want := failClosedReason(ev, "guard", k.kind); !res.Denied() || !strings.HasPrefix(res.Reason, want) {
					t.Errorf("denied=%v reason\n%q\nwant\n%q", res.Denied(), res.Reason, want)
				}
				if g.count("later") != 0 || res.AdditionalContext != "" {
					t.Errorf("after a fail-closed denial: later called %d times, context %q", g.count("later"), res.AdditionalContext)
				}
			})
		}
	}
}

func TestLuaLoopingHookTimesOutOpenVsClosed(t *testing.T) {
	for _, policy := range policies {
		t.Run(string(policy), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			f := g.load("10-guard.lua", failingHook("while true do end", policy, ", timeout_ms = 50"))
			var res runner.Result
			start := time.Now()
			within(t, 10*time.Second, func() { res = g.pre(`{"command":"ls"}`) })
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("returned after %v, want within 2 s of a 50 ms timeout", d)
			}
			fl := res.Trace[0].Failure
			if fl == nil || fl.Kind != luahook.FailTimeout || fl.Message != "timed out after 50ms" {
				t.Fatalf("failure %v, want timeout \"timed out after 50ms\"", fl)
			}
			checkFailurePolicy(t, g, res, policy, luahook.FailTimeout)
			if s := f.Stats(); s.Discarded != 1 || s.Busy != 0 {
				t.Errorf("stats %+v, want the timed-out state discarded", s)
			}
		})
	}
}

func TestLuaCancellationReturnsAtOnceAndDiscardsTheState(t *testing.T) {
	cases := []struct {
		event luahook.Event
		loops int // looping hooks registered (and running in parallel on fan-out events)
	}{
		{luahook.PreToolUse, 1},
		{luahook.UserPromptSubmit, 1},
		{luahook.PostToolUse, 2},
		{luahook.SessionStart, 2},
		{luahook.Stop, 1},
		{luahook.Notification, 2},
	}
	for _, c := range cases {
		t.Run(string(c.event), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			started := make(chan string, c.loops)
			var src strings.Builder
			for i := range c.loops {
				fmt.Fprintf(&src, `hook.register(%q, nil, function()
  log.info("started %d")
  while true do end
end, { name = "loop%[2]d", timeout_ms = 60000, failure_policy = "closed" })
`, c.event, i)
			}
			f := g.loadWith("10-loop.lua", src.String(), luabind.Options{Logger: slog.New(signalHandler{started})})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan runner.Result, 1)
			go func() { done <- g.fire(ctx, c.event) }()
			for range c.loops {
				<-started
			}
			cancel()
			cancelled := time.Now()
			var res runner.Result
			select {
			case res = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the runner did not return after the caller cancelled")
			}
			d := time.Since(cancelled)
			t.Logf("returned %v after the cancel", d)
			if d > 500*time.Millisecond {
				t.Errorf("returned %v after the cancel, want within a few ms (bound 500 ms)", d)
			}
			for i, tr := range res.Trace {
				if tr.Failure == nil || tr.Failure.Kind != luahook.FailAborted {
					t.Errorf("hook %d: failure %v, want aborted", i, tr.Failure)
				}
			}
			if s := f.Stats(); s.Discarded != c.loops || s.Busy != 0 {
				t.Errorf("stats %+v, want %d cancelled states discarded and none busy", s, c.loops)
			}
		})
	}
}
