package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func TestPolicyOnlySkipsOrdinaryHooksWithoutCallingThem(t *testing.T) {
	cases := []struct {
		event      luahook.Event
		background bool
		fire       func(*Runner, context.Context) Result
	}{
		{luahook.PreToolUse, false, func(r *Runner, ctx context.Context) Result { return r.PreToolUse(ctx, bashInput("ls")) }},
		{luahook.PostToolUse, false, func(r *Runner, ctx context.Context) Result {
			return r.PostToolUse(ctx, &luahook.Input{ToolName: "bash"})
		}},
		{luahook.PostToolUse, true, func(r *Runner, ctx context.Context) Result {
			return r.PostToolUse(ctx, &luahook.Input{ToolName: "bash"})
		}},
		{luahook.UserPromptSubmit, false, func(r *Runner, ctx context.Context) Result {
			return r.UserPromptSubmit(ctx, &luahook.Input{Prompt: "hi"})
		}},
		{luahook.SessionStart, false, func(r *Runner, ctx context.Context) Result { return r.SessionStart(ctx, &luahook.Input{}) }},
		{luahook.Stop, false, func(r *Runner, ctx context.Context) Result { return r.Stop(ctx, &luahook.Input{}) }},
		{luahook.Notification, false, func(r *Runner, ctx context.Context) Result {
			return r.Observe(ctx, &luahook.Input{Event: luahook.Notification, Notification: &luahook.NotificationInfo{Kind: "input"}})
		}},
		{luahook.SessionEnd, false, func(r *Runner, ctx context.Context) Result {
			return r.Observe(ctx, &luahook.Input{Event: luahook.SessionEnd})
		}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/background=%v", c.event, c.background), func(t *testing.T) {
			g := newRig(t, Options{PolicyOnly: true})
			var ordinary, policy atomic.Int32
			g.add(luahook.Spec{Event: c.event, Name: "ordinary", Background: c.background, Hook: counting(&ordinary, nil)})
			g.add(luahook.Spec{Event: c.event, Name: "policy", Policy: true, Background: c.background, Hook: counting(&policy, nil)})
			res := c.fire(g.r, t.Context())
			g.waitBackground()
			if ordinary.Load() != 0 {
				t.Errorf("ordinary hook called %d times under policy-only", ordinary.Load())
			}
			if policy.Load() != 1 {
				t.Errorf("policy hook called %d times, want 1", policy.Load())
			}
			if len(res.Trace) != 2 || res.Trace[0].Skipped != SkipPolicyOnly || res.Trace[0].Failure != nil {
				t.Errorf("trace %+v, want the ordinary hook skipped %q", res.Trace, SkipPolicyOnly)
			}
			g.r.SetPolicyOnly(false)
			c.fire(g.r, t.Context())
			g.waitBackground()
			if ordinary.Load() != 1 {
				t.Errorf("after SetPolicyOnly(false) ordinary hook called %d times, want 1", ordinary.Load())
			}
		})
	}
}

func TestPolicyOnlyGatesToolSkipped(t *testing.T) {
	g := newRig(t, Options{PolicyOnly: true})
	var ordinary, policy atomic.Int32
	g.add(luahook.Spec{Event: luahook.PostToolUse, RunWhenToolSkipped: true, Hook: counting(&ordinary, nil)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, RunWhenToolSkipped: true, Policy: true, Hook: counting(&policy, nil)})
	g.r.ToolSkipped(t.Context(), &luahook.Input{ToolName: "bash"}, "denied")
	if ordinary.Load() != 0 || policy.Load() != 1 {
		t.Errorf("ordinary called %d, policy called %d; want 0 and 1", ordinary.Load(), policy.Load())
	}
}

func TestDoneContextAbortsWithoutCallingTheHook(t *testing.T) {
	g := newRig(t, Options{})
	var n atomic.Int32
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "h", Hook: counting(&n, nil)})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := g.r.PreToolUse(ctx, bashInput("ls"))
	if n.Load() != 0 {
		t.Errorf("hook called %d times with a done context", n.Load())
	}
	if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailAborted {
		t.Errorf("failure %v, want aborted", f)
	}
}

