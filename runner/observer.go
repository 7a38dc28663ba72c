package runner

import (
	"context"
	"sync"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
)

// DecisionFunc observes one decided event: the payload as the caller passed
// it and the Result the caller gets (shallow copies of both). It runs on the
// caller's goroutine after the hooks returned and before Fire does, so it
// must be quick, and must not keep what in and res point to past its return
// (the caller may reuse its payload's bytes and its Result's trace array:
// FireInto): a decision log copies what it needs. res.Ledger holds the
// ledger calls the decision's hooks made (ledger.Journal): a decision that
// is observed keeps a journal of them, one that is not keeps none.
type DecisionFunc func(in *luahook.Input, res *Result)

// SetOnDecision replaces the observer of every decision (Fire, FireInto and
// the per-event methods, not background hooks) for the calls that return
// afterwards; nil removes it. It is safe to call while events are fired.
func (r *Runner) SetOnDecision(f DecisionFunc) {
	if f == nil {
		r.onDecision.Store(nil)
		return
	}
	r.onDecision.Store(&f)
}

// observing returns ctx carrying a journal of the decision's ledger calls,
// and the journal, when a decision observer is set; ctx and nil otherwise,
// at the cost of one atomic load.
func (r *Runner) observing(ctx context.Context) (context.Context, *ledger.Journal) {
	if r.onDecision.Load() == nil {
		return ctx, nil
	}
	return journaled(ctx)
}

// journaled returns ctx carrying a journal of the decision's ledger calls:
// the one ctx carries already (a caller that keeps its own, as replay
// does), else a new one.
func journaled(ctx context.Context) (context.Context, *ledger.Journal) {
	if j := ledger.JournalOf(ctx); j != nil {
		return ctx, j
	}
	return ledger.NewJournal(ctx)
}

// decided hands in and res, with the entries of the journal j, to the
// decision observer, if any: one atomic load when there is none. Both are
// passed on as copies made only then, so that neither the caller's Input
// nor its Result leaves the caller's stack when nobody observes.
func (r *Runner) decided(in *luahook.Input, res Result, j *ledger.Journal) {
	if f := r.onDecision.Load(); f != nil && in != nil {
		res.Ledger = j.Entries()
		observe(*f, in, &res)
	}
}

// observed holds the copies observe hands to the observer, recycled: an
// observer must not keep them (DecisionFunc).
type observed struct {
	in  luahook.Input
	res Result
}

var observedPool = sync.Pool{New: func() any { return new(observed) }}

// observe calls f with copies of its own of in and res, so that the
// caller's own stay on its stack.
func observe(f DecisionFunc, in *luahook.Input, res *Result) {
	o := observedPool.Get().(*observed)
	o.in, o.res = *in, *res
	f(&o.in, &o.res)
	*o = observed{}
	observedPool.Put(o)
}
