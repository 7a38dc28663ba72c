package telemetry_test

import (
	"context"
	"errors"
	"maps"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/telemetry"
	"github.com/luahook/luahook/internal/telemetry/otlptest"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
	"go.opentelemetry.io/otel/propagation"
)

const (
	wait      = 20 * time.Second // wide: two busy cores
	sessionID = "session-0123456789-do-not-export"
)

func on() *bool  { b := true; return &b }
func off() *bool { b := false; return &b }
func env(kv ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

func TestTracingIsOffUnlessAskedFor(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  config.Telemetry
		env  []string
		want bool
	}{
		{"nothing said", config.Telemetry{}, nil, false},
		{"enabled = true", config.Telemetry{Enabled: on()}, nil, true},
		{"OTEL_TRACES_EXPORTER=otlp", config.Telemetry{}, []string{"OTEL_TRACES_EXPORTER", "otlp"}, true},
		{"OTEL_TRACES_EXPORTER=console,otlp", config.Telemetry{}, []string{"OTEL_TRACES_EXPORTER", "console, otlp"}, true},
		{"OTEL_TRACES_EXPORTER=none", config.Telemetry{}, []string{"OTEL_TRACES_EXPORTER", "none"}, false},
		{"enabled = false wins over the variable", config.Telemetry{Enabled: off()}, []string{"OTEL_TRACES_EXPORTER", "otlp"}, false},
		{"OTEL_SDK_DISABLED wins over enabled", config.Telemetry{Enabled: on()}, []string{"OTEL_SDK_DISABLED", "true"}, false},
	} {
		if got := telemetry.Enabled(c.cfg, env(c.env...)); got != c.want {
			t.Errorf("%s: Enabled = %v, want %v", c.name, got, c.want)
		}
	}
}

// Off, Setup builds nothing, and the nil Provider is safe to use.
func TestSetupOffReturnsNoProvider(t *testing.T) {
	p, err := telemetry.Setup(context.Background(), config.Telemetry{Endpoint: "http://127.0.0.1:1"}, telemetry.Options{LookupEnv: env()})
	if err != nil || p != nil {
		t.Fatalf("Setup off = %v, %v; want nil, nil", p, err)
	}
	if p.Tracer() != nil || p.Propagator() != nil || p.Protocol() != "" || p.Shutdown(context.Background()) != nil {
		t.Fatal("a nil Provider is not tracing off")
	}
}

func TestAnUnknownProtocolInTheEnvironmentIsAnError(t *testing.T) {
	_, err := telemetry.Setup(context.Background(), config.Telemetry{Enabled: on()},
		telemetry.Options{LookupEnv: env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")})
	if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Fatalf("err = %v, want one naming OTEL_EXPORTER_OTLP_PROTOCOL", err)
	}
}

// rig is a runner whose tracer exports to a receiver.
type rig struct {
	reg *registry.Registry
	r   *runner.Runner
	p   *telemetry.Provider
}

func newRig(t *testing.T, cfg config.Telemetry, e func(string) (string, bool)) *rig {
	t.Helper()
	if e == nil {
		e = env()
	}
	p, err := telemetry.Setup(context.Background(), cfg, telemetry.Options{Instance: "replica-7", LookupEnv: e})
	if err != nil || p == nil {
		t.Fatalf("Setup = %v, %v", p, err)
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	reg := registry.New()
	r := runner.New(runner.Options{Registry: reg, Tracer: p.Tracer()})
	t.Cleanup(r.Close)
	return &rig{reg: reg, r: r, p: p}
}

func (g *rig) add(t *testing.T, spec luahook.Spec, f luahook.HookFunc) {
	t.Helper()
	spec.Hook = f
	if _, err := g.reg.Register(spec); err != nil {
		t.Fatal(err)
	}
}

func noObjection(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil }

// pre registers a mutate-stage hook and two validators (one denies) at
// PreToolUse, fires one payload and flushes.
func (g *rig) decide(t *testing.T, ctx context.Context) runner.Result {
	t.Helper()
	g.add(t, luahook.Spec{Event: luahook.PreToolUse, Name: "rewrite", Kind: luahook.KindLua, Stage: luahook.StageMutate,
		Source: "hooks.d/10-rewrite.lua:4"}, func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return luahook.Mutate([]byte(`{"command":"ls -la"}`)), nil
	})
	g.add(t, luahook.Spec{Event: luahook.PreToolUse, Name: "audit", Kind: luahook.KindCommand, Source: "luahook.toml:12"}, noObjection)
	g.add(t, luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Kind: luahook.KindLua, Stage: luahook.StageValidate, Source: "hooks.d/20-guard.lua:31"},
		func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return luahook.Deny("no listing"), nil
		})
	res := g.r.Fire(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: []byte(`{"command":"ls"}`),
		Cwd: "/work", SessionID: sessionID, Agent: "claude", Client: "ci-runner"})
	if err := g.p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return res
}