type ctxKey struct{}

func TestEachCallGetsItsOwnDeadlineDerivedFromTheCallersContext(t *testing.T) {
	g := newRig(t, Options{})
	type seen struct {
		deadline time.Time
		ok       bool
		value    any
	}
	got := make(chan seen, 2)
	hook := func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		d, ok := ctx.Deadline()
		got <- seen{d, ok, ctx.Value(ctxKey{})}
		return nil, nil
	}
	g.add(luahook.Spec{Event: luahook.Stop, Timeout: 3 * time.Second, Hook: luahook.HookFunc(hook)})

	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	before := time.Now()
	g.r.Stop(ctx, &luahook.Input{})
	s := <-got
	if !s.ok || s.deadline.Before(before.Add(3*time.Second)) || s.deadline.After(time.Now().Add(3*time.Second)) {
		t.Errorf("deadline %v (set=%v), want about 3s after the call", s.deadline, s.ok)
	}
	if s.value != "caller" {
		t.Errorf("hook context does not derive from the caller's: value %v", s.value)
	}

	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	want, _ := short.Deadline()
	g.r.Stop(short, &luahook.Input{})
	if s := <-got; !s.deadline.Equal(want) {
		t.Errorf("deadline %v, want the caller's earlier deadline %v", s.deadline, want)
	}
}

func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return strings.Fields(string(buf))[1] // "goroutine 123 [running]:"
}

func TestContextBoundHooksRunOnTheCallersGoroutine(t *testing.T) {
	g := newRig(t, Options{})
	ids := make(chan string, 2)
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "bound", Hook: bound(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		ids <- goroutineID()
		return nil, nil
	})})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "plain", Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		ids <- goroutineID()
		return nil, nil
	})})
	caller := goroutineID()
	g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "x"})
	if id := <-ids; id != caller {
		t.Errorf("context-bound hook ran on goroutine %s, caller is %s", id, caller)
	}
	if id := <-ids; id == caller {
		t.Errorf("plain Go hook ran on the caller's goroutine %s", id)
	}
}

func TestHookIgnoringItsDeadlineIsAbandoned(t *testing.T) {
	g := newRig(t, Options{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "stuck", Timeout: 50 * time.Millisecond, FailurePolicy: luahook.FailClosed,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			<-release
			return luahook.Allow(), nil
		})})
	var res Result
	within(t, 2*time.Second, func() { res = g.r.PreToolUse(t.Context(), bashInput("ls")) })
	f := res.Trace[0].Failure
	if f == nil || f.Kind != luahook.FailTimeout || f.Message != "timed out after 50ms" {
		t.Fatalf("failure %v, want timeout \"timed out after 50ms\"", f)
	}
	if !res.Denied() || !strings.Contains(res.Reason, "failed (timeout)") {
		t.Errorf("fail-closed timeout: denied=%v reason %q", res.Denied(), res.Reason)
	}
}

func TestPanicsAreContained(t *testing.T) {
	panicking := func(context.Context, *luahook.Input) (*luahook.Outcome, error) { panic("boom") }
	for _, c := range []struct {
		name string
		hook luahook.Hook
	}{{"plain", luahook.HookFunc(panicking)}, {"context-bound", bound(panicking)}} {
		for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
			t.Run(c.name+"/"+string(policy), func(t *testing.T) {
				g := newRig(t, Options{})
				g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "p", FailurePolicy: policy, Hook: c.hook})
				res := g.r.PreToolUse(t.Context(), bashInput("ls"))
				f := res.Trace[0].Failure
				if f == nil || f.Kind != luahook.FailError || f.Message != "panic: boom" {
					t.Fatalf("failure %v, want error \"panic: boom\"", f)
				}
				if res.Denied() != (policy == luahook.FailClosed) {
					t.Errorf("denied = %v under %s policy", res.Denied(), policy)
				}
			})
		}
	}
}

