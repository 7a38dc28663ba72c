//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The agents reach MCP tools through a fake MCP server: the test binary
// itself, started by an agent with mcpEnv set, serves one tool, touch,
// over standard input and output (mcpServe). The server is configured
// under the name mcpServerName, which each agent joins to the tool's name
// in its own way (mcpAgent's offered and hookName).
const (
	mcpEnv        = "LUAHOOK_CONFORMANCE_MCP"
	mcpServerName = "conformance"
	mcpToolName   = "touch"
	// mcpMaxLine bounds a JSON-RPC message: the agents send a few
	// kilobytes at most, and a longer line is refused before it is read
	// whole.
	mcpMaxLine = 1 << 20
)

// mcpArgs are the fake server's arguments: none it reads, but without
// mcpEnv the test binary would run every test of the suite again.
var mcpArgs = []string{"-test.run=^$"}

func init() {
	if os.Getenv(mcpEnv) != "1" {
		return
	}
	if err := mcpServe(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fake MCP server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// mcpRequest is a JSON-RPC 2.0 request or notification (no id).
type mcpRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// mcpServe answers newline-delimited JSON-RPC 2.0 on in until it ends:
// initialize with the client's own protocol version (every version the
// agents speak has the few methods served here), tools/list with touch,
// tools/call of touch by creating the file at its path, ping; any other
// request gets "method not found" and notifications get nothing.
func mcpServe(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), mcpMaxLine)
	enc := json.NewEncoder(out) // one message a line: Encode ends each with "\n"
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var req mcpRequest
		if err := json.Unmarshal(line, &req); err != nil {
			if err := enc.Encode(mcpError(nil, -32700, "parse error: "+err.Error())); err != nil {
				return err
			}
			continue
		}
		if len(req.ID) == 0 || string(req.ID) == "null" {
			continue // a notification (notifications/initialized, cancelled...)
		}
		if err := enc.Encode(mcpAnswer(req)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading a message: %w (a message is at most %d bytes)", err, mcpMaxLine)
	}
	return nil
}

