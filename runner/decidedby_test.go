package runner

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
)

// Result.DecidedBy names the hook whose outcome or failure made the
// decision, on every path the runner decides, and nothing when no hook did.
func TestDecidedByNamesTheHookThatDecided(t *testing.T) {
	pre := func(name string, stage luahook.Stage, out *luahook.Outcome) luahook.Spec {
		return luahook.Spec{Event: luahook.PreToolUse, Name: name, Stage: stage, Hook: fixed(out)}
	}
	failing := func(name string, policy luahook.FailurePolicy) luahook.Spec {
		return luahook.Spec{Event: luahook.PreToolUse, Name: name, Stage: luahook.StageValidate, FailurePolicy: policy,
			Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, errors.New("boom") })}
	}
	prompt := func(name string, out *luahook.Outcome) luahook.Spec {
		return luahook.Spec{Event: luahook.UserPromptSubmit, Name: name, Hook: fixed(out)}
	}
	stop := func(name string, out *luahook.Outcome) luahook.Spec {
		return luahook.Spec{Event: luahook.Stop, Name: name, Hook: fixed(out)}
	}
	rewrite := func(cmd string) *luahook.Outcome {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return luahook.Mutate(b)
	}
	const V, M = luahook.StageValidate, luahook.StageMutate
	promptIn := &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi", Cwd: "/"}
	stopIn := &luahook.Input{Event: luahook.Stop, Cwd: "/"}
	cases := []struct {
		name    string
		opts    Options
		specs   []luahook.Spec
		in      *luahook.Input
		want    string
		outcome luahook.Action // the decision DecidedBy goes with ("" for none)
	}{
		{"PreToolUse: no objection", Options{}, []luahook.Spec{pre("a", V, nil), pre("b", V, luahook.Context("c"))}, nil, "", ""},
		{"PreToolUse: the deny", Options{}, []luahook.Spec{pre("a", V, luahook.Allow()), pre("no", V, luahook.Deny("no")), pre("c", V, luahook.Deny("late"))}, nil, "no", luahook.ActionDeny},
		{"PreToolUse: a deny wins over an earlier ask", Options{}, []luahook.Spec{pre("ask", M, luahook.Ask("?")), pre("no", V, luahook.Deny("no"))}, nil, "no", luahook.ActionDeny},
		{"PreToolUse: a fail-closed failure", Options{}, []luahook.Spec{pre("ask", V, luahook.Ask("?")), failing("broken", luahook.FailClosed)}, nil, "broken", luahook.ActionDeny},
		{"PreToolUse: a fail-open failure decides nothing", Options{}, []luahook.Spec{failing("broken", luahook.FailOpen)}, nil, "", ""},
		{"PreToolUse: a hook rejected before it ran", Options{MaxInputBytes: 10}, []luahook.Spec{pre("big", V, nil)}, nil, "big", luahook.ActionDeny},
		{"PreToolUse: a fail-closed validator that rewrites", Options{}, []luahook.Spec{
			{Event: luahook.PreToolUse, Name: "sneaky", Stage: V, FailurePolicy: luahook.FailClosed, Hook: fixed(rewrite("ls -a"))}}, nil, "sneaky", luahook.ActionDeny},
		{"PreToolUse: the first ask", Options{}, []luahook.Spec{pre("allow", V, luahook.Allow()), pre("first", V, luahook.Ask("a")), pre("second", V, luahook.Ask("b"))}, nil, "first", luahook.ActionAsk},
		{"PreToolUse: the first ask, in execution order", Options{}, []luahook.Spec{pre("validator", V, luahook.Ask("b")), pre("mutator", M, luahook.Ask("a"))}, nil, "mutator", luahook.ActionAsk},
		{"PreToolUse: the first explicit allow", Options{}, []luahook.Spec{pre("quiet", V, nil), pre("first", V, luahook.Allow()), pre("second", V, luahook.Allow())}, nil, "first", luahook.ActionAllow},
		{"PreToolUse: an allow over a rewrite", Options{}, []luahook.Spec{pre("rw", M, rewrite("ls -a")), pre("ok", V, luahook.Allow())}, nil, "ok", luahook.ActionMutate},
		{"PreToolUse: the last rewrite that stands", Options{}, []luahook.Spec{pre("one", M, rewrite("ls -a")), pre("two", M, rewrite("ls -al")), pre("v", V, nil)}, nil, "two", luahook.ActionMutate},
		{"PreToolUse: a rewrite back to the original decides nothing", Options{}, []luahook.Spec{pre("one", M, rewrite("ls -a")), pre("back", M, rewrite("ls"))}, nil, "", ""},
		{"PreToolUse: a rewrite that fails the schema", Options{}, []luahook.Spec{pre("good", M, rewrite("ls -a")), pre("bad", M, luahook.Mutate(json.RawMessage(`{"command":42}`)))}, nil, "bad", luahook.ActionDeny},
		{"PreToolUse: a payload refused before any hook ran", Options{}, []luahook.Spec{pre("a", V, luahook.Deny("no"))},
			&luahook.Input{Event: luahook.PreToolUse, ToolName: string(make([]byte, luahook.MaxIDBytes+1)), Cwd: "/"}, "", luahook.ActionDeny},
		{"UserPromptSubmit: the deny", Options{}, []luahook.Spec{prompt("ok", luahook.Allow()), prompt("no", luahook.Deny("no"))}, promptIn, "no", luahook.ActionDeny},
		{"UserPromptSubmit: the first explicit allow", Options{}, []luahook.Spec{prompt("quiet", nil), prompt("ok", luahook.Allow()), prompt("ok2", luahook.Allow())}, promptIn, "ok", luahook.ActionAllow},
		{"UserPromptSubmit: no objection", Options{}, []luahook.Spec{prompt("quiet", luahook.Context("c"))}, promptIn, "", ""},
		{"Stop: the first that asked to continue", Options{}, []luahook.Spec{stop("quiet", nil), stop("tests", luahook.Continue("run the tests")), stop("lint", luahook.Continue("lint"))}, stopIn, "tests", luahook.ActionContinue},
		{"Stop: no continuation", Options{}, []luahook.Spec{stop("quiet", luahook.Context("c"))}, stopIn, "", ""},
		{"SessionStart: nothing to decide", Options{}, []luahook.Spec{{Event: luahook.SessionStart, Name: "ctx", Hook: fixed(luahook.Context("c"))}},
			&luahook.Input{Event: luahook.SessionStart, Cwd: "/"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Schemas = map[string]*jsonschema.Schema{"bash": compileSchema(t, bashSchema)}
			g := newRig(t, c.opts)
			for _, s := range c.specs {
				g.add(s)
			}
			in := c.in
			if in == nil {
				in = bashInput("ls")
			}
			var res Result
			g.r.FireInto(t.Context(), in, &res) // the hot path fills it too
			if res.DecidedBy != c.want {
				t.Errorf("DecidedBy %q, want %q (result %+v)", res.DecidedBy, c.want, res)
			}
			if a := res.Outcome().Action; a != c.outcome {
				t.Errorf("outcome action %q, want %q", a, c.outcome)
			}
			if fired := g.r.Fire(t.Context(), in); fired.DecidedBy != c.want {
				t.Errorf("Fire: DecidedBy %q, want %q", fired.DecidedBy, c.want)
			}
		})
	}
}
