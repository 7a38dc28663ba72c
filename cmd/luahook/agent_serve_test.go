package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/internal/shim"
)

// agentPolicy is the policy of the agent_*.txtar golden scripts
// (TestAgentScriptsShareAgentPolicy keeps them equal): deny a force-push,
// rewrite npm install to pnpm add, ask before a command that uses curl,
// allow a bare ls explicitly, context at session start and after a tool, a
// prompt about a flaky test denied, others given context, and a Stop in the
// session keep-going asked to continue.
const agentPolicy = `hook.register("PreToolUse", "@shell", function(input)
  local c = input.toolInput.command or ""
  if c:find("push --force", 1, true) then return hook.deny("force-push is not allowed") end
  if c:find("^npm install ") then
    local t = {}
    for k, v in pairs(input.toolInput) do t[k] = v end
    t.command = "pnpm add " .. c:sub(13)
    return hook.mutate(t)
  end
  if c:find("curl", 1, true) then return hook.ask("network access: confirm") end
  if c == "ls" or c:find("^ls ") then return hook.allow() end
end, { name = "shell", failure_policy = "closed", policy = true })
hook.register("Stop", nil, function(input)
  if input.sessionId == "keep-going" then return hook.continue("work is left in this session: finish it before stopping") end
end)
hook.register("SessionStart", nil, function() return hook.context("This project uses pnpm.") end)
hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("flaky", 1, true) then return hook.deny("say which test is flaky") end
  return hook.context("prompt checked")
end)
hook.register("PostToolUse", nil, function(input)
  if input.toolResult and input.toolResult.isError then return hook.context("the tool failed: " .. input.toolName) end
  return hook.context("output checked")
end)
`

// agentPayload is one native payload of agent/testdata or of the payload/
// files of the agent_*.txtar scripts, with the event the command line names
// (Copilot's camelCase dialect).
type agentPayload struct {
	agent agent.Name
	name  string
	event string
	data  []byte
}