// mcpAnswer is the response to req.
func mcpAnswer(req mcpRequest) map[string]any {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || p.ProtocolVersion == "" {
			return mcpError(req.ID, -32602, "initialize: params.protocolVersion is missing")
		}
		return mcpResult(req.ID, map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": mcpServerName, "version": "1.0.0"},
		})
	case "ping":
		return mcpResult(req.ID, map[string]any{})
	case "tools/list":
		return mcpResult(req.ID, map[string]any{"tools": []any{map[string]any{
			"name":        mcpToolName,
			"description": "Creates an empty file at path.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"path": map[string]any{"type": "string", "description": "the file to create"}},
				"required":   []string{"path"},
			},
		}}})
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Path string `json:"path"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return mcpError(req.ID, -32602, "tools/call: "+err.Error())
		}
		if p.Name != mcpToolName {
			return mcpError(req.ID, -32602, fmt.Sprintf("tools/call: no tool %q (the tool is %q)", p.Name, mcpToolName))
		}
		text := "created " + p.Arguments.Path
		isError := false
		if p.Arguments.Path == "" {
			text, isError = "arguments.path is missing", true
		} else if f, err := os.OpenFile(p.Arguments.Path, os.O_CREATE|os.O_WRONLY, 0o644); err != nil {
			text, isError = err.Error(), true
		} else {
			f.Close()
		}
		return mcpResult(req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isError})
	}
	return mcpError(req.ID, -32601, "method not found: "+req.Method)
}

func mcpResult(id json.RawMessage, result any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "result": result}
}

func mcpError(id json.RawMessage, code int, message string) map[string]any {
	if id == nil {
		id = json.RawMessage("null")
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}}
}

// mcpCommand is the fake server's program: this test binary, by its
// absolute path (the agents start it from folders of their own).
func mcpCommand(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// offeredTools returns the names of the tools offered to the model in
// the requests rec got, in the order first seen: every "name" under a
// request's "tools", whatever the API's shape (Anthropic's tools, Gemini's
// functionDeclarations, the Responses API's namespaces and their tools).
// The names in the conversation (a tool call the model made) are not
// offers, and are left out.
func offeredTools(rec *recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["name"].(string); ok && !slices.Contains(names, s) {
				names = append(names, s)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, b := range rec.requests {
		var req struct {
			Tools any `json:"tools"`
		}
		if json.Unmarshal(b, &req) == nil {
			walk(req.Tools)
		}
	}
	return names
}

// claudeMCP runs Claude Code's print mode on prompt in the project, asking
// model, with the fake MCP server as its only one (--mcp-config,
// --strict-mcp-config) and its tool allowed without Claude Code's own
// prompt (so that only luahook can stop a call). Tool search is off: by
// default Claude Code names MCP tools in the prompt and sends their
// schemas only once the model searched for them, so that the requests
// would not show the tool offered; a call meets the same hooks either way.
func (p *project) claudeMCP(t *testing.T, model *fakeModel, prompt string) (string, error) {
	t.Helper()
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{mcpServerName: map[string]any{
		"type": "stdio", "command": mcpCommand(t), "args": mcpArgs, "env": map[string]string{mcpEnv: "1"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@anthropic-ai/claude-code", claudeNew, "claude"), "-p", prompt,
		"--allowedTools", "mcp__"+mcpServerName+"__"+mcpToolName, "--strict-mcp-config", "--mcp-config", string(config))
	cmd.Dir = p.dir
	cmd.Env = p.env("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-conformance",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "ENABLE_TOOL_SEARCH=false")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeGeminiMCP configures the fake MCP server for Gemini CLI (p.gemini)
// in the project's .gemini/settings.json, trusted (no confirmation of its
// own). It runs before luahook install, which adds its hooks to the file.
func (p *project) writeGeminiMCP(t *testing.T) {
	t.Helper()
	p.writeGeminiMCPAs(t, mcpServerName)
}

// writeGeminiMCPAs is writeGeminiMCP with the server configured under
// the name server.
func (p *project) writeGeminiMCPAs(t *testing.T, server string) {
	t.Helper()
	settings, err := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{
		"command": mcpCommand(t), "args": mcpArgs, "env": map[string]string{mcpEnv: "1"}, "trust": true,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(p.dir, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
}

// codexMCP is p.codex with the fake MCP server in the CODEX_HOME's
// config.toml.
func (p *project) codexMCP(t *testing.T, model *fakeResponses, prompt string) (string, error) {
	t.Helper()
	return p.codexWith(t, model, prompt, `
[mcp_servers.`+mcpServerName+`]
command = `+tomlValue(t, mcpCommand(t))+`
args = `+tomlValue(t, mcpArgs)+`
env = { `+mcpEnv+` = "1" }
`)
}

// tomlValue is v as TOML: a JSON string or array of strings is one.
func tomlValue(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startFakeResponsesIn is startFakeResponses whose function call names a
// tool of namespace, as Codex offers MCP tools: a namespace per server
// ("mcp__SERVER") holding the server's tools by their own names.
func startFakeResponsesIn(t *testing.T, namespace string, call toolCall) *fakeResponses {
	t.Helper()
	m := &fakeResponses{}
	m.answer = func(w http.ResponseWriter, _ *http.Request, _ []byte, before int) {
		item := `{"type":"message","role":"assistant","id":"msg_fake","content":[{"type":"output_text","text":"done"}]}`
		if before == 0 {
			quoted, _ := json.Marshal(string(call.arguments()))
			item = fmt.Sprintf(`{"type":"function_call","id":"fc_fake","call_id":"call_fake","namespace":%q,"name":%q,"arguments":%s}`, namespace, call.Name, quoted)
		}
		sse(w,
			[2]string{"response.created", `{"type":"response.created","response":{"id":"resp_fake"}}`},
			[2]string{"response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`},
			[2]string{"response.completed", `{"type":"response.completed","response":{"id":"resp_fake","usage":{"input_tokens":1,"input_tokens_details":null,"output_tokens":1,"output_tokens_details":null,"total_tokens":2}}}`})
	}
	m.start(t, "/v1")
	return m
}

