package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
)

// addField returns a mutator that adds key=value to the tool input and
// records the input it saw.
func addField(key, value string, saw *[]string, mu *sync.Mutex) luahook.HookFunc {
	return func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		mu.Lock()
		*saw = append(*saw, string(in.ToolInput))
		mu.Unlock()
		var m map[string]any
		if err := json.Unmarshal(in.ToolInput, &m); err != nil {
			return nil, err
		}
		m[key] = value
		b, _ := json.Marshal(m)
		return luahook.Mutate(b), nil
	}
}

func TestMutatorsRunBeforeValidatorsWhateverTheRegistrationOrder(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var calls []string
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "v1", Stage: luahook.StageValidate, Hook: recording(&mu, &calls, "v1", nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "m1", Stage: luahook.StageMutate, Hook: recording(&mu, &calls, "m1", nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "v2", Stage: luahook.StageValidate, Hook: recording(&mu, &calls, "v2", nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "m2", Stage: luahook.StageMutate, Hook: recording(&mu, &calls, "m2", nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	want := []string{"m1", "m2", "v1", "v2"}
	if !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	if got := traceNames(res); !slices.Equal(got, want) {
		t.Errorf("trace %v, want execution order %v", got, want)
	}
}

func TestMutationChainComposesLeftToRight(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var saw []string
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "A", Hook: addField("x", "1", &saw, &mu)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "B", Hook: addField("y", "2", &saw, &mu)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "V", Stage: luahook.StageValidate, Hook: addField("z", "3", &saw, &mu)})
	in := bashInput("ls")
	res := g.r.PreToolUse(t.Context(), in)
	if len(saw) != 3 || strings.Contains(saw[0], `"x"`) || !strings.Contains(saw[1], `"x":"1"`) || !strings.Contains(saw[2], `"y":"2"`) {
		t.Errorf("inputs seen along the chain: %q", saw)
	}
	var got map[string]string
	if err := json.Unmarshal(res.Input, &got); err != nil {
		t.Fatalf("Result.Input %s: %v", res.Input, err)
	}
	if want := map[string]string{"command": "ls", "x": "1", "y": "2"}; !mapsEqual(got, want) {
		t.Errorf("final input %v, want %v", got, want)
	}
	if string(in.ToolInput) != `{"command":"ls"}` {
		t.Errorf("caller's input changed to %s", in.ToolInput)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestFirstDenyEndsTheCall(t *testing.T) {
	g := newRig(t, Options{})
	var before, after, validator atomic.Int32
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "ok", Hook: counting(&before, luahook.Allow())})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "no", Hook: fixed(luahook.Deny("rm -rf is not allowed"))})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "later", Hook: counting(&after, nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "val", Stage: luahook.StageValidate, Hook: counting(&validator, nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("rm -rf /"))
	if !res.Denied() || res.Reason != "rm -rf is not allowed" {
		t.Fatalf("denied=%v reason %q", res.Denied(), res.Reason)
	}
	if before.Load() != 1 || after.Load() != 0 || validator.Load() != 0 {
		t.Errorf("calls before=%d after=%d validator=%d; want 1, 0, 0", before.Load(), after.Load(), validator.Load())
	}
	if len(res.Trace) != 4 || res.Trace[2].Skipped != SkipNotReached || res.Trace[3].Skipped != SkipNotReached {
		t.Errorf("trace %+v, want the last two not reached", res.Trace)
	}
	if got := res.Outcome(); got.Action != luahook.ActionDeny || got.Input != nil {
		t.Errorf("outcome %+v", got)
	}
}

func TestValidatorMutationIgnoredWhenOpenDeniedWhenClosed(t *testing.T) {
	for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
		t.Run(string(policy), func(t *testing.T) {
			g := newRig(t, Options{})
			var later atomic.Int32
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Stage: luahook.StageValidate, FailurePolicy: policy,
				Hook: fixed(luahook.Mutate(json.RawMessage(`{"command":"rm -rf /"}`)))})
			g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "after", Stage: luahook.StageValidate, Hook: counting(&later, nil)})
			res := g.r.PreToolUse(t.Context(), bashInput("ls"))
			msg := `PreToolUse validator "guard" attempted to mutate tool arguments`
			if _, ok := g.log.find(msg); !ok {
				t.Errorf("no warning %q in %q", msg, g.log.messages())
			}
			if res.Input != nil {
				t.Errorf("validator's mutation applied: %s", res.Input)
			}
			if policy == luahook.FailOpen {
				if res.Denied() || res.Trace[0].Skipped != SkipValidatorMutation || later.Load() != 1 {
					t.Errorf("open: denied=%v skipped=%q later=%d", res.Denied(), res.Trace[0].Skipped, later.Load())
				}
				return
			}
			if !res.Denied() || res.Reason != msg || later.Load() != 0 {
				t.Errorf("closed: denied=%v reason %q later=%d", res.Denied(), res.Reason, later.Load())
			}
		})
	}
}

