package runner

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// rig is a real registry, a runner over it and the runner's log records.
type rig struct {
	t   *testing.T
	reg *registry.Registry
	r   *Runner
	log *logRecorder
}

func newRig(t *testing.T, opts Options) *rig {
	t.Helper()
	reg := registry.New()
	rec := &logRecorder{}
	opts.Registry, opts.Logger = reg, slog.New(rec)
	r := New(opts)
	t.Cleanup(r.Close)
	return &rig{t: t, reg: reg, r: r, log: rec}
}

// add registers spec; a nil spec.Hook is a hook that does nothing.
func (g *rig) add(spec luahook.Spec) {
	g.t.Helper()
	if spec.Hook == nil {
		spec.Hook = luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })
	}
	if _, err := g.reg.Register(spec); err != nil {
		g.t.Fatal(err)
	}
}

// waitBackground waits until no background hook runs; nothing may schedule meanwhile.
func (g *rig) waitBackground() { g.r.bgWG.Wait() }

// bound adapts a function to a hook that returns promptly once its context is
// done, like the Lua, command and HTTP transports.
type bound func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error)

func (f bound) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	return f(ctx, in)
}
func (bound) BoundByContext() bool { return true }

// borrower is a bound Go hook that promises to use its input and context
// only while Call runs.
type borrower func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error)

func (f borrower) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	return f(ctx, in)
}
func (borrower) BoundByContext() bool { return true }
func (borrower) ScopedToCall() bool   { return true }

// lateBorrower makes the same promise, but runs on its own goroutine.
type lateBorrower func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error)

func (f lateBorrower) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	return f(ctx, in)
}
func (lateBorrower) ScopedToCall() bool { return true }

// fixed returns a Go hook that always answers out.
func fixed(out *luahook.Outcome) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return out, nil }
}

// counting returns a Go hook that counts its calls and answers out.
func counting(n *atomic.Int32, out *luahook.Outcome) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		n.Add(1)
		return out, nil
	}
}

// recording returns a Go hook that appends name to *calls (under mu).
func recording(mu *sync.Mutex, calls *[]string, name string, out *luahook.Outcome) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		mu.Lock()
		*calls = append(*calls, name)
		mu.Unlock()
		return out, nil
	}
}

func bashInput(cmd string) *luahook.Input {
	ti, _ := json.Marshal(map[string]string{"command": cmd})
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: ti, Cwd: "/tmp", SessionID: "s1"}
}

// logRecorder is a slog.Handler that keeps every record's text and attributes.
type logRecorder struct {
	mu      sync.Mutex
	records []logRecord
}

type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, rec)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		out = append(out, r.msg)
	}
	return out
}

func (h *logRecorder) find(substr string) (logRecord, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if strings.Contains(r.msg, substr) {
			return r, true
		}
	}
	return logRecord{}, false
}

func traceNames(res Result) []string {
	var out []string
	for _, tr := range res.Trace {
		out = append(out, tr.Name)
	}
	return out
}

func TestHasReportsEventsWithHooksWithoutAllocating(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash"})
	if !g.r.Has(luahook.PreToolUse) {
		t.Error("Has(PreToolUse) = false with a PreToolUse hook")
	}
	for _, ev := range []luahook.Event{luahook.PostToolUse, luahook.UserPromptSubmit, luahook.Stop, "Bogus"} {
		if g.r.Has(ev) {
			t.Errorf("Has(%s) = true without hooks", ev)
		}
	}
	if n := testing.AllocsPerRun(100, func() { g.r.Has(luahook.PreToolUse); g.r.Has(luahook.Stop) }); n != 0 {
		t.Errorf("Has allocates %v times", n)
	}
}

func TestFireDispatchesOnTheEvent(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	seen := map[luahook.Event]luahook.Event{}
	for _, ev := range luahook.Events() {
		g.add(luahook.Spec{Event: ev, Name: string(ev), Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			mu.Lock()
			seen[ev] = in.Event
			mu.Unlock()
			return nil, nil
		})})
	}
	for _, ev := range luahook.Events() {
		res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: json.RawMessage(`{}`)})
		if res.Event != ev {
			t.Errorf("Fire(%s).Event = %s", ev, res.Event)
		}
		if got := traceNames(res); !slices.Equal(got, []string{string(ev)}) {
			t.Errorf("Fire(%s) ran %v", ev, got)
		}
		mu.Lock()
		if seen[ev] != ev {
			t.Errorf("%s hook saw event %q", ev, seen[ev])
		}
		mu.Unlock()
	}
	if res := g.r.Fire(t.Context(), &luahook.Input{Event: "Bogus"}); len(res.Trace) != 0 {
		t.Errorf("unknown event ran hooks: %v", traceNames(res))
	}
}

