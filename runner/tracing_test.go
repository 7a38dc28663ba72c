package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// tracedRig is a rig whose runner records its spans in memory.
func tracedRig(t *testing.T) (*rig, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	g := newRig(t, Options{Tracer: tp.Tracer("test")})
	return g, rec
}

func callScoped(out *luahook.Outcome) borrower {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return out, nil }
}

// With tracing turned off again, FireInto allocates what it did before
// there was tracing: nothing, for call-scoped hooks (as the
// other AllocatesNothing tests pin); the off path is one atomic load per
// decision and per hook.
func TestFireIntoWithTracingOffAllocatesNothing(t *testing.T) {
	g, rec := tracedRig(t)
	g.add(luahook.Spec{Name: "mutate", Event: luahook.PreToolUse, Hook: callScoped(nil)})
	g.add(luahook.Spec{Name: "check", Event: luahook.PreToolUse, Stage: luahook.StageValidate, Hook: callScoped(luahook.Allow())})
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "ls", ToolInput: []byte(`{}`), SessionID: "s"}
	var res Result
	g.r.FireInto(context.Background(), in, &res)
	if n := len(rec.Ended()); n != 3 {
		t.Fatalf("with a tracer: %d spans, want 3", n)
	}
	if n := testing.AllocsPerRun(100, func() { g.r.FireInto(context.Background(), in, &res) }); n == 0 && !raceEnabled {
		t.Fatal("with a tracer FireInto allocates nothing: the test does not trace")
	}
	g.r.SetTracer(nil)
	before := len(rec.Ended())
	if n := testing.AllocsPerRun(100, func() { g.r.FireInto(context.Background(), in, &res) }); n != 0 && !raceEnabled {
		t.Errorf("FireInto with tracing off: %v allocations per call, want 0", n)
	}
	if after := len(rec.Ended()); after != before {
		t.Errorf("with tracing off %d more spans were recorded", after-before)
	}
}

// A hook's span is the context it is called with: what an HTTP hook sends
// on as traceparent.
func TestAHookIsCalledWithinItsSpan(t *testing.T) {
	g, rec := tracedRig(t)
	var seen []string
	g.add(luahook.Spec{Name: "look", Event: luahook.UserPromptSubmit, Hook: luahook.HookFunc(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			seen = append(seen, sc.SpanID().String())
		}
		return nil, nil
	})})
	g.r.Fire(context.Background(), &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi"})
	spans := rec.Ended()
	if len(spans) != 2 || len(seen) != 1 {
		t.Fatalf("%d spans, the hook saw %v", len(spans), seen)
	}
	hook, decision := spans[0], spans[1]
	if hook.Name() != "hook look" || decision.Name() != "UserPromptSubmit" {
		t.Fatalf("spans %q, %q", hook.Name(), decision.Name())
	}
	if seen[0] != hook.SpanContext().SpanID().String() {
		t.Errorf("the hook ran in span %s, want its own %s", seen[0], hook.SpanContext().SpanID())
	}
	if hook.Parent().SpanID() != decision.SpanContext().SpanID() {
		t.Error("the hook's span is not the decision's child")
	}
}

// Background hooks run after the decision's span ended: they are not traced.
func TestBackgroundHooksAreNotTraced(t *testing.T) {
	g, rec := tracedRig(t)
	g.add(luahook.Spec{Name: "later", Event: luahook.PostToolUse, Background: true})
	g.r.Fire(context.Background(), &luahook.Input{Event: luahook.PostToolUse, ToolName: "ls", ToolResult: &luahook.ToolResult{}})
	g.waitBackground()
	for _, s := range rec.Ended() {
		if strings.HasPrefix(s.Name(), "hook ") {
			t.Errorf("a background hook was traced: %s", s.Name())
		}
	}
}

func TestSessionDigestIsNotTheSessionID(t *testing.T) {
	d := SessionDigest("abc")
	if len(d) != 16 || strings.Contains(d, "abc") || d == SessionDigest("abd") || d != SessionDigest("abc") {
		t.Errorf("SessionDigest(abc) = %q", d)
	}
	if SessionDigest("") != "" {
		t.Error("no session has a digest")
	}
}

func TestSourceLine(t *testing.T) {
	for src, want := range map[string]struct {
		file string
		line int
		ok   bool
	}{
		"hooks.d/a.lua:12": {"hooks.d/a.lua", 12, true},
		"C:/x/a.lua:3":     {"C:/x/a.lua", 3, true},
		"a.lua":            {"", 0, false},
		"a.lua:x":          {"", 0, false},
		":4":               {"", 0, false},
	} {
		f, l, ok := sourceLine(src)
		if f != want.file || l != want.line || ok != want.ok {
			t.Errorf("sourceLine(%q) = %q, %d, %v; want %+v", src, f, l, ok, want)
		}
	}
}
