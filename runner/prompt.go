package runner

import (
	"context"

	"github.com/luahook/luahook"
)

// UserPromptSubmit runs every UserPromptSubmit hook in order before a prompt
// reaches the model. A deny (or a fail-closed failure) blocks the prompt:
// later hooks are not called and the collected context is dropped. Otherwise
// the hooks' context is joined with "\n", preceded by the session's buffered
// background context. Mutations are ignored. Result.Allowed is set when a
// hook returned an explicit allow and none denied.
//
// A blocked prompt leaves the background buffer in place for the next turn.
func (r *Runner) UserPromptSubmit(ctx context.Context, in *luahook.Input) Result {
	return r.userPromptSubmit(ctx, in, nil)
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
	for i, e := range entries {
		tr := &res.Trace[i]
		if res.Denied {
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
			if !res.Allowed {
				res.DecidedBy = e.Name // the first explicit allow, unless a deny follows
			}
			res.Allowed = true
		}
	}
	if res.Denied {
		res.Allowed = false
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
		if tr := &res.Trace[k]; tr.Failure == nil && tr.Skipped == "" {
			j.contribute(tr.Outcome)
		}
	}
	res.AdditionalContext, res.ContextAs = j.result()
	return res
}
