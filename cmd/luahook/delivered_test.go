package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/decisionlog"
)

// deliveredPolicy asks before an npm install, denies a prompt about a flaky
// test, and lets every other call through without objection.
const deliveredPolicy = `hook.register("PreToolUse", nil, function(input)
  local c = input.toolInput.command or ""
  if c:find("npm install", 1, true) then return hook.ask("installs a package: confirm") end
end)
hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("flaky", 1, true) then return hook.deny("say which test is flaky") end
end)
`

// nativePayload reads an agent's native payload of agent/testdata.
func nativePayload(t *testing.T, name agent.Name, base string) agentPayload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "agent", "testdata", string(name), base+".native.json"))
	if err != nil {
		t.Fatal(err)
	}
	return newAgentPayload(name, base, data)
}

// readRecords reads every record of the decision log file at path.
func readRecords(t *testing.T, path string) []decisionlog.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the decision log: %v", err)
	}
	defer f.Close()
	var recs []decisionlog.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec decisionlog.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %q is not a record: %v", sc.Text(), err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// fireLogged fires p with fire --agent and a decision log file, and
// returns the answer and the one record the log holds.
func fireLogged(t *testing.T, dir string, p agentPayload) (agent.Answer, decisionlog.Record) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	ans := fireAgent(t, []string{"--dir", dir}, p, "--decision-log", log)
	recs := readRecords(t, log)
	if len(recs) != 1 {
		t.Fatalf("%s/%s: %d records, want 1; stderr: %s", p.agent, p.name, len(recs), ans.Stderr)
	}
	if recs[0].Delivered == nil {
		t.Fatalf("%s/%s: the record says nothing of what the agent received: %+v", p.agent, p.name, recs[0])
	}
	return ans, recs[0]
}

// TestFireLogsWhatTheAgentReceived: fire --agent's record says what the
// agent read, next to the policies' own decision: Codex's ask is
// delivered as a deny (Codex has no ask), Copilot's prompt deny as a
// block, a call nobody objected to as none.
func TestFireLogsWhatTheAgentReceived(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": deliveredPolicy})

	ans, rec := fireLogged(t, dir, nativePayload(t, agent.Codex, "PreToolUse-npm"))
	d := rec.Delivered
	if !strings.Contains(string(ans.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("codex's answer to an ask = %s, want a deny", ans.Stdout)
	}
	if rec.Decision.Action != "ask" || d.Verdict != "deny" || d.Agent != "codex" || d.ExitCode != 0 || d.Cause != "" ||
		d.Note != "ask delivered as deny: codex has no ask on PreToolUse" {
		t.Errorf("codex ask: decision %q, delivered %+v; want ask delivered as deny, with the note", rec.Decision.Action, *d)
	}

	_, rec = fireLogged(t, dir, nativePayload(t, agent.Copilot, "userPromptSubmitted"))
	if d := rec.Delivered; rec.Decision.Action != "deny" || d.Verdict != "block" || d.Agent != "copilot" || d.Note != "" {
		t.Errorf("copilot prompt deny: decision %q, delivered %+v; want a block delivered", rec.Decision.Action, *d)
	}

	_, rec = fireLogged(t, dir, nativePayload(t, agent.Claude, "PreToolUse"))
	if d := rec.Delivered; rec.Decision.Action != "" || d.Verdict != "none" || d.ExitCode != 0 || d.Cause != "" || d.Note != "" {
		t.Errorf("no objection: decision %q, delivered %+v; want none", rec.Decision.Action, *d)
	}
}

// TestFireLogsTheBlockOfABrokenFolder: a hooks folder with a file that
// does not load is blocked fail-closed, though the policy that loaded had
// no objection; the record says the block was delivered, and why.
func TestFireLogsTheBlockOfABrokenFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": deliveredPolicy, "20-broken.lua": "hook.register(\n"})
	ans, rec := fireLogged(t, dir, nativePayload(t, agent.Claude, "PreToolUse"))
	if ans.ExitCode != 2 || !strings.Contains(ans.Stderr, "20-broken.lua") {
		t.Fatalf("a broken folder's answer = %d %s %q, want Claude's block (exit 2)", ans.ExitCode, ans.Stdout, ans.Stderr)
	}
	if d := rec.Delivered; d.Verdict != "block" || d.ExitCode != 2 || d.Cause != "load" || !strings.Contains(d.Reason, "20-broken.lua") {
		t.Errorf("broken folder: delivered %+v; want a block (exit 2) of cause load naming 20-broken.lua", *d)
	}
	if rec.Decision.Action != "" || len(rec.Hooks) != 1 {
		t.Errorf("broken folder: decision %+v with %d hooks; want the policy that loaded, without objection", rec.Decision, len(rec.Hooks))
	}
}

// TestFireLogsAPayloadThatDidNotDecode: a payload that does not decode is
// blocked without any hook running, and logged with its cause.
func TestFireLogsAPayloadThatDidNotDecode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": deliveredPolicy})
	p := agentPayload{agent: agent.Claude, name: "broken", data: []byte(`{"hook_event_name":"PreToolUse","tool_input":`)}
	ans, rec := fireLogged(t, dir, p)
	if d := rec.Delivered; d.Cause != "decode" || d.Verdict == "none" || d.ExitCode != ans.ExitCode || d.Reason == "" || len(rec.Hooks) != 0 {
		t.Errorf("undecodable payload: answer %d %s, record %+v, delivered %+v; want its block of cause decode", ans.ExitCode, ans.Stdout, rec, *d)
	}
}