func TestHooksRunInRegistryOrder(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var calls []string
	// Registered go, lua, command: the registry orders configured (command)
	// hooks first, then Lua files, then Go hooks.
	for _, s := range []struct {
		name, owner string
		kind        luahook.HookKind
	}{
		{"go-1", "plugin", luahook.KindGo},
		{"lua-b", "hooks.d/b.lua", luahook.KindLua},
		{"lua-a", "hooks.d/a.lua", luahook.KindLua},
		{"cmd", "config", luahook.KindCommand},
		{"go-2", "plugin", luahook.KindGo},
	} {
		g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: s.name, Owner: s.owner, Kind: s.kind,
			Hook: recording(&mu, &calls, s.name, nil)})
	}
	var want []string
	for _, e := range g.reg.List(luahook.UserPromptSubmit) {
		want = append(want, e.Name)
	}
	if !slices.Equal(want, []string{"cmd", "lua-a", "lua-b", "go-1", "go-2"}) {
		t.Fatalf("registry order %v", want)
	}
	res := g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "hi"})
	if !slices.Equal(calls, want) {
		t.Errorf("calls %v, want registry order %v", calls, want)
	}
	if got := traceNames(res); !slices.Equal(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
	for _, tr := range res.Trace {
		if tr.ID == "" || tr.Kind == "" {
			t.Errorf("trace entry lacks id or kind: %+v", tr)
		}
	}
}

func TestCloseWaitsForBackgroundHooksAndIsIdempotent(t *testing.T) {
	g := newRig(t, Options{})
	started := make(chan struct{})
	var returned atomic.Bool
	var sawCancel atomic.Bool
	g.add(luahook.Spec{Event: luahook.PostToolUse, Background: true, Hook: bound(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		defer returned.Store(true)
		close(started)
		<-ctx.Done()
		sawCancel.Store(true)
		return nil, ctx.Err()
	})})
	g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash", SessionID: "s"})
	<-started
	done := make(chan struct{})
	go func() {
		g.r.Close()
		g.r.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	if !returned.Load() || !sawCancel.Load() {
		t.Errorf("Close returned before the background hook saw its context cancelled (returned=%v cancelled=%v)", returned.Load(), sawCancel.Load())
	}
}

func TestClosedRunnerStartsNoBackgroundHooks(t *testing.T) {
	g := newRig(t, Options{})
	var n atomic.Int32
	g.add(luahook.Spec{Event: luahook.PostToolUse, Background: true, Name: "bg", Hook: counting(&n, nil)})
	g.r.Close()
	res := g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash"})
	g.waitBackground()
	if n.Load() != 0 {
		t.Errorf("background hook ran %d times after Close", n.Load())
	}
	if len(res.Trace) != 1 || res.Trace[0].Skipped != SkipBackgroundDisabled {
		t.Errorf("trace %+v, want one entry skipped %q", res.Trace, SkipBackgroundDisabled)
	}
}

func TestZeroOptionsAreUsable(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	if r.Has(luahook.PreToolUse) {
		t.Error("empty runner has PreToolUse hooks")
	}
	res := r.PreToolUse(t.Context(), bashInput("ls"))
	if res.Denied() || res.Input != nil || len(res.Trace) != 0 {
		t.Errorf("empty runner result %+v", res)
	}
}

func TestEventsWithoutHooksAllocateNothing(t *testing.T) {
	g := newRig(t, Options{})
	// Hooks for other events and tools must not make these paths work.
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "edit"})
	g.add(luahook.Spec{Event: luahook.Notification})
	ctx := t.Context()
	pre, post, prompt := bashInput("ls"), &luahook.Input{ToolName: "bash", SessionID: "s"}, &luahook.Input{Prompt: "p"}
	calls := map[string]func(){
		"PreToolUse":       func() { g.r.PreToolUse(ctx, pre) },
		"PostToolUse":      func() { g.r.PostToolUse(ctx, post) },
		"UserPromptSubmit": func() { g.r.UserPromptSubmit(ctx, prompt) },
		"SessionStart":     func() { g.r.SessionStart(ctx, prompt) },
		"Stop":             func() { g.r.Stop(ctx, prompt) },
		"Observe":          func() { g.r.Observe(ctx, &luahook.Input{Event: luahook.SessionEnd}) },
		"ToolSkipped":      func() { g.r.ToolSkipped(ctx, post, "denied") },
		"Has":              func() { g.r.Has(luahook.Stop) },
	}
	for name, f := range calls {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s without hooks: %v allocations per call", name, n)
		}
	}
}

