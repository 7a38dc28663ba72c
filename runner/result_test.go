package runner

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

func TestOutcomeJSONShapePerEvent(t *testing.T) {
	cases := []struct {
		name string
		res  Result
		want string
	}{
		{"PreToolUse no objection", Result{Event: luahook.PreToolUse}, `{}`},
		{"PreToolUse explicit allow", Result{Event: luahook.PreToolUse, Verdict: luahook.VerdictAllow}, `{"action":"allow"}`},
		{"UserPromptSubmit explicit allow", Result{Event: luahook.UserPromptSubmit, Verdict: luahook.VerdictAllow}, `{"action":"allow"}`},
		{"PreToolUse deny", Result{Event: luahook.PreToolUse, Verdict: luahook.VerdictDeny, Reason: "no", Input: json.RawMessage(`{"a":1}`)}, `{"action":"deny","reason":"no"}`},
		{"PreToolUse mutate", Result{Event: luahook.PreToolUse, Input: json.RawMessage(`{"command":"ls"}`)}, `{"action":"mutate","input":{"command":"ls"}}`},
		{"PreToolUse mutate with context", Result{Event: luahook.PreToolUse, Input: json.RawMessage(`{"x":1}`), AdditionalContext: "c", ContextAs: luahook.ContextSeparate},
			`{"action":"mutate","input":{"x":1},"additionalContext":"c","contextAs":"separate"}`},
		{"PreToolUse context, no objection", Result{Event: luahook.PreToolUse, AdditionalContext: "c", ContextAs: luahook.ContextInline},
			`{"additionalContext":"c","contextAs":"inline"}`},
		{"UserPromptSubmit blocked", Result{Event: luahook.UserPromptSubmit, Verdict: luahook.VerdictDeny, Reason: "r"}, `{"action":"deny","reason":"r"}`},
		{"UserPromptSubmit context", Result{Event: luahook.UserPromptSubmit, AdditionalContext: "c", ContextAs: luahook.ContextSeparate}, `{"additionalContext":"c"}`},
		{"UserPromptSubmit nothing", Result{Event: luahook.UserPromptSubmit}, `{}`},
		{"PostToolUse context", Result{Event: luahook.PostToolUse, AdditionalContext: "c", ContextAs: luahook.ContextInline}, `{"additionalContext":"c","contextAs":"inline"}`},
		{"PostToolUse nothing", Result{Event: luahook.PostToolUse}, `{}`},
		{"SessionStart context", Result{Event: luahook.SessionStart, AdditionalContext: "c", ContextAs: luahook.ContextSeparate}, `{"additionalContext":"c","contextAs":"separate"}`},
		{"Stop", Result{Event: luahook.Stop, AdditionalContext: "c", ContextAs: luahook.ContextInline}, `{}`},
		{"Notification", Result{Event: luahook.Notification, AdditionalContext: "c"}, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.res.Outcome())
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Errorf("got  %s\nwant %s", b, c.want)
			}
		})
	}
}

func TestReasonsAreCutTo2000Characters(t *testing.T) {
	long := strings.Repeat("é", 3000)
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.UserPromptSubmit} {
		t.Run(string(ev), func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: ev, Hook: fixed(luahook.Deny(long))})
			res := g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`)})
			if n := utf8.RuneCountInString(res.Reason); !res.Denied() || n != luahook.MaxReasonChars {
				t.Errorf("reason has %d characters, want %d", n, luahook.MaxReasonChars)
			}
			if res.Trace[0].Outcome.Reason != long {
				t.Error("the trace should keep the outcome as returned")
			}
		})
	}
	t.Run("fail-closed with a long name", func(t *testing.T) {
		g := newRig(t, Options{})
		g.add(luahook.Spec{Event: luahook.PreToolUse, Name: long, FailurePolicy: luahook.FailClosed, Hook: fixed(&luahook.Outcome{Action: "block"})})
		res := g.r.PreToolUse(t.Context(), bashInput("ls"))
		if n := utf8.RuneCountInString(res.Reason); !res.Denied() || n != luahook.MaxReasonChars {
			t.Errorf("reason has %d characters", n)
		}
	})
}
