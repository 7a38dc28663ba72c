package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// Explain lists every hook of the event in run order, joins what each did
// from the real call, says why the others did not match, and carries the
// call's Result with the hook that decided.
func TestExplainJoinsTheCallWithEveryHookInRunOrder(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "late-validator", Stage: luahook.StageValidate, Matcher: "bash", Hook: fixed(nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "rewrite", Matcher: "bash", Hook: fixed(luahook.Mutate(json.RawMessage(`{"command":"git push -f"}`)))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "python-only", Stage: luahook.StageValidate, Matcher: "python|py", Hook: fixed(luahook.Deny("x"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "no-force", Stage: luahook.StageValidate, Matcher: "Bash(git push -f*)", Hook: fixed(luahook.Deny("no force push"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "after", Stage: luahook.StageValidate, Hook: fixed(nil)})
	g.add(luahook.Spec{Event: luahook.Stop, Name: "other-event", Hook: fixed(nil)})

	x := g.r.Explain(t.Context(), bashInput("git status"))
	type row struct {
		name    string
		matched bool
		why     string
		did     string // the trace's status, "" without a trace
	}
	want := []row{
		{"rewrite", true, `tool name "bash" is in the list bash`, `mutate: {"command":"git push -f"}`},
		{"late-validator", true, `tool name "bash" is in the list bash`, "no objection"},
		{"python-only", false, `tool name "bash" is not in the list python|py`, ""},
		{"no-force", true, `on the input as rewritten by the mutate stage: tool name "bash" is Bash; toolInput.command "git push -f" matches`, "deny: no force push"},
		{"after", true, "every payload", "skipped: " + SkipNotReached},
	}
	if len(x.Hooks) != len(want) {
		t.Fatalf("%d hooks explained, want %d (the PreToolUse ones): %+v", len(x.Hooks), len(want), x.Hooks)
	}
	for i, w := range want {
		h := x.Hooks[i]
		did := ""
		if h.Trace != nil {
			did = h.Trace.status(false)
		}
		if h.Name != w.name || h.Order != i+1 || h.Matched != w.matched || !strings.Contains(h.Why, w.why) || did != w.did {
			t.Errorf("hook %d: %s #%d matched=%v why=%q did=%q; want %s matched=%v why~%q did=%q",
				i+1, h.Name, h.Order, h.Matched, h.Why, did, w.name, w.matched, w.why, w.did)
		}
		if h.Decided != (w.name == "no-force") {
			t.Errorf("%s: decided=%v", h.Name, h.Decided)
		}
	}
	if !x.Result.Denied() || x.Result.DecidedBy != "no-force" || x.Result.Reason != "no force push" {
		t.Errorf("result %+v, want the deny of no-force", x.Result)
	}
}

func TestExplainSaysWhichHooksArePolicyGated(t *testing.T) {
	g := newRig(t, Options{PolicyOnly: true})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "plain", Hook: fixed(luahook.Deny("plain"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "policy", Policy: true, Hook: fixed(luahook.Allow())})
	x := g.r.Explain(t.Context(), bashInput("ls"))
	if !x.PolicyOnly || len(x.Hooks) != 2 {
		t.Fatalf("policyOnly=%v hooks=%d", x.PolicyOnly, len(x.Hooks))
	}
	plain, policy := x.Hooks[0], x.Hooks[1]
	if !plain.Gated || plain.Trace == nil || plain.Trace.Skipped != SkipPolicyOnly {
		t.Errorf("plain: gated=%v trace=%+v, want gated and skipped policy-only", plain.Gated, plain.Trace)
	}
	if policy.Gated || policy.Trace == nil || policy.Trace.Outcome == nil || !policy.Decided {
		t.Errorf("policy: gated=%v trace=%+v decided=%v, want it run and deciding", policy.Gated, policy.Trace, policy.Decided)
	}
	if x.Result.Denied() || !x.Result.Allowed() || x.Result.DecidedBy != "policy" {
		t.Errorf("result %+v", x.Result)
	}
	var b strings.Builder
	if err := x.Render(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"(policy-only: only hooks marked policy run)", "gated        --no-hooks", `decided by: "policy"`} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("rendered explanation lacks %q:\n%s", s, b.String())
		}
	}
}

func TestExplainNamesTheFailingHookThatDenied(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "ok", Hook: fixed(luahook.Allow())})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "broken", Source: "hooks.d/b.lua:3", FailurePolicy: luahook.FailClosed,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, errors.New("boom") })})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "later", Hook: fixed(nil)})
	x := g.r.Explain(t.Context(), &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi", Cwd: "/"})
	if x.Key != "" || !x.Hooks[1].Decided || x.Hooks[1].Trace.Failure == nil || x.Hooks[2].Trace.Skipped != SkipNotReached {
		t.Fatalf("hooks %+v", x.Hooks)
	}
	var b strings.Builder
	if err := x.Render(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"UserPromptSubmit: 3 hooks in run order", "  2. broken (go, hooks.d/b.lua:3)",
		"failed (error): boom  <- decided", "skipped      " + SkipNotReached,
		`decision: deny: UserPromptSubmit policy hook "broken" failed (error)`, `decided by: "broken" (hooks.d/b.lua:3)`} {
		if !strings.Contains(out, s) {
			t.Errorf("rendered explanation lacks %q:\n%s", s, out)
		}
	}
}

