package runner

import (
	"context"

	"github.com/luahook/luahook"
)

// Guard judges a PreToolUse payload before any hook sees it (Options.Guard):
// deny, with the reason the agent is given, ends the call. The engine's
// self-protection is one (it keeps the agent from changing luahook's own
// policies, config, trust records and the agent settings that run it). A
// Guard is called on the caller's goroutine, must be quick, safe for
// concurrent use, and must neither keep nor change in.
type Guard func(in *luahook.Input) (deny bool, reason string)

// guardedPreToolUse is preToolUse behind the runner's Guard, then, when
// the verdict is an ask that a hook routed to the web, the wait for a
// person's decision (routeAsk): a deny, the guard's or a hook's, ends the
// call without asking anyone.
func (r *Runner) guardedPreToolUse(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	res := r.guardedHooks(ctx, in, trace)
	if res.Asked() && in != nil {
		r.routeAsk(ctx, in, &res)
	}
	return res
}

// guardedHooks is preToolUse behind the runner's Guard: a payload the
// guard denies runs no hook (its Result has no trace and no DecidedBy), and
// an input the mutate stage rewrote is judged again, so that no hook can
// rewrite a call into one the guard denies; no hook's allow or ask
// overrides the guard's denial.
func (r *Runner) guardedHooks(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	if r.guard == nil || in == nil {
		return r.preToolUse(ctx, in, trace)
	}
	if deny, reason := r.guard(in); deny {
		res := Result{Event: luahook.PreToolUse}
		res.deny(reason)
		return res
	}
	res := r.preToolUse(ctx, in, trace)
	if res.Input != nil && res.Action() != luahook.ActionDeny {
		turn := *in
		turn.ToolInput = res.Input
		if deny, reason := r.guard(&turn); deny {
			res.deny(reason) // DecidedBy stays as the hooks left it: theirs is the rewrite denied
			res.Input = nil
		}
	}
	return res
}

// guardDenies reports whether the runner's Guard denies in (Explain: the
// hooks that match did not run).
func (r *Runner) guardDenies(in *luahook.Input) bool {
	if r.guard == nil || in == nil || in.Event != luahook.PreToolUse {
		return false
	}
	deny, _ := r.guard(in)
	return deny
}