// FireInto gives what Fire gives, with the trace written into the Result's
// own array: a host firing event after event with one Result allocates
// nothing for it.
func TestFireIntoReusesTheResultsTrace(t *testing.T) {
	g := newRig(t, Options{})
	deny := &luahook.Outcome{Action: luahook.ActionDeny, Reason: "no"}
	note := &luahook.Outcome{AdditionalContext: "seen"}
	g.add(luahook.Spec{Name: "pass", Event: luahook.PreToolUse, Hook: borrower(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })})
	g.add(luahook.Spec{Name: "deny", Event: luahook.PreToolUse, Matcher: "rm", Hook: borrower(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return deny, nil })})
	g.add(luahook.Spec{Name: "note", Event: luahook.PostToolUse, Hook: borrower(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return note, nil })})
	g.add(luahook.Spec{Name: "note2", Event: luahook.PostToolUse, Hook: borrower(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return note, nil })})
	inputs := []*luahook.Input{
		{Event: luahook.PreToolUse, ToolName: "rm", ToolInput: []byte(`{}`)},
		{Event: luahook.PreToolUse, ToolName: "ls", ToolInput: []byte(`{}`)},
		{Event: luahook.PostToolUse, ToolName: "ls", ToolInput: []byte(`{}`), ToolResult: &luahook.ToolResult{Content: "ok"}},
		{Event: luahook.Stop},
	}
	var res Result
	for round := range 2 {
		for _, in := range inputs {
			want := g.r.Fire(t.Context(), in)
			g.r.FireInto(t.Context(), in, &res)
			if res.Denied() != want.Denied() || res.Reason != want.Reason || res.AdditionalContext != want.AdditionalContext || len(res.Trace) != len(want.Trace) {
				t.Fatalf("round %d, %s %s: FireInto %+v, Fire %+v", round, in.Event, in.ToolName, res, want)
			}
			for i := range want.Trace {
				if w, got := want.Trace[i], res.Trace[i]; got.Name != w.Name || got.Outcome != w.Outcome || got.Skipped != w.Skipped {
					t.Errorf("round %d, %s: trace[%d] = %+v, want %+v", round, in.Event, i, got, w)
				}
			}
		}
	}
	in := inputs[0]
	g.r.FireInto(t.Context(), in, &res)
	first := &res.Trace[0]
	g.r.FireInto(t.Context(), in, &res)
	if &res.Trace[0] != first {
		t.Error("the second call's trace is in a new array")
	}
	in = inputs[1]
	for _, ctx := range []context.Context{context.Background(), t.Context()} { // t.Context can be cancelled
		if n := testing.AllocsPerRun(100, func() { g.r.FireInto(ctx, in, &res) }); n != 0 && !raceEnabled {
			t.Errorf("FireInto with call-scoped hooks under %v: %v allocations per call, want 0", ctx, n)
		}
	}
}

// A PostToolUse with one foreground hook runs it on the caller's goroutine
// (fan-out, no WaitGroup): FireInto allocates nothing for it, as for a
// PreToolUse.
func TestFireIntoOfAPostToolUseOfOneHookAllocatesNothing(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Name: "note", Event: luahook.PostToolUse, Hook: borrower(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })})
	in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "ls", ToolInput: []byte(`{}`), ToolResult: &luahook.ToolResult{Content: "ok"}}
	var res Result
	g.r.FireInto(t.Context(), in, &res)
	if len(res.Trace) != 1 || res.Trace[0].Name != "note" {
		t.Fatalf("trace %+v, want the one hook", res.Trace)
	}
	if n := testing.AllocsPerRun(100, func() { g.r.FireInto(context.Background(), in, &res) }); n != 0 && !raceEnabled {
		t.Errorf("FireInto of a PostToolUse with one hook: %v allocations per call, want 0", n)
	}
}
