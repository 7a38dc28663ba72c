package runner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// gate is a background hook that records each call's tool result and the
// session, signals started, and waits for a release per call.
type gate struct {
	mu      sync.Mutex
	calls   []string
	started chan string
	release chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan string, 16), release: make(chan struct{})}
}

func (g *gate) hook(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	call := in.SessionID + ":" + in.ToolResult.Content
	g.mu.Lock()
	g.calls = append(g.calls, call)
	g.mu.Unlock()
	g.started <- call
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return luahook.Context("bg " + call), nil
}

// next returns the next call that started, failing the test rather than
// hanging when none does.
func (g *gate) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-g.started:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no background run started")
		return ""
	}
}

func (g *gate) recorded() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

// runOnce fires in at PostToolUse and lets the background run finish only
// after the call returned, so that its context waits in the buffer.
func (g *gate) runOnce(rg *rig, in *luahook.Input) {
	rg.r.PostToolUse(rg.t.Context(), in)
	g.next(rg.t)
	g.release <- struct{}{}
	rg.waitBackground()
}

func post(session, content string) *luahook.Input {
	return &luahook.Input{ToolName: "bash", SessionID: session, ToolResult: &luahook.ToolResult{Content: content}}
}

func TestBackgroundHooksAreNotAwaited(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: bound(gt.hook)})
	var res Result
	within(t, 10*time.Second, func() { res = rg.r.PostToolUse(t.Context(), post("s", "1")) })
	if len(res.Trace) != 1 || !res.Trace[0].Background || res.Trace[0].Skipped != SkipBackground {
		t.Errorf("trace %+v, want one background entry", res.Trace)
	}
	if res.AdditionalContext != "" {
		t.Errorf("background context delivered before the hook finished: %q", res.AdditionalContext)
	}
	gt.next(t)
	close(gt.release)
	rg.waitBackground()
}

func TestBackgroundBurstRunsTheFirstAndTheLast(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: luahook.HookFunc(gt.hook)})
	rg.r.PostToolUse(t.Context(), post("s", "1"))
	gt.next(t) // the first run blocks on release
	rg.r.PostToolUse(t.Context(), post("s", "2"))
	rg.r.PostToolUse(t.Context(), post("s", "3"))
	gt.release <- struct{}{}
	if next := gt.next(t); next != "s:3" {
		t.Errorf("after the first run came %q, want the latest payload s:3", next)
	}
	gt.release <- struct{}{}
	rg.waitBackground()
	if got := gt.recorded(); !slices.Equal(got, []string{"s:1", "s:3"}) {
		t.Errorf("runs %v, want [s:1 s:3]", got)
	}
}

func TestBackgroundCoalescingIsPerSession(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: luahook.HookFunc(gt.hook)})
	rg.r.PostToolUse(t.Context(), post("A", "1"))
	if s := gt.next(t); s != "A:1" {
		t.Fatalf("started %q", s)
	}
	rg.r.PostToolUse(t.Context(), post("B", "1"))
	// Session B runs at once, beside A's blocked run: it is not queued behind it.
	if s := gt.next(t); s != "B:1" {
		t.Fatalf("started %q, want B:1 while A:1 still runs", s)
	}
	rg.r.PostToolUse(t.Context(), post("A", "2"))
	rg.r.PostToolUse(t.Context(), post("B", "2"))
	rg.r.PostToolUse(t.Context(), post("A", "3"))
	close(gt.release)
	rg.waitBackground()
	got := gt.recorded()
	slices.Sort(got)
	if want := []string{"A:1", "A:3", "B:1", "B:2"}; !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
}

