package agent

import (
	"encoding/json"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// Verdict is what a decision says about the event, apart from a rewritten
// input and added context.
type Verdict uint8

const (
	// NoObjection lets the agent do what it would have done: no decision
	// is emitted, so the agent's own permission rules and prompts apply.
	NoObjection Verdict = iota
	// Allow approves explicitly: in Claude Code, Codex and Copilot it skips
	// the permission prompt. Only an explicit approval from a policy should
	// produce it.
	Allow
	// Deny refuses the tool call (PreToolUse) or the prompt
	// (UserPromptSubmit), with Reason.
	Deny
	// Ask hands the decision to the user, with Reason; where the agent (or
	// the event) has no ask, it is a Deny with Reason.
	Ask
	// Continue asks the agent not to stop (Stop), with Reason as its next
	// instruction.
	Continue
)

var verdictNames = [...]string{"none", "allow", "deny", "ask", "continue"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "unknown"
}

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

// FromResult is the decision of a runner result: Denied is Deny with its
// reason, Asked is Ask with its reason (and the rewrite the user is asked
// about), Continue (Stop) is Continue with the next instruction, Allowed
// (an explicit hook.allow()) is Allow, Input a rewrite, AdditionalContext
// added context, and anything else no objection.
func FromResult(r runner.Result) Decision {
	d := Decision{Input: r.Input, Context: r.AdditionalContext}
	switch {
	case r.Denied:
		d.Verdict, d.Reason, d.Input = Deny, r.Reason, nil
	case r.Asked:
		d.Verdict, d.Reason = Ask, r.Reason
	case r.Continue:
		d.Verdict, d.Reason = Continue, r.Reason
	case r.Allowed:
		d.Verdict = Allow
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
