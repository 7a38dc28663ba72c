package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// approvalHooks routes deploys to a web approval alice (or carol) may
// decide; "quick" ones time out after 300 ms; anything else passes.
const approvalHooks = `hook.register("PreToolUse", nil, function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("^deploy") then
    return hook.approve{reason = "deploys: " .. cmd, approvers = {"alice", "carol"}}
  end
  if cmd:find("^quick") then
    return hook.approve{reason = "quick", timeout_ms = 300}
  end
end, { name = "prod-gate" })
`

// codexCall is Codex's PreToolUse payload for a Bash command.
func codexCall(cmd string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": "019a-codex", "cwd": "/tmp", "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
		"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]string{"command": cmd}, "tool_use_id": "call_1",
	})
	return string(b)
}

type answered struct {
	code int
	body string
}

// callAsync posts a Codex call as bob and hands back the agent's answer.
func callAsync(t *testing.T, base, cmd string) <-chan answered {
	c := make(chan answered, 1)
	go func() {
		code, _, body := ask(t, http.DefaultClient, "POST", base+"/agent/codex", codexCall(cmd), bearerOf(bobToken))
		c <- answered{code, body}
	}()
	return c
}

type listed struct {
	ID        string   `json:"id"`
	Digest    string   `json:"digest"`
	Tool      string   `json:"tool"`
	Agent     string   `json:"agent"`
	Client    string   `json:"client"`
	Reasons   []string `json:"reasons"`
	Approvers []string `json:"approvers"`
}

// pendingApprovals waits until GET /approvals lists n approvals.
func pendingApprovals(t *testing.T, base string, n int) []listed {
	t.Helper()
	var got struct{ Approvals []listed }
	eventually(t, "approvals listed", func() bool {
		code, _, body := ask(t, http.DefaultClient, "GET", base+"/approvals", "", bearerOf(aliceToken))
		if code != 200 {
			t.Fatalf("GET /approvals: %d %s", code, body)
		}
		got.Approvals = nil
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("GET /approvals: %v: %s", err, body)
		}
		return len(got.Approvals) == n
	})
	return got.Approvals
}

func decide(t *testing.T, base, token, id, verdict, reason, digest string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"verdict": verdict, "reason": reason, "digest": digest})
	code, _, body := ask(t, http.DefaultClient, "POST", base+"/approvals/"+id, string(b), bearerOf(token))
	return code, body
}