func TestBackgroundContextReachesOnlyItsOwnSession(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Matcher: "edit", Background: true, Hook: luahook.HookFunc(gt.hook)})
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "fg", Matcher: "bash", Hook: fixed(&luahook.Outcome{AdditionalContext: "fg", ContextAs: luahook.ContextSeparate})})
	in := post("A", "1")
	in.ToolName = "edit"
	gt.runOnce(rg, in)

	if res := rg.r.PostToolUse(t.Context(), post("B", "x")); res.AdditionalContext != "fg" {
		t.Errorf("session B got %q, want only its foreground context", res.AdditionalContext)
	}
	res := rg.r.PostToolUse(t.Context(), post("A", "x"))
	if res.AdditionalContext != "fg\nbg A:1" || res.ContextAs != luahook.ContextSeparate {
		t.Errorf("session A got %q as %q, want foreground then background, separate", res.AdditionalContext, res.ContextAs)
	}
	if res := rg.r.PostToolUse(t.Context(), post("A", "x")); res.AdditionalContext != "fg" {
		t.Errorf("buffer not cleared by delivery: %q", res.AdditionalContext)
	}
	if rg.r.buf.pending() {
		t.Error("buffer still reports pending parts")
	}
}

func TestBackgroundContextIsDeliveredEvenWithoutMatchingHooks(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Matcher: "edit", Background: true, Hook: luahook.HookFunc(gt.hook)})
	in := post("A", "1")
	in.ToolName = "edit"
	gt.runOnce(rg, in)
	if !rg.r.Has(luahook.UserPromptSubmit) {
		t.Error("Has(UserPromptSubmit) = false while background context waits")
	}
	res := rg.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "next", SessionID: "A"})
	if res.AdditionalContext != "bg A:1" || res.ContextAs != luahook.ContextInline {
		t.Errorf("context %q as %q", res.AdditionalContext, res.ContextAs)
	}
	if rg.r.Has(luahook.UserPromptSubmit) {
		t.Error("Has(UserPromptSubmit) = true after delivery, with no hooks")
	}
}

func TestBackgroundContextPrecedesPromptContexts(t *testing.T) {
	rg := newRig(t, Options{})
	rg.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: fixed(&luahook.Outcome{AdditionalContext: "prompt hook", ContextAs: luahook.ContextSeparate})})
	rg.r.buf.add("A", "bg 1")
	rg.r.buf.add("A", "bg 2")
	res := rg.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "p", SessionID: "A"})
	if res.AdditionalContext != "bg 1\nbg 2\nprompt hook" || res.ContextAs != luahook.ContextSeparate {
		t.Errorf("context %q as %q", res.AdditionalContext, res.ContextAs)
	}
}

func TestBlockedPromptKeepsBackgroundContext(t *testing.T) {
	rg := newRig(t, Options{})
	gt := newGate()
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: luahook.HookFunc(gt.hook)})
	var block = true
	rg.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		if block {
			return luahook.Deny("not now"), nil
		}
		return nil, nil
	})})
	gt.runOnce(rg, post("A", "1"))
	if res := rg.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "p", SessionID: "A"}); !res.Denied() || res.AdditionalContext != "" {
		t.Fatalf("blocked prompt: %+v", res)
	}
	block = false
	if res := rg.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "p", SessionID: "A"}); res.AdditionalContext != "bg A:1" {
		t.Errorf("next prompt got %q, want the kept background context", res.AdditionalContext)
	}
}

func TestBackgroundSessionFallsBackToOptionsThenDefault(t *testing.T) {
	for _, c := range []struct {
		name    string
		fn      func() string
		session string
	}{
		{"options", func() string { return "host-session" }, "host-session"},
		{"default", nil, DefaultSession},
	} {
		t.Run(c.name, func(t *testing.T) {
			rg := newRig(t, Options{SessionID: c.fn})
			gt := newGate()
			rg.add(luahook.Spec{Event: luahook.PostToolUse, Background: true, Hook: luahook.HookFunc(gt.hook)})
			gt.runOnce(rg, post("", "1"))
			if parts := rg.r.buf.drain(c.session, math.MaxUint64); !slices.Equal(parts, []string{"bg :1"}) {
				t.Errorf("buffer of %q holds %q", c.session, parts)
			}
		})
	}
}

func TestBackgroundHooksAreFailOpenAndLogged(t *testing.T) {
	rg := newRig(t, Options{})
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "scan", Background: true, FailurePolicy: luahook.FailClosed,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, fmt.Errorf("crashed") })})
	rg.r.PostToolUse(t.Context(), post("A", "1"))
	rg.waitBackground()
	if _, ok := rg.log.find(`PostToolUse background hook "scan" failed (error): crashed`); !ok {
		t.Errorf("logs %q", rg.log.messages())
	}
	if res := rg.r.PostToolUse(t.Context(), post("A", "2")); res.Denied() || res.AdditionalContext != "" {
		t.Errorf("failed background hook affected the result: %+v", res)
	}
}

