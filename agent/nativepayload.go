package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luahook/luahook"
)

// NativePayload returns the payload the agent named name would send for in,
// and the agent's name for the event: the inverse of the adapter's Decode,
// for running one policy test suite through every agent's own wire format
// (luahook test --agent). The tool is renamed to the agent's tool of the
// same kind (Bash is run_shell_command on Gemini CLI, mcp__s__t is
// mcp_s_t, with mcp_context naming s and t as Gemini CLI does); the tool
// input is passed as it is. Claude Code, Codex and Gemini CLI are
// supported, and the events and fields their payloads carry; anything else
// is an error naming what cannot be expressed.
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
	default:
		return nil, "", fmt.Errorf("native payloads are written for claude, codex and gemini, not %q", name)
	}
	for _, f := range [...]struct {
		set  bool
		name string
	}{{in.ToolMutating != nil, "toolMutating"}, {in.Compaction != nil, "compaction"},
		{in.Subagent != nil, "subagent"}, {in.Notification != nil, "notification"},
		{in.Agent != "", "agent"}, {in.Native != nil, "native"}} {
		if f.set {
			return nil, "", fmt.Errorf("%s payloads: %s is not converted", name, f.name)
		}
	}
	failure := in.Event == luahook.PostToolUse && in.ToolResult != nil && in.ToolResult.IsError && name != Gemini
	event := ""
	for native, m := range events {
		if m.event == in.Event && m.failure == failure {
			event = native
			break
		}
	}
	if event == "" {
		return nil, "", fmt.Errorf("%s has no event for %s", name, in.Event)
	}
	p := map[string]any{
		"hook_event_name": event,
		"session_id":      in.SessionID,
		"cwd":             in.Cwd,
		"transcript_path": "/tmp/luahook-test/" + string(name) + ".jsonl",
	}
	switch in.Event {
	case luahook.PreToolUse, luahook.PostToolUse:
		p["tool_name"] = nativeTool(name, in.ToolName)
		if server, tool, ok := mcpParts(in.ToolName); ok && name == Gemini {
			// Gemini CLI names an MCP tool's server and tool apart too.
			p["mcp_context"] = map[string]string{"server_name": server, "tool_name": tool}
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
	if in.Prompt != "" && in.Event != luahook.UserPromptSubmit {
		return nil, "", fmt.Errorf("%s payloads: prompt is carried on UserPromptSubmit only", name)
	}
	if in.ToolResult != nil && in.Event != luahook.PostToolUse {
		return nil, "", fmt.Errorf("%s payloads: toolResult is carried on PostToolUse only", name)
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, "", fmt.Errorf("%s payload: %w", name, err)
	}
	return data, event, nil
}

// claudeTools and geminiTools name each agent's tool of a kind, keyed by
// the lower-case name of any agent's tool (capabilityTable's keys).
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
)

// nativeTool spells tool as the agent name would: its own tool of the same
// kind, and MCP tools in its MCP form; a tool it does not know as it is.
func nativeTool(name Name, tool string) string {
	if server, t, ok := mcpParts(tool); ok {
		if name == Gemini {
			return "mcp_" + server + "_" + t
		}
		return "mcp__" + server + "__" + t
	}
	table := claudeTools
	if name == Gemini {
		table = geminiTools
	}
	if n, ok := table[strings.ToLower(tool)]; ok {
		return n
	}
	return tool
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
