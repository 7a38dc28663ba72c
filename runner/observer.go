package runner

import "github.com/luahook/luahook"

// DecisionFunc observes one decided event: the payload as the caller passed
// it and the Result the caller gets. It runs on the caller's goroutine after
// the hooks returned and before Fire does, so it must be quick and must not
// keep in, res or anything they point to past its return (the caller may
// reuse them: FireInto): a decision log copies what it needs.
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

// decided hands res to the decision observer, if any: one atomic load when
// there is none.
func (r *Runner) decided(in *luahook.Input, res *Result) {
	if f := r.onDecision.Load(); f != nil && in != nil {
		(*f)(in, res)
	}
}
