package runner

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook"
)

func promptInput(prompt string) *luahook.Input {
	return &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: prompt, SessionID: "s1"}
}

// failing returns a Go hook that fails with err.
func failing(msg string) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, errors.New(msg) }
}

func TestAShadowDenyNeverDenies(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   *luahook.Input
		hook luahook.Hook
		fp   luahook.FailurePolicy
	}{
		{"PreToolUse deny", bashInput("rm -rf /"), fixed(luahook.Deny("no")), ""},
		{"PreToolUse fail-closed failure", bashInput("ls"), failing("boom"), luahook.FailClosed},
		{"UserPromptSubmit deny", promptInput("hi"), fixed(luahook.Deny("no")), ""},
		{"UserPromptSubmit fail-closed failure", promptInput("hi"), failing("boom"), luahook.FailClosed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: tt.in.Event, Name: "shadow", Mode: luahook.ModeShadow, FailurePolicy: tt.fp, Hook: tt.hook})
			res := g.r.Fire(t.Context(), tt.in)
			if res.Denied() || res.Reason != "" {
				t.Fatalf("denied: %+v", res)
			}
			if len(res.Trace) != 1 || res.Trace[0].Mode != luahook.ModeShadow {
				t.Fatalf("trace %+v, want the shadow hook's entry marked shadow", res.Trace)
			}
			if tr := res.Trace[0]; tr.Failure == nil && (tr.Outcome == nil || tr.Outcome.Action != luahook.ActionDeny) {
				t.Errorf("trace lost the shadow outcome: %+v", tr)
			}
			if got := res.Outcome().Action; got != "" {
				t.Errorf("outcome action %q, want none: a shadow hook decides nothing", got)
			}
		})
	}
}

func TestAShadowHookRejectedBeforeItRanNeverDenies(t *testing.T) {
	g := newRig(t, Options{MaxInputBytes: 10})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "shadow", Mode: luahook.ModeShadow, Hook: fixed(nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("a long enough command line"))
	if res.Denied() {
		t.Fatalf("denied: %s", res.Reason)
	}
	if f := res.Trace[0].Failure; f == nil || f.Kind != luahook.FailRejected {
		t.Fatalf("trace %+v, want the shadow hook rejected", res.Trace[0])
	}
	if st := g.r.ShadowStats(); st.Hooks["shadow"] != (ShadowCount{Disagree: 1}) {
		t.Errorf("stats %+v: a rejected hook would have denied, so it disagrees with allow", st)
	}
}

func TestShadowOutcomesChangeNothingOnAnyEvent(t *testing.T) {
	ctxOut := &luahook.Outcome{AdditionalContext: "shadow says"}
	for _, tt := range []struct {
		name string
		in   *luahook.Input
		out  *luahook.Outcome
	}{
		{"PreToolUse ask", bashInput("ls"), luahook.Ask("sure?")},
		{"PreToolUse allow", bashInput("ls"), &luahook.Outcome{Action: luahook.ActionAllow}},
		{"PreToolUse mutate", bashInput("ls"), luahook.Mutate(json.RawMessage(`{"command":"rm"}`))},
		{"PreToolUse context", bashInput("ls"), ctxOut},
		{"UserPromptSubmit allow", promptInput("hi"), &luahook.Outcome{Action: luahook.ActionAllow}},
		{"UserPromptSubmit context", promptInput("hi"), ctxOut},
		{"Stop continue", &luahook.Input{Event: luahook.Stop}, &luahook.Outcome{Action: luahook.ActionContinue, Reason: "go on"}},
		{"SessionStart context", &luahook.Input{Event: luahook.SessionStart}, ctxOut},
		{"PostToolUse context", &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", ToolResult: &luahook.ToolResult{Content: "x"}}, ctxOut},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: tt.in.Event, Name: "shadow", Mode: luahook.ModeShadow, Hook: fixed(tt.out)})
			res := g.r.Fire(t.Context(), tt.in)
			want := Result{Event: tt.in.Event}
			res.Trace = nil
			if !equalResults(res, want) {
				t.Errorf("result %+v, want %+v", res, want)
			}
		})
	}
}