// copilotMCP is p.copilot with the fake MCP server added for the session
// (--additional-mcp-config, next to the configuration of the temporary
// HOME's ~/.copilot, which holds none), every tool of it enabled.
func (p *project) copilotMCP(t *testing.T, model *fakeCompletions, prompt string) (string, error) {
	t.Helper()
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{mcpServerName: map[string]any{
		"type": "local", "command": mcpCommand(t), "args": mcpArgs, "env": map[string]string{mcpEnv: "1"}, "tools": []string{"*"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return p.copilotWith(t, model, prompt, "--trust-folder", "--additional-mcp-config", string(config))
}

// mcpAgent is one agent's run against the fake MCP server: the model asks
// for touch, by the name the agent offers it under, with the marker as
// its path.
type mcpAgent struct {
	name, pkg, version string
	// offered are the names the tool is offered to the model under (Codex:
	// its namespace and its own name); hookName is its name in the
	// agent's hook payload, luahook's toolName.
	offered  []string
	hookName string
	// prepare configures the server where luahook install merges its
	// hooks too, so it runs before install.
	prepare func(t *testing.T, p *project)
	run     func(t *testing.T, p *project, marker string) (*recorder, string, error)
}

var mcpAgents = []mcpAgent{
	{name: "claude", pkg: "@anthropic-ai/claude-code", version: claudeNew,
		offered: []string{"mcp__conformance__touch"}, hookName: "mcp__conformance__touch",
		prepare: func(*testing.T, *project) {},
		run: func(t *testing.T, p *project, marker string) (*recorder, string, error) {
			m := startFakeModel(t, toolCall{Name: "mcp__conformance__touch", Input: map[string]any{"path": marker}})
			out, err := p.claudeMCP(t, m, "create the file")
			return &m.recorder, out, err
		}},
	{name: "gemini", pkg: "@google/gemini-cli", version: geminiVersion,
		offered: []string{"mcp_conformance_touch"}, hookName: "mcp_conformance_touch",
		prepare: func(t *testing.T, p *project) { p.writeGeminiMCP(t) },
		run: func(t *testing.T, p *project, marker string) (*recorder, string, error) {
			m := startFakeGemini(t, toolCall{Name: "mcp_conformance_touch", Input: map[string]any{"path": marker}})
			out, err := p.gemini(t, m, "create the file")
			return &m.recorder, out, err
		}},
	// Copilot CLI names an MCP tool server-tool, to the model and in its
	// hooks' payload alike (seen in 1.0.102).
	{name: "copilot", pkg: copilotPkg, version: copilotVersion,
		offered: []string{"conformance-touch"}, hookName: "conformance-touch",
		prepare: func(*testing.T, *project) {},
		run: func(t *testing.T, p *project, marker string) (*recorder, string, error) {
			m := startFakeCompletions(t, toolCall{Name: "conformance-touch", Input: map[string]any{"path": marker}})
			out, err := p.copilotMCP(t, m, "create the file")
			return &m.recorder, out, err
		}},
	{name: "codex", pkg: "@openai/codex", version: codexVersion,
		offered: []string{"mcp__conformance", "touch"}, hookName: "mcp__conformance__touch",
		prepare: func(*testing.T, *project) {},
		run: func(t *testing.T, p *project, marker string) (*recorder, string, error) {
			m := startFakeResponsesIn(t, "mcp__conformance", toolCall{Name: "touch", Input: map[string]any{"path": marker}})
			out, err := p.codexMCP(t, m, "create the file")
			return &m.recorder, out, err
		}},
}

// Without luahook the fake model's MCP call runs: the file is created.
// This is what the deny test's "the file was never created" stands on.
func TestEveryAgentRunsTheFakeModelsMCPCall(t *testing.T) {
	for _, a := range mcpAgents {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, nil)
			a.prepare(t, p)
			marker := filepath.Join(t.TempDir(), "marker")
			_, out, err := a.run(t, p, marker)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the MCP call did not run (%v); %s said:\n%s", err, a.name, out)
			}
		})
	}
}

// mcpSettings is the config's [packs.mcp] table with the given allow and
// deny lists (one entry each, none if ""), server and tool as the pack
// documents its entries.
func mcpSettings(allow, deny string) string {
	list := func(entry string) string {
		if entry == "" {
			return "[]"
		}
		return `["` + entry + `"]`
	}
	return "[packs.mcp]\nallow = " + list(allow) + "\ndeny = " + list(deny) + "\ndeny_by_default = false\n"
}

