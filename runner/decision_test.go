package runner

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

// outcomeJSON is json.Marshal of res.Outcome(): what plain fire prints.
func outcomeJSON(t *testing.T, res Result) string {
	t.Helper()
	b, err := json.Marshal(res.Outcome())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPreToolUseDenyWinsOverAskAndAskOverAllow(t *testing.T) {
	mutator := func(o *luahook.Outcome) luahook.Spec {
		return luahook.Spec{Event: luahook.PreToolUse, Stage: luahook.StageMutate, Hook: fixed(o)}
	}
	validator := func(o *luahook.Outcome) luahook.Spec {
		return luahook.Spec{Event: luahook.PreToolUse, Stage: luahook.StageValidate, Hook: fixed(o)}
	}
	cases := []struct {
		name                   string
		specs                  []luahook.Spec
		denied, asked, allowed bool
		reason, outcome        string
	}{
		{"no objection from every hook", []luahook.Spec{validator(nil), validator(nil)},
			false, false, false, "", `{}`},
		{"an explicit allow", []luahook.Spec{validator(nil), validator(luahook.Allow())},
			false, false, true, "", `{"action":"allow"}`},
		{"an ask wins over an allow", []luahook.Spec{validator(luahook.Allow()), validator(luahook.Ask("force push?"))},
			false, true, false, "force push?", `{"action":"ask","reason":"force push?"}`},
		{"a later validator's deny wins over a mutator's ask", []luahook.Spec{mutator(luahook.Ask("sure?")), validator(luahook.Deny("no"))},
			true, false, false, "no", `{"action":"deny","reason":"no"}`},
		{"a later deny wins over an earlier validator's ask", []luahook.Spec{validator(luahook.Ask("sure?")), validator(luahook.Deny("no"))},
			true, false, false, "no", `{"action":"deny","reason":"no"}`},
		{"asks join their reasons in execution order", []luahook.Spec{validator(luahook.Ask("b")), mutator(luahook.Ask("a"))},
			false, true, false, "a\nb", `{"action":"ask","reason":"a\nb"}`},
		{"an ask keeps the context", []luahook.Spec{validator(&luahook.Outcome{Action: luahook.ActionAsk, Reason: "r", AdditionalContext: "c"})},
			false, true, false, "r", `{"action":"ask","reason":"r","additionalContext":"c","contextAs":"inline"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			for _, s := range c.specs {
				g.add(s)
			}
			res := g.r.PreToolUse(t.Context(), bashInput("ls"))
			if res.Denied() != c.denied || res.Asked() != c.asked || res.Allowed() != c.allowed || res.Reason != c.reason {
				t.Errorf("denied=%v asked=%v allowed=%v reason=%q; want %v %v %v %q",
					res.Denied(), res.Asked(), res.Allowed(), res.Reason, c.denied, c.asked, c.allowed, c.reason)
			}
			if got := outcomeJSON(t, res); got != c.outcome {
				t.Errorf("outcome %s, want %s", got, c.outcome)
			}
		})
	}
}

func TestPreToolUseAskEndsNothing(t *testing.T) {
	g := newRig(t, Options{})
	var later, validator atomic.Int32
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "asker", Hook: fixed(luahook.Ask("sure?"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "rewrite", Hook: fixed(luahook.Mutate(json.RawMessage(`{"command":"ls -a"}`)))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "later", Hook: counting(&later, nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "val", Stage: luahook.StageValidate, Hook: counting(&validator, nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	if later.Load() != 1 || validator.Load() != 1 {
		t.Errorf("calls later=%d validator=%d after an ask; want 1, 1", later.Load(), validator.Load())
	}
	for _, tr := range res.Trace {
		if tr.Skipped != "" {
			t.Errorf("%s skipped: %s", tr.Name, tr.Skipped)
		}
	}
	// The rewrite chain goes on after the ask: the user is asked about the
	// rewritten call.
	if want := `{"action":"ask","reason":"sure?","input":{"command":"ls -a"}}`; outcomeJSON(t, res) != want {
		t.Errorf("outcome %s, want %s", outcomeJSON(t, res), want)
	}
	if err := res.Outcome().Validate(); err != nil {
		t.Errorf("the rendered ask is not a valid outcome: %v", err)
	}
}

func TestPreToolUseAskWithInputIsARewrite(t *testing.T) {
	ask := &luahook.Outcome{Action: luahook.ActionAsk, Reason: "r", Input: json.RawMessage(`{"command":"ls -a"}`)}
	t.Run("from a mutator", func(t *testing.T) {
		g := newRig(t, Options{})
		var saw []string
		g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(ask)})
		g.add(luahook.Spec{Event: luahook.PreToolUse, Stage: luahook.StageValidate, Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			saw = append(saw, string(in.ToolInput))
			return nil, nil
		})})
		res := g.r.PreToolUse(t.Context(), bashInput("ls"))
		if !res.Asked() || string(res.Input) != `{"command":"ls -a"}` || len(saw) != 1 || saw[0] != `{"command":"ls -a"}` {
			t.Errorf("asked=%v input=%s validator saw %q", res.Asked(), res.Input, saw)
		}
	})
	t.Run("from a validator, ignored as its mutate would be", func(t *testing.T) {
		g := newRig(t, Options{})
		g.add(luahook.Spec{Event: luahook.PreToolUse, Stage: luahook.StageValidate, Hook: fixed(ask)})
		res := g.r.PreToolUse(t.Context(), bashInput("ls"))
		if !res.Asked() || res.Input != nil || res.Trace[0].Skipped != SkipValidatorMutation {
			t.Errorf("asked=%v input=%s skipped=%q", res.Asked(), res.Input, res.Trace[0].Skipped)
		}
	})
}

func TestAFailClosedFailureWinsOverAnAsk(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "asker", Hook: fixed(luahook.Ask("sure?"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "broken", FailurePolicy: luahook.FailClosed,
		Hook: fixed(&luahook.Outcome{Action: luahook.ActionDeny})})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	if !res.Denied() || res.Asked() || !strings.Contains(res.Reason, `"broken"`) {
		t.Errorf("denied=%v asked=%v reason=%q; want the fail-closed denial", res.Denied(), res.Asked(), res.Reason)
	}
}

func TestUserPromptSubmitRecordsAnExplicitAllow(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: fixed(luahook.Allow())})
	in := &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi", Cwd: "/"}
	if res := g.r.UserPromptSubmit(t.Context(), in); !res.Allowed() || res.Denied() {
		t.Errorf("allowed=%v denied=%v, want an explicit allow", res.Allowed(), res.Denied())
	}
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: fixed(luahook.Deny("no"))})
	if res := g.r.UserPromptSubmit(t.Context(), in); res.Allowed() || !res.Denied() {
		t.Errorf("allowed=%v denied=%v, want the deny to win", res.Allowed(), res.Denied())
	}
}

func TestStopGathersContinuationsInRegistrationOrder(t *testing.T) {
	g := newRig(t, Options{})
	stop := &luahook.Input{Event: luahook.Stop, Cwd: "/"}
	if res := g.r.Stop(t.Context(), stop); res.Continues() || outcomeJSON(t, res) != `{}` {
		t.Errorf("no hooks: continue=%v outcome %s", res.Continues(), outcomeJSON(t, res))
	}
	g.add(luahook.Spec{Event: luahook.Stop, Name: "ctx", Hook: fixed(luahook.Context("c"))})
	if res := g.r.Stop(t.Context(), stop); res.Continues() || outcomeJSON(t, res) != `{}` {
		t.Errorf("context only: continue=%v outcome %s", res.Continues(), outcomeJSON(t, res))
	}
	g.add(luahook.Spec{Event: luahook.Stop, Name: "tests", Hook: fixed(luahook.Continue("run the tests"))})
	g.add(luahook.Spec{Event: luahook.Stop, Name: "none", Hook: fixed(nil)})
	g.add(luahook.Spec{Event: luahook.Stop, Name: "lint", Hook: fixed(luahook.Continue("fix the lint"))})
	g.add(luahook.Spec{Event: luahook.Stop, Name: "broken", FailurePolicy: luahook.FailClosed, Hook: fixed(&luahook.Outcome{Action: luahook.ActionContinue})})
	res := g.r.Fire(t.Context(), stop)
	if !res.Continues() || res.Reason != "run the tests\nfix the lint" || res.Denied() {
		t.Errorf("continue=%v reason=%q denied=%v", res.Continues(), res.Reason, res.Denied())
	}
	if want := `{"action":"continue","reason":"run the tests\nfix the lint"}`; outcomeJSON(t, res) != want {
		t.Errorf("outcome %s, want %s", outcomeJSON(t, res), want)
	}
	if f := res.Trace[4].Failure; f == nil || f.Kind != luahook.FailInvalidOutput {
		t.Errorf("a continue without reason: failure %v, want invalid_output", f)
	}
}

func TestAskAndContinueOnOtherEventsAreInvalidOutput(t *testing.T) {
	cases := []struct {
		in   *luahook.Input
		out  *luahook.Outcome
		want string
	}{
		{&luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "p", Cwd: "/"}, luahook.Ask("sure?"),
			`action "ask" does not apply to UserPromptSubmit (UserPromptSubmit accepts allow, deny or mutate)`},
		{&luahook.Input{Event: luahook.Stop, Cwd: "/"}, luahook.Ask("sure?"), `action "ask" does not apply to Stop`},
		{bashInput("ls"), luahook.Continue("go on"), `action "continue" does not apply to PreToolUse`},
		{&luahook.Input{Event: luahook.SessionStart, Cwd: "/"}, luahook.Continue("go on"), `action "continue" does not apply to SessionStart`},
		{&luahook.Input{Event: luahook.SubagentStop, Cwd: "/", Subagent: &luahook.Subagent{Target: "x"}}, luahook.Continue("go on"),
			`action "continue" does not apply to SubagentStop`},
	}
	for _, c := range cases {
		t.Run(string(c.in.Event)+"/"+string(c.out.Action), func(t *testing.T) {
			for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
				g := newRig(t, Options{})
				g.add(luahook.Spec{Event: c.in.Event, Name: "h", FailurePolicy: policy, Hook: fixed(c.out)})
				res := g.r.Fire(t.Context(), c.in)
				f := res.Trace[0].Failure
				if f == nil || f.Kind != luahook.FailInvalidOutput || !strings.Contains(f.Message, c.want) {
					t.Fatalf("%s: failure %v, want invalid_output %q", policy, f, c.want)
				}
				if res.Asked() || res.Continues() {
					t.Errorf("%s: asked=%v continue=%v", policy, res.Asked(), res.Continues())
				}
				if want := c.in.Event.CanBlock() && policy == luahook.FailClosed; res.Denied() != want {
					t.Errorf("%s: denied=%v, want %v", policy, res.Denied(), want)
				}
			}
		})
	}
}