func equalResults(a, b Result) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestShadowHooksRunAfterTheLiveHooksOnTheFinalInput(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var calls, saw []string
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "shadow-m", Mode: luahook.ModeShadow,
		Hook: addField("s", "1", &saw, &mu)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "shadow-v", Mode: luahook.ModeShadow, Stage: luahook.StageValidate,
		Hook: recording(&mu, &calls, "shadow-v", luahook.Deny("no"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "live-m", Hook: addField("x", "1", &saw, &mu)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "live-v", Stage: luahook.StageValidate,
		Hook: recording(&mu, &calls, "live-v", nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	if want := []string{"live-m", "live-v", "shadow-m", "shadow-v"}; !slices.Equal(traceNames(res), want) {
		t.Errorf("trace %v, want %v", traceNames(res), want)
	}
	if len(saw) != 2 || !strings.Contains(saw[1], `"x":"1"`) {
		t.Errorf("inputs seen %q: the shadow mutator must see the live hooks' final input", saw)
	}
	if res.Denied() || string(res.Input) != `{"command":"ls","x":"1"}` {
		t.Errorf("result %+v: the shadow rewrite or deny leaked into it", res)
	}
}

func TestShadowHooksRunAfterALiveDeny(t *testing.T) {
	for _, in := range []*luahook.Input{bashInput("ls"), promptInput("hi")} {
		t.Run(string(in.Event), func(t *testing.T) {
			g := newRig(t, Options{})
			var mu sync.Mutex
			var calls []string
			g.add(luahook.Spec{Event: in.Event, Name: "shadow", Mode: luahook.ModeShadow, Hook: recording(&mu, &calls, "shadow", nil)})
			g.add(luahook.Spec{Event: in.Event, Name: "live", Hook: fixed(luahook.Deny("live says no"))})
			g.add(luahook.Spec{Event: in.Event, Name: "later", Hook: recording(&mu, &calls, "later", nil)})
			res := g.r.Fire(t.Context(), in)
			if !res.Denied() || res.Reason != "live says no" {
				t.Fatalf("result %+v, want the live deny", res)
			}
			if !slices.Equal(calls, []string{"shadow"}) {
				t.Errorf("calls %v: the shadow hook runs after a live deny, the later live hook does not", calls)
			}
			if want := []string{"live", "later", "shadow"}; !slices.Equal(traceNames(res), want) {
				t.Errorf("trace %v, want %v", traceNames(res), want)
			}
			if st := g.r.ShadowStats(); st.Hooks["shadow"] != (ShadowCount{Disagree: 1}) {
				t.Errorf("stats %+v, want one disagreement", st)
			}
		})
	}
}

func TestShadowAgreementIsCounted(t *testing.T) {
	deny, ask, allow := luahook.Deny("no"), luahook.Ask("sure?"), &luahook.Outcome{Action: luahook.ActionAllow}
	cont := &luahook.Outcome{Action: luahook.ActionContinue, Reason: "go on"}
	mutate := luahook.Mutate(json.RawMessage(`{"command":"ls -l"}`))
	same := luahook.Mutate(json.RawMessage(`{"command":"ls"}`))
	for _, tt := range []struct {
		name         string
		event        luahook.Event
		live, shadow luahook.Hook
		stage        luahook.Stage
		fp           luahook.FailurePolicy
		agree        bool
	}{
		{"deny vs deny", luahook.PreToolUse, fixed(deny), fixed(deny), "", "", true},
		{"deny vs allow", luahook.PreToolUse, fixed(deny), fixed(allow), "", "", false},
		// An explicit allow approves (several agents then skip their own
		// prompt); no objection does not: a shadow that allows disagrees.
		{"no objection vs explicit allow", luahook.PreToolUse, fixed(nil), fixed(allow), "", "", false},
		{"no objection vs no objection", luahook.PreToolUse, fixed(nil), fixed(nil), "", "", true},
		{"ask vs ask", luahook.PreToolUse, fixed(ask), fixed(ask), "", "", true},
		{"ask vs deny", luahook.PreToolUse, fixed(ask), fixed(deny), "", "", false},
		{"mutate vs mutate", luahook.PreToolUse, fixed(mutate), fixed(mutate), "", "", true},
		{"allow vs rewrite to the same input", luahook.PreToolUse, fixed(nil), fixed(same), "", "", true},
		{"allow vs mutate", luahook.PreToolUse, fixed(nil), fixed(mutate), "", "", false},
		{"allow vs validator mutate, fail-open", luahook.PreToolUse, fixed(nil), fixed(mutate), luahook.StageValidate, "", true},
		{"allow vs validator mutate, fail-closed", luahook.PreToolUse, fixed(nil), fixed(mutate), luahook.StageValidate, luahook.FailClosed, false},
		{"allow vs fail-open failure", luahook.PreToolUse, fixed(nil), failing("x"), "", "", true},
		{"deny vs fail-closed failure", luahook.PreToolUse, fixed(deny), failing("x"), "", luahook.FailClosed, true},
		{"allow vs fail-closed failure", luahook.PreToolUse, fixed(nil), failing("x"), "", luahook.FailClosed, false},
		{"prompt: block vs block", luahook.UserPromptSubmit, fixed(deny), fixed(deny), "", "", true},
		{"prompt: pass vs block", luahook.UserPromptSubmit, fixed(nil), fixed(deny), "", "", false},
		{"prompt: pass vs allow", luahook.UserPromptSubmit, fixed(nil), fixed(allow), "", "", false},
		{"prompt: block vs fail-closed failure", luahook.UserPromptSubmit, fixed(deny), failing("x"), "", luahook.FailClosed, true},
		{"Stop: stop vs continue", luahook.Stop, fixed(nil), fixed(cont), "", "", false},
		{"Stop: continue vs continue", luahook.Stop, fixed(cont), fixed(cont), "", "", true},
		{"Stop: stop vs fail-closed failure", luahook.Stop, fixed(nil), failing("x"), "", luahook.FailClosed, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: tt.event, Name: "live", Hook: tt.live})
			g.add(luahook.Spec{Event: tt.event, Name: "shadow", Mode: luahook.ModeShadow, Stage: tt.stage, FailurePolicy: tt.fp, Hook: tt.shadow})
			in := bashInput("ls")
			in.Event = tt.event
			res := g.r.Fire(t.Context(), in)
			want := ShadowCount{Disagree: 1}
			if tt.agree {
				want = ShadowCount{Agree: 1}
			}
			if got := g.r.ShadowStats().Hooks["shadow"]; got != want {
				t.Errorf("counted %+v, want %+v (live decision %q)", got, want, res.Action())
			}
			_, logged := g.log.find("disagrees with the live decision")
			if logged == tt.agree {
				t.Errorf("disagreement logged: %v, want %v", logged, !tt.agree)
			}
		})
	}
}

