package agent

import (
	"encoding/json"

	"github.com/luahook/luahook"
)

// cursorEvents maps Cursor's events. beforeShellExecution, beforeMCPExecution
// and beforeReadFile announce a tool call that Cursor also announces
// through preToolUse: configure luahook on one or the other, not both, or
// every policy runs twice.
var cursorEvents = map[string]mapping{
	"preToolUse":           {event: luahook.PreToolUse},
	"beforeShellExecution": {event: luahook.PreToolUse},
	"beforeMCPExecution":   {event: luahook.PreToolUse},
	"beforeReadFile":       {event: luahook.PreToolUse},
	"beforeSubmitPrompt":   {event: luahook.UserPromptSubmit},
	"postToolUse":          {event: luahook.PostToolUse},
	"postToolUseFailure":   {event: luahook.PostToolUse, failure: true},
	"sessionStart":         {event: luahook.SessionStart},
	"sessionEnd":           {event: luahook.SessionEnd},
	"stop":                 {event: luahook.Stop},
}

// cursorFields is Cursor's payload: conversation_id is the session (the
// sessionStart event also has session_id); tool_input is an object, or for
// MCP tools an object written as a JSON string.
var cursorFields = fields{event: "hook_event_name", session: "conversation_id", cwd: "cwd",
	toolName: "tool_name", toolInput: "tool_input", toolInputText: true, prompt: "prompt"}

// cursorAdapter speaks Cursor's protocol.
type cursorAdapter struct{}

func (cursorAdapter) Name() Name { return Cursor }

func (cursorAdapter) Decode(data []byte, event string) (*Request, error) {
	d, err := decode(Cursor, data, event, cursorFields, cursorEvents)
	if err != nil || d.req.Input == nil {
		if err != nil {
			return nil, err
		}
		return d.req, nil
	}
	in := d.req.Input
	if in.SessionID == "" {
		if in.SessionID, err = d.n.str("session_id"); err != nil {
			return nil, d.fail(err)
		}
	}
	if in.Cwd == "" {
		if in.Cwd, err = d.firstRoot(); err != nil {
			return nil, d.fail(err)
		}
	}
	switch d.req.Event {
	case "beforeShellExecution":
		err = d.synthesize("Shell", "command", "command")
	case "beforeReadFile":
		err = d.synthesize("Read", "file_path", "file_path")
	case "beforeMCPExecution":
		in.ToolCapabilities = mcpCapabilities
	case "postToolUse":
		err = d.toolResult("tool_output", false)
	case "postToolUseFailure":
		err = d.toolResult("error_message", true)
	}
	if err != nil {
		return nil, err
	}
	return d.finish()
}

// synthesize gives an event that announces a tool without naming it the
// tool's name in preToolUse and an input {arg: the payload's key}.
func (d decoded) synthesize(tool, key, arg string) error {
	v, err := d.n.str(key)
	if err != nil {
		return d.fail(err)
	}
	in := d.req.Input
	in.ToolName, in.ToolCapabilities = tool, Capabilities(tool)
	b, err := json.Marshal(map[string]string{arg: v})
	if err != nil {
		return d.fail(err)
	}
	in.ToolInput = b
	return nil
}

// firstRoot returns workspace_roots[0], "" when there is none.
func (d decoded) firstRoot() (string, error) {
	v := d.n.get("workspace_roots")
	if v == nil {
		return "", nil
	}
	var roots []json.RawMessage
	if err := json.Unmarshal(v, &roots); err != nil || len(roots) == 0 {
		if err != nil {
			return "", errorAt("workspace_roots", "an array of strings", v)
		}
		return "", nil
	}
	var root string
	if err := json.Unmarshal(roots[0], &root); err != nil {
		return "", errorAt("workspace_roots[0]", "a string", roots[0])
	}
	return root, nil
}

// cursorOutput is every field Cursor reads from a hook luahook answers.
type cursorOutput struct {
	Permission      string          `json:"permission,omitempty"`
	Decision        string          `json:"decision,omitempty"`
	Reason          string          `json:"reason,omitempty"`
	UpdatedInput    json.RawMessage `json:"updated_input,omitempty"`
	Continue        *bool           `json:"continue,omitempty"`
	UserMessage     string          `json:"user_message,omitempty"`
	AgentMessage    string          `json:"agent_message,omitempty"`
	AdditionalCtx   string          `json:"additional_context,omitempty"`
	UpdatedMCPOut   json.RawMessage `json:"updated_mcp_tool_output,omitempty"`
	FollowupMessage string          `json:"followup_message,omitempty"`
}