func agentPayloads(t *testing.T) []agentPayload {
	t.Helper()
	var out []agentPayload
	for _, name := range agent.Names() {
		paths, err := filepath.Glob(filepath.Join("..", "..", "agent", "testdata", string(name), "*.native.json"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no payloads for %s: %v", name, err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, newAgentPayload(name, strings.TrimSuffix(filepath.Base(p), ".native.json"), data))
		}
		script := agentScript(t, name)
		n := len(out)
		for _, f := range script.Files {
			if base, ok := strings.CutPrefix(f.Name, "payload/"); ok {
				out = append(out, newAgentPayload(name, "script/"+strings.TrimSuffix(base, ".json"), f.Data))
			}
		}
		if len(out) == n {
			t.Fatalf("agent_%s.txtar has no payload/ files", name)
		}
	}
	return out
}

// newAgentPayload names a payload by its file's base name, which for
// Copilot's camelCase dialect begins with the event.
func newAgentPayload(name agent.Name, base string, data []byte) agentPayload {
	var event string
	if file := strings.TrimPrefix(base, "script/"); name == agent.Copilot && file[0] >= 'a' && file[0] <= 'z' {
		event, _, _ = strings.Cut(file, "-")
	}
	return agentPayload{name, base, event, data}
}

// agentScript reads the golden script testdata/script/agent_NAME.txtar.
func agentScript(t *testing.T, name agent.Name) *txtar.Archive {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "script", "agent_"+string(name)+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The golden scripts fire the policy serve is tested with, so that serve
// covers every verdict the scripts pin.
func TestAgentScriptsShareAgentPolicy(t *testing.T) {
	for _, name := range agent.Names() {
		var found bool
		for _, f := range agentScript(t, name).Files {
			if f.Name == "hooks.d/10-policy.lua" {
				found = true
				if string(f.Data) != agentPolicy {
					t.Errorf("agent_%s.txtar: hooks.d/10-policy.lua differs from agentPolicy", name)
				}
			}
		}
		if !found {
			t.Errorf("agent_%s.txtar has no hooks.d/10-policy.lua", name)
		}
	}
}

// fireAgent runs fire --agent in process and returns its answer.
func fireAgent(t *testing.T, globals []string, p agentPayload, extra ...string) agent.Answer {
	t.Helper()
	args := append(append([]string{}, globals...), "fire", "--agent", string(p.agent))
	if p.event != "" {
		args = append(args, p.event)
	}
	args = append(args, extra...)
	var out, errb bytes.Buffer
	code := run(context.Background(), args, bytes.NewReader(p.data), &out, &errb)
	ans := agent.Answer{Stderr: errb.String(), ExitCode: code}
	if out.Len() > 0 {
		ans.Stdout = out.Bytes()
	}
	return ans
}

// postAgent posts a payload to serve's /agent/ path; relay asks for the
// whole answer (server.RelayHeader).
func postAgent(t *testing.T, url string, body []byte, relay bool) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if relay {
		req.Header.Set(server.RelayHeader, "1")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func agentPath(base string, p agentPayload) string {
	u := base + "/agent/" + string(p.agent)
	if p.event != "" {
		u += "/" + p.event
	}
	return u
}

// serve answers every agent's payloads on /agent/NAME[/EVENT] exactly as
// fire --agent answers them: the body is fire's standard output ("{}" for
// none), always with 200, and Luahook-Exit-Code its exit status; asked for
// a relay, the whole answer; and fire --agent --http relays it to the byte,
// as fire --agent --socket and luahook-fire do from serve's Unix socket.
func TestServeAnswersEachAgentAsFireDoes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": agentPolicy})
	globals := []string{"--dir", dir}
	socket := filepath.Join(t.TempDir(), "run", "luahook.sock")
	s := startServe(t, globals, "--socket", socket)
	if l := <-s.lines; !strings.HasPrefix(l, "luahook serve: listening on unix:"+socket+" (") {
		t.Fatalf("second line %q", l)
	}
	// luahook-fire must answer from the server: a hand-over to luahook
	// would answer the same, so none is possible here.
	noLuahookToHandTo(t)
	for _, p := range agentPayloads(t) {
		t.Run(string(p.agent)+"/"+p.name, func(t *testing.T) {
			want := fireAgent(t, globals, p)
			resp, body := postAgent(t, agentPath(s.base, p), p.data, false)
			wantBody := want.Stdout
			if wantBody == nil {
				wantBody = []byte("{}\n")
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, wantBody) {
				t.Errorf("serve answered %d %q; fire printed %q", resp.StatusCode, body, want.Stdout)
			}
			if got := resp.Header.Get(server.ExitCodeHeader); got != strconv.Itoa(want.ExitCode) {
				t.Errorf("%s: %q, fire exited %d", server.ExitCodeHeader, got, want.ExitCode)
			}
			_, body = postAgent(t, agentPath(s.base, p), p.data, true)
			var rel server.Relay
			if err := json.Unmarshal(body, &rel); err != nil {
				t.Fatalf("relay %q: %v", body, err)
			}
			if rel.Stdout != string(want.Stdout) || rel.Stderr != want.Stderr || rel.ExitCode != want.ExitCode {
				t.Errorf("relay %+v; fire answered %q %q %d", rel, want.Stdout, want.Stderr, want.ExitCode)
			}
			got := fireAgent(t, nil, p, "--http", s.base)
			if !bytes.Equal(got.Stdout, want.Stdout) || got.Stderr != want.Stderr || got.ExitCode != want.ExitCode {
				t.Errorf("fire --http answered %q %q %d; fire %q %q %d", got.Stdout, got.Stderr, got.ExitCode,
					want.Stdout, want.Stderr, want.ExitCode)
			}
			got = fireAgent(t, nil, p, "--socket", socket)
			if !bytes.Equal(got.Stdout, want.Stdout) || got.Stderr != want.Stderr || got.ExitCode != want.ExitCode {
				t.Errorf("fire --socket answered %q %q %d; fire %q %q %d", got.Stdout, got.Stderr, got.ExitCode,
					want.Stdout, want.Stderr, want.ExitCode)
			}
			args := []string{"--socket", socket, "--agent", string(p.agent)}
			if p.event != "" {
				args = append(args, p.event)
			}
			var out, errb bytes.Buffer
			code := shim.Main(args, bytes.NewReader(p.data), &out, &errb)
			if !bytes.Equal(out.Bytes(), want.Stdout) || errb.String() != want.Stderr || code != want.ExitCode {
				t.Errorf("luahook-fire answered %q %q %d; fire %q %q %d", out.Bytes(), errb.String(), code,
					want.Stdout, want.Stderr, want.ExitCode)
			}
		})
	}
}

// serve's /agent/ paths never answer an agent with an error status it
// would read as "proceed": a payload it cannot read, a body over the cap
// are the agent's block signal with 200; per-agent metrics count them.
func TestServeAgentPathsFailClosed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": agentPolicy})
	s := startServe(t, []string{"--dir", dir}, "--max-body", "4096")
	for _, c := range []struct {
		name, path, body, want string
	}{
		{"not JSON", "/agent/claude", "rm -rf /",
			`{"decision":"block","reason":"luahook could not read the payload (claude payload: want a JSON object, got rm -rf /)"}`},
		{"wrong shape", "/agent/claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"luahook could not read the payload (claude PreToolUse payload: tool_input must be an object, got \"ls\")"}}`},
		{"Copilot without its event", "/agent/copilot", `{"sessionId":"s","timestamp":1,"toolName":"bash","toolArgs":{"command":"ls"}}`,
			`{"permissionDecision":"deny","permissionDecisionReason":"luahook could not read the payload (copilot payload: the payload does not name its event; the hook configuration must (luahook fire --agent NAME EVENT))"}`},
		{"body over --max-body", "/agent/gemini/BeforeTool", `{"tool_input":{"x":"` + strings.Repeat("a", 5000) + `"}}`,
			`{"decision":"deny","reason":"luahook serve could not read the request: body larger than 4096 bytes"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := postAgent(t, s.base+c.path, []byte(c.body), false)
			if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != c.want {
				t.Errorf("answered %d %s\nwant 200 %s", resp.StatusCode, body, c.want)
			}
			if got := resp.Header.Get(server.ExitCodeHeader); got != "2" {
				t.Errorf("%s %q, want 2", server.ExitCodeHeader, got)
			}
		})
	}
	if code, _ := post(t, s.base+"/agent/nobody", "{}"); code != http.StatusNotFound {
		t.Errorf("unknown agent: %d, want 404", code)
	}
	push := `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}`
	postAgent(t, s.base+"/agent/claude", []byte(push), false)
	m := scrapeMetrics(t, s.base)
	for key, want := range map[string]float64{
		`luahook_agent_answers_total{agent="claude",verdict="deny"}`:   1,
		`luahook_agent_answers_total{agent="claude",verdict="none"}`:   0,
		`luahook_agent_decode_failures_total{agent="claude"}`:          2,
		`luahook_agent_decode_failures_total{agent="copilot"}`:         1,
		`luahook_agent_blocks_total{agent="claude",cause="decode"}`:    2,
		`luahook_agent_blocks_total{agent="copilot",cause="decode"}`:   1,
		`luahook_agent_blocks_total{agent="gemini",cause="body"}`:      1,
		`luahook_agent_blocks_total{agent="codex",cause="overloaded"}`: 0,
		`luahook_decisions_total{decision="deny",event="PreToolUse"}`:  1,
		`luahook_requests_total{code="200"}`:                           5,
		`luahook_requests_total{code="404"}`:                           1,
	} {
		if got, ok := m[key]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
}

// fire --agent --http blocks on an event that can block when the server
// cannot decide for it: nothing listening, too slow, an error status, an
// answer that is not luahook's; on an event that cannot block it proceeds.
// Each reason names the URL and what went wrong.
func TestFireHTTPBlocksWhenTheServerCannotDecide(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer failing.Close()
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"hookSpecificOutput":{}}`))
	}))
	defer foreign.Close()
	// A port nothing listens on, taken once the servers above hold theirs:
	// taken before, the kernel could give it to one of them (the slow one
	// once did, and the call timed out instead of being refused).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	pre := agentPayload{agent: agent.Claude, data: []byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)}
	post := agentPayload{agent: agent.Claude, data: []byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"ok"}`)}
	for _, c := range []struct {
		name, url, why string
	}{
		{"nothing listening", dead, "connection refused"},
		{"too slow", slow.URL, "no answer within --http-timeout 300ms"},
		{"an error status", failing.URL, "answered 500 Internal Server Error: boom"},
		{"not luahook's answer", foreign.URL, `not a luahook answer (unknown key "hookSpecificOutput")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := c.url + "/agent/claude"
			got := fireAgent(t, nil, pre, "--http", c.url, "--http-timeout", "300ms")
			if got.ExitCode != 2 || !strings.Contains(got.Stderr, "luahook serve at "+target+" could not decide: ") ||
				!strings.Contains(got.Stderr, c.why) {
				t.Errorf("exit %d, stderr %q; want 2 naming %s and %q", got.ExitCode, got.Stderr, target, c.why)
			}
			var out struct {
				HSO struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(got.Stdout, &out); err != nil || out.HSO.PermissionDecision != "deny" ||
				!strings.Contains(out.HSO.PermissionDecisionReason, target) {
				t.Errorf("stdout %q: want Claude's denial naming %s", got.Stdout, target)
			}
			got = fireAgent(t, nil, post, "--http", c.url, "--http-timeout", "300ms")
			if got.ExitCode != 0 || got.Stdout != nil || !strings.Contains(got.Stderr, c.why) {
				t.Errorf("PostToolUse: exit %d, stdout %q, stderr %q; want it to proceed, saying why", got.ExitCode, got.Stdout, got.Stderr)
			}
			got = fireAgent(t, nil, pre, "--http", c.url, "--http-timeout", "300ms", "--on-load-error", "skip")
			if got.ExitCode != 0 || got.Stdout != nil || !strings.Contains(got.Stderr, "proceeding (on_load_error skip)") {
				t.Errorf("skip: exit %d, stdout %q, stderr %q; want it to proceed and warn", got.ExitCode, got.Stdout, got.Stderr)
			}
		})
	}
}

// fire --agent --socket blocks as fire --http does when the server on the
// Unix socket cannot decide for it: no socket, a socket nothing answers on
// (left by a server that died), too slow, an answer that is not luahook's.
func TestFireSocketBlocksWhenTheServerCannotDecide(t *testing.T) {
	dir := t.TempDir()
	unixServer := func(name string, h http.HandlerFunc) string {
		path := filepath.Join(dir, name)
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return path
	}
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	release := make(chan struct{})
	defer close(release)
	slow := unixServer("slow.sock", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	foreign := unixServer("foreign.sock", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"exitCode":0,"stdout":"{}","stderr":"","allow":true}`))
	})
	pre := agentPayload{agent: agent.Claude, data: []byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)}
	for _, c := range []struct {
		name, socket, why string
	}{
		{"no socket", filepath.Join(dir, "none.sock"), "no such file or directory"},
		{"nothing answers", stale, "connection refused"},
		{"too slow", slow, "no answer within --http-timeout 300ms"},
		{"not luahook's answer", foreign, `not a luahook answer (unknown key "allow")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fireAgent(t, nil, pre, "--socket", c.socket, "--http-timeout", "300ms")
			if got.ExitCode != 2 || !strings.Contains(got.Stderr, "luahook serve at unix:"+c.socket+" could not decide: ") ||
				!strings.Contains(got.Stderr, c.why) {
				t.Errorf("exit %d, stderr %q; want 2 naming %s and %q", got.ExitCode, got.Stderr, c.socket, c.why)
			}
			var out struct {
				HSO struct{ PermissionDecision string } `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(got.Stdout, &out); err != nil || out.HSO.PermissionDecision != "deny" {
				t.Errorf("stdout %q: want Claude's denial", got.Stdout)
			}
		})
	}
	got := fireAgent(t, nil, pre, "--socket", foreign, "--http", "http://127.0.0.1:1")
	if got.ExitCode != 1 || !strings.Contains(got.Stderr, "--http and --socket name two servers") {
		t.Errorf("--http with --socket: exit %d, stderr %q; want 1 refusing the pair", got.ExitCode, got.Stderr)
	}
}

