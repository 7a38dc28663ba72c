package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// fanMode says what a parallel event does with its hooks and their outcomes.
type fanMode uint8

const (
	fanJoin    fanMode = iota // SessionStart, Stop: contexts joined
	fanPost                   // PostToolUse: contexts joined, background hooks scheduled, buffer drained
	fanObserve                // observational events: outcomes ignored
	fanSkipped                // ToolSkipped: run_when_tool_skipped hooks only, outcomes ignored
)

// PostToolUse runs the foreground hooks matching in.ToolName in parallel and
// waits for all of them; their additionalContext values are joined in
// registration order, followed by the session's buffered background context.
// Background hooks are queued for the runner's workers (or coalesced with
// the payload waiting for the same hook and session, or dropped when the
// queue is full) and not awaited. Deny and mutate outcomes are ignored;
// failures are logged and skipped.
func (r *Runner) PostToolUse(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.postToolUse(ctx, in, nil)
	r.decided(in, res, j)
	return res
}

func (r *Runner) postToolUse(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	res := r.postToolUseHooks(ctx, in, trace)
	if r.toolDone != nil && in != nil {
		r.toolDone(ctx, in)
	}
	return res
}

func (r *Runner) postToolUseHooks(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	if !r.Has(luahook.PostToolUse) {
		return Result{Event: luahook.PostToolUse}
	}
	if refusal, ok := r.refused(ctx, luahook.PostToolUse, in); ok {
		return refusal
	}
	tmpl := template(in, luahook.PostToolUse)
	defer releaseTemplate(tmpl)
	return r.fanout(ctx, luahook.PostToolUse, tmpl, in.ToolName, fanPost, trace)
}

// SessionStart runs every SessionStart hook in parallel, waits for all, and
// joins their context in registration order.
func (r *Runner) SessionStart(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.fanEvent(ctx, luahook.SessionStart, in, "", fanJoin, nil)
	r.decided(in, res, j)
	return res
}

// Stop runs every Stop hook in parallel and waits for all. Their context is
// joined into the Result, though the contract's Stop outcome does not carry
// it. A hook that returns continue asks the agent to keep going instead of
// stopping: Result.Verdict is VerdictContinue, with Reason the continuations' reasons
// joined with "\n" in registration order (the agent's next instruction). A
// failed Stop hook is logged and asks nothing, whatever its failure policy:
// Stop cannot block, so luahook never keeps an agent going on its own.
func (r *Runner) Stop(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.fanEvent(ctx, luahook.Stop, in, "", fanJoin, nil)
	r.decided(in, res, j)
	return res
}

// Observe runs the hooks of an observational event (in.Event) that match
// in.MatchKey() in parallel and waits for all. Outcomes are ignored; failures
// are logged, whatever the failure policy. Another event runs nothing.
func (r *Runner) Observe(ctx context.Context, in *luahook.Input) Result {
	ctx, j := r.observing(ctx)
	res := r.observe(ctx, in, nil)
	r.decided(in, res, j)
	return res
}

func (r *Runner) observe(ctx context.Context, in *luahook.Input, trace []HookTrace) Result {
	if in == nil {
		res, _ := r.refused(ctx, "", nil)
		return res
	}
	if !in.Event.Observational() {
		return Result{Event: in.Event}
	}
	return r.fanEvent(ctx, in.Event, in, in.MatchKey(), fanObserve, trace)
}

// ToolSkipped tells the PostToolUse hooks marked run_when_tool_skipped that a
// tool PreToolUse allowed did not run (denied, rejected, aborted, failed), so
// that they can release what they claimed. They get a PostToolUse payload
// whose toolResult is {content: reason, isError: true}, run in parallel and
// are awaited, background or not. Outcomes are ignored; failures are logged.
// The Result (its Event is PostToolUse) carries only the trace.
func (r *Runner) ToolSkipped(ctx context.Context, in *luahook.Input, reason string) Result {
	if !r.reg.Has(luahook.PostToolUse) {
		return Result{Event: luahook.PostToolUse}
	}
	if refusal, ok := r.refused(ctx, luahook.PostToolUse, in); ok {
		return refusal
	}
	tmpl := template(in, luahook.PostToolUse)
	defer releaseTemplate(tmpl)
	tmpl.ToolResult = &luahook.ToolResult{Content: reason, IsError: true}
	return r.fanout(ctx, luahook.PostToolUse, tmpl, in.ToolName, fanSkipped, nil)
}

