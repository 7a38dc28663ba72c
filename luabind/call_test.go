package luabind

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

func TestCallErrorCarriesFileAndLine(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function(input)
  local x = 1
  error("boom")
end)
hook.register("Stop", nil, function(input)
  return input.nothing.deeper
end)`, Options{})
	tests := []struct {
		i    int
		want string
	}{
		{0, testPath + ":3: boom"},
		{1, testPath + ":6: attempt to index a non-table object(nil) with key 'deeper'"},
	}
	for _, tt := range tests {
		_, err := call(t, f, tt.i, &luahook.Input{Event: luahook.Stop})
		fl := failure(t, err)
		if fl.Kind != luahook.FailError || fl.Message != tt.want {
			t.Errorf("hook %d: failure %q (%s), want FailError %q", tt.i, fl.Message, fl.Kind, tt.want)
		}
	}
	if s := f.Stats(); s.Discarded != 2 {
		t.Errorf("stats %+v: a state that raised an error must be discarded", s)
	}
}

// TestOutcomeConversion checks what a hook's return value becomes, legacy
// keys included, with the rules of luahook.ParseOutcome.
func TestOutcomeConversion(t *testing.T) {
	tests := []struct {
		name string
		ret  string
		want *luahook.Outcome
		kind luahook.FailureKind
	}{
		{"nil", `nil`, nil, ""},
		{"empty table", `{}`, nil, ""},
		{"allow", `hook.allow()`, &luahook.Outcome{Action: luahook.ActionAllow}, ""},
		{"deny", `hook.deny("no")`, &luahook.Outcome{Action: luahook.ActionDeny, Reason: "no"}, ""},
		{"mutate", `hook.mutate({command = "ls"}, "safer")`, &luahook.Outcome{Action: luahook.ActionMutate, Reason: "safer", Input: json.RawMessage(`{"command":"ls"}`)}, ""},
		{"mutate empty table is an object", `hook.mutate({})`, &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{}`)}, ""},
		{"context", `hook.context("note")`, &luahook.Outcome{AdditionalContext: "note"}, ""},
		{"context separate", `hook.context("note", "separate")`, &luahook.Outcome{AdditionalContext: "note", ContextAs: luahook.ContextSeparate}, ""},
		{"plain table", `{action = "deny", reason = "r", additionalContext = "c", contextAs = "inline"}`,
			&luahook.Outcome{Action: luahook.ActionDeny, Reason: "r", AdditionalContext: "c", ContextAs: luahook.ContextInline}, ""},
		{"legacy block", `{decision = "block"}`, &luahook.Outcome{Action: luahook.ActionDeny, Reason: luahook.DefaultBlockReason}, ""},
		{"legacy block with reason", `{decision = "block", reason = "stop"}`, &luahook.Outcome{Action: luahook.ActionDeny, Reason: "stop"}, ""},
		{"legacy allow", `{decision = "allow"}`, &luahook.Outcome{Action: luahook.ActionAllow}, ""},
		{"legacy modifiedInput", `{modifiedInput = {a = 1}}`, &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"a":1}`)}, ""},
		{"a string", `"deny"`, nil, luahook.FailInvalidOutput},
		{"a number", `42`, nil, luahook.FailInvalidOutput},
		{"true", `true`, nil, luahook.FailInvalidOutput},
		{"a function", `print`, nil, luahook.FailInvalidOutput},
		{"deny without reason", `{action = "deny"}`, nil, luahook.FailInvalidOutput},
		{"deny with blank reason", `hook.deny("  ")`, nil, luahook.FailInvalidOutput},
		{"unknown action", `{action = "block"}`, nil, luahook.FailInvalidOutput},
		{"mutate without input", `{action = "mutate"}`, nil, luahook.FailInvalidOutput},
		{"mutate with an array", `hook.mutate(json.array({1, 2}))`, nil, luahook.FailInvalidOutput},
		{"mutate with a list", `hook.mutate({1, 2})`, nil, luahook.FailInvalidOutput},
		{"input without mutate", `{input = {a = 1}}`, nil, luahook.FailInvalidOutput},
		{"mistyped reason", `{action = "deny", reason = 5}`, nil, luahook.FailInvalidOutput},
		{"mistyped input", `{action = "mutate", input = "x"}`, nil, luahook.FailInvalidOutput},
		{"unknown contextAs", `{additionalContext = "x", contextAs = "aside"}`, nil, luahook.FailInvalidOutput},
		{"unknown decision", `{decision = "maybe"}`, nil, luahook.FailInvalidOutput},
		{"input with a function", `hook.mutate({f = print})`, nil, luahook.FailInvalidOutput},
		{"legacy table with a function", `{decision = "block", extra = print}`, nil, luahook.FailInvalidOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, `hook.register("PreToolUse", nil, function() return `+tt.ret+` end)`, Options{})
			out, err := call(t, f, 0, preToolUse("bash", `{}`))
			if tt.kind != "" {
				if fl := failure(t, err); fl.Kind != tt.kind {
					t.Errorf("failure %v, want kind %s", fl, tt.kind)
				}
				if s := f.Stats(); s.Discarded != 0 || s.Idle != 1 {
					t.Errorf("stats %+v: an invalid outcome must not discard the state", s)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if fmt.Sprint(out) != fmt.Sprint(tt.want) {
				t.Errorf("outcome %+v, want %+v", out, tt.want)
			}
		})
	}
}

func TestOutcomeInputErrorNamesThePath(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input)
  input.toolInput.list[2] = { f = print }
  return hook.mutate(input.toolInput)
end)`, Options{})
	_, err := call(t, f, 0, preToolUse("bash", `{"list":[1,2]}`))
	fl := failure(t, err)
	if fl.Kind != luahook.FailInvalidOutput || !strings.Contains(fl.Message, "cannot encode a function at $.list[2].f") {
		t.Errorf("failure %v", fl)
	}
}

