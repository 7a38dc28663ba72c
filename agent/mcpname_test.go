package agent

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// geminiTool is a Gemini CLI tool payload of event for the tool name, with
// extra top-level members (JSON text after a comma).
func geminiTool(event, name, extra string) []byte {
	p := `{"session_id":"s","cwd":"/p","hook_event_name":"` + event + `","tool_name":"` + name + `","tool_input":{"path":"/p/a"}`
	if extra != "" {
		p += "," + extra
	}
	return []byte(p + "}")
}

// TestGeminiMCPContextNamesTheServerAndMakesTheCallAnMCPCall: Gemini CLI's
// mcp_context reaches policies in native as sent, and a call carrying it
// has the mcp capability whatever its name; an mcp_context that is not an
// object with string server_name and tool_name is refused, naming the
// field, rather than passed to policies that read it.
func TestGeminiMCPContextNamesTheServerAndMakesTheCallAnMCPCall(t *testing.T) {
	ctx := `"mcp_context":{"server_name":"my_server","tool_name":"touch","command":"/bin/my-server","args":["--stdio"]}`
	for _, c := range []struct {
		name    string
		payload []byte
		caps    []string
		err     string
	}{
		{"underscored server", geminiTool("BeforeTool", "mcp_my_server_touch", ctx), []string{CapMCP}, ""},
		{"after the call", geminiTool("AfterTool", "mcp_my_server_touch", ctx+`,"tool_response":{"llmContent":"ok"}`), []string{CapMCP}, ""},
		{"a name without the prefix", geminiTool("BeforeTool", "touch", ctx), []string{CapMCP}, ""},
		{"no mcp_context", geminiTool("BeforeTool", "write_file", ""), []string{CapFSWrite}, ""},
		{"null", geminiTool("BeforeTool", "write_file", `"mcp_context":null`), []string{CapFSWrite}, ""},
		{"not an object", geminiTool("BeforeTool", "mcp_a_b", `"mcp_context":"a/b"`), nil, `mcp_context must be an object, got "a/b"`},
		{"server_name not a string", geminiTool("BeforeTool", "mcp_a_b", `"mcp_context":{"server_name":7,"tool_name":"b"}`), nil, "mcp_context.server_name must be a string, got 7"},
		{"tool_name not a string", geminiTool("BeforeTool", "mcp_a_b", `"mcp_context":{"server_name":"a","tool_name":["b"]}`), nil, `mcp_context.tool_name must be a string, got ["b"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := geminiAdapter{}.Decode(c.payload, "")
			if c.err != "" {
				var de *DecodeError
				if !errors.As(err, &de) || de.Event == "" || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Decode: %v, want a DecodeError on its event saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(req.Input.ToolCapabilities, c.caps) {
				t.Errorf("capabilities %v, want %v", req.Input.ToolCapabilities, c.caps)
			}
			var native struct {
				MCPContext *struct {
					ServerName string `json:"server_name"`
					ToolName   string `json:"tool_name"`
				} `json:"mcp_context"`
			}
			if err := json.Unmarshal(req.Input.Native, &native); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(c.payload), `"server_name":"my_server"`) &&
				(native.MCPContext == nil || native.MCPContext.ServerName != "my_server" || native.MCPContext.ToolName != "touch") {
				t.Errorf("native %s does not carry mcp_context as sent", req.Input.Native)
			}
		})
	}
}

// TestCopilotMCPToolsHaveTheMCPCapability: Copilot CLI's camelCase dialect
// names an MCP tool server-tool, with no prefix, and its own tools with
// letters and "_" only.
func TestCopilotMCPToolsHaveTheMCPCapability(t *testing.T) {
	for name, want := range map[string][]string{
		"conformance-touch":              {CapMCP},
		"github-mcp-server-create_issue": {CapMCP},
		"my_server-touch":                {CapMCP},
		"bash":                           {CapShell},
		"view":                           {CapFSRead},
		"create":                         {CapFSWrite},
		"read_bash":                      nil,
	} {
		payload := `{"sessionId":"s","cwd":"/p","toolName":"` + name + `","toolArgs":{}}`
		req, err := copilotAdapter{}.Decode([]byte(payload), "preToolUse")
		if err != nil {
			t.Fatal(err)
		}
		if got := req.Input.ToolCapabilities; !slices.Equal(got, want) {
			t.Errorf("%s: capabilities %v, want %v", name, got, want)
		}
	}
}

// TestGeminiNativePayloadNamesTheMCPServerApart: the payload written for
// Gemini CLI carries mcp_context as Gemini CLI sends it, so that a policy
// test run through it (luahook test --agent gemini) sees a server whose
// name has a "_" named right.
func TestGeminiNativePayloadNamesTheMCPServerApart(t *testing.T) {
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: "mcp__my_server__touch", ToolInput: json.RawMessage(`{"path":"/p/a"}`), Cwd: "/p"}
	data, event, err := NativePayload(Gemini, &in)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ToolName   string            `json:"tool_name"`
		MCPContext map[string]string `json:"mcp_context"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if p.ToolName != "mcp_my_server_touch" || p.MCPContext["server_name"] != "my_server" || p.MCPContext["tool_name"] != "touch" {
		t.Fatalf("NativePayload wrote %s, want tool_name mcp_my_server_touch and mcp_context {my_server, touch}", data)
	}
	req, err := geminiAdapter{}.Decode(data, event)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(req.Input.ToolCapabilities, []string{CapMCP}) {
		t.Errorf("decoded capabilities %v, want [mcp]", req.Input.ToolCapabilities)
	}
	for _, agent := range []Name{Claude, Codex, Copilot} {
		if data, _, err := NativePayload(agent, &in); err != nil || strings.Contains(string(data), "mcp_context") {
			t.Errorf("%s: %s (%v), want no mcp_context: only Gemini CLI sends it", agent, data, err)
		}
	}
}
