package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// within fails the test when f does not return within d, rather than hang.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

func TestPostToolUseFanOutRunsInParallel(t *testing.T) {
	g := newRig(t, Options{})
	aReady, bReady := make(chan struct{}), make(chan struct{})
	waitFor := func(mine, other chan struct{}, text string) luahook.HookFunc {
		return func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
			close(mine)
			select {
			case <-other:
				return luahook.Context(text), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "a", Timeout: time.Minute, Hook: waitFor(aReady, bReady, "from a")})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "b", Timeout: time.Minute, Hook: waitFor(bReady, aReady, "from b")})
	var res Result
	within(t, 10*time.Second, func() { res = g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash"}) })
	if res.AdditionalContext != "from a\nfrom b" {
		t.Errorf("context %q", res.AdditionalContext)
	}
}

func TestParallelContextsJoinInRegistrationOrder(t *testing.T) {
	for _, ev := range []luahook.Event{luahook.PostToolUse, luahook.SessionStart, luahook.Stop} {
		t.Run(string(ev), func(t *testing.T) {
			g := newRig(t, Options{})
			// Hook i finishes only after hook i+1 has: completion order is the
			// reverse of registration order.
			const n = 4
			finished := make([]chan struct{}, n+1)
			for i := range finished {
				finished[i] = make(chan struct{})
			}
			close(finished[n])
			for i := range n {
				g.add(luahook.Spec{Event: ev, Name: fmt.Sprint("h", i), Hook: luahook.HookFunc(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
					defer close(finished[i])
					select {
					case <-finished[i+1]:
					case <-ctx.Done():
					}
					return &luahook.Outcome{AdditionalContext: fmt.Sprint("part", i)}, nil
				})})
			}
			var res Result
			within(t, 10*time.Second, func() {
				res = g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash"})
			})
			if res.AdditionalContext != "part0\npart1\npart2\npart3" || res.ContextAs != luahook.ContextInline {
				t.Errorf("context %q as %q", res.AdditionalContext, res.ContextAs)
			}
			if got := traceNames(res); !slices.Equal(got, []string{"h0", "h1", "h2", "h3"}) {
				t.Errorf("trace %v, want registration order", got)
			}
		})
	}
}

func TestPostToolUseIgnoresDenyAndMutate(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Hook: fixed(&luahook.Outcome{Action: luahook.ActionDeny, Reason: "no", AdditionalContext: "a"})})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Hook: fixed(&luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{}`), AdditionalContext: "b", ContextAs: luahook.ContextSeparate})})
	g.add(luahook.Spec{Event: luahook.PostToolUse, FailurePolicy: luahook.FailClosed, Hook: fixed(&luahook.Outcome{Action: "block"})})
	res := g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash"})
	if res.Denied() || res.Input != nil {
		t.Errorf("PostToolUse acted on deny/mutate: %+v", res)
	}
	if res.AdditionalContext != "a\nb" || res.ContextAs != luahook.ContextSeparate {
		t.Errorf("context %q as %q; want \"a\\nb\" separate", res.AdditionalContext, res.ContextAs)
	}
	if res.Trace[2].Failure == nil {
		t.Error("invalid outcome not recorded as a failure")
	}
}

func TestContextAsCountsOnlyContributingHooks(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.SessionStart, Hook: fixed(&luahook.Outcome{ContextAs: luahook.ContextSeparate})})
	g.add(luahook.Spec{Event: luahook.SessionStart, Hook: fixed(luahook.Context("hello"))})
	res := g.r.SessionStart(t.Context(), &luahook.Input{})
	if res.AdditionalContext != "hello" || res.ContextAs != luahook.ContextInline {
		t.Errorf("context %q as %q; want hello inline", res.AdditionalContext, res.ContextAs)
	}
}

func TestObserveMatchesOnTheEventsMatchKeyAndIgnoresOutcomes(t *testing.T) {
	g := newRig(t, Options{})
	var explorer, other, perm, auto atomic.Int32
	g.add(luahook.Spec{Event: luahook.SubagentStart, Matcher: "explorer", Hook: counting(&explorer, luahook.Deny("x"))})
	g.add(luahook.Spec{Event: luahook.SubagentStart, Matcher: "coder", Hook: counting(&other, nil)})
	g.add(luahook.Spec{Event: luahook.Notification, Matcher: "permission", Hook: counting(&perm, luahook.Context("ignored"))})
	g.add(luahook.Spec{Event: luahook.PreCompact, Matcher: "auto", FailurePolicy: luahook.FailClosed, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		auto.Add(1)
		return nil, fmt.Errorf("broken")
	})})
	r1 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.SubagentStart, Subagent: &luahook.Subagent{Target: "Explorer"}})
	r2 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.Notification, Notification: &luahook.NotificationInfo{Kind: "permission"}})
	r3 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.PreCompact, Compaction: &luahook.Compaction{Trigger: "auto"}})
	r4 := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.Notification, Notification: &luahook.NotificationInfo{Kind: "input"}})
	if explorer.Load() != 1 || other.Load() != 0 || perm.Load() != 1 || auto.Load() != 1 {
		t.Errorf("calls explorer=%d coder=%d permission=%d auto=%d", explorer.Load(), other.Load(), perm.Load(), auto.Load())
	}
	for _, r := range []Result{r1, r2, r3, r4} {
		if r.Denied() || r.AdditionalContext != "" {
			t.Errorf("%s result used an outcome: %+v", r.Event, r)
		}
		if b, _ := json.Marshal(r.Outcome()); string(b) != "{}" {
			t.Errorf("%s outcome %s", r.Event, b)
		}
	}
	if len(r4.Trace) != 0 {
		t.Errorf("non-matching notification kind ran %v", traceNames(r4))
	}
	if _, ok := g.log.find(`PreCompact hook "`); !ok {
		t.Errorf("observational failure not logged: %q", g.log.messages())
	}
	if res := g.r.Observe(t.Context(), &luahook.Input{Event: luahook.PreToolUse}); len(res.Trace) != 0 {
		t.Error("Observe ran a steering event")
	}
}

