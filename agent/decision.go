package agent

import (
	"encoding/json"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// Verdict is what a decision says about the event, apart from a rewritten
// input and added context: luahook.Verdict, the runner's own, under the
// names this package has always used.
type Verdict = luahook.Verdict

const (
	// NoObjection lets the agent do what it would have done: no decision
	// is emitted, so the agent's own permission rules and prompts apply.
	NoObjection = luahook.VerdictNone
	// Allow approves explicitly: in Claude Code, Codex and Copilot it skips
	// the permission prompt. Only an explicit approval from a policy should
	// produce it.
	Allow = luahook.VerdictAllow
	// Deny refuses the tool call (PreToolUse) or the prompt
	// (UserPromptSubmit), with Reason.
	Deny = luahook.VerdictDeny
	// Ask hands the decision to the user, with Reason; where the agent (or
	// the event) has no ask, it is a Deny with Reason.
	Ask = luahook.VerdictAsk
	// Continue asks the agent not to stop (Stop), with Reason as its next
	// instruction.
	Continue = luahook.VerdictContinue
)

// Decision is luahook's answer on one event, independent of the agent.
type Decision struct {
	Verdict Verdict
	// Reason says why (Deny, Ask) or what to do next (Continue). An empty
	// reason where one is needed is luahook.DefaultBlockReason.
	Reason string
	// Input is the rewritten tool input (PreToolUse), a JSON object that
	// replaces the agent's whole tool input; nil: unchanged.
	Input json.RawMessage
	// RewriteReason says why Input was rewritten: the reasons the rewriting
	// hooks gave (hook.mutate(input, reason)), joined with "\n" in the
	// order they ran; "" when they gave none. Adapters pass it on wherever
	// the agent reads a reason with the answer they write.
	RewriteReason string
	// Context is text added to the model's context, where the event takes it.
	Context string
	// Output is the tool's output rewritten by the PostToolUse hooks (the
	// output the model is to read instead of the tool's), nil when it is
	// the tool's own.
	Output *luahook.OutputRewrite
}

// FromResult is the decision of a runner result: its verdict, with its
// reason (deny, ask, continue), the rewrite (none on a deny; on an ask, the
// input the user is asked about) with the reasons its hooks gave, and the
// added context.
func FromResult(r runner.Result) Decision {
	d := Decision{Verdict: r.Verdict, Input: r.Input, Context: r.AdditionalContext, Output: r.Output}
	switch r.Verdict {
	case Deny:
		d.Reason, d.Input = r.Reason, nil
	case Ask, Continue:
		d.Reason = r.Reason
	}
	if d.Input != nil {
		d.RewriteReason = rewriteReason(r.Trace)
	}
	return d
}

// rewriteReason joins the reasons of the rewrites in trace: the hooks that
// returned mutate with a reason and whose outcome was used (a validator's
// mutate is skipped, a shadow hook's is never enforced, a failed hook's
// outcome is not used, and an ask's reason is the result's own Reason).
func rewriteReason(trace []runner.HookTrace) string {
	var out string
	for i := range trace {
		t := &trace[i]
		o := t.Outcome
		if o == nil || o.Action != luahook.ActionMutate || strings.TrimSpace(o.Reason) == "" ||
			t.Failure != nil || t.Skipped != "" || t.Mode == luahook.ModeShadow {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += o.Reason
	}
	return luahook.TruncateReason(out)
}

// reason returns d.Reason, or the default block reason when it is empty.
func (d *Decision) reason() string {
	if d.Reason == "" {
		return luahook.DefaultBlockReason
	}
	return d.Reason
}

// rewroteThisCall is the reason a rewrite carries when its hooks gave none.
const rewroteThisCall = "luahook rewrote this call"

// rewriteNote is the rewrite's own reason, or rewroteThisCall.
func (d *Decision) rewriteNote() string {
	if d.RewriteReason == "" {
		return rewroteThisCall
	}
	return d.RewriteReason
}

// askReason is the reason of an ask: d's reason, followed on its own line
// by the rewrite's reason when the user is asked about a rewritten call.
func (d *Decision) askReason() string {
	if d.Input == nil || d.RewriteReason == "" {
		return d.reason()
	}
	return luahook.TruncateReason(d.reason() + "\n" + d.RewriteReason)
}
