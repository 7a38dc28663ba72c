package decisionlog_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/runner"
)

// A PostToolUse hook that takes a secret out of a tool's output: the
// record must carry neither the secret (a redaction's literal text is the
// secret itself) nor, for a large output, the whole rewritten output.
func TestRecordsOfRedactionsCarryNeitherTheSecretNorAHugeOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, _ := openWith(t, map[string]string{"10-redact.lua": `
hook.register("PostToolUse", nil, function(input)
  local c = input.toolResult.content
  local i, j = c:find("zq%-[a-z0-9]+")
  if i then return hook.redact({ c:sub(i, j) }) end
end)`}, log)
	secret := "zq-" + strings.Repeat("k7", 20)
	small := &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", ToolInput: []byte(`{"command":"env"}`), Cwd: "/work",
		SessionID: "s1", ToolResult: &luahook.ToolResult{Content: "TOKEN=" + secret}}
	big := *small
	big.ToolResult = &luahook.ToolResult{Content: strings.Repeat("x", decisionlog.MaxLoggedOutputBytes) + " TOKEN=" + secret}
	for _, in := range []*luahook.Input{small, &big} {
		res := e.Runner().Fire(context.Background(), in)
		if res.Output == nil {
			t.Fatal("the hook took nothing out")
		}
	}
	e.Close()
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for i, r := range recs {
		if strings.Contains(string(r.Input), secret[4:]) || !r.Truncated && !slices.Contains(r.Masked, "toolResult") {
			t.Fatalf("record %d: the logged payload keeps the secret the hook took out, or does not say it was masked (masked %q)", i, r.Masked)
		}
		if o := r.Hooks[0].Outcome; o == nil || len(o.Redact) != 1 || strings.Contains(o.Redact[0].Text, secret[4:]) {
			t.Fatalf("record %d: the hook's outcome as logged: %+v", i, o)
		}
		if r.Decision.Action != luahook.ActionReplaceOutput {
			t.Fatalf("record %d: decision %+v", i, r.Decision)
		}
	}
	if got := string(recs[0].Decision.Outcome.Output); got != `"TOKEN=[redacted: a secret]"` {
		t.Fatalf("the small output as logged: %s", got)
	}
	if got := string(recs[1].Decision.Outcome.Output); !strings.HasPrefix(got, `"[luahook: an output of `) || len(got) > 200 {
		t.Fatalf("the large output as logged: %.300s", got)
	}
}

// approveAs is an approver that approves every call as who.
type approveAs string

func (a approveAs) Await(_ context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	return runner.ApprovalDecision{ID: "a1", Approved: true, By: string(a), At: time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC), Reason: "looks fine"}, nil
}

// A call approved on the web is recorded with who approved it and when.
func TestRecordsSayWhoApprovedACall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "10-approve.lua"), []byte(`hook.register("PreToolUse", nil, function(input)
  return hook.approve{ reason = "deploys need a person" }
end)`), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, Approver: approveAs("alice"),
		DecisionLog: engine.DecisionLog{Logger: log}})
	if err != nil {
		t.Fatal(err)
	}
	res := e.Runner().Fire(context.Background(), bash("make deploy"))
	e.Close()
	log.Close()
	if !res.Allowed() {
		t.Fatalf("the approved call: %+v", res)
	}
	recs := readRecords(t, path)
	if len(recs) != 1 || recs[0].Approval == nil {
		t.Fatalf("records %+v", recs)
	}
	if a := recs[0].Approval; a.By != "alice" || a.Verdict != runner.ApprovalApproved || !a.At.Equal(time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)) || a.Digest == "" {
		t.Fatalf("the approval as logged: %+v", a)
	}
}
