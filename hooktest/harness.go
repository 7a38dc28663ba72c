package hooktest

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// Factory returns a hook that behaves as b whenever it is called, for as long
// as the test tb runs. Whatever the hook needs (a server, a temporary file, a
// Lua state pool) is released with tb.Cleanup. Every transport must support
// every behaviour: a Factory that cannot calls tb.Fatal, never tb.Skip.
type Factory func(tb testing.TB, b Behaviour) luahook.Hook

// Options configure Run and Benchmark. The zero value is useful.
type Options struct {
	// Kind labels the hook in the registry and in traces; "" means
	// luahook.KindGo. Every PreToolUse registration sets its stage to mutate
	// explicitly, so the kind does not change what the runner does.
	Kind luahook.HookKind
	// Parallel goroutines each make Calls calls through one hook in the
	// concurrency cases. Zero means 8 and 20; transports that spawn a
	// process per call may ask for fewer.
	Parallel, Calls int
	// Logger receives the runner's warnings, such as each hook failure.
	// Nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Kind == "" {
		o.Kind = luahook.KindGo
	}
	if o.Parallel <= 0 {
		o.Parallel = 8
	}
	if o.Calls <= 0 {
		o.Calls = 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

const (
	// callTimeout is the hook timeout of the cases that expect an answer:
	// long enough never to fire on a loaded machine, short enough to end a
	// hook that hangs by mistake.
	callTimeout = 30 * time.Second
	// hungLimit is how long the runner may take to return once a hung
	// hook's deadline passed or its caller cancelled.
	hungLimit = 2 * time.Second
)

// rig is one hook, built by the factory, registered as the only hook of its
// event in a fresh registry, and the runner over it.
type rig struct {
	t      testing.TB
	runner *runner.Runner
	probe  *probe
	name   string
}

// rig registers the hook the factory builds for b under spec, of which Event
// is required and Timeout and FailurePolicy are used (a zero Timeout is
// callTimeout); the rig names the hook, gives it the suite's kind and runs it
// in the mutate stage.
func (s *suite) rig(t testing.TB, b Behaviour, spec luahook.Spec) *rig {
	return s.cappedRig(t, b, spec, 0)
}

// cappedRig is rig with the runner's cap on the payload set to maxInputBytes
// (0: the runner's default).
func (s *suite) cappedRig(t testing.TB, b Behaviour, spec luahook.Spec, maxInputBytes int) *rig {
	t.Helper()
	h := s.factory(t, b)
	if h == nil {
		t.Fatalf("the factory returned no hook for behaviour %s", b)
	}
	p := newProbe(h)
	if spec.Timeout == 0 {
		spec.Timeout = callTimeout
	}
	name := "hooktest-" + b.String()
	reg := registry.New()
	spec.Name, spec.Kind, spec.Owner, spec.Stage, spec.Hook = name, s.opts.Kind, "hooktest", luahook.StageMutate, p.hook()
	_, err := reg.Register(spec)
	if err != nil {
		t.Fatalf("registering the %s hook: %v", b, err)
	}
	r := runner.New(runner.Options{Registry: reg, Logger: s.opts.Logger, MaxInputBytes: maxInputBytes})
	t.Cleanup(r.Close)
	return &rig{t: t, runner: r, probe: p, name: name}
}

// fire runs in through the runner and returns the result and how long the
// runner took. A runner that has not returned after limit fails the test
// rather than hang it.
func (g *rig) fire(ctx context.Context, in *luahook.Input, limit time.Duration) (runner.Result, time.Duration) {
	g.t.Helper()
	start := time.Now()
	res := g.wait(g.start(ctx, in), limit)
	return res, time.Since(start)
}

// call fires in with a background context and returns the trace of the one
// hook, which must have been called.
func (g *rig) call(in *luahook.Input) (runner.Result, runner.HookTrace) {
	g.t.Helper()
	res, _ := g.fire(context.Background(), in, callTimeout+15*time.Second)
	return res, g.only(res)
}

// only returns the trace of the one hook registered.
func (g *rig) only(res runner.Result) runner.HookTrace {
	g.t.Helper()
	if len(res.Trace) != 1 {
		g.t.Fatalf("%s: the trace has %d entries, want 1 for the one hook registered: %+v", res.Event, len(res.Trace), res.Trace)
	}
	tr := res.Trace[0]
	if tr.Name != g.name {
		g.t.Fatalf("the trace names hook %q, want %q", tr.Name, g.name)
	}
	if tr.Skipped != "" {
		g.t.Fatalf("the hook was skipped (%s), want it called", tr.Skipped)
	}
	return tr
}

// answered fails the test unless the hook answered without failing.
func (g *rig) answered(tr runner.HookTrace) {
	g.t.Helper()
	if tr.Failure != nil {
		g.t.Fatalf("the hook failed: %v (kind %s); want an answer", tr.Failure, tr.Failure.Kind)
	}
}

// failed fails the test unless the hook failed with one of kinds, and
// returns the failure.
func (g *rig) failed(tr runner.HookTrace, kinds ...luahook.FailureKind) *luahook.Failure {
	g.t.Helper()
	if tr.Failure == nil {
		g.t.Fatalf("the hook answered %s, want a failure of kind %v", describe(tr.Outcome), kinds)
	}
	for _, k := range kinds {
		if tr.Failure.Kind == k {
			return tr.Failure
		}
	}
	g.t.Fatalf("the hook failed with kind %s (%v), want kind %v", tr.Failure.Kind, tr.Failure, kinds)
	return nil
}

func describe(o *luahook.Outcome) string {
	if o == nil {
		return "no objection"
	}
	s := "action=" + string(o.Action)
	if o.Reason != "" {
		s += " reason=" + luahook.TruncateChars(o.Reason, 80)
	}
	if o.Input != nil {
		s += " input=" + luahook.TruncateChars(string(o.Input), 80)
	}
	if o.AdditionalContext != "" {
		s += " context=" + luahook.TruncateChars(o.AdditionalContext, 80)
	}
	return s
}

// probe counts the calls that reach the hook under test and reports the
// first one. It keeps the hook's luahook.ContextBound promise, so that the
// runner treats the probed hook exactly as the bare one.
type probe struct {
	inner   luahook.Hook
	calls   atomic.Int64
	once    sync.Once
	entered chan struct{} // closed when the first call starts
}

func newProbe(h luahook.Hook) *probe { return &probe{inner: h, entered: make(chan struct{})} }

// Call counts the call and passes it on.
func (p *probe) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	p.count()
	return p.inner.Call(ctx, in)
}

