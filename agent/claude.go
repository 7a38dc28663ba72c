package agent

import (
	"encoding/json"

	"github.com/luahook/luahook"
)

// claudeEvents maps Claude Code's events; Codex and Copilot's PascalCase
// dialect use the same names.
var claudeEvents = map[string]mapping{
	"PreToolUse":         {event: luahook.PreToolUse},
	"PostToolUse":        {event: luahook.PostToolUse},
	"PostToolUseFailure": {event: luahook.PostToolUse, failure: true},
	"UserPromptSubmit":   {event: luahook.UserPromptSubmit},
	"SessionStart":       {event: luahook.SessionStart},
	"Stop":               {event: luahook.Stop},
	"SubagentStart":      {event: luahook.SubagentStart},
	"SubagentStop":       {event: luahook.SubagentStop},
	"PreCompact":         {event: luahook.PreCompact},
	"PostCompact":        {event: luahook.PostCompact},
	"SessionEnd":         {event: luahook.SessionEnd},
}

// decodeClaude reads the payload of Claude Code's protocol (also Codex's
// and Copilot's PascalCase dialect).
func decodeClaude(agent Name, data []byte, event string, events map[string]mapping) (*Request, error) {
	d, err := decode(agent, data, event, claudeFields, events)
	if err != nil {
		return nil, err
	}
	return completeClaude(d, events)
}

// completeClaude reads the event-specific fields of Claude Code's payload.
func completeClaude(d decoded, events map[string]mapping) (*Request, error) {
	var err error
	if d.req.Input == nil {
		return d.req, err
	}
	in := d.req.Input
	switch m := events[d.req.Event]; {
	case m.failure:
		err = d.toolResult("error", true)
	case m.event == luahook.PostToolUse:
		err = d.toolResult("tool_response", false)
	case m.event == luahook.SubagentStart || m.event == luahook.SubagentStop:
		s := &luahook.Subagent{}
		if s.Target, err = d.n.str("agent_type"); err == nil {
			s.SubagentID, err = d.n.str("agent_id")
		}
		in.Subagent = s
	case m.event == luahook.PreCompact || m.event == luahook.PostCompact:
		c := &luahook.Compaction{}
		c.Trigger, err = d.n.str("trigger")
		in.Compaction = c
	}
	if err != nil {
		return nil, d.fail(err)
	}
	return d.finish()
}

// claudeHSO is Claude Code's hookSpecificOutput; hookEventName is required.
type claudeHSO struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput,omitempty"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
}