func TestFailuresAreClassified(t *testing.T) {
	blockUntilDone := func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		<-ctx.Done()
		return nil, errors.New("gave up: " + ctx.Err().Error())
	}
	cases := []struct {
		name         string
		contextBound bool
		fn           func(context.Context, *luahook.Input) (*luahook.Outcome, error)
		timeout      time.Duration
		cancel       bool
		kind         luahook.FailureKind
		message      string
	}{
		{"returned failure keeps its kind", false, func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return nil, luahook.Failf(luahook.FailExit, "exit status 3")
		}, 0, false, luahook.FailExit, "exit status 3"},
		{"wrapped failure keeps its kind", true, func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return nil, fmt.Errorf("transport: %w", luahook.Failf(luahook.FailRejected, "not allowed"))
		}, 0, false, luahook.FailRejected, "not allowed"},
		{"plain error", false, func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return nil, errors.New("disk on fire")
		}, 0, false, luahook.FailError, "disk on fire"},
		{"own deadline passed", true, blockUntilDone, 20 * time.Millisecond, false, luahook.FailTimeout, "timed out after 20ms"},
		{"own deadline passed, plain hook", false, blockUntilDone, 20 * time.Millisecond, false, luahook.FailTimeout, "timed out after 20ms"},
		{"caller cancelled", true, blockUntilDone, time.Minute, true, luahook.FailAborted, "hook invocation aborted"},
		{"caller cancelled, plain hook", false, blockUntilDone, time.Minute, true, luahook.FailAborted, "hook invocation aborted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			started := make(chan struct{}, 1)
			fn := func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				started <- struct{}{}
				return c.fn(ctx, in)
			}
			var h luahook.Hook = luahook.HookFunc(fn)
			if c.contextBound {
				h = bound(fn)
			}
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "h", Timeout: c.timeout, Hook: h})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if c.cancel {
				go func() { <-started; cancel() }()
			}
			res := g.r.PreToolUse(ctx, bashInput("ls"))
			f := res.Trace[0].Failure
			if f == nil || f.Kind != c.kind || f.Message != c.message {
				t.Errorf("failure %v, want %s %q", f, c.kind, c.message)
			}
		})
	}
}

func TestInvalidOutcomesAreFailures(t *testing.T) {
	cases := []struct {
		name string
		out  *luahook.Outcome
	}{
		{"deny without reason", &luahook.Outcome{Action: luahook.ActionDeny, Reason: "  "}},
		{"mutate with a non-object input", &luahook.Outcome{Action: luahook.ActionMutate, Input: []byte(`[1,2]`)}},
		{"mutate without input", &luahook.Outcome{Action: luahook.ActionMutate}},
		{"unknown action block", &luahook.Outcome{Action: "block", Reason: "no"}},
		{"unknown contextAs", &luahook.Outcome{AdditionalContext: "x", ContextAs: "sideways"}},
	}
	for _, c := range cases {
		for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
			t.Run(c.name+"/"+string(policy), func(t *testing.T) {
				g := newRig(t, Options{})
				g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "bad", FailurePolicy: policy, Hook: fixed(c.out)})
				res := g.r.PreToolUse(t.Context(), bashInput("ls"))
				if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailInvalidOutput {
					t.Fatalf("failure %v, want invalid_output", f)
				}
				if res.Trace[0].Outcome != c.out {
					t.Error("trace does not keep the outcome as returned")
				}
				want := policy == luahook.FailClosed
				if res.Denied() != want || res.Input != nil || res.AdditionalContext != "" {
					t.Errorf("denied=%v input=%s context=%q; want denied=%v and nothing else", res.Denied(), res.Input, res.AdditionalContext, want)
				}
				if want && res.Reason != failClosedReason(luahook.PreToolUse, "bad", res.Trace[0].Failure) {
					t.Errorf("reason %q", res.Reason)
				}
			})
		}
	}
}