func TestToolSkippedRunsOnlyRunWhenToolSkippedHooks(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var seen []luahook.Input
	record := func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		mu.Lock()
		seen = append(seen, *in)
		mu.Unlock()
		return luahook.Deny("ignored"), nil
	}
	var plain atomic.Int32
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "release", Matcher: "edit", RunWhenToolSkipped: true, Hook: luahook.HookFunc(record)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg-release", Matcher: "edit", RunWhenToolSkipped: true, Background: true, Hook: luahook.HookFunc(record)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "other-tool", Matcher: "bash", RunWhenToolSkipped: true, Hook: counting(&plain, nil)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "plain", Matcher: "edit", Hook: counting(&plain, nil)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "failing", Matcher: "edit", RunWhenToolSkipped: true, FailurePolicy: luahook.FailClosed,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, fmt.Errorf("boom") })})

	res := g.r.ToolSkipped(t.Context(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "edit", ToolInput: json.RawMessage(`{"path":"a"}`)}, `Tool "edit" denied by user.`)
	if plain.Load() != 0 {
		t.Errorf("hooks without run_when_tool_skipped ran %d times", plain.Load())
	}
	if len(seen) != 2 {
		t.Fatalf("run_when_tool_skipped hooks ran %d times, want 2 (background awaited too)", len(seen))
	}
	for _, in := range seen {
		if in.Event != luahook.PostToolUse || in.ToolResult == nil || *in.ToolResult != (luahook.ToolResult{Content: `Tool "edit" denied by user.`, IsError: true}) || string(in.ToolInput) != `{"path":"a"}` {
			t.Errorf("payload %+v", in)
		}
	}
	if res.Denied() || res.AdditionalContext != "" || len(res.Trace) != 3 {
		t.Errorf("result %+v; outcomes must be ignored, trace must hold the 3 selected hooks", res)
	}
}

func TestCallerCancellationReturnsAtOnce(t *testing.T) {
	fires := map[string]func(*Runner, context.Context) Result{
		"PreToolUse": func(r *Runner, ctx context.Context) Result { return r.PreToolUse(ctx, bashInput("ls")) },
		"PostToolUse": func(r *Runner, ctx context.Context) Result {
			return r.PostToolUse(ctx, &luahook.Input{ToolName: "bash"})
		},
		"UserPromptSubmit": func(r *Runner, ctx context.Context) Result {
			return r.UserPromptSubmit(ctx, &luahook.Input{Prompt: "p"})
		},
		"SessionStart": func(r *Runner, ctx context.Context) Result { return r.SessionStart(ctx, &luahook.Input{}) },
		"Stop":         func(r *Runner, ctx context.Context) Result { return r.Stop(ctx, &luahook.Input{}) },
		"SubagentStop": func(r *Runner, ctx context.Context) Result {
			return r.Observe(ctx, &luahook.Input{Event: luahook.SubagentStop, Subagent: &luahook.Subagent{Target: "x"}})
		},
		"ToolSkipped": func(r *Runner, ctx context.Context) Result {
			return r.ToolSkipped(ctx, &luahook.Input{ToolName: "bash"}, "denied")
		},
	}
	for name, fire := range fires {
		event := luahook.Event(name)
		if name == "ToolSkipped" {
			event = luahook.PostToolUse
		}
		for _, hooks := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d hooks", name, hooks), func(t *testing.T) {
				g := newRig(t, Options{})
				release := make(chan struct{})
				t.Cleanup(func() { close(release) })
				started := make(chan struct{}, hooks)
				for range hooks {
					g.add(luahook.Spec{Event: event, Timeout: time.Minute, RunWhenToolSkipped: true, FailurePolicy: luahook.FailClosed,
						Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
							started <- struct{}{}
							<-release // ignores its context
							return nil, nil
						})})
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan Result, 1)
				go func() { done <- fire(g.r, ctx) }()
				<-started
				cancel()
				cancelled := time.Now()
				select {
				case res := <-done:
					if d := time.Since(cancelled); d > time.Second {
						t.Errorf("returned %v after the cancel", d)
					}
					if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailAborted {
						t.Errorf("first hook's failure %v, want aborted", f)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("runner did not return after the caller cancelled")
				}
			})
		}
	}
}