func TestInputIsAFreshCopyPerCall(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input)
  local seen = input.toolInput.seen
  input.toolInput.seen = true
  input.toolInput.list[1] = "changed"
  input.event = "other"
  if seen then return hook.deny("the previous call's change leaked") end
end)`, Options{})
	in := preToolUse("bash", `{"list":["a"]}`)
	for i := 0; i < 3; i++ {
		out, err := call(t, f, 0, in)
		if err != nil || out != nil {
			t.Fatalf("call %d: %v, %v", i, out, err)
		}
	}
	if string(in.ToolInput) != `{"list":["a"]}` || in.Event != luahook.PreToolUse {
		t.Errorf("the hook changed the host's input: %s %s", in.Event, in.ToolInput)
	}
	if s := f.Stats(); s.Created != 1 {
		t.Errorf("stats %+v, want the one state reused", s)
	}
}

func TestInvalidToolInputIsAFailError(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function() end)`, Options{})
	_, err := call(t, f, 0, preToolUse("bash", `{"a":`))
	if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, "not valid JSON") {
		t.Errorf("failure %v", fl)
	}
}

func TestRTFields(t *testing.T) {
	f := load(t, `
local function check(input, rt)
  local parts = {
    tostring(rt.deadline_ms), tostring(rt.remaining_ms()), tostring(rt.cancelled()),
    rt.session_id, rt.cwd, rt.name, rt.event, tostring(rt.unknown),
  }
  local ok, err = pcall(function() rt.x = 1 end)
  parts[#parts + 1] = tostring(err)
  return hook.deny(table.concat(parts, "|"))
end
hook.register("PreToolUse", nil, check, { name = "named" })
hook.register("PreToolUse", nil, check)
`, Options{})
	deadline := time.Now().Add(5 * time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for i, name := range []string{"named", testPath + "#2"} {
		out, err := f.Registrations()[i].Hook.Call(ctx, preToolUse("bash", `{}`))
		if err != nil {
			t.Fatal(err)
		}
		p := strings.Split(out.Reason, "|")
		if p[0] != fmt.Sprint(deadline.UnixMilli()) {
			t.Errorf("rt.deadline_ms %s, want %d", p[0], deadline.UnixMilli())
		}
		var remaining int
		fmt.Sscan(p[1], &remaining)
		if remaining <= 0 || remaining > 5000 {
			t.Errorf("rt.remaining_ms() %s, want in (0, 5000]", p[1])
		}
		want := []string{"false", "s1", "/work", name, "PreToolUse", "nil"}
		if strings.Join(p[2:8], "|") != strings.Join(want, "|") {
			t.Errorf("rt fields %v, want %v", p[2:8], want)
		}
		if !strings.Contains(p[8], "rt is read-only") {
			t.Errorf("assigning to rt: %q, want an error", p[8])
		}
	}
}

func TestRTWithoutDeadline(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function(input, rt)
  return hook.deny(tostring(rt.deadline_ms) .. " " .. tostring(rt.remaining_ms()))
end)`, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	if err != nil || out.Reason != "nil nil" {
		t.Errorf("%v, %v; want deadline_ms and remaining_ms() nil", out, err)
	}
}

// signalHandler is a slog handler that reports each record's message.
type signalHandler struct{ ch chan string }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	h.ch <- r.Message
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

func TestDeadlineAndCancellationStopALoopingHook(t *testing.T) {
	started := make(chan string, 1)
	f := load(t, `hook.register("Stop", nil, function()
  log.info("started")
  while true do end
end)
hook.register("Stop", nil, function() return hook.deny("fine") end)`, Options{Logger: slog.New(signalHandler{started})})

	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the looping hook was still running 10 s after its 100 ms deadline")
		}
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("the hook never started (%v)", err)
		}
		if fl := failure(t, err); fl.Kind != luahook.FailTimeout || !strings.Contains(fl.Message, testPath+":3:") {
			t.Errorf("failure %v, want FailTimeout at line 3", fl)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("returned after %v, want within 2 s of a 100 ms deadline", d)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
			done <- err
		}()
		<-started
		cancelled := time.Now()
		cancel()
		// The loop has no deadline: a cancel it did not see would hold it
		// forever. It stops within a few ms; the bound leaves room for a
		// machine busy with other work.
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the looping hook was still running 10 s after the cancel")
		}
		if d := time.Since(cancelled); d > 2*time.Second {
			t.Errorf("returned %v after the cancel, want within 2 s", d)
		}
		if fl := failure(t, err); fl.Kind != luahook.FailAborted {
			t.Errorf("failure %v, want FailAborted", fl)
		}
	})
	if s := f.Stats(); s.Discarded != 2 || s.Busy != 0 {
		t.Errorf("stats %+v, want both interrupted states discarded", s)
	}
	out, err := call(t, f, 1, &luahook.Input{Event: luahook.Stop})
	if err != nil || out.Reason != "fine" {
		t.Errorf("the next call: %v, %v", out, err)
	}
}

func TestCallWithADoneContextDoesNotRun(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function() store.incr("ran") end)`, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	if fl := failure(t, err); fl.Kind != luahook.FailAborted {
		t.Errorf("failure %v, want FailAborted", fl)
	}
	if v, ok, _ := f.sh.store.Get(context.Background(), "ran"); ok {
		t.Errorf("the hook ran (%v)", v)
	}
}

