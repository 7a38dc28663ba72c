package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// preparer is a call-scoped, context-bound hook that prepares its calls: its
// Prepare spends prepTime (standing for a pool wait and a payload
// conversion) before Run answers.
type preparer struct {
	prepTime time.Duration
	prepErr  error
	panicIn  string // "prepare" or "run"
	run      func(ctx context.Context) (*luahook.Outcome, error)
	runs     atomic.Int32
	timeout  atomic.Int64
	prepared atomic.Pointer[time.Time] // when Prepare last returned a Prepared
}

func (p *preparer) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	prep, err := p.Prepare(ctx, in, time.Second)
	if err != nil {
		return nil, err
	}
	return prep.Run(ctx)
}
func (*preparer) BoundByContext() bool { return true }
func (*preparer) ScopedToCall() bool   { return true }

func (p *preparer) Prepare(ctx context.Context, in *luahook.Input, timeout time.Duration) (luahook.Prepared, error) {
	p.timeout.Store(int64(timeout))
	if p.panicIn == "prepare" {
		panic("boom in prepare")
	}
	select {
	case <-time.After(p.prepTime):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.prepErr != nil {
		return nil, p.prepErr
	}
	now := time.Now()
	p.prepared.Store(&now)
	return preparedRun{p}, nil
}

type preparedRun struct{ p *preparer }

func (r preparedRun) Run(ctx context.Context) (*luahook.Outcome, error) {
	r.p.runs.Add(1)
	if r.p.panicIn == "run" {
		panic("boom in run")
	}
	return r.p.run(ctx)
}

// The hook's deadline is compared with the moment Prepare returned, not
// with the time left when Run looks, which a machine busy with other work
// shortens: a deadline counted from before Prepare comes sooner than that
// moment plus the timeout, by Prepare's 80 ms at least.
func TestPreparationDoesNotCountAgainstTheHooksDeadline(t *testing.T) {
	g := newRig(t, Options{})
	var p *preparer
	p = &preparer{prepTime: 80 * time.Millisecond, run: func(ctx context.Context) (*luahook.Outcome, error) {
		dl, ok := ctx.Deadline()
		if !ok || dl.Before(p.prepared.Load().Add(50*time.Millisecond)) {
			return nil, errors.New("Run got a deadline already used up by Prepare")
		}
		return luahook.Deny("prepared and judged"), nil
	}}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: p, Timeout: 50 * time.Millisecond, FailurePolicy: luahook.FailOpen})
	res := g.r.PreToolUse(context.Background(), &luahook.Input{ToolName: "bash", ToolInput: []byte(`{}`)})
	if !res.Denied() || res.Reason != "prepared and judged" {
		t.Fatalf("result = %+v, trace %+v; want the hook's own denial", res, res.Trace)
	}
	if got := p.runs.Load(); got != 1 {
		t.Fatalf("Run called %d times, want 1", got)
	}
	if got := time.Duration(p.timeout.Load()); got != 50*time.Millisecond {
		t.Fatalf("Prepare was given timeout %v, want the hook's 50ms", got)
	}
}

func TestPreparedRunIsStoppedByTheHooksDeadline(t *testing.T) {
	g := newRig(t, Options{})
	p := &preparer{run: func(ctx context.Context) (*luahook.Outcome, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "slow", Hook: p, Timeout: 20 * time.Millisecond, FailurePolicy: luahook.FailClosed})
	res := g.r.PreToolUse(context.Background(), &luahook.Input{ToolName: "bash", ToolInput: []byte(`{}`)})
	if !res.Denied() || res.Trace[0].Failure == nil || res.Trace[0].Failure.Kind != luahook.FailTimeout {
		t.Fatalf("result = %+v, trace %+v; want a fail-closed timeout", res, res.Trace)
	}
}

func TestPreparationFailuresAndPanicsAreFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *preparer
		kind luahook.FailureKind
		runs int32
	}{
		{"rejected by Prepare", &preparer{prepErr: luahook.Failf(luahook.FailRejected, "no state free")}, luahook.FailRejected, 0},
		{"panic in Prepare", &preparer{panicIn: "prepare"}, luahook.FailError, 0},
		{"panic in Run", &preparer{panicIn: "run"}, luahook.FailError, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, Options{})
			tc.p.run = func(context.Context) (*luahook.Outcome, error) { return nil, nil }
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "h", Hook: tc.p, FailurePolicy: luahook.FailClosed})
			res := g.r.PreToolUse(context.Background(), &luahook.Input{ToolName: "bash", ToolInput: []byte(`{}`)})
			if f := res.Trace[0].Failure; f == nil || f.Kind != tc.kind {
				t.Fatalf("trace %+v; want failure %s", res.Trace[0], tc.kind)
			}
			if !res.Denied() {
				t.Fatalf("a fail-closed hook's failure did not deny: %+v", res)
			}
			if got := tc.p.runs.Load(); got != tc.runs {
				t.Fatalf("Run called %d times, want %d", got, tc.runs)
			}
		})
	}
}

func TestCallerCancellationDuringPreparationIsAborted(t *testing.T) {
	g := newRig(t, Options{})
	p := &preparer{prepTime: time.Minute, run: func(context.Context) (*luahook.Outcome, error) { return nil, nil }}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: p})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res := g.r.PreToolUse(ctx, &luahook.Input{ToolName: "bash", ToolInput: []byte(`{}`)})
	if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailAborted {
		t.Fatalf("trace %+v; want aborted", res.Trace[0])
	}
	if p.runs.Load() != 0 {
		t.Fatal("Run called after a failed Prepare")
	}
}
