package runner

import (
	"context"
	"log/slog"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// PreToolUse runs the hooks matching in.ToolName before a tool call: every
// mutate-stage hook in order, each seeing the input as rewritten so far, then
// every validate-stage hook in order on the final input. The first deny (or
// fail-closed failure, or hook rejected before it ran) ends the call. A rewritten input is re-validated
// against the tool's schema; Result.Input carries it when it changed.
//
// An ask (hand the decision to the user) ends nothing: it is recorded, from
// either stage, and the hooks after it still run, so that a later deny
// wins. A deny wins over an ask, and an ask over an allow: the verdict is
// VerdictAsk when some hook asked and none denied, with Reason the asks' reasons
// joined with "\n" in execution order. An ask carrying an input is a
// rewrite too (from a mutate-stage hook; a validate-stage hook's is ignored
// as its mutate would be), and a rewrite goes on after an ask: Result.Input
// is the input the user is asked about. The verdict is VerdictAllow when
// some hook returned an explicit allow and none denied or asked; no
// objection from every hook leaves it VerdictNone.
//
// Shadow hooks (luahook.ModeShadow) run after the live hooks, after a deny
// too, each on the final input; their outcomes and failures are traced and
// counted (ShadowStats), never enforced.
func (r *Runner) PreToolUse(ctx context.Context, in *luahook.Input) Result {
	if !r.reg.Has(luahook.PreToolUse) && r.onDecision.Load() == nil && r.guard == nil {
		return Result{Event: luahook.PreToolUse} // the empty path, without a second frame
	}
	ctx, j := r.observing(ctx)
	res := r.guardedPreToolUse(ctx, in, nil)
	r.decided(in, res, j)
	return res
}

// preToolUse is PreToolUse with the trace in trace's array when it is big enough.
func (r *Runner) preToolUse(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	res := Result{Event: luahook.PreToolUse}
	entries := r.reg.Entries(luahook.PreToolUse)
	if len(entries) == 0 {
		return res
	}
	if refusal, ok := r.refused(ctx, luahook.PreToolUse, in); ok {
		return refusal
	}
	// Match each entry's tool once; the usual few matching ones stay on the
	// stack. A Tool(pattern) matcher's argument is tested when the hook's
	// turn comes, on the input as rewritten so far.
	var buf [8]*registry.Entry
	matched := buf[:0]
	for _, e := range entries {
		if e.Match.MatchTool(in.ToolName, in) {
			matched = append(matched, e)
		}
	}
	if len(matched) == 0 {
		return res
	}
	res.Trace = traceArray(trace, len(matched))[:0]
	tmpl := template(in, luahook.PreToolUse)
	defer releaseTemplate(tmpl)
	j := r.newJoiner()
	var asks string // the asks' reasons, joined
	asked, allowed, shadows := false, false, false
	var firstAsk, firstAllow, lastRewrite string // the hooks that may decide (Result.DecidedBy)
	for _, validators := range [2]bool{false, true} {
		for _, e := range matched {
			if (e.Stage == luahook.StageValidate) != validators {
				continue
			}
			if isShadow(e) {
				shadows = true
				continue
			}
			if e.Match.ReadsToolInput() && !e.Matches(tmpl.ToolName, tmpl) {
				continue
			}
			res.Trace = append(res.Trace, HookTrace{})
			tr := &res.Trace[len(res.Trace)-1]
			if res.Denied() {
				*tr = newTrace(e, false)
				tr.Skipped = SkipNotReached
				continue
			}
			out, f := r.invoke(ctx, e, tmpl, tr, false)
			if f != nil {
				if reason := failureDenial(luahook.PreToolUse, e, f); reason != "" {
					res.deny(reason)
					res.DecidedBy = e.Name
				}
				continue
			}
			if out == nil {
				continue
			}
			j.add(out.AdditionalContext)
			j.note(out.ContextAs)
			switch out.Action {
			case luahook.ActionDeny:
				res.deny(out.Reason)
				res.DecidedBy = e.Name
				continue
			case luahook.ActionAllow:
				if !allowed {
					firstAllow = e.Name
				}
				allowed = true
			case luahook.ActionAsk:
				if asked {
					asks += "\n"
				} else {
					firstAsk = e.Name
				}
				asks += out.Reason
				asked = true
			}
			if out.Input != nil { // mutate, or ask with a rewrite
				if !validators {
					tmpl.ToolInput = out.Input
					lastRewrite = e.Name
					continue
				}
				r.validatorMutated(ctx, e, tr, &res)
			}
		}
	}
	if !res.Denied() && !sameJSON(in.ToolInput, tmpl.ToolInput) {
		if sch := r.schemaFor(in.ToolName); sch != nil {
			if reason := schemaViolation(sch, in.ToolName, tmpl.ToolInput); reason != "" {
				res.deny(reason)
				res.DecidedBy = lastRewrite // its rewrite failed the schema
			}
		}
		if !res.Denied() {
			res.Input = tmpl.ToolInput
		}
	}
	switch {
	case res.Denied():
	case asked:
		res.Verdict, res.Reason = luahook.VerdictAsk, luahook.TruncateReason(asks)
		res.DecidedBy = firstAsk
	case allowed:
		res.Verdict = luahook.VerdictAllow
		res.DecidedBy = firstAllow
	case res.Input != nil:
		res.DecidedBy = lastRewrite
	}
	if shadows {
		r.preToolUseShadows(ctx, in, matched, tmpl, &res)
	}
	if len(res.Trace) == 0 {
		res.Trace = nil // only Tool(pattern) hooks matched the tool, and none its argument
	}
	res.AdditionalContext, res.ContextAs = j.result()
	return res
}

// validatorMutated handles a validate-stage hook that returned mutate: the
// rewrite is ignored with a warning, or denies when the hook is fail-closed.
func (r *Runner) validatorMutated(ctx context.Context, e *registry.Entry, tr *HookTrace, res *Result) {
	msg := "PreToolUse validator \"" + e.Name + "\" attempted to mutate tool arguments"
	r.log.LogAttrs(ctx, slog.LevelWarn, msg, slog.String("hook", e.Name), slog.String("source", e.Source))
	if e.FailurePolicy == luahook.FailClosed {
		res.deny(msg)
		res.DecidedBy = e.Name
		return
	}
	tr.Skipped = SkipValidatorMutation
}

// preToolUseShadows runs the shadow hooks among matched, mutators then
// validators, each on tmpl (the input the live hooks left), appends their
// traces to res.Trace and counts their agreement with res's decision.
func (r *Runner) preToolUseShadows(ctx context.Context, in *luahook.Input, matched []*registry.Entry, tmpl *luahook.Input, res *Result) {
	live := res.Action()
	for _, validators := range [2]bool{false, true} {
		for _, e := range matched {
			if !isShadow(e) || (e.Stage == luahook.StageValidate) != validators {
				continue
			}
			if e.Match.ReadsToolInput() && !e.Matches(tmpl.ToolName, tmpl) {
				continue
			}
			res.Trace = append(res.Trace, HookTrace{})
			tr := &res.Trace[len(res.Trace)-1]
			r.invoke(ctx, e, tmpl, tr, false)
			r.judgeShadow(ctx, luahook.PreToolUse, in, e, tr, live)
		}
	}
}