func TestCallerWaitsForAFreeStateUntilItsDeadline(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function() return hook.deny("ran") end)`, Options{MaxStates: 1})
	held, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	if fl := failure(t, err); fl.Kind != luahook.FailTimeout || !strings.Contains(fl.Message, "waiting for a free Lua state") {
		t.Errorf("failure %v, want FailTimeout while waiting", fl)
	}
	result := make(chan error, 1)
	go func() {
		_, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
		result <- err
	}()
	f.pool.put(held)
	if err := <-result; err != nil {
		t.Errorf("a waiting caller after the state came back: %v", err)
	}
	if s := f.Stats(); s.Created != 1 {
		t.Errorf("stats %+v, want one state only (MaxStates 1)", s)
	}
}

func TestRetiredFileServesLateCallsAndKeepsNoState(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function() return hook.deny("ran") end)`, Options{MaxStates: 2})
	held, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	f.Close()
	// A call that arrives after Close (it read the registry before a reload
	// swapped the file out) still runs on this version, on a fresh state.
	out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if err != nil || out == nil || out.Reason != "ran" {
		t.Errorf("call after Close = %v, %v; want deny \"ran\"", out, err)
	}
	f.pool.put(held)
	if !held.L.IsClosed() {
		t.Error("a state returned after Close was not closed")
	}
	if s := f.Stats(); s.Idle != 0 || s.Busy != 0 || s.Created != 2 || !s.Retired {
		t.Errorf("stats %+v, want nothing left, 2 created, retired", s)
	}
}

