package agent

import (
	"encoding/json"

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
	// Context is text added to the model's context, where the event takes it.
	Context string
}

// FromResult is the decision of a runner result: its verdict, with its
// reason (deny, ask, continue), the rewrite (none on a deny; on an ask, the
// input the user is asked about) and the added context.
func FromResult(r runner.Result) Decision {
	d := Decision{Verdict: r.Verdict, Input: r.Input, Context: r.AdditionalContext}
	switch r.Verdict {
	case Deny:
		d.Reason, d.Input = r.Reason, nil
	case Ask, Continue:
		d.Reason = r.Reason
	}
	return d
}

// reason returns d.Reason, or the default block reason when it is empty.
func (d *Decision) reason() string {
	if d.Reason == "" {
		return luahook.DefaultBlockReason
	}
	return d.Reason
}
