package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luahook/luahook"
)

// CannotSendError is NativePayload's error for a payload the agent cannot
// send: an event it has no hook for, a field its payload does not carry, a
// tool it cannot name. A policy test that fires such a payload through the
// agent (luahook test --agent) cannot run as the agent would, and says so.
type CannotSendError struct {
	Agent Name
	// Msg says what cannot be sent, naming the agent.
	Msg string
}

func (e *CannotSendError) Error() string { return e.Msg }

// cannotSend is a CannotSendError for agent name.
func cannotSend(name Name, format string, args ...any) error {
	return &CannotSendError{Agent: name, Msg: fmt.Sprintf(format, args...)}
}

// NativePayload returns the payload the agent named name would send for in,
// and the agent's name for the event: the inverse of the adapter's Decode,
// for running one policy test suite through every agent's own wire format
// (luahook test --agent). The tool is renamed to the agent's tool of the
// same kind (Bash is run_shell_command on Gemini CLI, view on Copilot CLI,
// Shell on Cursor; mcp__s__t is mcp_s_t on Gemini CLI, with mcp_context
// naming s and t as Gemini CLI does, and s-t on Copilot CLI); the tool
// input is passed as it is. Claude Code, Codex, Copilot CLI (its camelCase
// dialect), Cursor and Gemini CLI are supported, and the events and fields
// their payloads carry; anything else is a *CannotSendError naming what
// cannot be expressed.
func NativePayload(name Name, in *luahook.Input) ([]byte, string, error) {
	if in == nil {
		return nil, "", fmt.Errorf("%s: no payload", name)
	}
	var events map[string]mapping
	switch name {
	case Claude, Codex:
		events = claudeEvents
	case Gemini:
		events = geminiEvents
	case Copilot:
		events = copilotEvents
	case Cursor:
		events = cursorEvents
	default:
		return nil, "", fmt.Errorf("native payloads are written for claude, codex, copilot, cursor and gemini, not %q", name)
	}
	for _, f := range [...]struct {
		set  bool
		name string
	}{{in.ToolMutating != nil, "toolMutating"}, {in.Compaction != nil, "compaction"},
		{in.Subagent != nil, "subagent"}, {in.Notification != nil, "notification"},
		{in.Agent != "", "agent"}, {in.Native != nil, "native"}} {
		if f.set {
			return nil, "", cannotSend(name, "%s payloads: %s is not converted", name, f.name)
		}
	}
	if in.Prompt != "" && in.Event != luahook.UserPromptSubmit {
		return nil, "", cannotSend(name, "%s payloads: prompt is carried on UserPromptSubmit only", name)
	}
	if in.ToolResult != nil && in.Event != luahook.PostToolUse {
		return nil, "", cannotSend(name, "%s payloads: toolResult is carried on PostToolUse only", name)
	}
	failure := in.Event == luahook.PostToolUse && in.ToolResult != nil && in.ToolResult.IsError && name != Gemini
	event := nativeEvent(events, in.Event, failure)
	if event == "" {
		return nil, "", cannotSend(name, "%s has no event for %s", name, in.Event)
	}
	tool := ""
	if in.Event == luahook.PreToolUse || in.Event == luahook.PostToolUse {
		var err error
		if tool, err = nativeTool(name, in.ToolName); err != nil {
			return nil, "", err
		}
	}
	var p map[string]any
	switch name {
	case Copilot:
		p = copilotPayload(in, tool)
	case Cursor:
		p = cursorPayload(in, event, tool)
	default:
		p = claudePayload(name, in, event, tool)
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, "", fmt.Errorf("%s payload: %w", name, err)
	}
	return data, event, nil
}

// nativeEvent returns the agent's name for event (its failure event for a
// failed tool call), "" when it has none. Where several of its events map
// to one (Cursor announces a tool call through preToolUse and through
// beforeShellExecution and others), the one spelled as luahook's event is
// taken, so that the choice does not depend on the map's order.
func nativeEvent(events map[string]mapping, event luahook.Event, failure bool) string {
	first := ""
	for native, m := range events {
		if m.event != event || m.failure != failure {
			continue
		}
		if strings.EqualFold(strings.TrimSuffix(native, "Failure"), string(event)) {
			return native
		}
		if first == "" || native < first {
			first = native
		}
	}
	return first
}