func TestConcurrentCallsAcrossFiles(t *testing.T) {
	var files []*File
	for i := 0; i < 3; i++ {
		files = append(files, load(t, fmt.Sprintf(`
hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.n then return hook.deny("file %d") end
end)`, i), Options{}))
	}
	const goroutines, calls = 8, 10000
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			deny, pass := preToolUse("bash", `{"n":1}`), preToolUse("bash", `{}`)
			for c := 0; c < calls; c++ {
				i := (g + c) % 3
				h := files[i].Registrations()[0].Hook
				in, want := pass, ""
				if c%2 == 0 {
					in, want = deny, fmt.Sprintf("file %d", i)
				}
				out, err := h.Call(ctx, in)
				if err != nil || (out == nil) != (want == "") || (out != nil && out.Reason != want) {
					errs <- fmt.Errorf("call %d of goroutine %d: %v, %v; want %q", c, g, out, err, want)
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
	for _, f := range files {
		if s := f.Stats(); s.Busy != 0 || s.Discarded != 0 || s.Created > f.sh.opts.MaxStates {
			t.Errorf("stats %+v", s)
		}
	}
}

func TestGoPanicInAHookIsAFailError(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function() boom() end)
hook.register("Stop", nil, function() return hook.deny("alive") end)`, Options{MaxStates: 1})
	st, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st.backing.RawSetString("boom", st.L.NewFunction(func(*lua.LState) int { panic("a bug in Go code") }))
	f.pool.put(st)
	_, err = call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, "a bug in Go code") {
		t.Errorf("failure %v, want FailError", fl)
	}
	out, err := call(t, f, 1, &luahook.Input{Event: luahook.Stop})
	if err != nil || out.Reason != "alive" {
		t.Errorf("the next call: %v, %v", out, err)
	}
}

func TestHookHelpersCheckTheirArguments(t *testing.T) {
	tests := []struct{ code, want string }{
		{`return hook.deny()`, "bad argument #1 to deny (string expected, got nil)"},
		{`return hook.mutate("x")`, "bad argument #1 to mutate (table expected, got string)"},
		{`return hook.context("x", "aside")`, `bad argument #2 to context ("inline" or "separate" expected)`},
	}
	for _, tt := range tests {
		_, err := runHook(t, tt.code, Options{})
		if fl := failure(t, err); fl.Kind != luahook.FailError || !strings.Contains(fl.Message, tt.want) {
			t.Errorf("%s: failure %v, want %q", tt.code, fl, tt.want)
		}
	}
	_, err := runHook(t, `
assert(#hook.events == 11)
assert(hook.events[1] == "SessionStart" and hook.events.PreToolUse == "PreToolUse")
assert(hook.events.Bogus == nil)`, Options{})
	if err != nil {
		t.Error(err)
	}
}

func TestLoadWithACancelledContextFails(t *testing.T) {
	c, err := Compile(testPath, []byte(`hook.register("Stop", nil, function() end)`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, c, Options{}); err == nil || !strings.Contains(err.Error(), "loading was cancelled") {
		t.Errorf("Load = %v, want a cancellation error", err)
	}
}
