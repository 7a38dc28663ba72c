package runner

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

// The cap on a hook's payload (formerly engine's cappedHook, for command and
// HTTP hooks, and luabind's, for Lua hooks) is the runner's, for every hook.
func TestRunnerRefusesOverCapInputBeforeTheHookRuns(t *testing.T) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolInput: json.RawMessage(`{"command":"0123456789"}`)}
	var calls atomic.Int32
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "capped", Hook: counting(&calls, nil)})
	tests := []struct {
		name  string
		limit int
		ran   bool
	}{
		{"under the cap", 1 << 10, true},
		{"over the cap", 10, false},
		{"no cap", -1, true},
		{"the default cap", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g.r.SetMaxInputBytes(tt.limit)
			before := calls.Load()
			res := g.r.PreToolUse(context.Background(), in)
			if ran := calls.Load() > before; ran != tt.ran {
				t.Errorf("the hook ran: %v, want %v", ran, tt.ran)
			}
			f := res.Trace[0].Failure
			if !tt.ran && (f == nil || f.Kind != luahook.FailRejected || f.Message != "the payload is 34 bytes, over the cap of 10 bytes on hook input (max_input_bytes)") {
				t.Errorf("failure %v, want a rejection naming max_input_bytes", f)
			}
			if !tt.ran && (!res.Denied() || !strings.Contains(res.Reason, "luahook could not decide")) {
				t.Errorf("result %+v, want the call denied: no hook could judge it", res)
			}
		})
	}
}

func TestTheInputCapFollowsARewrittenToolInput(t *testing.T) {
	var calls atomic.Int32
	g := newRig(t, Options{MaxInputBytes: 64})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "grow", Stage: luahook.StageMutate,
		Hook: fixed(luahook.Mutate(json.RawMessage(`{"command":"` + strings.Repeat("x", 100) + `"}`)))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "check", Stage: luahook.StageValidate, Hook: counting(&calls, nil)})
	res := g.r.PreToolUse(context.Background(), bashInput("ls"))
	if calls.Load() != 0 {
		t.Error("the validator was called with the rewritten, over-cap input")
	}
	if f := res.Trace[1].Failure; f == nil || f.Kind != luahook.FailRejected || !strings.Contains(f.Message, "max_input_bytes") {
		t.Errorf("validator failure %v, want rejected over max_input_bytes", f)
	}
	if !res.Denied() {
		t.Errorf("result %+v, want denied", res)
	}
}

// A nil payload is the caller's mistake: the runner refuses it before any
// hook runs, whatever the event method and the hooks' transports, and
// denies when the event can block or is unknown.
func TestANilPayloadIsRefusedBeforeAnyHookRuns(t *testing.T) {
	var calls atomic.Int32
	g := newRig(t, Options{})
	for _, ev := range luahook.Events() {
		g.add(luahook.Spec{Event: ev, Name: "h-" + string(ev), Hook: counting(&calls, nil)})
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		fire   func() Result
		denied bool
	}{
		{"Fire", func() Result { return g.r.Fire(ctx, nil) }, true},
		{"FireInto", func() Result { var res Result; g.r.FireInto(ctx, nil, &res); return res }, true},
		{"PreToolUse", func() Result { return g.r.PreToolUse(ctx, nil) }, true},
		{"UserPromptSubmit", func() Result { return g.r.UserPromptSubmit(ctx, nil) }, true},
		{"Observe", func() Result { return g.r.Observe(ctx, nil) }, true},
		{"PostToolUse", func() Result { return g.r.PostToolUse(ctx, nil) }, false},
		{"SessionStart", func() Result { return g.r.SessionStart(ctx, nil) }, false},
		{"Stop", func() Result { return g.r.Stop(ctx, nil) }, false},
		{"ToolSkipped", func() Result { return g.r.ToolSkipped(ctx, nil, "denied") }, false},
	} {
		res := tc.fire()
		if res.Denied() != tc.denied || (tc.denied && !strings.Contains(res.Reason, "refused before any hook ran: no payload (nil input)")) {
			t.Errorf("%s(nil): denied %v, reason %q; want denied %v naming the nil payload", tc.name, res.Denied(), res.Reason, tc.denied)
		}
		if len(res.Trace) != 0 {
			t.Errorf("%s(nil): trace %+v, want none", tc.name, res.Trace)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("hooks were called %d times with a nil payload", n)
	}
}
