package luabind_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/runner"
)

// guardFile is a file with a "slow" Stop hook that logs "busy" and then
// loops until its context ends (to hold a state of the pool), and a
// PreToolUse "guard" that denies rm -rf and private keys.
func guardFile(policy luahook.FailurePolicy, timeoutMs int) string {
	return fmt.Sprintf(`hook.register("Stop", nil, function() log.info("busy") while true do end end, { name = "slow" })
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:find("rm -rf", 1, true) or cmd:find("id_rsa", 1, true) then
    return hook.deny("guard: refused")
  end
end, { name = "guard", timeout_ms = %d, failure_policy = %q })`, timeoutMs, policy)
}

// holdStates calls the file's "slow" hook n times, each on its own state,
// and returns once all n are running; release ends them.
func holdStates(t *testing.T, f *luabind.File, busy <-chan string, n int) (release func()) {
	t.Helper()
	var slow luahook.Hook
	for _, r := range f.Registrations() {
		if r.Name == "slow" {
			slow = r.Hook
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { slow.Call(ctx, &luahook.Input{Event: luahook.Stop}) })
	}
	for range n {
		select {
		case <-busy:
		case <-time.After(10 * time.Second):
			cancel()
			t.Fatal("the slow hooks did not start")
		}
	}
	release = func() {
		cancel()
		wg.Wait()
	}
	t.Cleanup(release)
	return release
}

// A payload that is slow to turn into Lua tables must not use up the hook's
// deadline: the conversion happens before the deadline starts, so that a
// fail-open guard is not skipped by a timeout its payload caused.
//
// The guard has 60 ms: time enough to run its few instructions on a
// machine busy with other work, and less than the conversion of the
// payload takes (about 110 ms on an idle machine, 500 ms under the race
// detector), so that a deadline started before the conversion would have
// passed when the guard runs: it would have no time left, or be timed out
// and, failing open, allow.
func TestLuaPayloadConversionDoesNotUseTheHooksDeadline(t *testing.T) {
	const values = 400_000
	g := newLuaRig(t, runner.Options{})
	g.loadWith("10-guard.lua", `hook.register("PreToolUse", "bash", function(input, rt)
  if input.toolInput.command:find("rm -rf", 1, true) then
    return hook.deny("refused with " .. rt.remaining_ms() .. " ms left")
  end
end, { name = "guard", timeout_ms = 60, failure_policy = "open" })`, luabind.Options{MaxInputValues: values})
	// The object, the command, the array and its items.
	pad := strings.Repeat("[],", values-4) + "[]"
	res := g.pre(`{"command":"rm -rf /","pad":[` + pad + `]}`)
	var left int
	if _, err := fmt.Sscanf(res.Reason, "refused with %d ms left", &left); !res.Denied() || err != nil {
		t.Fatalf("denied=%v reason=%q trace %+v; want the guard's own denial", res.Denied(), res.Reason, res.Trace)
	}
	if left <= 0 {
		t.Fatalf("the guard ran with %dms of its 60ms left: the payload's conversion used up its deadline", left)
	}
}

// A caller that finds every state of a file busy waits at most the hook's
// timeout, and then gets a rejection that says the engine is overloaded:
// the runner denies on it whatever the failure policy, instead of letting a
// fail-open guard turn an overload into "allow".
func TestLuaOverloadedPoolIsARejectionNamingTheOverload(t *testing.T) {
	for _, policy := range policies {
		t.Run(string(policy), func(t *testing.T) {
			g := newLuaRig(t, runner.Options{})
			busy := make(chan string, 8)
			f := g.loadWith("10-guard.lua", guardFile(policy, 100),
				luabind.Options{MaxStates: 2, Logger: slog.New(signalHandler{busy})})
			release := holdStates(t, f, busy, 2)
			start := time.Now()
			res := g.pre(`{"command":"cat ~/.ssh/id_rsa"}`)
			took := time.Since(start)
			release()
			fl := res.Trace[0].Failure
			want := "no Lua state of 10-guard.lua became free within 100ms (2 of 2 busy): luahook is overloaded"
			if fl == nil || fl.Kind != luahook.FailRejected || !strings.Contains(fl.Message, want) {
				t.Fatalf("failure %v; want rejected: %q", fl, want)
			}
			if took < 90*time.Millisecond || took > 5*time.Second {
				t.Errorf("the call returned after %v; want after the hook's 100ms timeout", took)
			}
			if !res.Denied() {
				t.Fatalf("an overloaded guard's call was not denied: %+v", res)
			}
		})
	}
}

// A hook that waited for a state still gets its whole deadline: the wait
// is not taken out of it. The hook's deadline (rt.deadline_ms) is compared
// with the moment the state was released, not with the time left when the
// hook ran, which a machine busy with other work shortens: a deadline
// counted from the start of the call comes sooner than the release plus
// the timeout, by the 200 ms wait at least. The 2 s timeout is also how
// long the call waits for the state, far longer than its release takes.
func TestLuaHookThatWaitedForAStateHasItsWholeDeadline(t *testing.T) {
	const timeout = 2 * time.Second
	g := newLuaRig(t, runner.Options{})
	busy := make(chan string, 8)
	f := g.loadWith("10-guard.lua", `
hook.register("Stop", nil, function() log.info("busy") while true do end end, { name = "slow" })
hook.register("PreToolUse", "bash", function(input, rt) return hook.deny(string.format("%d", rt.deadline_ms)) end,
  { name = "guard", timeout_ms = 2000 })`, luabind.Options{MaxStates: 1, Logger: slog.New(signalHandler{busy})})
	release := holdStates(t, f, busy, 1)
	released := make(chan time.Time, 1)
	time.AfterFunc(200*time.Millisecond, func() {
		released <- time.Now()
		release()
	})
	res := g.pre(`{"command":"ls"}`)
	if !res.Denied() {
		t.Fatalf("trace %+v; want the guard's answer", res.Trace)
	}
	deadline, err := strconv.ParseInt(res.Reason, 10, 64)
	if err != nil {
		t.Fatalf("reason %q: %v", res.Reason, err)
	}
	at := <-released
	if earliest := at.Add(timeout).UnixMilli(); deadline < earliest {
		t.Fatalf("the hook's deadline is %dms after the state was released, want its whole %v: the wait for a state was taken out of it",
			deadline-at.UnixMilli(), timeout)
	}
}
