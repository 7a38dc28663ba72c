package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luahook/luahook"
)

// geminiEvents maps Gemini CLI's events.
var geminiEvents = map[string]mapping{
	"BeforeTool":   {event: luahook.PreToolUse},
	"AfterTool":    {event: luahook.PostToolUse},
	"BeforeAgent":  {event: luahook.UserPromptSubmit},
	"AfterAgent":   {event: luahook.Stop},
	"SessionStart": {event: luahook.SessionStart},
	"SessionEnd":   {event: luahook.SessionEnd},
}

// geminiAdapter speaks Gemini CLI's protocol (not its successor's, whose
// format was still changing).
type geminiAdapter struct{}

func (geminiAdapter) Name() Name { return Gemini }

func (geminiAdapter) Decode(data []byte, event string) (*Request, error) {
	d, err := decode(Gemini, data, event, claudeFields, geminiEvents)
	if err != nil {
		return nil, err
	}
	if d.req.Input != nil && (d.req.Event == "BeforeTool" || d.req.Event == "AfterTool") {
		if err := d.geminiMCPContext(); err != nil {
			return nil, err
		}
	}
	if d.req.Input != nil && d.req.Event == "AfterTool" {
		if err := d.geminiToolResult(); err != nil {
			return nil, err
		}
	}
	return d.finish()
}

// geminiMCPContext reads mcp_context {server_name, tool_name, command,
// args, ...}, which Gemini CLI sends with a call of an MCP tool (seen in
// 0.61.0): the server and the tool by their own names, which the tool's
// name, mcp_<server>_<tool>, joins ambiguously when the server's name has
// a "_". Policies read it in native (the mcp pack does), so it must be an
// object whose server_name and tool_name are strings; a call that carries
// it is an MCP tool's, whatever its name.
func (d decoded) geminiMCPContext() error {
	v := d.n.get("mcp_context")
	if v == nil {
		return nil
	}
	if v[0] != '{' {
		return d.fail(errorAt("mcp_context", "an object", v))
	}
	c, err := parseNative(v)
	if err != nil {
		return d.fail(fmt.Errorf("mcp_context: %w", err))
	}
	defer c.release()
	for _, key := range [...]string{"server_name", "tool_name"} {
		if _, err := c.str(key); err != nil {
			return d.fail(fmt.Errorf("mcp_context.%w", err))
		}
	}
	d.req.Input.ToolCapabilities = mcpCapabilities
	return nil
}

// geminiToolResult reads tool_response {llmContent, returnDisplay, error?}:
// the content is llmContent, an error when error is present.
func (d decoded) geminiToolResult() error {
	v := d.n.get("tool_response")
	if v == nil {
		return nil
	}
	if v[0] != '{' {
		return d.fail(errorAt("tool_response", "an object", v))
	}
	r, err := parseNative(v)
	if err != nil {
		return d.fail(err)
	}
	text, err := r.text("llmContent")
	if err != nil {
		return d.fail(err)
	}
	d.req.Input.ToolResult = &luahook.ToolResult{Content: text, IsError: r.get("error") != nil}
	return nil
}

// geminiHSO is Gemini CLI's hookSpecificOutput.
type geminiHSO struct {
	HookEventName     string          `json:"hookEventName"`
	ToolInput         json.RawMessage `json:"tool_input,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
}

type geminiOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SystemMessage is what Gemini CLI shows the user: on an ask, the
	// only text its confirmation shows (it reads reason only with a deny).
	SystemMessage      string     `json:"systemMessage,omitempty"`
	HookSpecificOutput *geminiHSO `json:"hookSpecificOutput,omitempty"`
}

func (geminiAdapter) Encode(req *Request, d Decision) Answer {
	d = normalize(d)
	if req.Input == nil {
		return Answer{}
	}
	out := geminiOutput{}
	switch req.Event {
	case "BeforeTool":
		if d.Input != nil && d.Verdict != Deny {
			if key := droppedKey(req.Input.ToolInput, d.Input); key != "" {
				d = Decision{Verdict: Deny, Reason: "luahook: the policy's rewrite removes " + key +
					", and Gemini CLI merges a rewrite into the call's arguments instead of replacing them"}
			}
		}
		switch d.Verdict {
		case Deny:
			out.Decision, out.Reason = "deny", d.reason()
		case Ask:
			out.Decision, out.Reason = "ask", d.askReason()
			out.SystemMessage = out.Reason
		case Allow:
			out.Decision = "allow"
		}
		if d.Input != nil && d.Verdict != Deny {
			out.HookSpecificOutput = &geminiHSO{HookEventName: req.Event, ToolInput: d.Input}
		}
	case "BeforeAgent":
		switch {
		case d.Verdict == Deny || d.Verdict == Ask:
			out.Decision, out.Reason = "deny", d.reason()
		case d.Context != "":
			out.HookSpecificOutput = &geminiHSO{HookEventName: req.Event, AdditionalContext: d.Context}
		}
	case "AfterTool":
		if d.Output != nil {
			// A deny on AfterTool replaces the tool's result, a failed
			// one's too, with its reason: the rewritten output, whole.
			// What was taken out goes to the model as context.
			out.Decision, out.Reason = "deny", d.Output.Content
			if out.Reason == "" {
				out.Reason = d.Output.Summary()
			}
			out.HookSpecificOutput = &geminiHSO{HookEventName: req.Event, AdditionalContext: outputContext(&d)}
		} else if d.Context != "" {
			out.HookSpecificOutput = &geminiHSO{HookEventName: req.Event, AdditionalContext: d.Context}
		}
	case "SessionStart":
		if d.Context != "" {
			out.HookSpecificOutput = &geminiHSO{HookEventName: req.Event, AdditionalContext: d.Context}
		}
	case "AfterAgent":
		if d.Verdict == Continue {
			out.Decision, out.Reason = "deny", d.reason()
		}
	}
	if out.Decision == "" && out.HookSpecificOutput == nil {
		return Answer{}
	}
	return answer(out)
}

func (geminiAdapter) Block(event, reason string) Answer {
	if reason == "" {
		reason = luahook.DefaultBlockReason
	}
	switch event {
	case "BeforeTool", "BeforeAgent", "":
		return block(geminiOutput{Decision: "deny", Reason: reason}, reason)
	}
	return proceed(reason)
}

// droppedKey returns a top-level key of the original tool input that the
// rewrite no longer has ("" if none, or if either is unreadable).
func droppedKey(original, rewrite json.RawMessage) string {
	if original == nil {
		return ""
	}
	o, err := parseNative(original)
	if err != nil {
		return ""
	}
	r, err := parseNative(rewrite)
	if err != nil {
		return "keys (the rewrite does not read as an object)"
	}
	for _, m := range o.members {
		found := false
		for _, k := range r.members {
			if bytes.Equal(k.key, m.key) {
				found = true
				break
			}
		}
		if !found {
			return strings.ToValidUTF8(keyName(string(m.key)), "")
		}
	}
	return ""
}