// byName indexes spans by name, failing on a name seen twice.
func byName(t *testing.T, spans []otlptest.Span) map[string]otlptest.Span {
	t.Helper()
	m := map[string]otlptest.Span{}
	for _, s := range spans {
		if _, dup := m[s.Name]; dup {
			t.Fatalf("two spans named %q: %s", s.Name, otlptest.Tree(spans))
		}
		m[s.Name] = s
	}
	return m
}

// checkDecision asserts the span tree of decide's decision: one decision
// span, one child per hook called, the attributes of each, and the session
// id nowhere.
func checkDecision(t *testing.T, spans []otlptest.Span, res runner.Result) {
	t.Helper()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (a decision, 3 hooks):\n%s", len(spans), otlptest.Tree(spans))
	}
	m := byName(t, spans)
	d, ok := m["PreToolUse Bash"]
	if !ok {
		t.Fatalf("no decision span:\n%s", otlptest.Tree(spans))
	}
	want := map[string]any{
		runner.AttrEvent: "PreToolUse", runner.AttrTool: "Bash", runner.AttrAgent: "claude", runner.AttrClient: "ci-runner",
		runner.AttrSessionDigest: runner.SessionDigest(sessionID), runner.AttrVerdict: "deny", runner.AttrAction: "deny",
		runner.AttrDecidedBy: "guard",
	}
	for k, v := range want {
		if d.Attrs[k] != v {
			t.Errorf("decision span %s = %v, want %v", k, d.Attrs[k], v)
		}
	}
	if d.Error {
		t.Errorf("a deny by a hook's outcome is not an error: %q", d.StatusMessage)
	}
	hooks := []struct {
		name, kind, file string
		line             int64
		verdict          string
	}{
		{"rewrite", "lua", "hooks.d/10-rewrite.lua", 4, "mutate"},
		{"audit", "command", "luahook.toml", 12, runner.NoObjection},
		{"guard", "lua", "hooks.d/20-guard.lua", 31, "deny"},
	}
	for i, h := range hooks {
		s, ok := m["hook "+h.name]
		if !ok {
			t.Fatalf("no span of hook %s:\n%s", h.name, otlptest.Tree(spans))
		}
		if s.ParentID != d.SpanID || s.TraceID != d.TraceID {
			t.Errorf("hook %s's span is not a child of the decision's", h.name)
		}
		for k, v := range map[string]any{runner.AttrHookName: h.name, runner.AttrHookKind: h.kind, runner.AttrCodeFilepath: h.file,
			runner.AttrCodeLineno: h.line, runner.AttrHookVerdict: h.verdict} {
			if s.Attrs[k] != v {
				t.Errorf("hook %s's span %s = %v (%T), want %v", h.name, k, s.Attrs[k], s.Attrs[k], v)
			}
		}
		// The span lasts what the trace says the hook took.
		if got, want := s.Duration(), res.Trace[i].Duration; got != want {
			t.Errorf("hook %s's span lasted %s, its trace entry %s", h.name, got, want)
		}
		if s.Start.Before(d.Start) || s.End.After(d.End) {
			t.Errorf("hook %s's span is not within the decision's", h.name)
		}
	}
	if m["hook audit"].Start.Before(m["hook rewrite"].End) {
		t.Error("the validator's span starts before the mutate stage ended")
	}
	for _, s := range spans {
		for k, v := range s.Attrs {
			if str, ok := v.(string); ok && strings.Contains(str, "session-0123456789") {
				t.Errorf("span %s attribute %s holds the session id", s.Name, k)
			}
		}
		for k, v := range s.Resource {
			if str, ok := v.(string); ok && strings.Contains(str, "session-0123456789") {
				t.Errorf("the resource's %s holds the session id", k)
			}
		}
		if s.Scope != telemetry.TracerName {
			t.Errorf("span %s's scope is %q", s.Name, s.Scope)
		}
	}
	for k, v := range map[string]any{"service.name": "luahook", "service.version": luahook.Version, "service.instance.id": "replica-7"} {
		if d.Resource[k] != v {
			t.Errorf("resource %s = %v, want %v", k, d.Resource[k], v)
		}
	}
}