func TestExplainOfARefusedPayloadRunsNothing(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "a", Hook: fixed(luahook.Allow())})
	in := bashInput("ls")
	in.SessionID = strings.Repeat("s", luahook.MaxIDBytes+1)
	x := g.r.Explain(t.Context(), in)
	if h := x.Hooks[0]; !h.Matched || h.NotRun != NotRunRefused || h.Trace != nil {
		t.Errorf("hook %+v, want matched and not run (refused)", h)
	}
	if !x.Result.Denied() || x.Result.DecidedBy != "" {
		t.Errorf("result %+v, want a denial no hook decided", x.Result)
	}
	if x := g.r.Explain(t.Context(), nil); !x.Result.Denied() || len(x.Hooks) != 0 {
		t.Errorf("nil payload: %+v", x)
	}
}

// The JSON of an explanation keeps its field names: tools read them.
func TestExplanationJSONFieldNames(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "no", Matcher: "bash", Source: "x.lua:1", Hook: fixed(luahook.Deny("no"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "py", Matcher: "python", Hook: fixed(nil)})
	b, err := json.Marshal(g.r.Explain(t.Context(), bashInput("ls")))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Event string `json:"event"`
		Key   string `json:"key"`
		Hooks []struct {
			Order   int             `json:"order"`
			ID      string          `json:"id"`
			Name    string          `json:"name"`
			Source  string          `json:"source"`
			Kind    string          `json:"kind"`
			Matcher string          `json:"matcher"`
			Matched bool            `json:"matched"`
			Why     string          `json:"why"`
			Decided bool            `json:"decided"`
			Trace   json.RawMessage `json:"trace"`
		} `json:"hooks"`
		Result struct {
			Denied    bool            `json:"denied"`
			DecidedBy string          `json:"decidedBy"`
			Outcome   json.RawMessage `json:"outcome"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Event != "PreToolUse" || got.Key != "bash" || len(got.Hooks) != 2 || got.Hooks[0].Order != 1 ||
		got.Hooks[0].Matcher != "names bash" || !got.Hooks[0].Decided || got.Hooks[0].Trace == nil || got.Hooks[1].Trace != nil ||
		got.Hooks[1].Matched || got.Result.DecidedBy != "no" || string(got.Result.Outcome) != `{"action":"deny","reason":"no"}` {
		t.Errorf("JSON %s", b)
	}
}

// A Tool(pattern) hook is judged on the input as rewritten when its turn
// came, as the runner judges it.
func TestExplainJudgesToolPatternsOnTheRewrittenInput(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "unforce", Hook: fixed(luahook.Mutate(json.RawMessage(`{"command":"git push"}`)))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "no-force", Stage: luahook.StageValidate, Matcher: "Bash(git push -f*)", Hook: fixed(luahook.Deny("no"))})
	x := g.r.Explain(t.Context(), bashInput("git push -f"))
	h := x.Hooks[1]
	if h.Matched || h.Trace != nil || !strings.Contains(h.Why, `on the input as rewritten by the mutate stage: tool name "bash" is Bash; toolInput.command "git push" does not match`) {
		t.Errorf("no-force: matched=%v why=%q trace=%v", h.Matched, h.Why, h.Trace)
	}
	if x.Result.Denied() || x.Result.DecidedBy != "unforce" || !x.Hooks[0].Decided {
		t.Errorf("result %+v, want the rewrite of unforce", x.Result)
	}
}