// A Codex call whose policy asks for a web approval waits, is listed on
// GET /approvals, and becomes the allow or deny the person decided; a
// second decision, a decision by a client not among the approvers or for
// another digest, and a request without the token are refused; nobody
// deciding in time denies.
func TestServeWebApprovalsDecideCodexCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": approvalHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--approvals")

	if code, _, _ := ask(t, http.DefaultClient, "GET", s.base+"/approvals", "", nil); code != 401 {
		t.Fatalf("GET /approvals without a token: %d, want 401", code)
	}

	done := callAsync(t, s.base, "deploy app")
	p := pendingApprovals(t, s.base, 1)[0]
	if p.Tool != "Bash" || p.Agent != "codex" || p.Client != "bob" || p.Reasons[0] != "deploys: deploy app" || len(p.Digest) != 32 {
		t.Fatalf("listed %+v", p)
	}
	if code, body := decide(t, s.base, bobToken, p.ID, "approve", "", p.Digest); code != 403 || !strings.Contains(body, "not among the approvers") {
		t.Fatalf("bob, not an approver: %d %s, want 403", code, body)
	}
	if code, body := decide(t, s.base, aliceToken, p.ID, "approve", "", strings.Repeat("0", 32)); code != 409 || !strings.Contains(body, "digest") {
		t.Fatalf("another digest: %d %s, want 409", code, body)
	}
	if code, body := decide(t, s.base, aliceToken, p.ID, "maybe", "", p.Digest); code != 400 {
		t.Fatalf("a bad verdict: %d %s, want 400", code, body)
	}
	select {
	case a := <-done:
		t.Fatalf("the call was answered before anyone decided: %+v", a)
	default:
	}
	if code, body := decide(t, s.base, aliceToken, p.ID, "approve", "ok", p.Digest); code != 200 || !strings.Contains(body, `"by":"alice"`) {
		t.Fatalf("alice approves: %d %s", code, body)
	}
	if a := <-done; a.code != 200 || !strings.Contains(a.body, `"permissionDecision":"allow"`) {
		t.Fatalf("approved call answered %d %s, want Codex's allow", a.code, a.body)
	}
	if code, body := decide(t, s.base, aliceToken, p.ID, "deny", "", p.Digest); code != 409 || !strings.Contains(body, "decided already") {
		t.Fatalf("a second decision: %d %s, want 409", code, body)
	}
	if code, _ := decide(t, s.base, aliceToken, "ffff", "deny", "", p.Digest); code != 404 {
		t.Fatalf("an unknown id: %d, want 404", code)
	}

	done = callAsync(t, s.base, "deploy db")
	p = pendingApprovals(t, s.base, 1)[0]
	if code, body := decide(t, s.base, aliceToken, p.ID, "deny", "not on a Friday", p.Digest); code != 200 {
		t.Fatalf("alice denies: %d %s", code, body)
	}
	if a := <-done; !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "denied by alice on the web approval: not on a Friday") {
		t.Fatalf("denied call answered %d %s, want Codex's deny with alice's reason", a.code, a.body)
	}

	a := <-callAsync(t, s.base, "quick fix")
	if !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "no one decided") || !strings.Contains(a.body, "300ms") {
		t.Fatalf("timed-out call answered %d %s, want a deny naming the timeout", a.code, a.body)
	}
	if l := pendingApprovals(t, s.base, 0); len(l) != 0 {
		t.Fatalf("left waiting: %+v", l)
	}
}

// Past --max-approvals a call that asks for a web approval is denied at
// once, while the calls waiting keep waiting and other calls are answered;
// on shutdown the calls still waiting are denied, saying why.
func TestServeWebApprovalFloodIsDeniedAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": approvalHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--approvals", "--max-approvals", "2")
	first, second := callAsync(t, s.base, "deploy one"), callAsync(t, s.base, "deploy two")
	pendingApprovals(t, s.base, 2)
	start := time.Now()
	a := <-callAsync(t, s.base, "deploy three")
	if !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "too many web approvals are waiting") {
		t.Fatalf("past the cap: %d %s, want a deny naming the cap", a.code, a.body)
	}
	if a := <-callAsync(t, s.base, "ls"); a.code != 200 || a.body != "{}" {
		t.Fatalf("another call while two wait: %d %s, want no objection", a.code, a.body)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the refused and the other call took %s: they waited behind the approvals", took)
	}
	if l := pendingApprovals(t, s.base, 2); len(l) != 2 {
		t.Fatal("the waiting approvals changed")
	}
	select {
	case a := <-first:
		t.Fatalf("a waiting call was answered: %+v", a)
	case a := <-second:
		t.Fatalf("a waiting call was answered: %+v", a)
	default:
	}
	go s.stop()
	for _, c := range []<-chan answered{first, second} {
		if a := <-c; !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "approvals are closed") {
			t.Fatalf("a call waiting at shutdown: %d %s, want a deny saying approvals closed", a.code, a.body)
		}
	}
}

// Without --approvals a call that asks for a web approval is denied,
// saying none is served, and there is no /approvals route.
func TestServeWithoutApprovalsFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": approvalHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t))
	if a := <-callAsync(t, s.base, "deploy app"); !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "none is served") {
		t.Fatalf("without --approvals: %d %s, want a deny saying none is served", a.code, a.body)
	}
	if code, _, _ := ask(t, http.DefaultClient, "GET", s.base+"/approvals", "", bearerOf(aliceToken)); code != 404 {
		t.Fatalf("GET /approvals without --approvals: %d, want 404", code)
	}
}