func TestADecisionArrivesOverOTLPHTTPAsOneSpanWithAChildPerHook(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	g := newRig(t, config.Telemetry{Enabled: on(), Protocol: config.TelemetryHTTP, Endpoint: rcv.Endpoint,
		Headers: map[string]string{"X-Api-Key": "k-123"}}, nil)
	res := g.decide(t, context.Background())
	checkDecision(t, rcv.Wait(t, 4, wait), res)
	if h := rcv.Headers(); len(h) == 0 || h[0]["x-api-key"] != "k-123" {
		t.Errorf("the export's headers = %v, want x-api-key from [telemetry] headers", h)
	}
	if d := byName(t, rcv.Spans())["PreToolUse Bash"]; d.ParentID != "" {
		t.Errorf("without a caller's span the decision's is a root; its parent is %s", d.ParentID)
	}
}

func TestADecisionArrivesOverOTLPGRPC(t *testing.T) {
	rcv := otlptest.NewGRPC(t)
	g := newRig(t, config.Telemetry{Enabled: on(), Protocol: config.TelemetryGRPC, Endpoint: rcv.Endpoint,
		Headers: map[string]string{"x-api-key": "k-456"}, ServiceName: "guard-fleet"}, nil)
	res := g.decide(t, context.Background())
	spans := rcv.Wait(t, 4, wait)
	if got := spans[0].Resource["service.name"]; got != "guard-fleet" {
		t.Errorf("service.name = %v, want [telemetry] service_name", got)
	}
	for i := range spans {
		spans[i].Resource = maps.Clone(spans[i].Resource)
		spans[i].Resource["service.name"] = "luahook" // checked above
	}
	checkDecision(t, spans, res)
	if h := rcv.Headers(); len(h) == 0 || h[0]["x-api-key"] != "k-456" {
		t.Errorf("the export's metadata = %v, want x-api-key from [telemetry] headers", h)
	}
}

