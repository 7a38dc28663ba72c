// Package runner gives each lifecycle event its semantics over the hooks of a
// registry: the PreToolUse mutation chain and validators, schema re-validation
// of rewritten input, parallel fan-out with deterministic joins, background
// PostToolUse hooks, per-hook deadlines, failure policies and policy gating.
//
// The runner never asks which transport a hook uses: a Lua function, a
// subprocess, an HTTP endpoint and a Go function are all luahook.Hooks.
package runner

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
	"github.com/luahook/luahook/registry"
	"go.opentelemetry.io/otel/trace"
)

// Options configure a Runner. The zero value is usable: an empty registry, no
// logging, every hook allowed to run, no schemas.
type Options struct {
	// Registry holds the hooks. Nil means a fresh, empty registry.
	Registry *registry.Registry
	// Logger receives hook failures at warn level. Nil discards them.
	Logger *slog.Logger
	// PolicyOnly lets only entries marked Policy run, on every transport and
	// event; the others are skipped without being called (the --no-hooks
	// switch, allow_non_policy = false).
	PolicyOnly bool
	// Schemas maps a tool name to the JSON Schema its rewritten input must
	// satisfy. The runner keeps a copy of the map.
	Schemas map[string]*jsonschema.Schema
	// SessionID names the session when a payload has none; it keys the
	// buffer of background hook context. Nil means "__default__".
	SessionID func() string
	// MaxContextBytes caps the additionalContext one event delivers, joined
	// from every hook (each already cut to luahook.MaxContextChars) and the
	// session's buffered background context; the parts past it are left out
	// and a marker says how many and how big. 0 means DefaultMaxContextBytes;
	// a value under 1 KiB counts as 1 KiB (room for the marker).
	MaxContextBytes int
	// BackgroundWorkers is how many background PostToolUse hooks run at
	// once, whatever the sessions. 0 means DefaultBackgroundWorkers.
	BackgroundWorkers int
	// MaxInputBytes caps the payload a hook is called with, as
	// luahook.Input.Size counts it, on every transport: a larger one (a
	// rewritten toolInput included) fails the hook with kind rejected
	// before it runs. 0 means luahook.DefaultMaxInputBytes; a negative
	// value turns the cap off.
	MaxInputBytes int
	// BackgroundQueue is how many background payloads may wait for a worker
	// (one per hook and session: a newer payload replaces the waiting one).
	// When it is full, new payloads are dropped and counted
	// (BackgroundStats). 0 means DefaultBackgroundQueue.
	BackgroundQueue int
	// OnDecision observes every decided event (see SetOnDecision); nil
	// observes nothing.
	OnDecision DecisionFunc
	// Guard, when set, judges every PreToolUse payload before any hook
	// runs, and the input as the mutate stage rewrote it: its denial ends
	// the call, and no hook's allow overrides it (see Guard).
	Guard Guard
	// ToolDone, when set, is called with every PostToolUse payload once
	// its foreground hooks have returned (whether any matched, whatever
	// they answered), on the caller's goroutine and under its context: the
	// engine records the call in its session's ledger. It must be quick and
	// must not keep in.
	ToolDone func(ctx context.Context, in *luahook.Input)
	// Approver decides the PreToolUse calls a hook routed to a web
	// approval (luahook.RouteWeb); see SetApprover. Nil: such calls are
	// denied, saying that no approval is served.
	Approver Approver
	// Tracer, when set, records a span per decision with a child span
	// per hook called (see SetTracer). Nil: no spans, at the cost of one
	// atomic load per decision and per hook.
	Tracer trace.Tracer
}

// Runner fires events at the hooks of a registry. It is safe for concurrent
// use; Close stops its background hooks.
//
// Every hook call gets a deadline (the entry's timeout) derived from the
// caller's context. When the caller cancels, the hook running is abandoned,
// the hooks not yet called fail with kind aborted without being called, and
// the method returns at once: a host must not act on the Result of a call
// whose context it cancelled.
type Runner struct {
	reg        *registry.Registry
	log        *slog.Logger
	sessionID  func() string
	policyOnly atomic.Bool
	maxInput   atomic.Int64 // bytes of a hook's payload; negative: no cap
	schemas    atomic.Pointer[map[string]*jsonschema.Schema]
	maxContext int // bytes of one event's joined context
	onDecision atomic.Pointer[DecisionFunc]
	guard      Guard // Options.Guard; nil: none
	toolDone   func(ctx context.Context, in *luahook.Input)
	approver   approverBox                  // Options.Approver, SetApprover
	tracer     atomic.Pointer[trace.Tracer] // Options.Tracer, SetTracer; nil: no spans

	// base is the context of background hooks; Close cancels it.
	base   context.Context
	cancel context.CancelFunc

	bgMu sync.Mutex
	bg   background
	bgWG sync.WaitGroup // the background workers
	buf  contextBuffer

	shadow shadowCounts // agreement of shadow hooks with the live decisions
}

