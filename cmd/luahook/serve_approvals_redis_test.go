package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// Two replicas sharing their web approvals through one real redis-server
// (--approvals-redis): a Codex call that waits on replica a is listed on
// replica b, naming a, and decided there, once: a answers the agent with
// the allow or the deny b's client decided; the refusals (a client not
// among the approvers, another call's digest, a second decision on either
// replica) hold across replicas.
func TestServeWebApprovalsSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": approvalHooks})
	tokens := tokenFile(t)
	replica := func(name string) *served {
		return startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokens, "--instance-id", name,
			"--approvals", "--approvals-redis", "redis://"+redis.Addr()+"/0")
	}
	a, b := replica("a"), replica("b")

	done := callAsync(t, a.base, "deploy app")
	p := pendingApprovals(t, b.base, 1)[0]
	if p.Tool != "Bash" || p.Agent != "codex" || p.Client != "bob" || p.Reasons[0] != "deploys: deploy app" || len(p.Digest) != 32 {
		t.Fatalf("b lists %+v", p)
	}
	if code, _, body := ask(t, http.DefaultClient, "GET", b.base+"/approvals", "", bearerOf(aliceToken)); code != 200 || !strings.Contains(body, `"instance":"a"`) {
		t.Fatalf("b's GET /approvals: %d %s, want the approval naming replica a", code, body)
	}
	if l := pendingApprovals(t, a.base, 1); l[0].ID != p.ID {
		t.Fatalf("a lists %+v, b %+v", l[0], p)
	}
	if code, body := decide(t, b.base, bobToken, p.ID, "approve", "", p.Digest); code != 403 || !strings.Contains(body, "not among the approvers") {
		t.Fatalf("bob, not an approver, on b: %d %s, want 403", code, body)
	}
	if code, body := decide(t, b.base, aliceToken, p.ID, "approve", "", strings.Repeat("0", 32)); code != 409 || !strings.Contains(body, "digest") {
		t.Fatalf("another digest on b: %d %s, want 409", code, body)
	}
	select {
	case ans := <-done:
		t.Fatalf("the call was answered before anyone decided: %+v", ans)
	default:
	}
	if code, body := decide(t, b.base, aliceToken, p.ID, "approve", "ok", p.Digest); code != 200 || !strings.Contains(body, `"by":"alice"`) {
		t.Fatalf("alice approves on b: %d %s", code, body)
	}
	if ans := <-done; ans.code != 200 || !strings.Contains(ans.body, `"permissionDecision":"allow"`) {
		t.Fatalf("the call approved on b was answered by a: %d %s, want Codex's allow", ans.code, ans.body)
	}
	for _, r := range []*served{a, b} {
		if code, body := decide(t, r.base, aliceToken, p.ID, "deny", "", p.Digest); code != 409 || !strings.Contains(body, "decided already") {
			t.Fatalf("a second decision on %s: %d %s, want 409", r.base, code, body)
		}
	}

	done = callAsync(t, a.base, "deploy db")
	p = pendingApprovals(t, b.base, 1)[0]
	if code, body := decide(t, b.base, aliceToken, p.ID, "deny", "not on a Friday", p.Digest); code != 200 {
		t.Fatalf("alice denies on b: %d %s", code, body)
	}
	if ans := <-done; !strings.Contains(ans.body, `"permissionDecision":"deny"`) || !strings.Contains(ans.body, "denied by alice on the web approval: not on a Friday") {
		t.Fatalf("the call denied on b was answered by a: %d %s, want Codex's deny with alice's reason", ans.code, ans.body)
	}
	pendingApprovals(t, a.base, 0)
	pendingApprovals(t, b.base, 0)
}
