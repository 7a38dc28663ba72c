package replay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/runner"
)

func replaced(output string) decisionlog.Decision {
	o := luahook.ReplaceOutput(json.RawMessage(output))
	return decisionlog.Decision{Action: o.Action, Outcome: o}
}

func TestReplayComparesTheOutputTheModelReads(t *testing.T) {
	if c := Compare(replaced(`"a [redacted: x]"`), replaced(`"a [redacted: x]"`), false); len(c) != 0 {
		t.Fatalf("same output: changes %v", c)
	}
	if c := Compare(replaced(`{"a":1,"b":2}`), replaced(`{"b":2,"a":1}`), false); len(c) != 0 {
		t.Fatalf("the same value written in another order: changes %v", c)
	}
	if c := Compare(replaced(`"a [redacted: x]"`), replaced(`"a secret"`), false); !slices.Equal(c, []string{ChangedOutput}) {
		t.Fatalf("another output: changes %v, want [output]", c)
	}
	big := json.RawMessage(`"` + strings.Repeat("y", decisionlog.MaxLoggedOutputBytes) + `"`)
	logged := replaced(string(decisionlog.LoggedOutput(big)))
	if c := Compare(logged, replaced(string(big)), false); len(c) != 0 {
		t.Fatalf("a large output logged as its digest, decided the same: changes %v", c)
	}
	other := json.RawMessage(`"` + strings.Repeat("z", decisionlog.MaxLoggedOutputBytes) + `"`)
	if c := Compare(logged, replaced(string(other)), false); !slices.Equal(c, []string{ChangedOutput}) {
		t.Fatalf("a large output logged as its digest, decided otherwise: changes %v", c)
	}
}

// decideAs is an approver that answers every call as who, approving or not.
type decideAs struct {
	who     string
	approve bool
}

func (d decideAs) Await(_ context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	return runner.ApprovalDecision{ID: "x1", Approved: d.approve, By: d.who, At: time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC),
		Reason: "checked"}, nil
}

const approvals = `
hook.register("PreToolUse", "bash", function(input)
  if (input.toolInput.command or ""):find("^deploy") then return hook.approve{ reason = "deploys need a person" } end
end, { name = "deploys" })
`

// A call a person decided on the web replays as that person decided it,
// asking no one; a call the policy now routes to a person, with no
// approval logged for it, is denied: a change.
func TestReplayTakesTheLoggedApproval(t *testing.T) {
	deploy := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"deploy prod"},"sessionId":"s1","cwd":"/w"}`
	deployStage := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"deploy stage"},"sessionId":"s1","cwd":"/w"}`
	r := newRig(t, approvals)
	r.eng.Runner().SetApprover(decideAs{"alice", true})
	log := r.logOf(deploy)
	r.eng.Runner().SetApprover(decideAs{"bob", false})
	log = append(log, r.logOf(deployStage)...)
	r.write(approvals) // a fresh engine, no approver: a replay asks no one
	got, sum := replayAll(t, r, log, Options{})
	if sum.Changed != 0 || len(got) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if a := got[0].Result.Approval; !got[0].Result.Allowed() || a == nil || a.By != "alice" {
		t.Fatalf("the approved call replayed as %+v (approval %+v)", got[0].Result, a)
	}
	if a := got[1].Result.Approval; !got[1].Result.Denied() || a == nil || a.By != "bob" {
		t.Fatalf("the denied call replayed as %+v (approval %+v)", got[1].Result, a)
	}
	if r.eng.Runner().Approver() != nil {
		t.Fatal("the replay left its approver on the runner")
	}
	// a log from before the policy asked: no approval logged
	old := newRig(t, "")
	plain := old.logOf(deploy)
	got, sum = replayAll(t, r, plain, Options{})
	if sum.Changed != 1 || !got[0].Result.Denied() || !strings.Contains(got[0].Result.Reason, "a replay asks no one") {
		t.Fatalf("a call the policy now routes to a person: %+v, summary %+v", got[0].Result, sum)
	}
}