func (p *probe) count() {
	p.calls.Add(1)
	p.once.Do(func() { close(p.entered) })
}

// boundProbe is a probe of a hook that returns promptly once its context is done.
type boundProbe struct{ *probe }

// BoundByContext reports true, as the probed hook does.
func (boundProbe) BoundByContext() bool { return true }

// preparedProbe is a probe of a hook that is bound by its context, scoped to
// its call and prepares its calls (a Lua hook): the runner prepares it and
// runs it under its deadline, as it does the bare hook. A call counts as it
// is prepared.
type preparedProbe struct {
	*probe
	prep luahook.Preparer
}

// BoundByContext reports true, as the probed hook does.
func (preparedProbe) BoundByContext() bool { return true }

// ScopedToCall reports true, as the probed hook does.
func (preparedProbe) ScopedToCall() bool { return true }

// Prepare counts the call and passes it on.
func (p preparedProbe) Prepare(ctx context.Context, in *luahook.Input, timeout time.Duration) (luahook.Prepared, error) {
	p.count()
	return p.prep.Prepare(ctx, in, timeout)
}

func (p *probe) hook() luahook.Hook {
	cb, ok := p.inner.(luahook.ContextBound)
	if !ok || !cb.BoundByContext() {
		return p
	}
	cs, scoped := p.inner.(luahook.CallScoped)
	if prep, ok := p.inner.(luahook.Preparer); ok && scoped && cs.ScopedToCall() {
		return preparedProbe{p, prep}
	}
	return boundProbe{p}
}