func (r *Runner) fanEvent(ctx context.Context, ev luahook.Event, in *luahook.Input, key string, mode fanMode, trace []HookTrace) Result {
	if !r.reg.Has(ev) {
		return Result{Event: ev}
	}
	if refusal, ok := r.refused(ctx, ev, in); ok {
		return refusal
	}
	tmpl := template(in, ev)
	defer releaseTemplate(tmpl)
	return r.fanout(ctx, ev, tmpl, key, mode, trace)
}

// selects reports whether e takes part in a fan-out of mode for the payload
// in, whose match key is key.
func (m fanMode) selects(e *registry.Entry, key string, in *luahook.Input) bool {
	if m == fanSkipped && !e.RunWhenToolSkipped {
		return false
	}
	return e.Matches(key, in)
}

// fanout runs the selected hooks of ev in parallel (one alone runs inline),
// waits for all, and fills the trace in registration order.
func (r *Runner) fanout(ctx context.Context, ev luahook.Event, tmpl *luahook.Input, key string, mode fanMode, trace []HookTrace) Result {
	res := Result{Event: ev}
	cut := r.buf.mark() // background context buffered from here on is for the next turn
	// Select each entry once; the usual few selected ones stay on the stack.
	var buf [8]*registry.Entry
	selected := buf[:0]
	fg, shadows := 0, false
	chained := 0 // PostToolUse: the foreground hooks of the mutate stage
	for _, e := range r.reg.Entries(ev) {
		if mode.selects(e, key, tmpl) {
			selected = append(selected, e)
			shadows = shadows || isShadow(e)
			switch {
			case mode == fanPost && e.Background:
			case mode == fanPost && e.Stage == luahook.StageMutate && tmpl.ToolResult != nil:
				chained++
			default:
				fg++
			}
		}
	}
	if len(selected) > 0 {
		res.Trace = traceArray(trace, len(selected))
	}
	var chain *luahook.OutputChain
	var chainVar luahook.OutputChain // chain points here: no allocation
	if mode == fanPost && len(selected) > 0 && tmpl.ToolResult != nil {
		chain = &chainVar
		chain.Start(tmpl.ToolResult.Content, tmpl.ToolResult.Cut)
		if chained > 0 {
			res.DecidedBy = r.runOutputStage(ctx, selected, tmpl, res.Trace, chain)
		}
	}
	seen := "" // the output the parallel hooks are given
	if chain != nil {
		seen = tmpl.ToolResult.Content
	}
	var wg *sync.WaitGroup // only when a hook runs on a goroutine of its own
	if fg > 1 {
		wg = new(sync.WaitGroup)
	}
	var session string
	started := 0
	for i, e := range selected {
		tr := &res.Trace[i]
		if mode == fanPost && e.Background {
			if session == "" {
				session = r.sessionKey(tmpl)
			}
			r.schedule(e, tmpl, session, tr)
			continue
		}
		if chain != nil && e.Stage == luahook.StageMutate {
			continue // ran in the mutate stage
		}
		started++
		if started == fg {
			// The last one runs on the caller's goroutine.
			r.invoke(ctx, e, tmpl, tr, false)
			continue
		}
		wg.Add(1)
		// wg as an argument: a variable the goroutine shared would be
		// moved to the heap on every call, a goroutine or not
		go func(wg *sync.WaitGroup) {
			defer wg.Done()
			r.invoke(ctx, e, tmpl, tr, false)
		}(wg)
	}
	if wg != nil {
		wg.Wait()
	}
	if mode == fanObserve || mode == fanSkipped {
		return res
	}
	if chain != nil {
		for i, e := range selected {
			if !e.Background && e.Stage != luahook.StageMutate && r.applyOutput(ctx, chain, e, &res.Trace[i], seen) {
				res.DecidedBy = e.Name
			}
		}
		res.Output = finishOutput(ctx, chain)
		if res.Output == nil {
			res.DecidedBy = ""
		}
	}
	j := r.newJoiner()
	var next string // Stop: the continuations' reasons, joined
	for k := range res.Trace {
		if tr := &res.Trace[k]; tr.Failure == nil && tr.Skipped == "" && tr.Mode != luahook.ModeShadow {
			j.contribute(tr.Outcome)
			if o := tr.Outcome; o != nil && o.Action == luahook.ActionContinue {
				if res.Continues() {
					next += "\n"
				} else {
					res.DecidedBy = tr.Name // the first hook, in registration order, that asked
				}
				next += o.Reason
				res.Verdict = luahook.VerdictContinue
			}
		}
	}
	if res.Continues() {
		res.Reason = luahook.TruncateReason(next)
	}
	if shadows && decides(ev) {
		live := res.Action()
		for i, e := range selected {
			if isShadow(e) {
				r.judgeShadow(ctx, ev, tmpl, e, &res.Trace[i], live)
			}
		}
	}
	if mode == fanPost && ctx.Err() == nil && r.buf.pending() {
		if session == "" {
			session = r.sessionKey(tmpl)
		}
		if parts := r.buf.drain(session, cut); len(parts) > 0 {
			j.note(luahook.ContextInline)
			for _, p := range parts {
				j.add(p)
			}
		}
	}
	res.AdditionalContext, res.ContextAs = j.result()
	return res
}

