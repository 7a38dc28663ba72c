package packs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/runner"
)

// budgetWith opens an engine on the budget pack with lines of its SETTINGS
// changed (pairs of was, to), as an operator who changed them would. It
// fails t unless budget.lua holds each was exactly once.
func budgetWith(t *testing.T, pairs ...string) *engine.Engine {
	t.Helper()
	src, err := os.ReadFile("budget.lua")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for i := 0; i+1 < len(pairs); i += 2 {
		if n := strings.Count(s, pairs[i]); n != 1 {
			t.Fatalf("budget.lua holds %q %d times, want once", pairs[i], n)
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	dir := hooksFolder(t)
	if err := os.WriteFile(filepath.Join(dir, "budget.lua"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// budgetCall is a tool call of session s: a shell command, or, when
// command is empty, a Read; native, when set, is the agent's own payload.
func budgetCall(e *engine.Engine, s, command, native string) runner.Result {
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: "Read", ToolCapabilities: []string{"fs.read"},
		ToolInput: json.RawMessage(`{"file_path":"/home/dev/app/main.go"}`), Cwd: "/home/dev/app", SessionID: s}
	if command != "" {
		raw, _ := json.Marshal(map[string]string{"command": command})
		in.ToolName, in.ToolCapabilities, in.ToolInput = "Bash", []string{"shell"}, raw
	}
	if native != "" {
		in.Native = json.RawMessage(native)
	}
	return e.Runner().Fire(context.Background(), &in)
}

// budgetFail reports a shell command of session s back as failed.
func budgetFail(e *engine.Engine, s, command string) {
	raw, _ := json.Marshal(map[string]string{"command": command})
	in := luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", ToolCapabilities: []string{"shell"},
		ToolInput: raw, Cwd: "/home/dev/app", SessionID: s, ToolResult: &luahook.ToolResult{Content: "exit status 1", IsError: true}}
	e.Runner().Fire(context.Background(), &in)
}

func wantDenied(t *testing.T, what string, r runner.Result, reason string) {
	t.Helper()
	if !r.Denied() || !strings.Contains(r.Reason, reason) {
		t.Errorf("%s: %s %q, want denied with %q", what, r.Verdict, r.Reason, reason)
	}
}

func wantRuns(t *testing.T, what string, r runner.Result) {
	t.Helper()
	if r.Denied() || r.Asked() {
		t.Errorf("%s: %s %q, want it to run", what, r.Verdict, r.Reason)
	}
}

// TestBudgetWallTimeIsDeniedPastMaxMinutes sets max_minutes to 0.05 (3 s,
// ample for two calls on a busy machine): a session's calls run until that
// long after its first call, then every call is denied, naming
// max_minutes; another session still runs.
func TestBudgetWallTimeIsDeniedPastMaxMinutes(t *testing.T) {
	e := budgetWith(t, "max_minutes = 240,", "max_minutes = 0.05,")
	wantRuns(t, "the first call", budgetCall(e, "s", "", ""))
	wantRuns(t, "a shell command at once", budgetCall(e, "s", "go build ./...", ""))
	time.Sleep(3300 * time.Millisecond)
	wantDenied(t, "a call 3.3 s after the first", budgetCall(e, "s", "", ""),
		"budget: this session has run for 0 of its 0.05 minutes (max_minutes in the budget pack's SETTINGS)")
	wantDenied(t, "a shell command then", budgetCall(e, "s", "git status", ""), "max_minutes")
	wantRuns(t, "another session's first call", budgetCall(e, "other", "", ""))
}

// TestBudgetWallTimeWarnsOnceAtWarnAt sets max_minutes to 1 and warn_at to
// 0.005 (300 ms): the first call past it is told how long the session has
// run, once; no call is denied.
func TestBudgetWallTimeWarnsOnceAtWarnAt(t *testing.T) {
	e := budgetWith(t, "max_minutes = 240,", "max_minutes = 1,", "warn_at = 0.8,", "warn_at = 0.005,",
		"max_tool_calls = 500,", "max_tool_calls = 100000,")
	r := budgetCall(e, "s", "", "")
	wantRuns(t, "the first call", r)
	if r.AdditionalContext != "" {
		t.Errorf("the first call: context %q, want none", r.AdditionalContext)
	}
	time.Sleep(350 * time.Millisecond)
	r = budgetCall(e, "s", "", "")
	wantRuns(t, "a call 350 ms after the first", r)
	if !strings.Contains(r.AdditionalContext, "budget: this session has run for 0 of its 1 minutes") {
		t.Errorf("a call past warn_at of the wall time: context %q, want the time the session has run", r.AdditionalContext)
	}
	r = budgetCall(e, "s", "", "")
	wantRuns(t, "the next call", r)
	if r.AdditionalContext != "" {
		t.Errorf("the call after the warning: context %q, want none (the warning is given once)", r.AdditionalContext)
	}
}

// TestBudgetLoopWindowForgetsOldFailures sets loop.window_ms to 3000 (ample
// for a few calls on a busy machine): two
// failures of a command deny its next run at once, but not once they are
// older than the window; a fresh pair denies it again.
func TestBudgetLoopWindowForgetsOldFailures(t *testing.T) {
	e := budgetWith(t, "loop = { repeats = 3, window_ms = 600000 },", "loop = { repeats = 3, window_ms = 3000 },")
	const cmd = "go test ./..."
	for range 2 {
		wantRuns(t, "a run of "+cmd, budgetCall(e, "s", cmd, ""))
		budgetFail(e, "s", cmd)
	}
	wantDenied(t, "the third run at once", budgetCall(e, "s", cmd, ""), "you have run this 2 times; it failed each time")
	time.Sleep(3300 * time.Millisecond)
	wantRuns(t, "the third run past the window", budgetCall(e, "s", cmd, ""))
	budgetFail(e, "s", cmd)
	wantRuns(t, "a run after one failure in the window", budgetCall(e, "s", cmd, ""))
	budgetFail(e, "s", cmd)
	wantDenied(t, "a run after two failures in the window", budgetCall(e, "s", cmd, ""), "change approach")
}

// TestBudgetLoopRepeatsIsASetting sets loop.repeats to 4: three failures,
// not two, deny the next run, and the reason counts them.
func TestBudgetLoopRepeatsIsASetting(t *testing.T) {
	e := budgetWith(t, "loop = { repeats = 3, window_ms = 600000 },", "loop = { repeats = 4, window_ms = 600000 },")
	const cmd = "make test"
	for i := range 3 {
		wantRuns(t, "run "+string(rune('1'+i)), budgetCall(e, "s", cmd, ""))
		budgetFail(e, "s", cmd)
	}
	wantDenied(t, "the fourth run", budgetCall(e, "s", cmd, ""),
		"you have run this 3 times; it failed each time; change approach")
}

// TestBudgetLoopComparesALongCommandWhole: a command longer than the
// ledger keeps of a call's summary is compared by its digest, so the same
// line is a loop and the line with one more argument is not.
func TestBudgetLoopComparesALongCommandWhole(t *testing.T) {
	e := budgetWith(t)
	long := "go test -run '" + strings.Repeat("TestSomething|", 30) + "TestLast' ./..."
	for range 2 {
		budgetCall(e, "s", long, "")
		budgetFail(e, "s", long)
	}
	wantDenied(t, "the same long line", budgetCall(e, "s", long, ""), "you have run this 2 times")
	wantRuns(t, "the long line with -v", budgetCall(e, "s", long+" -v", ""))
}

// TestBudgetCostAndTokensFromThePayload sets max_cost_usd and max_tokens:
// the totals the agent's payload reports warn once at warn_at and deny
// past the limit, naming the setting; a payload without them is not
// judged on them.
func TestBudgetCostAndTokensFromThePayload(t *testing.T) {
	e := budgetWith(t, "max_cost_usd = nil,", "max_cost_usd = 5,", "max_tokens = nil,", "max_tokens = 100000,")
	r := budgetCall(e, "s", "", `{"session_id":"s","total_cost_usd":3.9}`)
	wantRuns(t, "$3.90 of $5", r)
	if r.AdditionalContext != "" {
		t.Errorf("$3.90 of $5: context %q, want none", r.AdditionalContext)
	}
	r = budgetCall(e, "s", "", `{"session_id":"s","total_cost_usd":4.1}`)
	wantRuns(t, "$4.10 of $5", r)
	if !strings.Contains(r.AdditionalContext, "budget: this session has used 4.10 of its 5.00 US dollars") {
		t.Errorf("$4.10 of $5: context %q, want the warning", r.AdditionalContext)
	}
	r = budgetCall(e, "s", "", `{"session_id":"s","total_cost_usd":4.2}`)
	if r.AdditionalContext != "" {
		t.Errorf("$4.20 of $5: context %q, want none (the warning is given once)", r.AdditionalContext)
	}
	wantDenied(t, "$5.50 of $5", budgetCall(e, "s", "", `{"session_id":"s","total_cost_usd":5.5}`),
		"budget: this session has used 5.50 of its 5.00 US dollars (max_cost_usd in the budget pack's SETTINGS)")
	wantRuns(t, "a payload without totals", budgetCall(e, "t", "", `{"session_id":"t"}`))
	r = budgetCall(e, "u", "", `{"session_id":"u","usage":{"total_tokens":85000}}`)
	if !strings.Contains(r.AdditionalContext, "used 85000 of its 100000 tokens") {
		t.Errorf("85000 of 100000 tokens: context %q, want the warning", r.AdditionalContext)
	}
	wantDenied(t, "100001 tokens", budgetCall(e, "u", "", `{"session_id":"u","usage":{"total_tokens":100001}}`),
		"used 100001 of its 100000 tokens (max_tokens in the budget pack's SETTINGS)")
}

// TestBudgetSettingsThatCannotWorkFailAtLoad: read_transcript (hooks
// cannot read files) and a loop of one repeat are errors at load that say
// which setting and why.
func TestBudgetSettingsThatCannotWorkFailAtLoad(t *testing.T) {
	for _, c := range []struct{ was, to, want string }{
		{"read_transcript = false,", "read_transcript = true,", "SETTINGS.read_transcript cannot be true: hooks cannot read files"},
		{"loop = { repeats = 3,", "loop = { repeats = 1,", "SETTINGS.loop.repeats must be a whole number of at least 2, got 1"},
		{"max_minutes = 240,", `max_minutes = "4h",`, "SETTINGS.max_minutes must be a positive number, got 4h"},
		{"warn_at = 0.8,", "warn_at = 80,", "SETTINGS.warn_at must be a fraction above 0 and at most 1, got 80"},
	} {
		src, err := os.ReadFile("budget.lua")
		if err != nil {
			t.Fatal(err)
		}
		dir := hooksFolder(t)
		if err := os.WriteFile(filepath.Join(dir, "budget.lua"), []byte(strings.Replace(string(src), c.was, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true})
		if err == nil {
			err = e.Err()
			e.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: load error %v, want one saying %q", c.to, err, c.want)
		}
	}
}
