package luabind_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// reverseFinisher registers hooks first..first+n-1 on ev. Hook i finishes
// only after hook i+1 has (it waits on the shared store), so the hooks
// complete in the reverse of their registration order, and a runner that
// called them one after the other would time out.
func reverseFinisher(ev luahook.Event, first, n int) string {
	return fmt.Sprintf(`for i = %d, %d do
  hook.register(%q, nil, function()
    while not store.get("done" .. (i + 1)) do end
    store.set("done" .. i, true)
    return hook.context("part" .. i)
  end, { name = "h" .. i, timeout_ms = 10000 })
end`, first, first+n-1, ev)
}

func TestLuaParallelEventsJoinContextsInRegistrationOrder(t *testing.T) {
	for _, ev := range []luahook.Event{luahook.PostToolUse, luahook.SessionStart, luahook.Stop} {
		t.Run(string(ev), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			g.load("10-a.lua", reverseFinisher(ev, 0, 2))
			g.load("20-b.lua", reverseFinisher(ev, 2, 2))
			if err := g.store.Set(context.Background(), "done4", true, 0); err != nil {
				t.Fatal(err)
			}
			var res runner.Result
			within(t, 30*time.Second, func() { res = g.fire(t.Context(), ev) })
			for _, tr := range res.Trace {
				if tr.Failure != nil {
					t.Errorf("%s failed: %v", tr.Name, tr.Failure)
				}
			}
			if res.AdditionalContext != "part0\npart1\npart2\npart3" || res.ContextAs != luahook.ContextInline {
				t.Errorf("context %q as %q, want part0..part3 in registration order, inline", res.AdditionalContext, res.ContextAs)
			}
			if got := traceNames(res); !slices.Equal(got, []string{"h0", "h1", "h2", "h3"}) {
				t.Errorf("trace %v, want registration order", got)
			}
		})
	}
}

func TestLuaContextAsSeparateWinsAndCountsOnlyWithText(t *testing.T) {
	cases := []struct {
		name    string
		rets    []string
		context string
		as      luahook.ContextAs
	}{
		{"separate wins", []string{`hook.context("a")`, `hook.context("b", "separate")`, `hook.context("c", "inline")`}, "a\nb\nc", luahook.ContextSeparate},
		{"inline by default", []string{`hook.context("a")`, `{ additionalContext = "b" }`}, "a\nb", luahook.ContextInline},
		{"contextAs without text does not count", []string{`{ contextAs = "separate" }`, `hook.context("hello")`}, "hello", luahook.ContextInline},
	}
	for _, ev := range []luahook.Event{luahook.PostToolUse, luahook.SessionStart, luahook.UserPromptSubmit} {
		for _, c := range cases {
			t.Run(string(ev)+"/"+c.name, func(t *testing.T) {
				g := newLuaRig(t, runner.Options{})
				for i, ret := range c.rets {
					g.load(fmt.Sprintf("%02d.lua", i), fmt.Sprintf(`hook.register(%q, nil, function() return %s end)`, ev, ret))
				}
				res := g.fire(t.Context(), ev)
				if res.AdditionalContext != c.context || res.ContextAs != c.as {
					t.Errorf("context %q as %q; want %q %q", res.AdditionalContext, res.ContextAs, c.context, c.as)
				}
			})
		}
	}
}

func TestLuaUserPromptSubmitBlockEndsTheTurnWithItsReason(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-ctx.lua", `hook.register("UserPromptSubmit", nil, function() return hook.context("collected") end)`)
	g.load("20-secrets.lua", `hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("sk%-%w+") then
    return { action = "deny", reason = "the prompt contains a secret key", additionalContext = "dropped" }
  end
end, { name = "secrets" })`)
	g.load("30-later.lua", `hook.register("UserPromptSubmit", nil, function() store.incr("later"); return hook.context("third") end)`)

	res := g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "my key is sk-123", SessionID: "s1"})
	if !res.Denied() || res.Reason != "the prompt contains a secret key" {
		t.Fatalf("denied=%v reason %q", res.Denied(), res.Reason)
	}
	if got, want := outcomeJSON(t, res), `{"action":"deny","reason":"the prompt contains a secret key"}`; got != want {
		t.Errorf("outcome %s, want %s", got, want)
	}
	if res.AdditionalContext != "" || g.count("later") != 0 || res.Trace[2].Skipped != runner.SkipNotReached {
		t.Errorf("blocked prompt: context %q, later called %d times, trace %+v", res.AdditionalContext, g.count("later"), res.Trace[2])
	}

	res = g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "hello", SessionID: "s1"})
	if res.Denied() || res.AdditionalContext != "collected\nthird" || g.count("later") != 1 {
		t.Errorf("harmless prompt: denied=%v context %q later=%d", res.Denied(), res.AdditionalContext, g.count("later"))
	}
	if got, want := outcomeJSON(t, res), `{"additionalContext":"collected\nthird"}`; got != want {
		t.Errorf("outcome %s, want %s", got, want)
	}
}