func TestPreToolUseCollectsContextFromEveryOutcome(t *testing.T) {
	cases := []struct {
		name     string
		outcomes []*luahook.Outcome
		context  string
		as       luahook.ContextAs
		denied   bool
	}{
		{"none", []*luahook.Outcome{nil, luahook.Allow()}, "", "", false},
		{"inline by default", []*luahook.Outcome{luahook.Context("a"), {Action: luahook.ActionAllow, AdditionalContext: "b"}}, "a\nb", luahook.ContextInline, false},
		{"separate wins", []*luahook.Outcome{
			{AdditionalContext: "a", ContextAs: luahook.ContextInline},
			{ContextAs: luahook.ContextSeparate},
			{AdditionalContext: "c", ContextAs: luahook.ContextInline},
		}, "a\nc", luahook.ContextSeparate, false},
		{"the denier's own context is kept", []*luahook.Outcome{
			luahook.Context("a"),
			{Action: luahook.ActionDeny, Reason: "no", AdditionalContext: "why"},
		}, "a\nwhy", luahook.ContextInline, true},
		{"mutation's context", []*luahook.Outcome{
			{Action: luahook.ActionMutate, Input: json.RawMessage(`{"command":"ls -la"}`), AdditionalContext: "rewrote", ContextAs: luahook.ContextSeparate},
		}, "rewrote", luahook.ContextSeparate, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			for _, o := range c.outcomes {
				g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(o)})
			}
			res := g.r.PreToolUse(t.Context(), bashInput("ls"))
			if res.AdditionalContext != c.context || res.ContextAs != c.as || res.Denied() != c.denied {
				t.Errorf("context %q as %q denied %v; want %q %q %v", res.AdditionalContext, res.ContextAs, res.Denied(), c.context, c.as, c.denied)
			}
		})
	}
}