// runOutputStage runs the foreground PostToolUse hooks of the mutate stage
// among selected one after another, in registration order, each given the
// tool's output as the previous one left it, and applies their rewrites to
// chain. tmpl's ToolResult is replaced (never written through: the
// caller's payload shares it) whenever the output changes. It returns the
// name of the last hook that rewrote the output, "" when none did.
func (r *Runner) runOutputStage(ctx context.Context, selected []*registry.Entry, tmpl *luahook.Input, trace []HookTrace, chain *luahook.OutputChain) (last string) {
	for i, e := range selected {
		if e.Background || e.Stage != luahook.StageMutate {
			continue
		}
		seen := tmpl.ToolResult.Content
		r.invoke(ctx, e, tmpl, &trace[i], false)
		if r.applyOutput(ctx, chain, e, &trace[i], seen) {
			last = e.Name
		}
		if now := chain.Content(); now != seen {
			tr := *tmpl.ToolResult
			tr.Content = now
			tmpl.ToolResult = &tr
		}
	}
	return last
}

// applyOutput applies to chain the rewrite of the hook e, traced in tr,
// which was given the output seen. A shadow hook's rewrite is never
// enforced. The output is withheld when the hook failed and its failure
// policy is closed (it could not say what the model may read), and when
// it asked for a rewrite that cannot be applied (a span past the output's
// end, the call's time up): it said the output must change. It reports
// whether the hook rewrote or withheld the output.
func (r *Runner) applyOutput(ctx context.Context, chain *luahook.OutputChain, e *registry.Entry, tr *HookTrace, seen string) bool {
	if tr.Skipped != "" || tr.Mode == luahook.ModeShadow {
		return false
	}
	if f := tr.Failure; f != nil {
		if e.FailurePolicy == luahook.FailClosed {
			chain.Withhold(fmt.Sprintf("the hook %q, which checks it and fails closed, failed (%s)", e.Name, oneLine(f.Error())))
			return true
		}
		return false
	}
	o := tr.Outcome
	if o == nil || (o.Action != luahook.ActionRedact && o.Action != luahook.ActionReplaceOutput) {
		return false
	}
	if err := chain.Apply(ctx, o, seen); err != nil {
		f := luahook.AsFailure(err)
		tr.Failure = f
		r.logFailure(ctx, luahook.PostToolUse, e, f, false)
		chain.Withhold(fmt.Sprintf("the rewrite of the hook %q could not be applied (%s)", e.Name, oneLine(f.Error())))
	}
	return true
}

// finishOutput ends chain: the rewrite, nil when the output is the
// tool's own. When the call's context ends before every redaction is
// applied again, the output is withheld.
func finishOutput(ctx context.Context, chain *luahook.OutputChain) *luahook.OutputRewrite {
	w, err := chain.Finish(ctx)
	if err != nil {
		chain.Withhold("luahook ran out of time applying the redactions")
		w, _ = chain.Finish(context.WithoutCancel(ctx))
	}
	return w
}

// oneLine is s on one line, cut to 200 characters: for a reason shown to
// the model.
func oneLine(s string) string {
	return luahook.TruncateChars(strings.Join(strings.Fields(s), " "), 200)
}
