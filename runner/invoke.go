package runner

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// Why a hook was not called, or why its outcome was not used (HookTrace.Skipped).
const (
	SkipPolicyOnly         = "policy-only"                         // gated: only policy hooks may run
	SkipNotReached         = "not reached: an earlier hook denied" // the call ended before this hook
	SkipValidatorMutation  = "validator mutation ignored"          // a validate-stage hook returned mutate
	SkipBackground         = "background"                          // scheduled, not awaited
	SkipBackgroundDisabled = "background: runner closed"           // Close was called
	SkipBackgroundDropped  = "background: queue full, dropped"     // Options.BackgroundQueue payloads wait already
)

// reply is what one call of a hook gave back.
type reply struct {
	out *luahook.Outcome
	err error
}

// invoke calls one hook with tmpl (see call) and fills tr. It returns
// the hook's valid outcome, or the failure that replaced it (already logged).
// Gated hooks are neither called nor failed.
func (r *Runner) invoke(ctx context.Context, e *registry.Entry, tmpl *luahook.Input, tr *HookTrace, background bool) (*luahook.Outcome, *luahook.Failure) {
	*tr = newTrace(e, background)
	if r.policyOnly.Load() && !e.Policy {
		tr.Skipped = SkipPolicyOnly
		return nil, nil
	}
	start := time.Now()
	if t := r.tracer.Load(); t != nil && !background {
		return r.invokeTraced(ctx, *t, start, e, tmpl, tr)
	}
	out, f := call(ctx, start, e, tmpl, r.maxInput.Load(), &tr.own)
	tr.Duration = time.Since(start)
	tr.Outcome = out
	if f != nil {
		tr.Failure = f
		r.logFailure(ctx, tmpl.Event, e, f, background)
		return nil, f
	}
	return out, nil
}

func newTrace(e *registry.Entry, background bool) HookTrace {
	return HookTrace{ID: e.ID, Name: e.Name, Source: e.Source, Kind: e.Kind, Stage: e.Stage, Background: background,
		Mode: e.Mode, Version: e.Version}
}

// call runs the hook, started at start, under a deadline derived from ctx,
// unless ctx is done already (aborted) or tmpl is over limit bytes
// (rejected). Hooks bound by their context run on the caller's goroutine; any other hook
// runs on its own, and is abandoned once its context is done, so that it
// cannot hold the caller. A bound hook that is also call-scoped is lent tmpl
// and a recycled deadline context; every other hook gets a deep copy and a
// context of its own, which an abandoned hook may go on using. A prepared
// hook that can (luahook.PreparedInto) writes its outcome into *own.
func call(ctx context.Context, start time.Time, e *registry.Entry, tmpl *luahook.Input, limit int64, own *luahook.Outcome) (*luahook.Outcome, *luahook.Failure) {
	if ctx.Err() != nil {
		return nil, aborted(ctx)
	}
	if f := overCap(tmpl, limit); f != nil {
		return nil, f
	}
	bound := e.BoundByContext()
	if bound && e.ScopedToCall() {
		if p, ok := e.Hook.(luahook.Preparer); ok {
			return callPrepared(ctx, e, p, tmpl, own)
		}
	}
	var hctx context.Context
	in := tmpl
	if bound && e.ScopedToCall() {
		dc := withDeadline(ctx, start, e.Timeout)
		defer dc.release()
		hctx = dc
	} else {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
		in = cloneInput(tmpl)
	}
	var rep reply
	if bound {
		rep = safeCall(hctx, e.Hook, in)
	} else {
		done := make(chan reply, 1) // buffered: an abandoned hook never blocks on it
		go func() { done <- safeCall(hctx, e.Hook, in) }()
		select {
		case rep = <-done:
		case <-hctx.Done():
			select {
			case rep = <-done:
			default:
				return nil, contextFailure(ctx, e)
			}
		}
	}
	return judge(ctx, hctx, e, rep)
}

// overCap refuses a payload over limit bytes (luahook.Input.Size; a
// negative limit is no cap) before the hook is called with it: the
// refusal must not depend on the transport, and a child process or an
// endpoint has no use for a payload a Lua hook would refuse.
func overCap(in *luahook.Input, limit int64) *luahook.Failure {
	if limit < 0 {
		return nil
	}
	if n := in.Size(); int64(n) > limit {
		return luahook.Failf(luahook.FailRejected,
			"the payload is %d bytes, over the cap of %s on hook input (max_input_bytes)", n, byteCount(limit))
	}
	return nil
}