// claudePayload is the snake_case payload of Claude Code, Codex and Gemini
// CLI.
func claudePayload(name Name, in *luahook.Input, event, tool string) map[string]any {
	p := map[string]any{
		"hook_event_name": event,
		"session_id":      in.SessionID,
		"cwd":             in.Cwd,
		"transcript_path": "/tmp/luahook-test/" + string(name) + ".jsonl",
	}
	switch in.Event {
	case luahook.PreToolUse, luahook.PostToolUse:
		p["tool_name"] = tool
		if server, t, ok := mcpParts(in.ToolName); ok && name == Gemini {
			// Gemini CLI names an MCP tool's server and tool apart too.
			p["mcp_context"] = map[string]string{"server_name": server, "tool_name": t}
		}
		if in.ToolInput != nil {
			p["tool_input"] = in.ToolInput
		}
		if r := in.ToolResult; r != nil {
			switch {
			case name == Gemini:
				resp := map[string]any{"llmContent": r.Content, "returnDisplay": r.Content}
				if r.IsError {
					resp["error"] = map[string]string{"message": r.Content}
				}
				p["tool_response"] = resp
			case r.IsError:
				p["error"] = r.Content
			default:
				p["tool_response"] = r.Content
			}
		}
	case luahook.UserPromptSubmit:
		p["prompt"] = in.Prompt
	case luahook.SessionStart:
		p["source"] = "startup"
	case luahook.Stop:
		p["stop_hook_active"] = false
	}
	return p
}

// copilotPayload is Copilot CLI's camelCase payload {sessionId, timestamp,
// cwd, ...}, which does not name its event (the hook configuration does).
// toolArgs is an object written as JSON text, as Copilot CLI sends it.
func copilotPayload(in *luahook.Input, tool string) map[string]any {
	p := map[string]any{
		"sessionId": in.SessionID,
		"timestamp": time.Now().UnixMilli(),
		"cwd":       in.Cwd,
	}
	switch in.Event {
	case luahook.PreToolUse, luahook.PostToolUse:
		p["toolName"] = tool
		if in.ToolInput != nil {
			p["toolArgs"] = string(in.ToolInput)
		}
		if r := in.ToolResult; r != nil {
			if r.IsError {
				p["error"] = r.Content
			} else {
				p["toolResult"] = map[string]string{"resultType": "success", "textResultForLlm": r.Content}
			}
		}
	case luahook.UserPromptSubmit:
		p["prompt"] = in.Prompt
	case luahook.SessionStart:
		p["source"] = "new"
	case luahook.Stop:
		p["stopReason"] = "end_turn"
		p["transcriptPath"] = "/tmp/luahook-test/copilot.jsonl"
	case luahook.SessionEnd:
		p["reason"] = "complete"
	}
	return p
}

// cursorPayload is Cursor's payload: the session is conversation_id, the
// folder workspace_roots (and cwd on a tool's events, as Cursor sends it).
func cursorPayload(in *luahook.Input, event, tool string) map[string]any {
	roots := []string{}
	if in.Cwd != "" {
		roots = append(roots, in.Cwd)
	}
	p := map[string]any{
		"hook_event_name": event,
		"conversation_id": in.SessionID,
		"generation_id":   "luahook-test",
		"workspace_roots": roots,
		"transcript_path": "/tmp/luahook-test/cursor.txt",
	}
	switch in.Event {
	case luahook.PreToolUse, luahook.PostToolUse:
		p["tool_name"] = tool
		p["cwd"] = in.Cwd
		p["tool_use_id"] = "luahook-test"
		if in.ToolInput != nil {
			p["tool_input"] = in.ToolInput
		}
		if r := in.ToolResult; r != nil {
			if r.IsError {
				p["error_message"], p["failure_type"], p["is_interrupt"] = r.Content, "error", false
			} else {
				p["tool_output"] = r.Content
			}
		}
	case luahook.UserPromptSubmit:
		p["prompt"] = in.Prompt
		p["attachments"] = []string{}
	case luahook.SessionStart:
		p["session_id"] = in.SessionID
		p["composer_mode"] = "agent"
	case luahook.Stop:
		p["status"], p["loop_count"] = "completed", 0
	case luahook.SessionEnd:
		p["reason"] = "completed"
	}
	return p
}