func TestEventsThatDecideNothingCountNoShadowVerdict(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.SessionStart, Name: "shadow", Mode: luahook.ModeShadow, Hook: fixed(&luahook.Outcome{AdditionalContext: "x"})})
	g.r.Fire(t.Context(), &luahook.Input{Event: luahook.SessionStart})
	if st := g.r.ShadowStats(); len(st.Hooks) != 0 {
		t.Errorf("stats %+v, want none", st)
	}
}

func TestShadowStatsDropHooksNoLongerRegistered(t *testing.T) {
	g := newRig(t, Options{})
	unregister, err := g.reg.Register(luahook.Spec{Event: luahook.PreToolUse, Name: "old", Mode: luahook.ModeShadow, Hook: fixed(nil)})
	if err != nil {
		t.Fatal(err)
	}
	g.r.PreToolUse(t.Context(), bashInput("ls"))
	if st := g.r.ShadowStats(); st.Hooks["old"] != (ShadowCount{Agree: 1}) {
		t.Fatalf("stats %+v", st)
	}
	unregister()
	if st := g.r.ShadowStats(); len(st.Hooks) != 0 {
		t.Errorf("stats %+v after the hook went, want none", st)
	}
}

func TestShadowCountersAreBounded(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "kept", Mode: luahook.ModeShadow, Hook: fixed(nil)})
	for i := range MaxShadowCounters {
		g.r.countShadow("gone-"+string(rune('a'+i%26))+strings.Repeat("x", i/26), true)
	}
	g.r.PreToolUse(t.Context(), bashInput("ls")) // finds the table full of unregistered names
	st := g.r.ShadowStats()
	if st.Hooks["kept"] != (ShadowCount{Agree: 1}) || len(st.Hooks) != 1 || st.Uncounted != 0 {
		t.Errorf("stats %+v, want only kept, counted", st)
	}
	if n := len(g.r.shadow.m); n > MaxShadowCounters {
		t.Errorf("%d counters, over %d", n, MaxShadowCounters)
	}
}

func TestABackgroundShadowHooksContextIsNotBuffered(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Mode: luahook.ModeShadow, Background: true,
		Hook: fixed(&luahook.Outcome{AdditionalContext: "from the shadow"})})
	post := &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", SessionID: "s1", ToolResult: &luahook.ToolResult{Content: "x"}}
	g.r.Fire(t.Context(), post)
	g.waitBackground()
	if res := g.r.Fire(t.Context(), promptInput("next")); res.AdditionalContext != "" {
		t.Errorf("context %q reached the next turn", res.AdditionalContext)
	}
}

func TestAShadowHooksTraceLineIsMarked(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "live", Hook: fixed(nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "shadow", Mode: luahook.ModeShadow, Hook: fixed(luahook.Deny("would block"))})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	var b strings.Builder
	if err := res.RenderTrace(&b, TraceOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "[shadow]") || !strings.HasSuffix(lines[1], "[shadow] deny: would block") {
		t.Errorf("trace:\n%s", b.String())
	}
}