func TestResultInputOnlyWhenTheValueChanged(t *testing.T) {
	cases := []struct {
		name, rewrite string
		changed       bool
	}{
		{"same bytes", `{"command":"ls","timeout":1}`, false},
		{"same value, other spelling", "{ \"timeout\": 1,\n \"command\": \"ls\" }", false},
		{"changed value", `{"command":"ls -la","timeout":1}`, true},
		{"added key", `{"command":"ls","timeout":1,"x":null}`, true},
		{"number spelled differently counts as a change", `{"command":"ls","timeout":1.0}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(luahook.Mutate(json.RawMessage(c.rewrite)))})
			in := bashInput("")
			in.ToolInput = json.RawMessage(`{"command":"ls","timeout":1}`)
			res := g.r.PreToolUse(t.Context(), in)
			if c.changed && string(res.Input) != c.rewrite {
				t.Errorf("Result.Input %s, want %s", res.Input, c.rewrite)
			}
			if !c.changed && res.Input != nil {
				t.Errorf("Result.Input %s for an equal value, want nil", res.Input)
			}
			wantAction := luahook.Action("") // no objection
			if c.changed {
				wantAction = luahook.ActionMutate
			}
			if a := res.Outcome().Action; a != wantAction {
				t.Errorf("outcome action %q, want %q", a, wantAction)
			}
		})
	}
}

func compileSchema(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("bash.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("bash.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const bashSchema = `{
	"type": "object",
	"required": ["command"],
	"properties": {
		"command": {"type": "string"},
		"timeout": {"type": "integer", "maximum": 600},
		"env": {"type": "object", "additionalProperties": {"type": "string"}}
	}
}`

func TestRewrittenInputIsRevalidatedAgainstTheToolSchema(t *testing.T) {
	cases := []struct {
		name, rewrite string
		schemas       bool
		reason        string
	}{
		{"invalid rewrite lists each error with its path", `{"command":42,"timeout":9000}`, true,
			"A PreToolUse hook rewrote the arguments for \"bash\" into an invalid shape.\n\nValidation errors:\n" +
				"  - /command: got number, want string\n" +
				"  - /timeout: maximum: got 9,000, want 600"},
		{"nested path and root error", `{"env":{"A":1}}`, true,
			"A PreToolUse hook rewrote the arguments for \"bash\" into an invalid shape.\n\nValidation errors:\n" +
				"  - /env/A: got number, want string\n" +
				"  - input: missing property 'command'"},
		{"valid rewrite passes", `{"command":"ls -la","timeout":30}`, true, ""},
		{"no schema for the tool", `{"command":42}`, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, Options{})
			if c.schemas {
				g.r.SetSchemas(map[string]*jsonschema.Schema{"Bash": compileSchema(t, bashSchema)})
			}
			g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(luahook.Mutate(json.RawMessage(c.rewrite)))})
			res := g.r.PreToolUse(t.Context(), bashInput("ls"))
			if c.reason == "" {
				if res.Denied() || string(res.Input) != c.rewrite {
					t.Errorf("denied=%v reason %q input %s; want the rewrite accepted", res.Denied(), res.Reason, res.Input)
				}
				return
			}
			if !res.Denied() || res.Input != nil {
				t.Fatalf("denied=%v input %s; want a denial", res.Denied(), res.Input)
			}
			if res.Reason != c.reason {
				t.Errorf("reason:\n%s\nwant:\n%s", res.Reason, c.reason)
			}
		})
	}
}

func TestUnchangedInputIsNotRevalidated(t *testing.T) {
	g := newRig(t, Options{Schemas: map[string]*jsonschema.Schema{"bash": compileSchema(t, bashSchema)}})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(luahook.Allow())})
	in := bashInput("")
	in.ToolInput = json.RawMessage(`{"timeout":"bad"}`) // the host already validated what the model sent
	if res := g.r.PreToolUse(t.Context(), in); res.Denied() {
		t.Errorf("unchanged input re-validated: %q", res.Reason)
	}
}

func TestPreToolUseMatchesOnToolName(t *testing.T) {
	g := newRig(t, Options{})
	var bash, edit, all atomic.Int32
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "Bash | exec", Hook: counting(&bash, nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "edit|write", Hook: counting(&edit, nil)})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Matcher: "*", Hook: counting(&all, nil)})
	res := g.r.PreToolUse(t.Context(), bashInput("ls"))
	if bash.Load() != 1 || edit.Load() != 0 || all.Load() != 1 || len(res.Trace) != 2 {
		t.Errorf("bash=%d edit=%d all=%d trace=%d; want 1 0 1 2", bash.Load(), edit.Load(), all.Load(), len(res.Trace))
	}
	in := bashInput("ls")
	in.ToolName = "grep"
	if res := g.r.PreToolUse(t.Context(), in); len(res.Trace) != 1 {
		t.Errorf("grep ran %v", traceNames(res))
	}
}
