package parity

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// TestNormalisers holds each door's normaliser to its documented mapping
// on answers written by hand, in each door's exact shapes.
func TestNormalisers(t *testing.T) {
	none := verdict{kind: kindNone}
	allow := verdict{kind: kindAllow}
	deny := func(r string) verdict { return verdict{kind: kindDeny, reason: r} }
	ask := func(r string) verdict { return verdict{kind: kindAsk, reason: r} }
	mutate := func(in string) verdict { return verdict{kind: kindMutate, input: in} }
	errorV := verdict{kind: kindError}
	output := func(text, reason string) verdict { return verdict{kind: kindOutput, output: text, reason: reason} }
	// A rewritten output with the outcome luahook's runner renders for it,
	// and the same as the Go host's result.
	chain := luahook.NewOutputChain("token ghp_x", 0)
	if err := chain.Apply(context.Background(), &luahook.Outcome{Action: luahook.ActionRedact,
		Redact: []luahook.Redaction{{Text: "ghp_x", Label: "a token"}}}, chain.Content()); err != nil {
		t.Fatal(err)
	}
	redacted, err := chain.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	valueChain := luahook.NewOutputChain("old", 0)
	if err := valueChain.Apply(context.Background(), luahook.ReplaceOutput(json.RawMessage(`{"stdout":"new","stderr":""}`)), "old"); err != nil {
		t.Fatal(err)
	}
	replaced, err := valueChain.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		normalise func(answer) verdict
		a         answer
		want      verdict
	}{
		// luahook fire
		{"fire deny", normalisePlainFire, answer{exit: 2, stdout: `{"action":"deny","reason":"no"}` + "\n", stderr: "no\n"}, deny("no")},
		{"fire exit 2, no JSON", normalisePlainFire, answer{exit: 2, stderr: "blocked\n"}, deny("blocked")},
		{"fire ask", normalisePlainFire, answer{exit: 0, stdout: `{"action":"ask","reason":"sure?"}`}, ask("sure?")},
		{"fire ask about a rewrite", normalisePlainFire, answer{exit: 0, stdout: `{"action":"ask","reason":"sure?","input":{"b":1,"a":2}}`},
			verdict{kind: kindAsk, reason: "sure?", input: `{"a":2,"b":1}`}},
		{"fire mutate", normalisePlainFire, answer{exit: 0, stdout: `{"action":"mutate","input":{"command":"x"}}`}, mutate(`{"command":"x"}`)},
		{"fire allow", normalisePlainFire, answer{exit: 0, stdout: `{"action":"allow"}`}, allow},
		{"fire context alone", normalisePlainFire, answer{exit: 0, stdout: `{"additionalContext":"c","contextAs":"inline"}`}, none},
		{"fire empty outcome", normalisePlainFire, answer{exit: 0, stdout: "{}\n"}, none},
		{"fire bad usage", normalisePlainFire, answer{exit: 1, stderr: "Error: unknown event\n"}, verdict{kind: kindError, reason: "Error: unknown event"}},
		{"fire exit 0, no JSON", normalisePlainFire, answer{exit: 0, stdout: "hello"}, errorV},
		{"fire replace_output, a text", normalisePlainFire, answer{exit: 0, stdout: `{"action":"replace_output","reason":"took out a token","output":"token [redacted: a token]"}`},
			output("token [redacted: a token]", "took out a token")},
		{"fire replace_output, a shell's result", normalisePlainFire, answer{exit: 0, stdout: `{"action":"replace_output","output":{"stdout":"new","stderr":"warn"}}`},
			output("new\nwarn", "")},
		{"fire replace_output, any other value", normalisePlainFire, answer{exit: 0, stdout: `{"action":"replace_output","output":{"b":1,"a":[2]}}`},
			output(`{"a":[2],"b":1}`, "")},
		{"fire replace_output without output", normalisePlainFire, answer{exit: 0, stdout: `{"action":"replace_output","reason":"r"}`}, errorV},
		{"fire output, exit 2", normalisePlainFire, answer{exit: 2, stdout: `{"action":"replace_output","output":"x"}`, stderr: "broken\n"}, deny("broken")},
		{"fire not run", normalisePlainFire, answer{exit: -1, failed: "exec: not found"}, verdict{kind: kindError, reason: "exec: not found"}},

		// POST /
		{"POST / allow", normalisePlainHTTP, answer{exit: -1, status: 200, stdout: `{"action":"allow"}`}, allow},
		{"POST / deny", normalisePlainHTTP, answer{exit: -1, status: 200, stdout: `{"action":"deny","reason":"no"}`}, deny("no")},
		{"POST / none", normalisePlainHTTP, answer{exit: -1, status: 200, stdout: `{}`}, none},
		{"POST / 400", normalisePlainHTTP, answer{exit: -1, status: 400, stdout: `{"error":"payload: duplicate key"}`},
			verdict{kind: kindError, reason: "HTTP 400: payload: duplicate key"}},
		{"POST / 413 not JSON", normalisePlainHTTP, answer{exit: -1, status: 413, stdout: "too large"}, verdict{kind: kindError, reason: "HTTP 413: too large"}},
		{"POST / overloaded", normalisePlainHTTP, answer{exit: -1, status: 429, stdout: `{"action":"deny","reason":"busy","error":"busy"}`}, deny("busy")},
		{"POST / replace_output", normalisePlainHTTP, answer{exit: -1, status: 200, stdout: `{"action":"replace_output","reason":"r","output":"x"}`}, output("x", "r")},
		{"POST / not reached", normalisePlainHTTP, answer{exit: -1, failed: "connection refused"}, verdict{kind: kindError, reason: "connection refused"}},

		// luahook fire --agent claude, luahook-fire --agent claude
		{"claude nothing", normaliseClaudeCommand, answer{exit: 0}, none},
		{"claude {}", normaliseClaudeCommand, answer{exit: 0, stdout: "{}"}, none},
		{"claude allow", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`}, allow},
		{"claude deny", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`}, deny("no")},
		{"claude ask", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`}, ask("sure?")},
		{"claude ask about a rewrite", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?","updatedInput":{"command":"x"}}}`},
			verdict{kind: kindAsk, reason: "sure?", input: `{"command":"x"}`}},
		{"claude rewrite", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"luahook rewrote this call","updatedInput":{"command":"x"}}}`}, mutate(`{"command":"x"}`)},
		{"claude rewrite + allow", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"x"}}}`}, mutate(`{"command":"x"}`)},
		{"claude context alone", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"}}`}, none},
		{"claude block", normaliseClaudeCommand, answer{exit: 2,
			stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"broken"}}`, stderr: "broken\n"}, deny("broken")},
		{"claude block, unknown event", normaliseClaudeCommand, answer{exit: 2, stdout: `{"decision":"block","reason":"broken"}`, stderr: "broken\n"}, deny("broken")},
		{"claude top-level block, exit 0", normaliseClaudeCommand, answer{exit: 0, stdout: `{"decision":"block","reason":"r"}`}, deny("r")},
		{"claude output, Bash's shape", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":{"interrupted":false,"isImage":false,"stderr":"","stdout":"token [redacted: a token]"},"additionalContext":"took out a token"}}`},
			output("token [redacted: a token]", "took out a token")},
		{"claude output, Bash's shape with stderr", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":{"stdout":"out","stderr":"err"}}}`}, output("out\nerr", "")},
		{"claude output, a string", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":"plain text","additionalContext":"c"}}`}, output("plain text", "c")},
		{"claude output, a file's result", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":{"type":"text","file":{"content":"x","filePath":"/a"}}}}`}, output(`{"file":{"content":"x","filePath":"/a"},"type":"text"}`, "")},
		{"claude MCP output, content blocks", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedMCPToolOutput":[{"type":"text","text":"one"},{"type":"image","data":"AA=="},{"type":"text","text":"two"}],"additionalContext":"c"}}`},
			output("one\ntwo", "c")},
		{"claude MCP output, a CallToolResult", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedMCPToolOutput":{"content":[{"type":"text","text":"one"}],"isError":false}}}`}, output("one", "")},
		{"claude output context alone", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"additionalContext":"luahook changed this tool output"}}`}, none},
		{"claude both outputs", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":"a","updatedMCPToolOutput":"b"}}`}, errorV},
		{"claude output with a decision", normaliseClaudeCommand, answer{exit: 0, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"permissionDecision":"allow","updatedToolOutput":"a"}}`}, errorV},
		{"claude exit 1", normaliseClaudeCommand, answer{exit: 1, stderr: "Error: --agent: unknown\n"}, verdict{kind: kindError, reason: "exit 1: Error: --agent: unknown"}},
		{"claude stdout not JSON", normaliseClaudeCommand, answer{exit: 0, stdout: "oops"}, verdict{kind: kindError, reason: "stdout is not JSON: oops"}},

		// POST /agent/claude
		{"claude HTTP none", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "0", stdout: "{}\n"}, none},
		{"claude HTTP deny", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "0",
			stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`}, deny("no")},
		{"claude HTTP block", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "2", stdout: `{"decision":"block","reason":"unread"}`}, deny("unread")},
		{"claude HTTP exit 2, empty body", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "2", stdout: "{}"}, verdict{kind: kindDeny}},
		{"claude HTTP rewrite", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "0",
			stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"luahook rewrote this call","updatedInput":{"command":"x"}}}`}, mutate(`{"command":"x"}`)},
		{"claude HTTP output", normaliseClaudeHTTP, answer{exit: -1, status: 200, exitHdr: "0", stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
			`"updatedToolOutput":{"stdout":"x","stderr":""},"additionalContext":"c"}}`}, output("x", "c")},
		{"claude HTTP 404", normaliseClaudeHTTP, answer{exit: -1, status: 404, stdout: `{"error":"no agent"}`}, verdict{kind: kindError, reason: `HTTP 404: {"error":"no agent"}`}},

		// Go host
		{"go none", normaliseGoHost, answer{exit: -1, result: &engine.Result{}}, none},
		{"go allow", normaliseGoHost, answer{exit: -1, result: &engine.Result{Verdict: luahook.VerdictAllow}}, allow},
		{"go deny", normaliseGoHost, answer{exit: -1, result: &engine.Result{Verdict: luahook.VerdictDeny, Reason: "no"}}, deny("no")},
		{"go ask", normaliseGoHost, answer{exit: -1, result: &engine.Result{Verdict: luahook.VerdictAsk, Reason: "sure?"}}, ask("sure?")},
		{"go mutate", normaliseGoHost, answer{exit: -1, result: &engine.Result{Input: json.RawMessage(`{ "command" : "x" }`)}}, mutate(`{"command":"x"}`)},
		{"go mutate + allow", normaliseGoHost, answer{exit: -1, result: &engine.Result{Verdict: luahook.VerdictAllow, Input: json.RawMessage(`{"command":"x"}`)}}, mutate(`{"command":"x"}`)},
		{"go output, redacted", normaliseGoHost, answer{exit: -1, result: &engine.Result{Event: luahook.PostToolUse, Output: redacted}},
			output("token [redacted: a token]", redacted.Summary())},
		{"go output, a value", normaliseGoHost, answer{exit: -1, result: &engine.Result{Event: luahook.PostToolUse, Output: replaced}},
			output("new", replaced.Summary())},
		{"go error", normaliseGoHost, answer{exit: -1, failed: "payload: duplicate key"}, verdict{kind: kindError, reason: "payload: duplicate key"}},
	}
	for _, tt := range tests {
		got := tt.normalise(tt.a)
		want := tt.want
		if tt.want == errorV {
			// Only the kind is held: the reason is whatever the door said.
			got.reason = ""
		}
		if got != want {
			t.Errorf("%s: %s\n  normalised to %s\n  want         %s", tt.name, tt.a, got, want)
		}
	}
}

// TestVerdictsCompareKindAndRewrite holds sameAs to what the door table
// compares: kind and rewrite, never the wording of a reason.
func TestVerdictsCompareKindAndRewrite(t *testing.T) {
	a := verdict{kind: kindDeny, reason: "one wording"}
	if !a.sameAs(verdict{kind: kindDeny, reason: "another"}) {
		t.Error("two denials with different reasons differ")
	}
	if a.sameAs(verdict{kind: kindError, reason: "one wording"}) {
		t.Error("a deny and an error are the same")
	}
	m := verdict{kind: kindMutate, input: `{"command":"a"}`}
	if m.sameAs(verdict{kind: kindMutate, input: `{"command":"b"}`}) {
		t.Error("two different rewrites are the same")
	}
	o := verdict{kind: kindOutput, output: "[redacted: a token]", reason: "one summary"}
	if !o.sameAs(verdict{kind: kindOutput, output: "[redacted: a token]", reason: "another"}) {
		t.Error("two outputs with the same text and different reasons differ")
	}
	if o.sameAs(verdict{kind: kindOutput, output: "ghp_x"}) {
		t.Error("two outputs with different texts are the same")
	}
}

// TestCheckNamesEveryFault holds the checker to the rule: a disagreement
// between doors and each door off the fixture's verdict are reported, a
// record-only fixture is held to nothing.
func TestCheckNamesEveryFault(t *testing.T) {
	fire, post, gohost := doors[0], doors[2], doors[5]
	fx := fixture{name: "broken file", want: kindDeny, reason: "20-broken.lua"}
	results := []result{
		{door: fire, got: verdict{kind: kindDeny, reason: "policy file 20-broken.lua is broken"}},
		{door: post, got: verdict{kind: kindAllow}},
		{door: gohost, got: verdict{kind: kindDeny, reason: "something else"}},
	}
	got := strings.Join(check(fx, results), "\n")
	for _, want := range []string{
		"(a) doors disagree: deny <- fire, Go host | allow <- serve POST /",
		"(b) serve POST /: allow, want deny",
		`(b) Go host: deny, but its reason "something else" does not name "20-broken.lua"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check does not report %q; it reported:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(b) fire") {
		t.Errorf("check reports the door that is right:\n%s", got)
	}

	mutate := fixture{want: kindMutate, input: `{"command":"b"}`}
	if p := doorProblem(mutate, result{door: fire, got: verdict{kind: kindMutate, input: `{"command":"a"}`}}); p == "" {
		t.Error("another rewrite is not reported")
	}
	out := fixture{want: kindOutput, output: "[redacted: a token]", reason: "a token"}
	if p := doorProblem(out, result{door: fire, got: verdict{kind: kindOutput, output: "ghp_x", reason: "took out a token"}}); p == "" {
		t.Error("another output is not reported")
	}
	if p := doorProblem(out, result{door: fire, got: verdict{kind: kindOutput, output: "[redacted: a token]"}}); p == "" {
		t.Error("an output whose reason does not say what was taken out is not reported")
	}
	if p := doorProblem(out, result{door: fire, got: verdict{kind: kindOutput, output: "[redacted: a token]", reason: "took out a token"}}); p != "" {
		t.Errorf("the fixture's output is reported: %s", p)
	}
	record := fixture{name: "unknown event"}
	if p := check(record, results); p != nil {
		t.Errorf("a record-only fixture is held: %q", p)
	}
}
