package runner

import (
	"context"

	"github.com/luahook/luahook"
)

// UserPromptSubmit runs every UserPromptSubmit hook in order before a prompt
// reaches the model. A deny (or a fail-closed failure) blocks the prompt:
// later hooks are not called and the collected context is dropped. Otherwise
// the hooks' context is joined with "\n", preceded by the session's buffered
// background context. Mutations are ignored. Result.Verdict is VerdictAllow when a
// hook returned an explicit allow and none denied.
//
// A blocked prompt leaves the background buffer in place for the next turn.
//
// Shadow hooks (luahook.ModeShadow) run after the live hooks, after a block
// too; their outcomes and failures are traced and counted (ShadowStats),
// never enforced.
func (r *Runner) UserPromptSubmit(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.userPromptSubmit(ctx, in, nil)
	r.decided(in, res, j)
	return res
}

func (r *Runner) userPromptSubmit(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	res := Result{Event: luahook.UserPromptSubmit}
	entries := r.reg.Entries(luahook.UserPromptSubmit)
	if len(entries) == 0 && !r.buf.pending() {
		return res
	}
	if refusal, ok := r.refused(ctx, luahook.UserPromptSubmit, in); ok {
		return refusal
	}
	tmpl := template(in, luahook.UserPromptSubmit)
	defer releaseTemplate(tmpl)
	if len(entries) > 0 {
		res.Trace = traceArray(trace, len(entries))
	}
	n, shadows := 0, false // live hooks traced; shadow hooks seen
	for _, e := range entries {
		if isShadow(e) {
			shadows = true
			continue
		}
		tr := &res.Trace[n]
		n++
		if res.Denied() {
			*tr = newTrace(e, false)
			tr.Skipped = SkipNotReached
			continue
		}
		out, f := r.invoke(ctx, e, tmpl, tr, false)
		switch {
		case f != nil:
			if reason := failureDenial(luahook.UserPromptSubmit, e, f); reason != "" {
				res.deny(reason)
				res.DecidedBy = e.Name
			}
		case out != nil && out.Action == luahook.ActionDeny:
			res.deny(out.Reason)
			res.DecidedBy = e.Name
		case out != nil && out.Action == luahook.ActionAllow:
			if res.Verdict != luahook.VerdictAllow {
				res.DecidedBy = e.Name // the first explicit allow, unless a deny follows
			}
			res.Verdict = luahook.VerdictAllow
		}
	}
	if shadows {
		live := res.Action()
		for _, e := range entries {
			if isShadow(e) {
				tr := &res.Trace[n]
				n++
				r.invoke(ctx, e, tmpl, tr, false)
				r.judgeShadow(ctx, luahook.UserPromptSubmit, in, e, tr, live)
			}
		}
	}
	if res.Denied() {
		return res
	}
	j := r.newJoiner()
	if ctx.Err() == nil && r.buf.pending() {
		if parts := r.buf.drain(r.sessionKey(tmpl), r.buf.mark()); len(parts) > 0 {
			j.note(luahook.ContextInline)
			for _, p := range parts {
				j.add(p)
			}
		}
	}
	for k := range res.Trace {
		if tr := &res.Trace[k]; tr.Failure == nil && tr.Skipped == "" && tr.Mode != luahook.ModeShadow {
			j.contribute(tr.Outcome)
		}
	}
	res.AdditionalContext, res.ContextAs = j.result()
	return res
}