// claudeTools, geminiTools, copilotTools and cursorTools name each agent's
// tool of a kind, keyed by the lower-case name of any agent's tool (the
// keys of luahook's table, luahook.KnownToolCapabilities). A tool an agent
// has nothing of the kind for (Copilot CLI and Cursor search no web) is
// left as it is, as a tool the table does not know.
var (
	claudeTools = map[string]string{"bash": "Bash", "read": "Read", "grep": "Grep", "glob": "Glob", "ls": "LS",
		"write": "Write", "edit": "Edit", "multiedit": "MultiEdit", "webfetch": "WebFetch",
		"websearch": "WebSearch", "task": "Task", "notebookedit": "NotebookEdit", "notebookread": "NotebookRead",
		"run_shell_command": "Bash", "read_file": "Read", "read_many_files": "Read", "list_directory": "LS",
		"search_file_content": "Grep", "write_file": "Write", "replace": "Edit", "web_fetch": "WebFetch",
		"google_web_search": "WebSearch", "web_search": "WebSearch", "exec_command": "Bash", "shell": "Bash",
		"local_shell": "Bash", "view": "Read", "create": "Write", "delete": "Write"}
	geminiTools = map[string]string{"bash": "run_shell_command", "read": "read_file", "grep": "search_file_content",
		"glob": "glob", "ls": "list_directory", "write": "write_file", "edit": "replace", "multiedit": "replace",
		"webfetch": "web_fetch", "websearch": "google_web_search", "notebookedit": "write_file",
		"notebookread": "read_file", "exec_command": "run_shell_command", "shell": "run_shell_command",
		"local_shell": "run_shell_command", "view": "read_file", "create": "write_file", "delete": "write_file"}
	// Copilot CLI's camelCase dialect: bash, powershell, view (files and
	// folders), create, edit, glob, grep, web_fetch, task.
	copilotTools = map[string]string{"bash": "bash", "read": "view", "grep": "grep", "glob": "glob", "ls": "view",
		"write": "create", "edit": "edit", "multiedit": "edit", "webfetch": "web_fetch", "task": "task",
		"notebookedit": "edit", "notebookread": "view", "run_shell_command": "bash", "read_file": "view",
		"read_many_files": "view", "list_directory": "view", "search_file_content": "grep",
		"write_file": "create", "replace": "edit", "exec_command": "bash", "shell": "bash", "local_shell": "bash",
		"view": "view", "create": "create", "delete": "create"}
	// Cursor's preToolUse: Shell, Read, Write (edits too), Grep, Delete,
	// Task, MCP:tool.
	cursorTools = map[string]string{"bash": "Shell", "powershell": "Shell", "read": "Read", "grep": "Grep",
		"write": "Write", "edit": "Write", "multiedit": "Write", "task": "Task", "notebookedit": "Write",
		"notebookread": "Read", "run_shell_command": "Shell", "read_file": "Read", "read_many_files": "Read",
		"search_file_content": "Grep", "write_file": "Write", "replace": "Write", "exec_command": "Shell",
		"shell": "Shell", "local_shell": "Shell", "view": "Read", "create": "Write", "delete": "Delete"}
)

// nativeTool spells tool as the agent name would: its own tool of the same
// kind, and MCP tools in its MCP form; a tool it does not know as it is.
// Cursor names an MCP tool MCP:tool, without its server: an MCP tool named
// with its server is a *CannotSendError there.
func nativeTool(name Name, tool string) (string, error) {
	if server, t, ok := mcpParts(tool); ok {
		switch name {
		case Gemini:
			return "mcp_" + server + "_" + t, nil
		case Copilot:
			// Copilot CLI's camelCase dialect: server-tool, no prefix
			// (github-mcp-server-get_issue).
			return server + "-" + t, nil
		case Cursor:
			return "", cannotSend(name, "cursor names an MCP tool MCP:<tool>, without its server: "+
				"%s cannot be sent as cursor sends it", tool)
		}
		return "mcp__" + server + "__" + t, nil
	}
	var table map[string]string
	switch name {
	case Gemini:
		table = geminiTools
	case Copilot:
		table = copilotTools
	case Cursor:
		if slices.Equal(Capabilities(tool), mcpCapabilities) && !strings.EqualFold(tool, "MCP") &&
			!(len(tool) > 4 && strings.EqualFold(tool[:4], "MCP:")) {
			// Copilot CLI's server-tool: the server is in the name.
			return "", cannotSend(name, "cursor names an MCP tool MCP:<tool>, without its server: "+
				"%s cannot be sent as cursor sends it", tool)
		}
		table = cursorTools
	default:
		table = claudeTools
	}
	if n, ok := table[strings.ToLower(tool)]; ok {
		return n, nil
	}
	return tool, nil
}

// mcpParts splits an MCP tool name of any agent into its server and tool:
// mcp__server__tool, mcp_server_tool (the server taken up to the first "_"
// after the prefix).
func mcpParts(tool string) (server, name string, ok bool) {
	lower := strings.ToLower(tool)
	for _, p := range []string{"mcp__", "mcp_"} {
		if !strings.HasPrefix(lower, p) {
			continue
		}
		rest := tool[len(p):]
		sep := "_"
		if p == "mcp__" {
			sep = "__"
		}
		if s, t, found := strings.Cut(rest, sep); found && s != "" && t != "" {
			return s, t, true
		}
		return "", "", false
	}
	return "", "", false
}