// New returns a Runner over opts.Registry.
func New(opts Options) *Runner {
	r := &Runner{
		reg:        opts.Registry,
		log:        opts.Logger,
		sessionID:  opts.SessionID,
		bg:         newBackground(opts.BackgroundWorkers, opts.BackgroundQueue),
		maxContext: contextLimit(opts.MaxContextBytes),
	}
	if r.reg == nil {
		r.reg = registry.New()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.policyOnly.Store(opts.PolicyOnly)
	r.SetMaxInputBytes(opts.MaxInputBytes)
	r.SetSchemas(opts.Schemas)
	r.SetOnDecision(opts.OnDecision)
	r.guard = opts.Guard
	r.toolDone = opts.ToolDone
	r.SetApprover(opts.Approver)
	r.SetTracer(opts.Tracer)
	r.base, r.cancel = context.WithCancel(context.Background())
	return r
}

// SetSchemas replaces the tool schemas atomically (after a config reload).
// Calls in flight keep the schemas they started with.
func (r *Runner) SetSchemas(schemas map[string]*jsonschema.Schema) {
	m := maps.Clone(schemas)
	r.schemas.Store(&m)
}

// SetMaxInputBytes replaces the cap on a hook's payload (see
// Options.MaxInputBytes) for the calls that start afterwards.
func (r *Runner) SetMaxInputBytes(n int) {
	if n == 0 {
		n = luahook.DefaultMaxInputBytes
	}
	r.maxInput.Store(int64(n))
}

// SetPolicyOnly switches policy gating on or off (see Options.PolicyOnly).
func (r *Runner) SetPolicyOnly(on bool) { r.policyOnly.Store(on) }

// Has reports whether firing e could have any effect: a hook is registered
// for it (matchers and gating aside) or, for PostToolUse and
// UserPromptSubmit, background hook context is waiting to be delivered.
// It is the host's cheap guard: no locks, no allocation.
func (r *Runner) Has(e luahook.Event) bool {
	if r.reg.Has(e) {
		return true
	}
	return (e == luahook.PostToolUse || e == luahook.UserPromptSubmit) && r.buf.pending()
}

// Fire runs in through the method for in.Event. An unknown event runs
// nothing and returns an empty Result. A nil in runs nothing and is denied:
// the event is unknown, so it may be one that can block.
func (r *Runner) Fire(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.fire(ctx, in, nil)
	r.decided(in, res, j)
	return res
}

// FireInto is Fire writing its Result over *res, with the trace in
// res.Trace's array when that is big enough: a host that fires event after
// event with one Result allocates nothing for the trace once the array has
// grown. The previous call's trace is overwritten, so take what you need
// from *res before firing again. With no matching hook, res.Trace is empty
// (not nil: the array is kept).
func (r *Runner) FireInto(ctx context.Context, in *luahook.Input, res *Result) {
	ctx, j := r.observing(ctx)
	buf := res.Trace[:0]
	*res = r.fire(ctx, in, buf)
	if res.Trace == nil {
		res.Trace = buf
	}
	r.decided(in, *res, j)
}

// fire decides in, within a decision span when a tracer is set.
func (r *Runner) fire(ctx context.Context, in *luahook.Input, buf []HookTrace) Result {
	if t := r.tracer.Load(); t != nil {
		return r.fireTraced(ctx, *t, in, buf)
	}
	return r.decide(ctx, in, buf)
}

func (r *Runner) decide(ctx context.Context, in *luahook.Input, buf []HookTrace) Result {
	if in == nil {
		res, _ := r.refused(ctx, "", nil)
		return res
	}
	switch in.Event {
	case luahook.PreToolUse:
		return r.guardedPreToolUse(ctx, in, buf)
	case luahook.PostToolUse:
		return r.postToolUse(ctx, in, buf)
	case luahook.UserPromptSubmit:
		return r.userPromptSubmit(ctx, in, buf)
	case luahook.SessionStart:
		return r.fanEvent(ctx, luahook.SessionStart, in, "", fanJoin, buf)
	case luahook.Stop:
		return r.fanEvent(ctx, luahook.Stop, in, "", fanJoin, buf)
	}
	return r.observe(ctx, in, buf)
}

// traceArray returns n zeroed trace entries, in buf's array when it holds n.
func traceArray(buf []HookTrace, n int) []HookTrace {
	if cap(buf) < n {
		return make([]HookTrace, n)
	}
	t := buf[:n]
	clear(t)
	return t
}

// Close cancels the context of running background hooks, drops their pending
// payloads and waits for them to return. Later PostToolUse calls no longer
// start background hooks. Close may be called more than once.
//
// A Go hook that ignores its context is abandoned, not waited for: Close
// waits for the runner's own goroutines only.
func (r *Runner) Close() {
	r.closeBackground()
	r.cancel()
	r.bgWG.Wait()
}
