package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// approvalRig is a runner over Go hooks with a real hub as its approver.
func approvalRig(t *testing.T, approver runner.Approver, specs ...luahook.Spec) *runner.Runner {
	t.Helper()
	reg := registry.New()
	for _, s := range specs {
		if _, err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	r := runner.New(runner.Options{Registry: reg, Approver: approver})
	t.Cleanup(r.Close)
	return r
}

func answer(name string, out *luahook.Outcome) luahook.Spec {
	return luahook.Spec{Event: luahook.PreToolUse, Name: name, Stage: luahook.StageValidate,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return out, nil })}
}

func bash(cmd string) *luahook.Input {
	ti, _ := json.Marshal(map[string]string{"command": cmd})
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: ti, Cwd: "/tmp", SessionID: "s1", Agent: "codex"}
}

// waitPending waits until the hub holds n approvals and returns them.
func waitPending(t *testing.T, hub *approvals.Hub, n int) []approvals.Pending {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if l := hub.List(); len(l) == n {
			return l
		}
	}
	t.Fatalf("the hub holds %d approvals, want %d", hub.Len(), n)
	return nil
}

// fireAsync fires in at r and hands back its Result.
func fireAsync(ctx context.Context, r *runner.Runner, in *luahook.Input) <-chan runner.Result {
	c := make(chan runner.Result, 1)
	go func() { c <- r.PreToolUse(ctx, in) }()
	return c
}

// An approved web approval becomes an explicit allow, recorded with who
// approved and the call's digest; a denied one a deny naming the decider
// and the reason.
func TestWebApprovalBecomesAllowOrDenyAsThePersonDecides(t *testing.T) {
	for _, approve := range []bool{true, false} {
		hub := approvals.New(approvals.Options{})
		r := approvalRig(t, hub, answer("prod", luahook.Approve("deploys to production", nil, time.Minute)))
		in := bash("kubectl apply -f prod.yaml")
		done := fireAsync(context.Background(), r, in)
		p := waitPending(t, hub, 1)[0]
		if want := ledger.Digest("bash", in.ToolInput); p.Digest != want {
			t.Fatalf("pending digest %q, want ledger.Digest %q", p.Digest, want)
		}
		if p.Tool != "bash" || p.Session != "s1" || p.Agent != "codex" || len(p.Hooks) != 1 || p.Hooks[0] != "prod" || p.Reasons[0] != "deploys to production" {
			t.Fatalf("pending %+v does not describe the call", p)
		}
		if _, err := hub.Decide(p.ID, "alice", approve, "looks fine", p.Digest); err != nil {
			t.Fatal(err)
		}
		res := <-done
		a := res.Approval
		if a == nil || a.ID != p.ID || a.By != "alice" || a.Digest != p.Digest || a.At.IsZero() {
			t.Fatalf("approval record %+v", a)
		}
		if approve {
			if res.Verdict != luahook.VerdictAllow || res.Action() != luahook.ActionAllow || a.Verdict != runner.ApprovalApproved {
				t.Fatalf("approved: verdict %q action %q record %q, want an explicit allow", res.Verdict, res.Action(), a.Verdict)
			}
		} else if !res.Denied() || !strings.Contains(res.Reason, "denied by alice") || !strings.Contains(res.Reason, "looks fine") || a.Verdict != runner.ApprovalDenied {
			t.Fatalf("denied: verdict %q reason %q record %q", res.Verdict, res.Reason, a.Verdict)
		}
		b, err := json.Marshal(res)
		if err != nil || !strings.Contains(string(b), `"approval":{"id":"`+p.ID) {
			t.Fatalf("the result's JSON does not carry the approval: %s (%v)", b, err)
		}
	}
}

// A deny from any hook wins without asking anyone; an ask without route
// stays the agent's own ask.
func TestDenyWinsAndPlainAskIsNotRouted(t *testing.T) {
	hub := approvals.New(approvals.Options{})
	r := approvalRig(t, hub, answer("prod", luahook.Approve("prod", nil, 0)), answer("no", luahook.Deny("never")))
	res := r.PreToolUse(context.Background(), bash("x"))
	if !res.Denied() || res.Reason != "never" || res.Approval != nil || hub.Len() != 0 {
		t.Fatalf("a deny must win without an approval: %+v", res)
	}
	r = approvalRig(t, hub, answer("terminal", luahook.Ask("sure?")))
	res = r.PreToolUse(context.Background(), bash("x"))
	if !res.Asked() || res.Approval != nil {
		t.Fatalf("a plain ask must stay an ask: %+v", res)
	}
}

// Without an approver a web approval fails closed, saying none is served.
func TestWebApprovalWithoutApproverDenies(t *testing.T) {
	r := approvalRig(t, nil, answer("prod", luahook.Approve("prod", nil, 0)))
	res := r.PreToolUse(context.Background(), bash("x"))
	if !res.Denied() || !strings.Contains(res.Reason, "none is served") || res.Approval == nil || res.Approval.Verdict != runner.ApprovalFailed {
		t.Fatalf("want a deny saying no approval is served, got %+v", res)
	}
}