// addMCPPack adds the mcp pack (luahook add) to the project's hooks.d with
// settings denying the fake server's touch in place of its shipped ones.
func (p *project) addMCPPack(t *testing.T) {
	t.Helper()
	p.addMCPPackWith(t, mcpSettings("", mcpServerName+"/"+mcpToolName))
}

// addMCPPackWith is addMCPPack with the given settings (mcpSettings), in
// the project's luahook.toml, where a pack's settings live.
func (p *project) addMCPPackWith(t *testing.T, settings string) {
	t.Helper()
	p.luahook(t, "add", "mcp", "--dir", "hooks.d")
	if err := os.WriteFile(filepath.Join(p.dir, "luahook.toml"), []byte("hooks_dir = \"hooks.d\"\n\n"+settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The mcp pack, matching on the mcp capability and reading server and tool
// from each agent's name for an MCP tool, denies the fake server's touch
// with the hooks luahook install writes: the call never runs and the model
// receives the pack's reason, which names the tool as the hook payload
// does.
func TestEveryAgentKeepsADeniedMCPCallFromRunningAndTellsTheModel(t *testing.T) {
	for _, a := range mcpAgents {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, nil)
			a.prepare(t, p)
			p.addMCPPack(t)
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			marker := filepath.Join(t.TempDir(), "marker")
			model, out, err := a.run(t, p, marker)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if names := offeredTools(model); !containsAll(names, a.offered) {
				t.Fatalf("the model was not offered the MCP tool as %q (names in its requests: %q); %s said:\n%s", a.offered, names, a.name, out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the denied MCP call ran: the file exists; %s said:\n%s", a.name, out)
			}
			reason := "mcp guard: the MCP tool " + a.hookName + " is on the deny list"
			if !model.received(reason) {
				t.Fatalf("the model never received %q; %s said:\n%s", reason, a.name, out)
			}
			observe(a.pkg, a.version, checkMCPDeny, "yes")
		})
	}
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}

// mcpUnderscoreServer is a server name with a "_", which Gemini CLI's
// name for its tool, mcp_my_server_touch, leaves ambiguous: server my
// (tool server_touch) or server my_server (tool touch).
const mcpUnderscoreServer = "my_server"

// Gemini CLI names the server and the tool apart in mcp_context, and the
// mcp pack reads them there: with the fake server configured as
// my_server, a deny of my_server/touch keeps the call from running and
// tells the model, and a deny of my/server_touch (the name split at its
// first "_", as Gemini CLI itself parses it) does not match, so that with
// my_server/touch allowed the call runs.
func TestGeminiMCPServerWithAnUnderscoreIsNamedByMCPContext(t *testing.T) {
	tool := "mcp_" + mcpUnderscoreServer + "_" + mcpToolName
	for _, c := range []struct {
		name, allow, deny string
		runs              bool
	}{
		{"denied as my_server/touch", "", mcpUnderscoreServer + "/" + mcpToolName, false},
		{"not denied as my/server_touch", mcpUnderscoreServer + "/" + mcpToolName, "my/server_" + mcpToolName, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, nil)
			p.writeGeminiMCPAs(t, mcpUnderscoreServer)
			p.addMCPPackWith(t, mcpSettings(c.allow, c.deny))
			p.luahook(t, "install", "gemini", "--project")
			p.luahook(t, "trust")
			marker := filepath.Join(t.TempDir(), "marker")
			m := startFakeGemini(t, toolCall{Name: tool, Input: map[string]any{"path": marker}})
			out, err := p.gemini(t, m, "create the file")
			if err != nil {
				t.Fatalf("gemini: %v\n%s", err, out)
			}
			if names := offeredTools(&m.recorder); !slices.Contains(names, tool) {
				t.Fatalf("the model was not offered the MCP tool as %q (names in its requests: %q); gemini said:\n%s", tool, names, out)
			}
			_, statErr := os.Stat(marker)
			if ran := statErr == nil; ran != c.runs {
				t.Fatalf("the MCP call ran: %v, want %v; gemini said:\n%s", ran, c.runs, out)
			}
			reason := "mcp guard: the MCP tool " + tool + " is on the deny list"
			if denied := m.received(reason); denied == c.runs {
				t.Fatalf("the model received %q: %v, want %v; gemini said:\n%s", reason, denied, !c.runs, out)
			}
		})
	}
}