func TestLuaSessionStartContextReachesTheResult(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-hello.lua", `hook.register("SessionStart", nil, function(input, rt)
  return hook.context("Session " .. input.sessionId .. " in " .. rt.cwd .. ": run the tests before you commit.")
end)`)
	res := g.r.SessionStart(t.Context(), &luahook.Input{Cwd: "/work", SessionID: "s1"})
	want := "Session s1 in /work: run the tests before you commit."
	if res.AdditionalContext != want || res.ContextAs != luahook.ContextInline {
		t.Errorf("context %q as %q, want %q inline", res.AdditionalContext, res.ContextAs, want)
	}
	if got := outcomeJSON(t, res); got != `{"additionalContext":"`+want+`","contextAs":"inline"}` {
		t.Errorf("outcome %s", got)
	}
}

func TestLuaPolicyOnlyCallsOnlyPolicyHooks(t *testing.T) {
	events := []luahook.Event{luahook.PreToolUse, luahook.PostToolUse, luahook.UserPromptSubmit,
		luahook.SessionStart, luahook.Stop, luahook.Notification, luahook.SessionEnd}
	g := newLuaRig(t, runner.Options{PolicyOnly: true})
	g.load("10-gated.lua", `for _, ev in ipairs({ "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "Notification", "SessionEnd" }) do
  hook.register(ev, nil, function() store.incr(ev .. ":ordinary") end, { name = ev .. ":ordinary" })
  hook.register(ev, nil, function() store.incr(ev .. ":policy") end, { name = ev .. ":policy", policy = true })
end`)
	for _, ev := range events {
		res := g.fire(t.Context(), ev)
		if n := g.count(string(ev) + ":ordinary"); n != 0 {
			t.Errorf("%s: non-policy Lua hook called %d times under policy-only", ev, n)
		}
		if n := g.count(string(ev) + ":policy"); n != 1 {
			t.Errorf("%s: policy hook called %d times, want 1", ev, n)
		}
		if len(res.Trace) != 2 || res.Trace[0].Skipped != runner.SkipPolicyOnly || res.Trace[0].Failure != nil {
			t.Errorf("%s: trace %+v, want the ordinary hook skipped %q", ev, res.Trace, runner.SkipPolicyOnly)
		}
	}
	g.r.SetPolicyOnly(false)
	for _, ev := range events {
		g.fire(t.Context(), ev)
		if n := g.count(string(ev) + ":ordinary"); n != 1 {
			t.Errorf("%s: after SetPolicyOnly(false) the ordinary hook was called %d times, want 1", ev, n)
		}
	}
}

// Three files, eight goroutines, 10,000 runner calls each: PreToolUse calls
// that one of the files denies or that all pass, and PostToolUse fan-outs
// across the three files. Run with -race.
func TestLuaHooksThroughTheRunnerAreRaceFree(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	files := make([]string, 3)
	for i := range files {
		files[i] = fmt.Sprintf("%02d-file.lua", i)
		g.load(files[i], fmt.Sprintf(`hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.n == %d then return hook.deny("file %[1]d") end
end, { stage = "validate" })
hook.register("PostToolUse", "bash", function() return hook.context("file %[1]d") end)`, i))
	}
	const goroutines, calls = 8, 10000
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for gr := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pre := []*luahook.Input{bashCall(`{"n":0}`), bashCall(`{"n":1}`), bashCall(`{"n":2}`), bashCall(`{"n":-1}`)}
			post := &luahook.Input{ToolName: "bash", ToolResult: &luahook.ToolResult{Content: "ok"}, SessionID: "s1"}
			for c := range calls {
				k := (gr + c) % 5
				if k == 4 {
					res := g.r.PostToolUse(ctx, post)
					if res.AdditionalContext != "file 0\nfile 1\nfile 2" {
						errs <- fmt.Errorf("goroutine %d call %d: PostToolUse context %q", gr, c, res.AdditionalContext)
						return
					}
					continue
				}
				res := g.r.PreToolUse(ctx, pre[k])
				want := ""
				if k < 3 {
					want = fmt.Sprintf("file %d", k)
				}
				if res.Denied() != (want != "") || res.Reason != want || len(res.Trace) != 3 {
					errs <- fmt.Errorf("goroutine %d call %d: denied=%v reason %q trace %d; want %q", gr, c, res.Denied(), res.Reason, len(res.Trace), want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, name := range files {
		if s := g.files[name].Stats(); s.Busy != 0 || s.Discarded != 0 {
			t.Errorf("%s: stats %+v, want no busy and no discarded state", name, s)
		}
	}
}

func TestLuaObservationalOutcomesAreIgnored(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-observe.lua", `hook.register("Notification", "permission", function(input)
  store.incr("permission:" .. input.notification.message)
  return hook.deny("ignored")
end)
hook.register("Notification", "input", function() store.incr("input") end)
hook.register("SubagentStop", "explorer", function(input)
  store.incr("explorer:" .. input.subagent.status)
  return hook.context("ignored")
end)`)
	r1 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.Notification, Notification: &luahook.NotificationInfo{Kind: "permission", Message: "may I?"}})
	r2 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.SubagentStop, Subagent: &luahook.Subagent{Target: "Explorer", Status: "done"}})
	if g.count("permission:may I?") != 1 || g.count("input") != 0 || g.count("explorer:done") != 1 {
		t.Errorf("calls permission=%d input=%d explorer=%d; want 1 0 1", g.count("permission:may I?"), g.count("input"), g.count("explorer:done"))
	}
	for _, r := range []runner.Result{r1, r2} {
		if r.Denied() || r.AdditionalContext != "" || outcomeJSON(t, r) != "{}" {
			t.Errorf("%s used an outcome: %+v", r.Event, r)
		}
	}
}

func TestLuaToolSkippedRunsOnlyRunWhenToolSkippedHooks(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	g.load("10-release.lua", `hook.register("PostToolUse", "edit", function(input)
  store.set("seen", input.event .. "|" .. input.toolResult.content .. "|" .. tostring(input.toolResult.isError) .. "|" .. input.toolInput.path)
  return hook.deny("ignored")
end, { run_when_tool_skipped = true })
hook.register("PostToolUse", "edit", function() store.incr("plain") end)
hook.register("PostToolUse", "bash", function() store.incr("plain") end, { run_when_tool_skipped = true })`)
	res := g.r.ToolSkipped(t.Context(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "edit", ToolInput: []byte(`{"path":"a.go"}`)}, `Tool "edit" denied by user.`)
	if got, want := g.text("seen"), `PostToolUse|Tool "edit" denied by user.|true|a.go`; got != want {
		t.Errorf("run_when_tool_skipped hook saw %q, want %q", got, want)
	}
	if g.count("plain") != 0 {
		t.Errorf("other hooks ran %d times", g.count("plain"))
	}
	if res.Denied() || len(res.Trace) != 1 {
		t.Errorf("result %+v; want the outcome ignored and one hook traced", res)
	}
}

func TestLuaBackgroundContextIsDeliveredAtTheSessionsNextTurn(t *testing.T) {
	g := newLuaRig(t, runner.Options{})
	// The hook finishes only once the test has seen the PostToolUse result.
	g.load("10-lint.lua", `hook.register("PostToolUse", "edit", function(input)
  while not store.get("go") do end
  return hook.context("lint of " .. input.toolInput.path .. ": 0 warnings")
end, { name = "lint", background = true, timeout_ms = 10000 })`)
	res := g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "edit", ToolInput: []byte(`{"path":"a.go"}`), SessionID: "s1"})
	if len(res.Trace) != 1 || res.Trace[0].Skipped != runner.SkipBackground || res.AdditionalContext != "" {
		t.Fatalf("result %+v, want the background hook scheduled and no context yet", res)
	}
	if err := g.store.Set(context.Background(), "go", true, 0); err != nil {
		t.Fatal(err)
	}
	// With no UserPromptSubmit hooks, Has(UserPromptSubmit) turns true exactly
	// when background context is waiting.
	deadline := time.Now().Add(10 * time.Second)
	for !g.r.Has(luahook.UserPromptSubmit) {
		if time.Now().After(deadline) {
			t.Fatal("the background hook's context never arrived")
		}
		runtime.Gosched()
	}
	if res := g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "next", SessionID: "other"}); res.AdditionalContext != "" {
		t.Errorf("another session got %q", res.AdditionalContext)
	}
	res = g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "next", SessionID: "s1"})
	if res.AdditionalContext != "lint of a.go: 0 warnings" || res.ContextAs != luahook.ContextInline {
		t.Errorf("context %q as %q at the next turn", res.AdditionalContext, res.ContextAs)
	}
	if g.r.Has(luahook.UserPromptSubmit) {
		t.Error("the context was delivered twice: still pending after the turn took it")
	}
}
