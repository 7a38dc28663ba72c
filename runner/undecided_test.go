package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

// TestRejectedHooksDenyBlockingEventsWhateverTheirPolicy: a hook refused
// before it ran (an over-cap payload, an overloaded pool) judged nothing, so
// on an event that can block luahook cannot decide and denies, fail-open or
// not, naming the hook and the cause; on other events it is logged and
// skipped.
func TestRejectedHooksDenyBlockingEventsWhateverTheirPolicy(t *testing.T) {
	rejected := luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return nil, luahook.Failf(luahook.FailRejected, "no Lua state became free within 1s; luahook is overloaded")
	})
	for _, ev := range luahook.Events() {
		for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
			t.Run(string(ev)+"/"+string(policy), func(t *testing.T) {
				g := newRig(t, Options{})
				var after atomic.Int32
				g.add(luahook.Spec{Event: ev, Name: "secrets-guard", FailurePolicy: policy, Hook: rejected})
				g.add(luahook.Spec{Event: ev, Name: "after", Hook: counting(&after, nil)})
				res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`), SessionID: "s"})
				if !canBlock(ev) {
					if res.Denied() {
						t.Errorf("%s denied: %q", ev, res.Reason)
					}
					if _, ok := g.log.find(`hook "secrets-guard" failed (rejected)`); !ok {
						t.Errorf("logs %q, want the rejection", g.log.messages())
					}
					return
				}
				want := string(ev) + ` hook "secrets-guard" could not run (rejected: no Lua state became free within 1s; luahook is overloaded); the action was denied because luahook could not decide`
				if !res.Denied() || res.Reason != want {
					t.Errorf("denied %v, reason %q; want %q", res.Denied(), res.Reason, want)
				}
				if after.Load() != 0 {
					t.Error("a hook after the rejected one ran")
				}
			})
		}
	}
}

// TestPayloadsOverAnIdentifierLimitRunNoHook: a payload whose identifiers
// are over their limits (luahook.Input.CheckLimits) runs no hook; on an event
// that can block it is denied, naming the field and the limit, on the others
// the refusal is logged.
func TestPayloadsOverAnIdentifierLimitRunNoHook(t *testing.T) {
	for _, ev := range luahook.Events() {
		for _, tc := range []struct {
			name    string
			session string
			runs    bool
		}{
			{"at the limit", strings.Repeat("s", luahook.MaxIDBytes), true},
			{"one past", strings.Repeat("s", luahook.MaxIDBytes+1), false},
		} {
			t.Run(string(ev)+"/"+tc.name, func(t *testing.T) {
				g := newRig(t, Options{})
				var n atomic.Int32
				g.add(luahook.Spec{Event: ev, Name: "h", Hook: counting(&n, nil)})
				res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`), SessionID: tc.session})
				if ran := n.Load() == 1; ran != tc.runs {
					t.Fatalf("the hook ran: %v, want %v (result %+v)", ran, tc.runs, res)
				}
				if tc.runs {
					if res.Denied() {
						t.Errorf("denied: %q", res.Reason)
					}
					return
				}
				const want = "sessionId is 257 bytes, over the limit of 256"
				if canBlock(ev) {
					if !res.Denied() || !strings.Contains(res.Reason, want) {
						t.Errorf("denied %v, reason %q; want a denial saying %q", res.Denied(), res.Reason, want)
					}
				} else if _, ok := g.log.find(want); !ok || res.Denied() {
					t.Errorf("denied %v, logs %q; want the refusal logged", res.Denied(), g.log.messages())
				}
			})
		}
	}
}