// The standard variables configure what the file leaves out.
func TestTheOTELVariablesConfigureTheExporter(t *testing.T) {
	rcv := otlptest.NewGRPC(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.Endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=blue")
	g := newRig(t, config.Telemetry{}, env(
		"OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "OTEL_SERVICE_NAME", "from-env"))
	if g.p.Protocol() != config.TelemetryGRPC {
		t.Fatalf("protocol = %q, want grpc from OTEL_EXPORTER_OTLP_PROTOCOL", g.p.Protocol())
	}
	g.decide(t, context.Background())
	spans := rcv.Wait(t, 4, wait)
	if got := spans[0].Resource["service.name"]; got != "from-env" {
		t.Errorf("service.name = %v, want OTEL_SERVICE_NAME's", got)
	}
	if h := rcv.Headers(); h[0]["x-tenant"] != "blue" {
		t.Errorf("metadata = %v, want OTEL_EXPORTER_OTLP_HEADERS's", h[0])
	}
}

// A caller's traceparent makes the decision's span its child, in its trace.
func TestTheDecisionContinuesTheCallersTrace(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	g := newRig(t, config.Telemetry{Enabled: on(), Endpoint: rcv.Endpoint}, nil)
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx := propagation.TraceContext{}.Extract(context.Background(),
		propagation.MapCarrier{"traceparent": "00-" + traceID + "-" + parent + "-01"})
	g.decide(t, ctx)
	spans := rcv.Wait(t, 4, wait)
	for _, s := range spans {
		if s.TraceID != traceID {
			t.Errorf("span %s is in trace %s, want the caller's %s", s.Name, s.TraceID, traceID)
		}
	}
	if d := byName(t, spans)["PreToolUse Bash"]; d.ParentID != parent {
		t.Errorf("the decision's parent is %q, want the caller's span %s", d.ParentID, parent)
	}
}

// A fail-closed hook's failure denies; both spans say it failed, and how.
func TestAFailClosedDecisionIsAnErrorSpan(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	g := newRig(t, config.Telemetry{Enabled: on(), Endpoint: rcv.Endpoint}, nil)
	g.add(t, luahook.Spec{Event: luahook.PreToolUse, Name: "broken", FailurePolicy: luahook.FailClosed},
		func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return nil, errors.New("attempt to index a nil value (secret: " + sessionID + ")")
		})
	res := g.r.Fire(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "Read", SessionID: sessionID})
	if !res.Denied() {
		t.Fatalf("a fail-closed failure did not deny: %+v", res)
	}
	g.p.Shutdown(context.Background())
	m := byName(t, rcv.Wait(t, 2, wait))
	d, h := m["PreToolUse Read"], m["hook broken"]
	if !d.Error || !strings.Contains(d.StatusMessage, `"broken" failed (error)`) {
		t.Errorf("decision status = %v %q, want an error naming the hook and the kind", d.Error, d.StatusMessage)
	}
	if !h.Error || h.Attrs[runner.AttrHookFailure] != "error" || h.Attrs[runner.AttrHookVerdict] != runner.NoObjection {
		t.Errorf("hook span = %v %v, want an error of kind error", h.Error, h.Attrs)
	}
	if strings.Contains(h.StatusMessage, "session-0123456789") || strings.Contains(d.StatusMessage, "session-0123456789") {
		t.Error("a failure's message, which may quote the payload, reached a span")
	}
	if h.Attrs[runner.AttrCodeFilepath] != nil {
		t.Errorf("a Go hook has no source, yet code.filepath = %v", h.Attrs[runner.AttrCodeFilepath])
	}
}

// The parallel hooks of an event run at once, and their spans overlap.
func TestParallelHooksSpansOverlap(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	g := newRig(t, config.Telemetry{Enabled: on(), Endpoint: rcv.Endpoint}, nil)
	started := make(chan struct{}, 2)
	both := make(chan struct{})
	go func() { <-started; <-started; close(both) }()
	for _, name := range []string{"left", "right"} {
		g.add(t, luahook.Spec{Event: luahook.PostToolUse, Name: name}, func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
			started <- struct{}{}
			select { // each returns only once the other has started
			case <-both:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, nil
		})
	}
	res := g.r.Fire(context.Background(), &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash",
		ToolResult: &luahook.ToolResult{Content: "ok"}})
	for _, tr := range res.Trace {
		if tr.Failure != nil {
			t.Fatalf("hook %s failed: %v", tr.Name, tr.Failure)
		}
	}
	g.p.Shutdown(context.Background())
	m := byName(t, rcv.Wait(t, 3, wait))
	l, r := m["hook left"], m["hook right"]
	if !(l.Start.Before(r.End) && r.Start.Before(l.End)) {
		t.Errorf("spans of hooks that ran at once do not overlap: left %s–%s, right %s–%s", l.Start, l.End, r.Start, r.End)
	}
}

// sample_ratio = 0 traces no decision a caller did not sample.
func TestSampleRatioZeroExportsNothing(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	zero := 0.0
	g := newRig(t, config.Telemetry{Enabled: on(), Endpoint: rcv.Endpoint, SampleRatio: &zero}, nil)
	g.decide(t, context.Background()) // Shutdown has flushed
	if n := rcv.Requests(); n != 0 {
		t.Fatalf("%d export(s) with sample_ratio = 0: %v", n, rcv.Spans())
	}
}

// Shutdown gives up on a collector that does not answer within
// ShutdownTimeout, whatever its context allows.
func TestShutdownIsBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	held := make(chan net.Conn, 16)
	go func() { // accepts and never answers
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	defer func() {
		for len(held) > 0 {
			(<-held).Close()
		}
	}()
	g := newRig(t, config.Telemetry{Enabled: on(), Endpoint: "http://" + ln.Addr().String(), TimeoutMs: 600_000}, nil)
	g.r.Fire(context.Background(), &luahook.Input{Event: luahook.Stop})
	start := time.Now()
	err = g.p.Shutdown(context.Background())
	took := time.Since(start)
	if err == nil {
		t.Error("Shutdown reported no error though nothing was exported")
	}
	if took > telemetry.ShutdownTimeout+3*time.Second {
		t.Errorf("Shutdown took %s, over its bound of %s", took, telemetry.ShutdownTimeout)
	}
}
