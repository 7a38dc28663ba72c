package agent

import (
	"encoding/json"
	"fmt"

	"github.com/luahook/luahook"
)

// copilotEvents maps Copilot's camelCase dialect, whose payload does not
// name its event: the hook configuration does, and the caller passes it.
var copilotEvents = map[string]mapping{
	"sessionStart":        {event: luahook.SessionStart},
	"sessionEnd":          {event: luahook.SessionEnd},
	"userPromptSubmitted": {event: luahook.UserPromptSubmit},
	"preToolUse":          {event: luahook.PreToolUse},
	"postToolUse":         {event: luahook.PostToolUse},
	"postToolUseFailure":  {event: luahook.PostToolUse, failure: true},
	"agentStop":           {event: luahook.Stop},
	"subagentStop":        {event: luahook.SubagentStop},
}

// copilotFields is the camelCase dialect's payload: {sessionId, timestamp,
// cwd, toolName, toolArgs, ...}; toolArgs may be an object or an object
// written as a JSON string.
var copilotFields = fields{session: "sessionId", cwd: "cwd", toolName: "toolName",
	toolInput: "toolArgs", toolInputText: true, prompt: "prompt"}

// copilotAdapter speaks GitHub Copilot's protocol in both dialects: the
// camelCase one (events spelled preToolUse in the configuration) and the
// PascalCase one (PreToolUse: Claude Code's payload, tool names and
// matchers). A payload with hook_event_name is the PascalCase dialect.
// Both read the same flat output.
type copilotAdapter struct{}

func (copilotAdapter) Name() Name { return Copilot }

func (copilotAdapter) Decode(data []byte, event string) (*Request, error) {
	n, err := parseNative(data)
	if err != nil {
		return nil, &DecodeError{Agent: Copilot, Event: event, Err: err}
	}
	if n.get("hook_event_name") != nil {
		d, err := decodeNative(Copilot, n, event, claudeFields, claudeEvents)
		if err != nil {
			return nil, err
		}
		return completeClaude(d, claudeEvents)
	}
	d, err := decodeNative(Copilot, n, event, copilotFields, copilotEvents)
	if err != nil || d.req.Input == nil {
		return d.req, err
	}
	in := d.req.Input
	switch m := copilotEvents[d.req.Event]; {
	case m.failure:
		err = d.toolResult("error", true)
	case m.event == luahook.PostToolUse:
		err = d.copilotToolResult()
	case m.event == luahook.SubagentStop:
		s := &luahook.Subagent{}
		if s.Target, err = d.n.str("agentType"); err == nil {
			s.SubagentID, err = d.n.str("agentId")
		}
		in.Subagent = s
	}
	if err != nil {
		return nil, d.fail(err)
	}
	return d.finish()
}

// copilotToolResult reads toolResult {resultType, textResultForLlm}: an
// error unless resultType is "success".
func (d decoded) copilotToolResult() error {
	v := d.n.get("toolResult")
	if v == nil {
		return nil
	}
	if v[0] != '{' {
		return d.fail(fmt.Errorf("toolResult must be an object, got %s", snippet(v)))
	}
	r, err := parseNative(v)
	if err != nil {
		return d.fail(err)
	}
	kind, err := r.str("resultType")
	if err != nil {
		return d.fail(fmt.Errorf("toolResult.%w", err))
	}
	text, err := r.text("textResultForLlm")
	if err != nil {
		return d.fail(fmt.Errorf("toolResult.%w", err))
	}
	d.req.Input.ToolResult = &luahook.ToolResult{Content: text, IsError: kind != "" && kind != "success"}
	return nil
}

// copilotResult is Copilot's toolResult: what modifiedResult replaces it
// with.
type copilotResult struct {
	ResultType       string `json:"resultType"`
	TextResultForLlm string `json:"textResultForLlm"`
}

