package agent

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// nativeAgents are the agents NativePayload writes for: every agent.
var nativeAgents = []Name{Claude, Codex, Copilot, Cursor, Gemini}

// TestNativePayloadDecodesBackToTheSameInput guards the inverse: what
// NativePayload writes, the agent's adapter decodes into the same payload
// (the tool renamed to the agent's own, with the same capabilities), for
// every agent.
func TestNativePayloadDecodesBackToTheSameInput(t *testing.T) {
	cmd := json.RawMessage(`{"command":"git status"}`)
	cases := []luahook.Input{
		{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", SessionID: "s1"},
		{Event: luahook.PreToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/p/a","content":"x"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "Read", ToolInput: json.RawMessage(`{"file_path":"/p/.env"}`), Cwd: "/p", SessionID: "s1"},
		{Event: luahook.PreToolUse, ToolName: "Edit", ToolInput: json.RawMessage(`{"file_path":"/p/a","old_string":"a","new_string":"b"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "Grep", ToolInput: json.RawMessage(`{"pattern":"x"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "Delete", ToolInput: json.RawMessage(`{"path":"/p/a"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "WebFetch", ToolInput: json.RawMessage(`{"url":"https://example.com"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "MCP:query", ToolInput: json.RawMessage(`{"sql":"select 1"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "run_shell_command", ToolInput: cmd, Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "view", ToolInput: json.RawMessage(`{"path":"/p/a","note":"2>&1 <x>"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "Shell", Cwd: "/p", SessionID: "s1"},
		{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", ToolResult: &luahook.ToolResult{Content: "ok"}},
		{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", ToolResult: &luahook.ToolResult{Content: "exit 1", IsError: true}},
		{Event: luahook.UserPromptSubmit, Prompt: "fix it", Cwd: "/p", SessionID: "s2"},
		{Event: luahook.UserPromptSubmit, Prompt: "no folder"},
		{Event: luahook.SessionStart, Cwd: "/p", SessionID: "s3"},
		{Event: luahook.Stop, Cwd: "/p", SessionID: "s4"},
		{Event: luahook.SessionEnd, Cwd: "/p", SessionID: "s5"},
	}
	// MCP tools named with their server, which Cursor cannot name (below).
	withServer := []luahook.Input{
		{Event: luahook.PreToolUse, ToolName: "mcp__postgres__query", ToolInput: json.RawMessage(`{"sql":"select 1"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "mcp_github_get_issue", ToolInput: json.RawMessage(`{"number":1}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "github-mcp-server-get_issue", ToolInput: json.RawMessage(`{"number":1}`), Cwd: "/p"},
	}
	for _, name := range nativeAgents {
		a, _ := Lookup(string(name))
		all := cases
		if name != Cursor {
			all = append(slices.Clip(cases), withServer...)
		}
		for _, in := range all {
			data, event, err := NativePayload(name, &in)
			if err != nil {
				t.Fatalf("%s %s %s: %v", name, in.Event, in.ToolName, err)
			}
			req, err := a.Decode(data, event)
			if err != nil {
				t.Fatalf("%s %s: decode %s: %v", name, in.Event, data, err)
			}
			got := req.Input
			if got == nil || got.Event != in.Event || got.Cwd != in.Cwd || got.SessionID != in.SessionID ||
				got.Prompt != in.Prompt || got.Agent != string(name) || !sameJSON(got.ToolInput, in.ToolInput) {
				t.Fatalf("%s %s: decoded %+v from %s, want %+v", name, in.Event, got, data, in)
			}
			if !slices.Equal(got.ToolCapabilities, Capabilities(in.ToolName)) {
				t.Errorf("%s: %s became %s with capabilities %v, want %v", name, in.ToolName, got.ToolName,
					got.ToolCapabilities, Capabilities(in.ToolName))
			}
			if (in.ToolResult == nil) != (got.ToolResult == nil) ||
				in.ToolResult != nil && *in.ToolResult != *got.ToolResult {
				t.Errorf("%s %s: toolResult %+v, want %+v", name, in.Event, got.ToolResult, in.ToolResult)
			}
		}
	}
}

// sameJSON reports whether a and b are the same JSON value (NativePayload
// may write a tool input compacted, or with HTML characters escaped).
func sameJSON(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// TestNativePayloadWritesTheAgentsOwnShape checks a few fields of each
// agent's payload that a decoder reading only luahook's fields would not
// notice: Copilot CLI's toolArgs as JSON text and its camelCase keys,
// Cursor's conversation_id and workspace_roots.
func TestNativePayloadWritesTheAgentsOwnShape(t *testing.T) {
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`), Cwd: "/p", SessionID: "s"}
	data, event, err := NativePayload(Copilot, &in)
	if err != nil {
		t.Fatal(err)
	}
	var cp map[string]any
	if err := json.Unmarshal(data, &cp); err != nil {
		t.Fatal(err)
	}
	if event != "preToolUse" || cp["toolName"] != "bash" || cp["toolArgs"] != `{"command":"ls"}` ||
		cp["sessionId"] != "s" || cp["hook_event_name"] != nil || cp["timestamp"] == nil {
		t.Errorf("copilot: %s %s, want preToolUse and {sessionId, timestamp, cwd, toolName: bash, toolArgs as text}", event, data)
	}
	prompt := luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi", Cwd: "/p", SessionID: "s"}
	data, event, err = NativePayload(Cursor, &prompt)
	if err != nil {
		t.Fatal(err)
	}
	var cu map[string]any
	if err := json.Unmarshal(data, &cu); err != nil {
		t.Fatal(err)
	}
	if roots, _ := cu["workspace_roots"].([]any); event != "beforeSubmitPrompt" || cu["hook_event_name"] != event ||
		cu["conversation_id"] != "s" || len(roots) != 1 || roots[0] != "/p" || cu["cwd"] != nil || cu["session_id"] != nil {
		t.Errorf("cursor: %s %s, want beforeSubmitPrompt with conversation_id and workspace_roots [/p], no cwd", event, data)
	}
	for range 20 { // map order must not pick beforeShellExecution
		if _, event, err := NativePayload(Cursor, &in); err != nil || event != "preToolUse" {
			t.Fatalf("cursor PreToolUse: event %q (%v), want preToolUse", event, err)
		}
	}
}

func TestNativePayloadSpellsToolsAsTheAgentDoes(t *testing.T) {
	for _, c := range []struct {
		agent      Name
		tool, want string
	}{
		{Gemini, "bash", "run_shell_command"}, {Gemini, "Edit", "replace"}, {Gemini, "mcp__db__query", "mcp_db_query"},
		{Claude, "bash", "Bash"}, {Claude, "run_shell_command", "Bash"}, {Codex, "mcp_db_query", "mcp__db__query"},
		{Claude, "SomethingElse", "SomethingElse"}, {Claude, "Shell", "Bash"}, {Gemini, "view", "read_file"},
		{Copilot, "Bash", "bash"}, {Copilot, "Read", "view"}, {Copilot, "Write", "create"}, {Copilot, "Edit", "edit"},
		{Copilot, "WebFetch", "web_fetch"}, {Copilot, "run_shell_command", "bash"}, {Copilot, "Shell", "bash"},
		{Copilot, "mcp__github__get_issue", "github-get_issue"}, {Copilot, "mcp_db_query", "db-query"},
		{Copilot, "github-mcp-server-get_issue", "github-mcp-server-get_issue"}, {Copilot, "MCP:query", "MCP:query"},
		{Cursor, "Bash", "Shell"}, {Cursor, "Read", "Read"}, {Cursor, "Edit", "Write"}, {Cursor, "write_file", "Write"},
		{Cursor, "Delete", "Delete"}, {Cursor, "view", "Read"}, {Cursor, "grep", "Grep"}, {Cursor, "MCP:query", "MCP:query"},
		{Cursor, "SomethingElse", "SomethingElse"},
	} {
		in := luahook.Input{Event: luahook.PreToolUse, ToolName: c.tool}
		data, _, err := NativePayload(c.agent, &in)
		if err != nil {
			t.Fatalf("%s %s: %v", c.agent, c.tool, err)
		}
		key := "tool_name"
		if c.agent == Copilot {
			key = "toolName"
		}
		if !strings.Contains(string(data), `"`+key+`":"`+c.want+`"`) {
			t.Errorf("%s %s: %s, want %s %s", c.agent, c.tool, data, key, c.want)
		}
	}
}

func TestNativePayloadRefusesWhatItCannotExpress(t *testing.T) {
	for _, c := range []struct {
		agent Name
		in    luahook.Input
		want  string
	}{
		{Gemini, luahook.Input{Event: luahook.PreCompact, Compaction: &luahook.Compaction{}}, "compaction"},
		{Gemini, luahook.Input{Event: luahook.SubagentStop}, "gemini has no event for SubagentStop"},
		{Claude, luahook.Input{Event: luahook.PreToolUse, Prompt: "x"}, "prompt"},
		{Cursor, luahook.Input{Event: luahook.PreCompact}, "cursor has no event for PreCompact"},
		{Cursor, luahook.Input{Event: luahook.PreToolUse, ToolName: "mcp__github__get_issue"}, "mcp__github__get_issue cannot be sent as cursor"},
		{Cursor, luahook.Input{Event: luahook.PreToolUse, ToolName: "mcp_github_get_issue"}, "without its server"},
		{Cursor, luahook.Input{Event: luahook.PreToolUse, ToolName: "github-mcp-server-get_issue"}, "without its server"},
		{Copilot, luahook.Input{Event: luahook.PreCompact}, "copilot has no event for PreCompact"},
		{Copilot, luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Agent: "claude"}, "copilot payloads: agent is not converted"},
		{Copilot, luahook.Input{Event: luahook.Stop, ToolResult: &luahook.ToolResult{}}, "toolResult is carried on PostToolUse only"},
	} {
		_, _, err := NativePayload(c.agent, &c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.agent, c.in.Event, err, c.want)
		}
		var cs *CannotSendError
		if !errors.As(err, &cs) || cs.Agent != c.agent {
			t.Errorf("%s %s: %#v, want a *CannotSendError of %s", c.agent, c.in.Event, err, c.agent)
		}
	}
	if _, _, err := NativePayload("aider", &luahook.Input{Event: luahook.PreToolUse}); err == nil ||
		!strings.Contains(err.Error(), "claude, codex, copilot, cursor and gemini") {
		t.Errorf("aider: %v, want an error naming the five agents", err)
	}
}