func TestContextBufferKeepsNewestPartsAndSessions(t *testing.T) {
	var b contextBuffer
	for i := range MaxBufferedParts + 4 {
		b.add("s", fmt.Sprint(i))
	}
	parts := b.drain("s", math.MaxUint64)
	if len(parts) != MaxBufferedParts || parts[0] != "4" || parts[len(parts)-1] != fmt.Sprint(MaxBufferedParts+3) {
		t.Errorf("parts %v, want the newest %d in order", parts, MaxBufferedParts)
	}
	if b.pending() || b.drain("s", math.MaxUint64) != nil {
		t.Error("drain did not clear the session")
	}

	for i := range MaxBufferedSessions {
		b.add(fmt.Sprint("s", i), "x")
	}
	b.add("s0", "again") // s0 stays the oldest inserted session
	b.add("new", "y")    // one too many: the oldest inserted (s0) goes
	if b.drain("s0", math.MaxUint64) != nil {
		t.Error("oldest session not evicted")
	}
	if got := b.drain("new", math.MaxUint64); !slices.Equal(got, []string{"y"}) {
		t.Errorf("current session %v", got)
	}
	if b.sessions.Load() != MaxBufferedSessions-1 {
		t.Errorf("%d sessions left, want %d", b.sessions.Load(), MaxBufferedSessions-1)
	}
}

func TestBackgroundContextIsDeliveredExactlyOnce(t *testing.T) {
	rg := newRig(t, Options{})
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Background: true, Matcher: "edit", Hook: fixed(luahook.Context("done"))})
	in := post("A", "1")
	in.ToolName = "edit"
	// The run may finish before this very call drains the buffer, or after:
	// either way its context reaches the session once.
	first := rg.r.PostToolUse(t.Context(), in)
	rg.waitBackground()
	second := rg.r.PostToolUse(t.Context(), post("A", "2"))
	third := rg.r.PostToolUse(t.Context(), post("A", "3"))
	got := []string{first.AdditionalContext, second.AdditionalContext, third.AdditionalContext}
	if slices.Index(got, "done") < 0 || len(slices.DeleteFunc(got, func(s string) bool { return s == "" })) != 1 {
		t.Errorf("contexts %q, want \"done\" exactly once", got)
	}
}

// TestBackgroundContextWaitsForTheNextTurn: a background hook that finishes
// before the PostToolUse call that scheduled it returns does not deliver into
// that call's own result, only into the session's next turn.
func TestBackgroundContextWaitsForTheNextTurn(t *testing.T) {
	reg := registry.New()
	done := make(chan struct{}, 16)
	if _, err := reg.Register(luahook.Spec{Event: luahook.PostToolUse, Background: true,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			defer func() { done <- struct{}{} }()
			return luahook.Context("from the background"), nil
		})}); err != nil {
		t.Fatal(err)
	}
	// A foreground hook that waits until the background run has finished, so
	// its context is buffered while the scheduling call is still running.
	if _, err := reg.Register(luahook.Spec{Event: luahook.PostToolUse,
		Hook: luahook.HookFunc(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
			select {
			case <-done:
			case <-ctx.Done():
			}
			time.Sleep(5 * time.Millisecond) // let the background run buffer its part
			return nil, nil
		})}); err != nil {
		t.Fatal(err)
	}
	r := New(Options{Registry: reg})
	defer r.Close()
	in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "edit", SessionID: "s"}
	if res := r.PostToolUse(context.Background(), in); res.AdditionalContext != "" {
		t.Fatalf("the scheduling call got its own background context: %q", res.AdditionalContext)
	}
	res := r.UserPromptSubmit(context.Background(), &luahook.Input{Event: luahook.UserPromptSubmit, SessionID: "s"})
	if res.AdditionalContext != "from the background" {
		t.Fatalf("next turn got %q", res.AdditionalContext)
	}
}