// TestServeLogsWhatTheAgentReceived: serve's agent route over a real
// listener writes the same records: Codex's ask delivered as a deny, and
// a broken folder's block with its cause.
func TestServeLogsWhatTheAgentReceived(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": deliveredPolicy})
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	s := startServe(t, []string{"--dir", dir}, "--decision-log", log)
	p := nativePayload(t, agent.Codex, "PreToolUse-npm")
	if resp, body := postAgent(t, agentPath(s.base, p), p.data, false); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"deny"`) {
		t.Fatalf("POST codex ask = %d %s", resp.StatusCode, body)
	}
	var recs []decisionlog.Record
	eventually(t, "the record of codex's ask", func() bool {
		recs = readRecords(t, log)
		return len(recs) == 1
	})
	if d := recs[0].Delivered; d == nil || recs[0].Decision.Action != "ask" || d.Verdict != "deny" || !strings.Contains(d.Note, "ask delivered as deny") {
		t.Errorf("codex ask through serve: %+v, delivered %+v", recs[0], d)
	}

	writeFiles(t, dir, map[string]string{"20-broken.lua": "hook.register(\n"})
	c := nativePayload(t, agent.Claude, "PreToolUse")
	eventually(t, "the broken file's block, logged", func() bool {
		postAgent(t, agentPath(s.base, c), c.data, false)
		for _, rec := range readRecords(t, log) {
			if d := rec.Delivered; d != nil && d.Cause == "load" && d.Verdict == "block" && d.ExitCode == 2 && strings.Contains(d.Reason, "20-broken.lua") {
				return true
			}
		}
		return false
	})
}

// TestFireLogsWhatCouldNotBeDelivered: a rewrite's reason on Cursor, which
// has no field for it, and context on Copilot's preToolUse, which takes
// none, are logged as not delivered.
func TestFireLogsWhatCouldNotBeDelivered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": `hook.register("PreToolUse", nil, function(input)
  local c = input.toolInput.command or ""
  if c:find("^npm install ") then
    local t = {}
    for k, v in pairs(input.toolInput) do t[k] = v end
    t.command = "pnpm add " .. c:sub(13)
    return hook.mutate(t, "this repository uses pnpm")
  end
  return hook.context("the tests run with make test")
end)
`})
	ans, rec := fireLogged(t, dir, nativePayload(t, agent.Cursor, "preToolUse-npm"))
	if d := rec.Delivered; d.Verdict != "rewrite" || d.Note != "the rewrite's reason was not delivered: cursor has no field for it on preToolUse" {
		t.Errorf("cursor rewrite with a reason: answer %s, delivered %+v; want the reason noted as not delivered", ans.Stdout, *d)
	}
	ans, rec = fireLogged(t, dir, nativePayload(t, agent.Cursor, "preToolUse"))
	if d := rec.Delivered; rec.Decision.Outcome == nil || rec.Decision.Outcome.AdditionalContext == "" ||
		d.Note != "the added context was not delivered: cursor takes none on preToolUse" {
		t.Errorf("cursor context on preToolUse: answer %s, delivered %+v; want the context noted as not delivered", ans.Stdout, *d)
	}
}
