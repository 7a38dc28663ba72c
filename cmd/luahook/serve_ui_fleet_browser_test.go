package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// The page of one replica shows, live, a call that waits on another (the
// replicas share their approvals through a real redis-server), and
// approving it there answers the agent on the first: the session the
// person logged in with on replica b is accepted by replica a too.
func TestUIApprovesACallWaitingOnAnotherReplica(t *testing.T) {
	redis := redistest.Start(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": uiHooks})
	tokens := tokenFile(t)
	replica := func(name string) *served {
		return startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokens, "--instance-id", name,
			"--approvals", "--approvals-redis", "redis://"+redis.Addr()+"/0", "--ui")
	}
	a, b := replica("replica-a"), replica("replica-b")
	ctx := browser(t)
	login(t, ctx, b.base, aliceToken)

	done := callAsync(t, a.base, "deploy web")
	p := pendingApprovals(t, b.base, 1)[0]
	var where string
	browse(t, ctx, "the call waiting on a, on b's page", chromedp.WaitVisible(chromedp.CSS(approvalSel(p.ID))),
		into(chromedp.Text(chromedp.CSS(approvalSel(p.ID)+" .replica")), &where))
	if where != "waiting on replica-a" {
		t.Fatalf("b's page says %q, want the replica the call waits on", where)
	}
	browse(t, ctx, "approve on b", chromedp.Click(chromedp.CSS(approvalSel(p.ID)+" button.approve")),
		chromedp.WaitNotPresent(chromedp.CSS(approvalSel(p.ID))))
	if ans := waitAnswer(t, done); !strings.Contains(ans.body, `"permissionDecision":"allow"`) {
		t.Fatalf("approved on b's page, a answered %d %s", ans.code, ans.body)
	}

	// The session holds on the other replica: b's cookie opens a's page
	// (same host, same cookie jar).
	var who string
	browse(t, ctx, "a's page with b's session", chromedp.Navigate(a.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#who")),
		into(chromedp.Text(chromedp.CSS("#who")), &who))
	if who != "alice" {
		t.Fatalf("on a with b's session: %q", who)
	}
}