// noLuahookToHandTo leaves luahook-fire (shim.Main, run in this test
// binary) no luahook to hand a call to, as a release finds it: none next to
// the executable (a go-build folder holds the test binary alone) and none
// on PATH (an empty folder until t ends). What it answers is then the
// server's, or a block.
func noLuahookToHandTo(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(exe), "luahook")); err == nil {
		t.Fatalf("a luahook next to the test binary %s: luahook-fire could hand calls to it", exe)
	}
	t.Setenv("PATH", t.TempDir())
}

// luahook-fire reads the payload as fire does, up to the end of its JSON
// object: an agent that keeps the hook's standard input open gets its
// answer at once, not after the read timeout (and not a block for a
// payload that never ended).
func TestLuahookFireAnswersAPayloadOnAPipeKeptOpen(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": agentPolicy})
	socket := filepath.Join(t.TempDir(), "luahook.sock")
	startServe(t, []string{"--dir", dir}, "--socket", socket)
	noLuahookToHandTo(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	// Waiting for the end of the stream would end in the read timeout,
	// then a hand-over to a luahook that is not there: exit 2.
	var out, errb bytes.Buffer
	code := shim.Main([]string{"--socket", socket, "--agent", "claude"}, r, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Errorf("exit %d, stdout %q, stderr %q; want the policy's denial", code, out.String(), errb.String())
	}
}

// An answer too long for net/http to send in one piece (a rewrite of a
// long command) reaches luahook-fire whole: serve gives it its
// Content-Length instead of chunks, which luahook-fire does not read.
func TestLuahookFireRelaysALongAnswer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-long.lua": `hook.register("PreToolUse", nil, function(input)
  return hook.mutate({ command = string.rep("echo long; ", 2000) })
end)`})
	socket := filepath.Join(t.TempDir(), "luahook.sock")
	startServe(t, []string{"--dir", dir}, "--socket", socket)
	noLuahookToHandTo(t)
	p := agentPayload{agent: agent.Claude, data: []byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)}
	want := fireAgent(t, []string{"--dir", dir}, p)
	if len(want.Stdout) < 20000 || !bytes.Contains(want.Stdout, []byte("echo long; echo long;")) {
		t.Fatalf("fire answered %d bytes: %.200q; want the long rewrite", len(want.Stdout), want.Stdout)
	}
	var out, errb bytes.Buffer
	code := shim.Main([]string{"--socket", socket, "--agent", "claude"}, bytes.NewReader(p.data), &out, &errb)
	if !bytes.Equal(out.Bytes(), want.Stdout) || errb.String() != want.Stderr || code != want.ExitCode {
		t.Errorf("luahook-fire answered %d bytes, stderr %q, exit %d; fire %d bytes, %q, %d", out.Len(), errb.String(), code,
			len(want.Stdout), want.Stderr, want.ExitCode)
	}
}