func TestFailuresAreLoggedAtWarn(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "lint", Source: "hooks.d/lint.lua:3", Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return nil, luahook.Failf(luahook.FailExit, "exit status 1")
	})})
	g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash"})
	rec, ok := g.log.find("failed")
	if !ok {
		t.Fatalf("no failure logged: %q", g.log.messages())
	}
	if rec.level != slog.LevelWarn || rec.msg != `PostToolUse hook "lint" failed (exit): exit status 1` {
		t.Errorf("logged %v %q", rec.level, rec.msg)
	}
	if rec.attrs["hook"] != "lint" || rec.attrs["kind"] != "exit" || rec.attrs["source"] != "hooks.d/lint.lua:3" {
		t.Errorf("attributes %v", rec.attrs)
	}
}

func TestFailClosedDeniesOnlyOnPreToolUseAndUserPromptSubmit(t *testing.T) {
	for _, ev := range luahook.Events() {
		t.Run(string(ev), func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: ev, Name: "guard", FailurePolicy: luahook.FailClosed, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
				return nil, errors.New("broken")
			})})
			var later atomic.Int32
			g.add(luahook.Spec{Event: ev, Name: "later", Hook: counting(&later, luahook.Context("more"))})
			res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`)})
			steering := ev == luahook.PreToolUse || ev == luahook.UserPromptSubmit
			if res.Denied() != steering {
				t.Fatalf("denied = %v", res.Denied())
			}
			if !steering {
				if later.Load() != 1 {
					t.Errorf("closed behaves as open: later hook called %d times", later.Load())
				}
				return
			}
			want := string(ev) + ` policy hook "guard" failed (error); the action was denied by fail-closed policy. This is not an approval request. Cause: `
			if !strings.HasPrefix(res.Reason, want) {
				t.Errorf("reason %q\nwant   %q", res.Reason, want)
			}
			if later.Load() != 0 {
				t.Errorf("hook after a fail-closed denial called %d times", later.Load())
			}
		})
	}
}

func TestTimeoutFailOpenVsFailClosed(t *testing.T) {
	for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
		for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.UserPromptSubmit} {
			t.Run(string(ev)+"/"+string(policy), func(t *testing.T) {
				g := newRig(t, Options{})
				g.add(luahook.Spec{Event: ev, Name: "slow", Timeout: 10 * time.Millisecond, FailurePolicy: policy,
					Hook: bound(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
						<-ctx.Done()
						return nil, ctx.Err()
					})})
				res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`), Prompt: "p"})
				if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailTimeout {
					t.Fatalf("failure %v, want timeout", f)
				}
				if res.Denied() != (policy == luahook.FailClosed) {
					t.Errorf("denied = %v", res.Denied())
				}
				if res.Denied() && !strings.Contains(res.Reason, `"slow" failed (timeout)`) {
					t.Errorf("reason %q", res.Reason)
				}
			})
		}
	}
}

func TestEachHookGetsItsOwnCopyOfTheInput(t *testing.T) {
	// Two capability lists: a short one is copied inside the Input's own
	// allocation, a long one separately.
	for _, caps := range [][]string{{"exec", "network"}, {"exec", "network", "write", "read", "spawn"}} {
		t.Run(fmt.Sprint(len(caps), " capabilities"), func(t *testing.T) { testInputCopy(t, caps) })
	}
}