// byteCount renders a cap for an error: "8 MiB" when it is a whole number
// of MiB, else "N bytes".
func byteCount(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// judge turns what a hook called under hctx (derived from the caller's
// ctx) gave back into its valid outcome or its failure. The runner
// classifies a call its context ended, whatever the hook said: the caller
// gave up (aborted) or the hook's own deadline passed (timeout). An outcome
// is validated here unless the hook validates its own (luahook.Validating),
// and its action is checked against the hook's event whoever validated it
// (luahook.Outcome.CheckEvent: ask outside PreToolUse, continue outside
// Stop are invalid output).
func judge(ctx, hctx context.Context, e *registry.Entry, rep reply) (*luahook.Outcome, *luahook.Failure) {
	if rep.err != nil {
		if hctx.Err() != nil {
			return rep.out, contextFailure(ctx, e)
		}
		return rep.out, luahook.AsFailure(rep.err)
	}
	if rep.out != nil {
		if !validates(e.Hook) {
			if err := rep.out.Validate(); err != nil {
				return rep.out, luahook.AsFailure(err)
			}
		}
		if err := rep.out.CheckEvent(e.Event); err != nil {
			return rep.out, luahook.AsFailure(err)
		}
	}
	return rep.out, nil
}

// validates reports whether h validates the outcomes it returns.
func validates(h luahook.Hook) bool {
	v, ok := h.(luahook.Validating)
	return ok && v.ValidatesOutcomes()
}

// callPrepared runs a hook that prepares its calls (luahook.Preparer): the
// wait for an executor and the payload's conversion happen before the hook's
// deadline starts, so that a large payload or a busy pool cannot use up the
// time the hook itself is given.
func callPrepared(ctx context.Context, e *registry.Entry, p luahook.Preparer, tmpl *luahook.Input, own *luahook.Outcome) (*luahook.Outcome, *luahook.Failure) {
	prep, err := safePrepare(ctx, p, tmpl, e.Timeout)
	if err != nil {
		if ctx.Err() != nil {
			return nil, aborted(ctx)
		}
		return nil, luahook.AsFailure(err)
	}
	dc := withDeadline(ctx, time.Now(), e.Timeout)
	defer dc.release()
	return judge(ctx, dc, e, safeRun(dc, prep, own))
}

func safePrepare(ctx context.Context, p luahook.Preparer, in *luahook.Input, timeout time.Duration) (prep luahook.Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			prep, err = nil, panicFailure(r)
		}
	}()
	return p.Prepare(ctx, in, timeout)
}

func safeRun(ctx context.Context, p luahook.Prepared, own *luahook.Outcome) (rep reply) {
	defer func() {
		if r := recover(); r != nil {
			rep = reply{err: panicFailure(r)}
		}
	}()
	var out *luahook.Outcome
	var err error
	if pi, ok := p.(luahook.PreparedInto); ok && own != nil {
		out, err = pi.RunInto(ctx, own)
	} else {
		out, err = p.Run(ctx)
	}
	return reply{out: out, err: err}
}

func panicFailure(p any) *luahook.Failure {
	f := luahook.Failf(luahook.FailError, "panic: %v", p)
	if err, ok := p.(error); ok {
		f.Err = err
	}
	return f
}

// safeCall calls h and turns a panic into a failure of kind error.
func safeCall(ctx context.Context, h luahook.Hook, in *luahook.Input) (rep reply) {
	defer func() {
		if p := recover(); p != nil {
			rep = reply{err: panicFailure(p)}
		}
	}()
	out, err := h.Call(ctx, in)
	return reply{out: out, err: err}
}

// contextFailure classifies a hook whose context is done: the caller gave up
// (aborted) or the hook's own deadline passed (timeout).
func contextFailure(ctx context.Context, e *registry.Entry) *luahook.Failure {
	if ctx.Err() != nil {
		return aborted(ctx)
	}
	return &luahook.Failure{
		Kind:    luahook.FailTimeout,
		Message: fmt.Sprintf("timed out after %dms", e.Timeout.Milliseconds()),
		Err:     context.DeadlineExceeded,
	}
}

func aborted(ctx context.Context) *luahook.Failure {
	return &luahook.Failure{Kind: luahook.FailAborted, Message: "hook invocation aborted", Err: context.Cause(ctx)}
}