// claudeOutput is the JSON a Claude Code hook writes.
type claudeOutput struct {
	Decision           string     `json:"decision,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	HookSpecificOutput *claudeHSO `json:"hookSpecificOutput,omitempty"`
}

// claudeFlavor is where Codex differs from Claude Code.
type claudeFlavor struct {
	// hasAsk: permissionDecision "ask" exists (Codex fails the hook on it,
	// and the tool runs).
	hasAsk bool
}

// encodeClaude answers in Claude Code's format.
func encodeClaude(fl claudeFlavor, req *Request, d Decision) Answer {
	d = normalize(d)
	m, ok := claudeEvents[req.Event]
	if !ok || req.Input == nil {
		return Answer{}
	}
	hso := &claudeHSO{HookEventName: req.Event, AdditionalContext: d.Context}
	switch m.event {
	case luahook.PreToolUse:
		v := d.Verdict
		if v == Ask && !fl.hasAsk {
			v = Deny
		}
		switch {
		case v == Deny:
			hso.PermissionDecision, hso.PermissionDecisionReason = "deny", d.reason()
		case v == Ask:
			hso.PermissionDecision, hso.PermissionDecisionReason, hso.UpdatedInput = "ask", d.askReason(), d.Input
		case v == Allow:
			// Claude Code shows an allow's reason to the user: the
			// rewrite's own, when there is one.
			hso.PermissionDecision, hso.UpdatedInput = "allow", d.Input
			if d.Input != nil {
				hso.PermissionDecisionReason = d.RewriteReason
			}
		case d.Input != nil && fl.hasAsk:
			// A rewrite applies only with a permission decision, and
			// no hook approved the call: ask shows the rewritten call
			// to the user, with the rewrite's own reason.
			hso.PermissionDecision, hso.PermissionDecisionReason, hso.UpdatedInput = "ask", d.rewriteNote(), d.Input
		case d.Input != nil:
			// Without ask, a rewrite could reach the agent only as an
			// approval no hook gave (the caller blocks it first; this
			// is the floor).
			hso.PermissionDecision, hso.PermissionDecisionReason = "deny", d.rewriteNote()
		}
		if hso.PermissionDecision == "" && hso.AdditionalContext == "" {
			return Answer{}
		}
		return answer(claudeOutput{HookSpecificOutput: hso})
	case luahook.UserPromptSubmit:
		if d.Verdict == Deny || d.Verdict == Ask {
			return answer(claudeOutput{Decision: "block", Reason: d.reason()})
		}
		return contextOnly(hso)
	case luahook.PostToolUse:
		if d.Output != nil {
			claudePostToolUse(req, m, &d, hso)
		}
		return contextOnly(hso)
	case luahook.SessionStart:
		return contextOnly(hso)
	case luahook.Stop:
		if d.Verdict == Continue {
			return answer(claudeOutput{Decision: "block", Reason: d.reason()})
		}
	}
	return Answer{}
}

// claudePostToolUse writes the rewritten output d.Output into hso: as
// updatedMCPToolOutput for an MCP tool, else updatedToolOutput, in the
// tool's own output shape (Claude Code drops a replacement of another
// shape, and the model then reads the original: inShape), with context
// that says what was taken out and not to bring it back, so that a
// release that ignores the replacement still tells the model that much.
// PostToolUseFailure takes no replacement: the context alone. No
// "decision":"block" is written: on PostToolUse it only adds the reason
// as feedback beside the output (it takes nothing out), and it would tell
// the model that a tool whose output was replaced failed.
func claudePostToolUse(req *Request, m mapping, d *Decision, hso *claudeHSO) {
	hso.AdditionalContext = outputContext(d)
	if m.failure {
		return
	}
	v, ok := inShape(nativeValue(req, "tool_response"), d.Output)
	switch {
	case !ok:
	case isMCP(req):
		hso.UpdatedMCPToolOutput = v
	default:
		hso.UpdatedToolOutput = v
	}
}

func contextOnly(hso *claudeHSO) Answer {
	if hso.AdditionalContext == "" && hso.UpdatedToolOutput == nil && hso.UpdatedMCPToolOutput == nil {
		return Answer{}
	}
	return answer(claudeOutput{HookSpecificOutput: hso})
}

// blockClaude is Claude Code's (and Codex's) block signal.
func blockClaude(event, reason string) Answer {
	if reason == "" {
		reason = luahook.DefaultBlockReason
	}
	switch event {
	case "PreToolUse":
		return block(claudeOutput{HookSpecificOutput: &claudeHSO{HookEventName: event,
			PermissionDecision: "deny", PermissionDecisionReason: reason}}, reason)
	case "UserPromptSubmit", "":
		// An unknown event gets the top-level refusal every blocking
		// event reads, and exit 2.
		return block(claudeOutput{Decision: "block", Reason: reason}, reason)
	}
	return proceed(reason)
}

// normalize refuses a rewrite that is not a JSON object: it cannot reach
// the agent, and running the original input instead would ignore the policy.
func normalize(d Decision) Decision {
	if d.Input != nil && (!luahook.IsJSONObject(d.Input) || !json.Valid(d.Input)) {
		return Decision{Verdict: Deny, Reason: "luahook: the rewritten tool input is not a JSON object"}
	}
	return d
}

type claudeAdapter struct{}

func (claudeAdapter) Name() Name { return Claude }

func (claudeAdapter) Decode(data []byte, event string) (*Request, error) {
	return decodeClaude(Claude, data, event, claudeEvents)
}

func (claudeAdapter) Encode(req *Request, d Decision) Answer {
	return encodeClaude(claudeFlavor{hasAsk: true}, req, d)
}

func (claudeAdapter) Block(event, reason string) Answer { return blockClaude(event, reason) }