// copilotOutput is Copilot's flat output (no hookSpecificOutput wrapper).
type copilotOutput struct {
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	ModifiedArgs             json.RawMessage `json:"modifiedArgs,omitempty"`
	ModifiedResult           *copilotResult  `json:"modifiedResult,omitempty"`
	Decision                 string          `json:"decision,omitempty"`
	Reason                   string          `json:"reason,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
}

func (copilotAdapter) Encode(req *Request, d Decision) Answer {
	d = normalize(d)
	if req.Input == nil {
		return Answer{}
	}
	var out copilotOutput
	switch req.Input.Event {
	case luahook.PreToolUse:
		// Copilot CLI gives a preToolUse hook's context to the model after
		// the call's result, whatever the decision (seen in 1.0.102).
		out.AdditionalContext = d.Context
		switch d.Verdict {
		case Deny:
			out.PermissionDecision, out.PermissionDecisionReason = "deny", d.reason()
		case Ask:
			if d.Input != nil {
				// Copilot CLI asks about the original call, and runs it on
				// yes: the rewrite would be lost behind the user's back
				// (seen in 1.0.102). The call is blocked instead, with the
				// rewritten one for the model to make: Copilot asks about
				// that one as it is.
				out.PermissionDecision = "deny"
				out.PermissionDecisionReason = rewriteBlock(req, d, d.reason(),
					"Copilot CLI would ask about the original call, so this call is blocked", true)
				break
			}
			out.PermissionDecision, out.PermissionDecisionReason = "ask", d.askReason()
		case Allow:
			out.PermissionDecision, out.ModifiedArgs = "allow", d.Input
		default:
			// No decision: Copilot runs the rewritten call under its own
			// permission rules. It reads a reason only with deny and ask,
			// so the rewrite's reason has no field here.
			out.ModifiedArgs = d.Input
		}
	case luahook.UserPromptSubmit:
		if d.Verdict == Deny || d.Verdict == Ask {
			// Copilot CLI blocks the prompt on {"decision":"block"} with
			// exit 0 (seen in 1.0.102); there is no ask for a prompt.
			out.Decision, out.Reason = "block", d.reason()
		} else {
			// A prompt that goes on carries the context to the model
			// with it (seen in 1.0.102).
			out.AdditionalContext = d.Context
		}
	case luahook.PostToolUse:
		out.AdditionalContext = d.Context
		if d.Output != nil {
			out.AdditionalContext = outputContext(&d)
			if m, ok := copilotPostEvents[req.Event]; ok && !m.failure {
				out.ModifiedResult = &copilotResult{ResultType: copilotResultType(req), TextResultForLlm: d.Output.Content}
			}
		}
	case luahook.SessionStart:
		out.AdditionalContext = d.Context
	case luahook.Stop:
		if d.Verdict == Continue {
			out.Decision, out.Reason = "block", d.reason()
		}
	}
	if out.PermissionDecision == "" && out.ModifiedArgs == nil && out.ModifiedResult == nil && out.Decision == "" && out.AdditionalContext == "" {
		return Answer{}
	}
	return answer(out)
}

// copilotPostEvents are the PostToolUse events of both dialects.
var copilotPostEvents = map[string]mapping{
	"postToolUse": copilotEvents["postToolUse"], "postToolUseFailure": copilotEvents["postToolUseFailure"],
	"PostToolUse": claudeEvents["PostToolUse"], "PostToolUseFailure": claudeEvents["PostToolUseFailure"],
}

// copilotResultType is the resultType of the tool's result (camelCase:
// toolResult.resultType; PascalCase: tool_response.resultType when it is an
// object that has one), "success" when it has none: a rewritten output
// keeps the tool's own verdict on its run.
func copilotResultType(req *Request) string {
	key := "toolResult"
	if req.Event == "PostToolUse" {
		key = "tool_response"
	}
	if v := nativeValue(req, key); len(v) > 0 && v[0] == '{' {
		if r, err := parseNative(v); err == nil {
			defer r.release()
			if t, err := r.str("resultType"); err == nil && t != "" {
				return t
			}
		}
	}
	return "success"
}

func (copilotAdapter) Block(event, reason string) Answer {
	if reason == "" {
		reason = luahook.DefaultBlockReason
	}
	switch event {
	case "preToolUse", "PreToolUse", "":
		return block(copilotOutput{PermissionDecision: "deny", PermissionDecisionReason: reason}, reason)
	case "userPromptSubmitted", "UserPromptSubmit":
		// Copilot CLI stops the turn on {"decision":"block"} with exit 0
		// (exit 2 on a prompt is only a warning there): what cannot be
		// decided blocks the prompt as a policy's deny does.
		return Answer{Stdout: marshal(copilotOutput{Decision: "block", Reason: reason}), Stderr: reason + "\n"}
	}
	return proceed(reason)
}