func (r *Runner) logFailure(ctx context.Context, ev luahook.Event, e *registry.Entry, f *luahook.Failure, background bool) {
	if !r.log.Enabled(ctx, slog.LevelWarn) {
		return
	}
	what := " hook \""
	if background {
		what = " background hook \""
	}
	r.log.LogAttrs(ctx, slog.LevelWarn,
		string(ev)+what+e.Name+"\" failed ("+string(f.Kind)+"): "+luahook.TruncateReason(f.Message),
		slog.String("hook", e.Name), slog.String("kind", string(f.Kind)), slog.String("source", e.Source))
}

// MaxCauseChars bounds the cause a fail-closed denial carries (the
// failure's message, which names file:line for a Lua hook): enough for a
// Lua error and its position, short enough to leave the model room.
const MaxCauseChars = 300

// failClosedReason is the denial that replaces the failure f of a
// fail-closed hook on PreToolUse and UserPromptSubmit; it ends with the
// cause, cut to MaxCauseChars characters.
func failClosedReason(ev luahook.Event, name string, f *luahook.Failure) string {
	reason := string(ev) + " policy hook \"" + name + "\" failed (" + string(f.Kind) +
		"); the action was denied by fail-closed policy. This is not an approval request."
	if f.Message == "" {
		return reason
	}
	cause := luahook.TruncateChars(f.Message, MaxCauseChars)
	if len(cause) < len(f.Message) {
		cause += " …"
	}
	return reason + " Cause: " + cause
}

// inputBox holds a deep copy of an Input and everything it points to, in one
// allocation. Only the ToolInput bytes are shared: hooks must treat them as
// read-only.
type inputBox struct {
	in           luahook.Input
	mutating     bool
	result       luahook.ToolResult
	compaction   luahook.Compaction
	tokensBefore int
	tokensAfter  int
	subagent     luahook.Subagent
	ok           bool
	durationMs   int64
	notification luahook.NotificationInfo
	caps         [4]string // room for the usual few capabilities
}

// templates recycles the runner's working copy of a payload (the template
// that sequential hooks see, and that a rewrite replaces the toolInput of).
// Only call-scoped hooks are lent it, and every hook given it has returned
// before the event's method does (others get cloneInput's copy), so nothing
// holds a template once it is given back.
var templates = sync.Pool{New: func() any { return new(luahook.Input) }}

// template returns a recycled copy of in for event ev; give it back with
// release once the event's hooks have all returned.
func template(in *luahook.Input, ev luahook.Event) *luahook.Input {
	t := templates.Get().(*luahook.Input)
	*t = *in
	t.Event = ev
	return t
}

func releaseTemplate(t *luahook.Input) {
	*t = luahook.Input{}
	templates.Put(t)
}

// cloneInput gives a hook its own copy of the payload, so that a hook that
// changes its Input cannot change what later hooks or the host see.
func cloneInput(src *luahook.Input) *luahook.Input {
	b := &inputBox{in: *src}
	in := &b.in
	if caps := src.ToolCapabilities; caps != nil {
		if len(caps) <= len(b.caps) {
			// Full slice expression: an append by the hook cannot reach past it.
			in.ToolCapabilities = b.caps[:copy(b.caps[:], caps):len(caps)]
		} else {
			in.ToolCapabilities = slices.Clone(caps)
		}
	}
	if src.ToolMutating != nil {
		b.mutating = *src.ToolMutating
		in.ToolMutating = &b.mutating
	}
	if src.ToolResult != nil {
		b.result = *src.ToolResult
		in.ToolResult = &b.result
	}
	if c := src.Compaction; c != nil {
		b.compaction = *c
		in.Compaction = &b.compaction
		if c.TokensBefore != nil {
			b.tokensBefore = *c.TokensBefore
			b.compaction.TokensBefore = &b.tokensBefore
		}
		if c.TokensAfter != nil {
			b.tokensAfter = *c.TokensAfter
			b.compaction.TokensAfter = &b.tokensAfter
		}
	}
	if s := src.Subagent; s != nil {
		b.subagent = *s
		in.Subagent = &b.subagent
		if s.OK != nil {
			b.ok = *s.OK
			b.subagent.OK = &b.ok
		}
		if s.DurationMs != nil {
			b.durationMs = *s.DurationMs
			b.subagent.DurationMs = &b.durationMs
		}
	}
	if src.Notification != nil {
		b.notification = *src.Notification
		in.Notification = &b.notification
	}
	return in
}