func (cursorAdapter) Encode(req *Request, d Decision) Answer {
	d = normalize(d)
	if req.Input == nil {
		return Answer{}
	}
	v := d.Verdict
	switch req.Event {
	case "preToolUse":
		switch {
		case v == Deny:
			return answer(cursorOutput{Decision: "deny", Reason: d.reason()})
		case v == Ask && d.Input != nil:
			// preToolUse has no ask: a deny that gives the rewritten call
			// the user would have been asked about.
			return answer(cursorOutput{Decision: "deny",
				Reason: rewriteBlock(req, d, d.reason(), "Cursor's preToolUse cannot ask the user, so this call is blocked", false)})
		case v == Ask: // preToolUse has no ask
			return answer(cursorOutput{Decision: "deny", Reason: d.reason()})
		case v == Allow:
			return answer(cursorOutput{Decision: "allow", UpdatedInput: d.Input})
		case d.Input != nil:
			return answer(cursorOutput{UpdatedInput: d.Input})
		}
	case "beforeShellExecution", "beforeMCPExecution", "beforeReadFile":
		if d.Input != nil && v != Deny {
			v, d.Reason = Deny, "luahook: the policy rewrote this call, and Cursor's "+req.Event+
				" cannot apply a rewrite (answer preToolUse instead)"
		}
		if v == Ask && req.Event == "beforeReadFile" { // no ask there
			v = Deny
		}
		out := cursorOutput{}
		switch v {
		case Deny, Ask:
			out.Permission, out.UserMessage = v.String(), d.reason()
			if req.Event != "beforeReadFile" {
				out.AgentMessage = d.reason()
			}
		case Allow:
			out.Permission = "allow"
		default:
			return Answer{}
		}
		return answer(out)
	case "beforeSubmitPrompt":
		switch v {
		case Deny, Ask:
			return answer(cursorOutput{Continue: new(false), UserMessage: d.reason()})
		case Allow:
			return answer(cursorOutput{Continue: new(true)})
		}
	case "sessionStart":
		if d.Context != "" {
			return answer(cursorOutput{AdditionalCtx: d.Context})
		}
	case "postToolUse", "postToolUseFailure":
		if d.Output != nil {
			return cursorPostToolUse(req, d)
		}
	case "stop":
		if v == Continue {
			return answer(cursorOutput{FollowupMessage: d.reason()})
		}
	}
	return Answer{}
}

// cursorPostToolUse answers a rewritten output (d.Output). Cursor
// replaces the output of MCP tools only, with updated_mcp_tool_output on
// postToolUse: the hooks' replacement value when they gave one, else the
// MCP result as the hooks left it when tool_output (the result as JSON
// text) still reads as one ({content: [...]}), else the rewritten text.
// A built-in tool's output (and a failed tool's) has no replacement: the
// model reads the original, and additional_context (which Cursor gives the
// model after the tool's result) says what was taken out and not to
// repeat it, with the hooks' own context.
func cursorPostToolUse(req *Request, d Decision) Answer {
	out := cursorOutput{AdditionalCtx: outputContext(&d)}
	if req.Event == "postToolUse" && isMCP(req) {
		w := d.Output
		switch {
		case w.Value != nil:
			out.UpdatedMCPOut = w.Value
		case mcpResultText(w.Content):
			out.UpdatedMCPOut = json.RawMessage(w.Content)
		default:
			out.UpdatedMCPOut, _ = encodeValue(map[string]any{
				"content": []any{map[string]any{"type": "text", "text": w.Content}}})
		}
	}
	return answer(out)
}

// mcpResultText reports whether s is an MCP tool's result as JSON text: an
// object whose "content" is a list of content blocks.
func mcpResultText(s string) bool {
	if len(s) == 0 || s[0] != '{' || !json.Valid([]byte(s)) {
		return false
	}
	v, err := decodeValue([]byte(s))
	if err != nil {
		return false
	}
	m, _ := v.(map[string]any)
	c, ok := m["content"].([]any)
	return ok && contentBlocks(c)
}

func (cursorAdapter) Block(event, reason string) Answer {
	if reason == "" {
		reason = luahook.DefaultBlockReason
	}
	switch event {
	case "preToolUse":
		return block(cursorOutput{Decision: "deny", Reason: reason}, reason)
	case "beforeShellExecution", "beforeMCPExecution":
		return block(cursorOutput{Permission: "deny", UserMessage: reason, AgentMessage: reason}, reason)
	case "beforeReadFile":
		return block(cursorOutput{Permission: "deny", UserMessage: reason}, reason)
	case "beforeSubmitPrompt":
		return block(cursorOutput{Continue: new(false), UserMessage: reason}, reason)
	case "":
		// Every blocking event's refusal at once; stop reads none of them.
		return block(cursorOutput{Permission: "deny", Decision: "deny", Reason: reason,
			Continue: new(false), UserMessage: reason, AgentMessage: reason}, reason)
	}
	return proceed(reason)
}
