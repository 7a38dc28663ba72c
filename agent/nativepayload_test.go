package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// TestNativePayloadDecodesBackToTheSameInput guards the inverse: what
// NativePayload writes, the agent's adapter decodes into the same payload
// (the tool renamed to the agent's own, with the same capabilities).
func TestNativePayloadDecodesBackToTheSameInput(t *testing.T) {
	cmd := json.RawMessage(`{"command":"git status"}`)
	cases := []luahook.Input{
		{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", SessionID: "s1"},
		{Event: luahook.PreToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/p/a","content":"x"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "mcp__postgres__query", ToolInput: json.RawMessage(`{"sql":"select 1"}`), Cwd: "/p"},
		{Event: luahook.PreToolUse, ToolName: "run_shell_command", ToolInput: cmd, Cwd: "/p"},
		{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", ToolResult: &luahook.ToolResult{Content: "ok"}},
		{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: cmd, Cwd: "/p", ToolResult: &luahook.ToolResult{Content: "exit 1", IsError: true}},
		{Event: luahook.UserPromptSubmit, Prompt: "fix it", Cwd: "/p", SessionID: "s2"},
		{Event: luahook.SessionStart, Cwd: "/p", SessionID: "s3"},
		{Event: luahook.Stop, Cwd: "/p", SessionID: "s4"},
	}
	for _, name := range []Name{Claude, Codex, Gemini} {
		a, _ := Lookup(string(name))
		for _, in := range cases {
			data, event, err := NativePayload(name, &in)
			if err != nil {
				t.Fatalf("%s %s: %v", name, in.Event, err)
			}
			req, err := a.Decode(data, event)
			if err != nil {
				t.Fatalf("%s %s: decode %s: %v", name, in.Event, data, err)
			}
			got := req.Input
			if got == nil || got.Event != in.Event || got.Cwd != in.Cwd || got.SessionID != in.SessionID ||
				got.Prompt != in.Prompt || string(got.ToolInput) != string(in.ToolInput) {
				t.Fatalf("%s %s: decoded %+v, want %+v", name, in.Event, got, in)
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

func TestNativePayloadSpellsToolsAsTheAgentDoes(t *testing.T) {
	for _, c := range []struct {
		agent      Name
		tool, want string
	}{
		{Gemini, "bash", "run_shell_command"}, {Gemini, "Edit", "replace"}, {Gemini, "mcp__db__query", "mcp_db_query"},
		{Claude, "bash", "Bash"}, {Claude, "run_shell_command", "Bash"}, {Codex, "mcp_db_query", "mcp__db__query"},
		{Claude, "SomethingElse", "SomethingElse"},
	} {
		in := luahook.Input{Event: luahook.PreToolUse, ToolName: c.tool}
		data, _, err := NativePayload(c.agent, &in)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"tool_name":"`+c.want+`"`) {
			t.Errorf("%s %s: %s, want tool_name %s", c.agent, c.tool, data, c.want)
		}
	}
}

func TestNativePayloadRefusesWhatItCannotExpress(t *testing.T) {
	for _, c := range []struct {
		agent Name
		in    luahook.Input
		want  string
	}{
		{Cursor, luahook.Input{Event: luahook.PreToolUse}, "claude, codex and gemini"},
		{Gemini, luahook.Input{Event: luahook.PreCompact, Compaction: &luahook.Compaction{}}, "compaction"},
		{Gemini, luahook.Input{Event: luahook.SubagentStop}, "no event for SubagentStop"},
		{Claude, luahook.Input{Event: luahook.PreToolUse, Prompt: "x"}, "prompt"},
	} {
		if _, _, err := NativePayload(c.agent, &c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.agent, c.in.Event, err, c.want)
		}
	}
}
