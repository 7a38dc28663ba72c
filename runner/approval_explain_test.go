package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// explain's decision line says who decided a web approval, when and why.
func TestExplainSaysWhoDecidedAWebApproval(t *testing.T) {
	res := Result{Event: luahook.PreToolUse, Verdict: luahook.VerdictAllow, Approval: &Approval{Verdict: ApprovalApproved, By: "alice",
		At: time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC), Reason: "looks fine\nmore"}}
	got := decisionInWords(res)
	if !strings.Contains(got, "web approval approved by alice at 2026-12-07T05:00:00Z: looks fine") {
		t.Fatalf("decision in words: %q", got)
	}
}