// Hooks that use their input only while Call runs, on the caller's
// goroutine, are lent the runner's payload; every other hook gets its own.
func TestOnlyBoundCallScopedHooksAreLentTheRunnersPayload(t *testing.T) {
	g := newRig(t, Options{})
	var got [5]*luahook.Input
	var events [5]luahook.Event
	record := func(i int) func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			got[i], events[i] = in, in.Event
			return nil, nil
		}
	}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: borrower(record(0))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: bound(record(1))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: borrower(record(2))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: lateBorrower(record(3))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: luahook.HookFunc(record(4))})
	in := &luahook.Input{ToolName: "bash", ToolInput: []byte(`{}`)}
	g.r.PreToolUse(t.Context(), in)
	if got[0] == nil || got[0] != got[2] {
		t.Errorf("two bound borrowers got %p and %p, want the same payload", got[0], got[2])
	}
	if got[0] == in {
		t.Error("a borrower got the caller's own Input, want the runner's copy (with the event set)")
	}
	if events[0] != luahook.PreToolUse {
		t.Errorf("lent payload has event %q", events[0])
	}
	// The lent copy is recycled for the next event once every hook has
	// returned, and holds nothing of this payload while it waits.
	if got[0] != nil && !reflect.DeepEqual(*got[0], luahook.Input{}) {
		t.Errorf("the lent payload after the call: %+v, want it cleared", *got[0])
	}
	for i, name := range map[int]string{1: "bound hook", 3: "borrower on its own goroutine", 4: "Go hook"} {
		if got[i] == nil || got[i] == got[0] || got[i] == in {
			t.Errorf("%s got %p (lent %p, caller's %p), want a copy of its own", name, got[i], got[0], in)
		}
	}
}

func testInputCopy(t *testing.T, caps []string) {
	g := newRig(t, Options{})
	yes := true
	in := &luahook.Input{
		ToolName: "bash", ToolInput: []byte(`{"command":"ls"}`), Cwd: "/work", SessionID: "s",
		ToolCapabilities: caps, ToolMutating: &yes,
		ToolResult: &luahook.ToolResult{Content: "out"},
	}
	vandal := func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		in.ToolName, in.Cwd, in.SessionID = "evil", "/", "other"
		in.ToolCapabilities[0] = "none"
		in.ToolCapabilities = append(in.ToolCapabilities[:1], "x")
		*in.ToolMutating = false
		if in.ToolResult != nil {
			in.ToolResult.Content = "forged"
		}
		return nil, nil
	}
	type view struct {
		tool, cwd, session, capability, result string
		mutating                               bool
	}
	seen := make(chan view, 4)
	observer := func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		v := view{tool: in.ToolName, cwd: in.Cwd, session: in.SessionID, capability: in.ToolCapabilities[0] + "," + in.ToolCapabilities[1], mutating: *in.ToolMutating}
		if in.ToolResult != nil {
			v.result = in.ToolResult.Content
		}
		seen <- v
		return nil, nil
	}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: luahook.HookFunc(vandal)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: bound(observer)})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: bound(vandal)})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: luahook.HookFunc(observer)})

	g.r.PreToolUse(t.Context(), in)
	g.r.UserPromptSubmit(t.Context(), in)
	for range 2 {
		if v := <-seen; v != (view{"bash", "/work", "s", "exec,network", "out", true}) {
			t.Errorf("later hook saw a changed payload: %+v", v)
		}
	}
	if in.ToolName != "bash" || in.Cwd != "/work" || in.ToolCapabilities[0] != "exec" || in.ToolCapabilities[1] != "network" || !*in.ToolMutating || in.ToolResult.Content != "out" || in.Event != "" {
		t.Errorf("caller's payload changed: %+v", in)
	}
}

// A fail-closed denial says why the hook failed (the failure's message,
// file:line for a Lua hook), cut to MaxCauseChars characters: "failed
// (invalid_output)" alone leaves the operator and the model guessing.
func TestFailClosedDenialCarriesTheCause(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"short", "hooks.d/10-guard.lua:3: attempt to call a nil value", "Cause: hooks.d/10-guard.lua:3: attempt to call a nil value"},
		{"at the cap", strings.Repeat("é", MaxCauseChars), "Cause: " + strings.Repeat("é", MaxCauseChars)},
		{"past the cap", strings.Repeat("é", MaxCauseChars) + "x", "Cause: " + strings.Repeat("é", MaxCauseChars) + " …"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", FailurePolicy: luahook.FailClosed,
				Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
					return nil, errors.New(tc.msg)
				})})
			res := g.r.PreToolUse(t.Context(), bashInput("ls"))
			if !res.Denied() || !strings.HasSuffix(res.Reason, tc.want) {
				t.Errorf("reason %q\nwant it to end with %q", res.Reason, tc.want)
			}
		})
	}
}