// Nobody deciding within the timeout denies, naming the timeout, and takes
// the approval down.
func TestWebApprovalTimesOutIntoDeny(t *testing.T) {
	hub := approvals.New(approvals.Options{})
	r := approvalRig(t, hub, answer("prod", luahook.Approve("prod", nil, 20*time.Millisecond)))
	res := r.PreToolUse(context.Background(), bash("x"))
	if !res.Denied() || !strings.Contains(res.Reason, "no one decided") || !strings.Contains(res.Reason, "20ms") ||
		res.Approval.Verdict != runner.ApprovalTimedOut || res.Approval.TimeoutMs != 20 {
		t.Fatalf("want a timeout deny, got %+v %+v", res, res.Approval)
	}
	if hub.Len() != 0 {
		t.Fatalf("%d approvals left waiting after the timeout", hub.Len())
	}
}

// Several web-routed asks: the shortest timeout holds, and only a name
// every ask that named approvers allows may decide; none in common denies
// at once.
func TestWebApprovalsCombine(t *testing.T) {
	hub := approvals.New(approvals.Options{})
	r := approvalRig(t, hub,
		answer("a", luahook.Approve("one", []string{"alice", "bob"}, time.Minute)),
		answer("b", luahook.Approve("two", []string{"bob", "carol"}, 30*time.Second)),
		answer("c", luahook.Ask("three")))
	done := fireAsync(context.Background(), r, bash("x"))
	p := waitPending(t, hub, 1)[0]
	if len(p.Approvers) != 1 || p.Approvers[0] != "bob" || len(p.Reasons) != 3 || len(p.Hooks) != 2 {
		t.Fatalf("pending %+v: want approvers [bob], three reasons, two hooks", p)
	}
	if d := p.Deadline.Sub(p.Created); d > 30*time.Second {
		t.Fatalf("the wait is %s, want the shortest timeout (30s)", d)
	}
	if _, err := hub.Decide(p.ID, "alice", true, "", p.Digest); err == nil {
		t.Fatal("alice decided, but the second ask does not allow her")
	}
	if _, err := hub.Decide(p.ID, "bob", true, "", p.Digest); err != nil {
		t.Fatal(err)
	}
	if res := <-done; !res.Allowed() {
		t.Fatalf("approved by bob: %+v", res)
	}
	// Short timeouts: a runner that asked anyway fails the test instead of
	// waiting for the default.
	r = approvalRig(t, hub, answer("a", luahook.Approve("one", []string{"alice"}, 50*time.Millisecond)), answer("b", luahook.Approve("two", []string{"bob"}, 50*time.Millisecond)))
	if res := r.PreToolUse(context.Background(), bash("x")); !res.Denied() || !strings.Contains(res.Reason, "no approver in common") {
		t.Fatalf("want a deny naming no approver in common, got %+v", res)
	}
}

// A caller that gives up ends the wait and takes the approval down.
func TestWebApprovalEndsWithTheCaller(t *testing.T) {
	hub := approvals.New(approvals.Options{})
	r := approvalRig(t, hub, answer("prod", luahook.Approve("prod", nil, 0)))
	ctx, cancel := context.WithCancel(context.Background())
	done := fireAsync(ctx, r, bash("x"))
	waitPending(t, hub, 1)
	cancel()
	res := <-done
	if !res.Denied() || res.Approval.Verdict != runner.ApprovalFailed || hub.Len() != 0 {
		t.Fatalf("want a deny and nothing waiting, got %+v (%d waiting)", res, hub.Len())
	}
}

// A rewrite before the web approval is what the person is asked about and
// what the digest binds; an approval lets it through as the mutate it is.
func TestWebApprovalBindsTheRewrittenInput(t *testing.T) {
	hub := approvals.New(approvals.Options{})
	rewritten := json.RawMessage(`{"command":"ls -a"}`)
	r := approvalRig(t, hub,
		luahook.Spec{Event: luahook.PreToolUse, Name: "rw", Stage: luahook.StageMutate, Hook: luahook.HookFunc(
			func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return luahook.Mutate(rewritten), nil })},
		answer("prod", luahook.Approve("prod", nil, 0)))
	done := fireAsync(context.Background(), r, bash("ls"))
	p := waitPending(t, hub, 1)[0]
	if p.Digest != ledger.Digest("bash", rewritten) || string(p.Input) != string(rewritten) {
		t.Fatalf("pending digest %q input %s, want the rewritten call's", p.Digest, p.Input)
	}
	hub.Decide(p.ID, "alice", true, "", p.Digest)
	if res := <-done; res.Action() != luahook.ActionMutate || string(res.Input) != string(rewritten) {
		t.Fatalf("approved rewrite: action %q input %s", res.Action(), res.Input)
	}
}
