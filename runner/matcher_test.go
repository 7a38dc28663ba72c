package runner

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

// TestToolPatternJudgedOnTheInputAsRewritten: a Tool(pattern) hook on
// PreToolUse is selected on the input as the mutate-stage hooks before it
// left it, so a rewrite can neither slip a command past a validator that
// matches it nor run one for a command that is gone.
func TestToolPatternJudgedOnTheInputAsRewritten(t *testing.T) {
	cases := []struct {
		name, command, rewrite string
		wantGuard              bool
	}{
		{"rewritten into a match", "git status", `{"command":"git push --force"}`, true},
		{"rewritten out of a match", "git push", `{"command":"git status"}`, false},
		{"matching, not rewritten", "git push origin", "", true},
		{"not matching, not rewritten", "ls", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			var guard, other atomic.Int32
			var rewrite *luahook.Outcome
			if c.rewrite != "" {
				rewrite = luahook.Mutate(json.RawMessage(c.rewrite))
			}
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "rewrite", Matcher: "bash", Hook: fixed(rewrite)})
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Matcher: "bash(git push:*)", Stage: luahook.StageValidate,
				Hook: counting(&guard, luahook.Deny("no pushing"))})
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "other", Matcher: "Edit(src/**)", Hook: counting(&other, nil)})
			res := g.r.PreToolUse(t.Context(), bashInput(c.command))
			if got := guard.Load() == 1; got != c.wantGuard || res.Denied() != c.wantGuard {
				t.Errorf("guard ran %v, denied %v; want %v", got, res.Denied(), c.wantGuard)
			}
			if other.Load() != 0 {
				t.Error("a hook for another tool ran")
			}
			if n := len(res.Trace); n != 1+int(guard.Load()) {
				t.Errorf("trace %+v", res.Trace)
			}
		})
	}
}

// TestToolPatternOnlyHooksThatDoNotMatchLeaveNoTrace: when the tool matches
// only Tool(pattern) hooks and none of their arguments, nothing runs and the
// result is the empty one.
func TestToolPatternOnlyHooksThatDoNotMatchLeaveNoTrace(t *testing.T) {
	g := newRig(t, Options{})
	var n atomic.Int32
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "Bash(git push:*)", Hook: counting(&n, nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	if n.Load() != 0 || res.Trace != nil || res.Denied() {
		t.Fatalf("ran %d, result %+v", n.Load(), res)
	}
	res = g.r.PostToolUse(t.Context(), bashInput("git push"))
	if n.Load() != 0 {
		t.Fatal("a PreToolUse hook ran on PostToolUse")
	}
}
