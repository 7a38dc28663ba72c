package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// TestDecodeRefusesWhatAProxyCouldReadDifferently: every adapter refuses a
// payload that is not one JSON object, or that holds a key twice in any
// object (escapes resolved), naming the key's path.
func TestDecodeRefusesWhatAProxyCouldReadDifferently(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"empty", ``, "empty payload"},
		{"array", `[{"hook_event_name":"PreToolUse"}]`, "want a JSON object"},
		{"string", `"PreToolUse"`, "want a JSON object"},
		{"truncated", `{"hook_event_name":"PreToolUse"`, "invalid JSON"},
		{"two objects", `{"hook_event_name":"PreToolUse"} {}`, "invalid JSON"},
		{"top-level duplicate", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash"}`, "tool_name: duplicate key"},
		{"escaped duplicate", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_n\u0061me":"Bash"}`, "tool_name: duplicate key"},
		{"nested duplicate", `{"hook_event_name":"PreToolUse","tool_input":{"edits":[{},{"path":"a","path":"b"}]}}`, "tool_input.edits[1].path: duplicate key"},
		{"duplicate in a large object", `{"hook_event_name":"PreToolUse","tool_input":{` + manyKeys(40) + `,"k7":0}}`, "tool_input.k7: duplicate key"},
	} {
		for _, a := range adapters {
			_, err := a.Decode([]byte(c.data), "")
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: got %v, want a DecodeError with %q", a.Name(), c.name, err, c.want)
			}
		}
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + string(rune('0'+i/10)) + string(rune('0'+i%10)) + `":1`)
	}
	return strings.ReplaceAll(b.String(), `"k07"`, `"k7"`)
}

// TestDecodeRefusesWrongTypes: a field luahook reads that has the wrong
// JSON type is an error naming it, not an empty value that every policy lets
// through.
func TestDecodeRefusesWrongTypes(t *testing.T) {
	for _, c := range []struct {
		a         Adapter
		data, ev  string
		wantInErr string
	}{
		{claudeAdapter{}, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}`, "", "tool_input must be an object"},
		{claudeAdapter{}, `{"hook_event_name":"PreToolUse","tool_name":7}`, "", "tool_name must be a string"},
		{claudeAdapter{}, `{"hook_event_name":1}`, "", "hook_event_name must be a string"},
		{cursorAdapter{}, `{"hook_event_name":"beforeMCPExecution","tool_name":"x","tool_input":"[1]"}`, "", "tool_input (JSON text): want a JSON object"},
		{cursorAdapter{}, `{"hook_event_name":"beforeMCPExecution","tool_name":"x","tool_input":"{\"a\":1,\"a\":2}"}`, "", "a: duplicate key"},
		{copilotAdapter{}, `{"toolName":"bash","toolArgs":{"command":"ls"}}`, "", "does not name its event"},
		{claudeAdapter{}, `{"session_id":"s"}`, "", `no "hook_event_name"`},
		{claudeAdapter{}, `{"hook_event_name":"PreToolUse","tool_name":"` + strings.Repeat("x", 300) + `"}`, "", "toolName is 300 bytes"},
	} {
		_, err := c.a.Decode([]byte(c.data), c.ev)
		if err == nil || !strings.Contains(err.Error(), c.wantInErr) {
			t.Errorf("%s %s: got %v, want %q", c.a.Name(), c.data, err, c.wantInErr)
		}
	}
}

// TestDecodeEventMustAgree: the event the caller names (from the hook
// configuration) and the payload's own must be the same; the payload's
// alone or the caller's alone is enough; the error carries the event for Block.
func TestDecodeEventMustAgree(t *testing.T) {
	a := claudeAdapter{}
	payload := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w"}`)
	if req, err := a.Decode(payload, ""); err != nil || req.Input.Event != luahook.PreToolUse {
		t.Fatalf("payload's own event: %v %+v", err, req)
	}
	_, err := a.Decode(payload, "Stop")
	var de *DecodeError
	if !errors.As(err, &de) || de.Event != "Stop" || !strings.Contains(err.Error(), `configured for "Stop"`) {
		t.Fatalf("disagreeing events: %v", err)
	}
	req, err := a.Decode([]byte(`{"tool_name":"Bash","tool_input":{},"cwd":"/w"}`), "PreToolUse")
	if err != nil || req.Event != "PreToolUse" {
		t.Fatalf("caller's event: %v", err)
	}
	_, err = a.Decode([]byte(`{"hook_event_name":"PreToolUse","tool_input":[]}`), "")
	if !errors.As(err, &de) || de.Event != "PreToolUse" {
		t.Fatalf("a decode error names the event read: %v", err)
	}
}

// TestUnmappedEventsAreNoObjection: an event with no luahook equivalent
// decodes to a request without Input, answered with nothing.
func TestUnmappedEventsAreNoObjection(t *testing.T) {
	for _, c := range []struct {
		a    Adapter
		data string
	}{
		{claudeAdapter{}, `{"hook_event_name":"Notification","message":"Claude needs your permission"}`},
		{geminiAdapter{}, `{"hook_event_name":"BeforeModel","llm_request":{}}`},
		{cursorAdapter{}, `{"hook_event_name":"afterAgentThought","text":"…"}`},
	} {
		req, err := c.a.Decode([]byte(c.data), "")
		if err != nil || req.Input != nil {
			t.Fatalf("%s: %v %+v", c.a.Name(), err, req)
		}
		if ans := c.a.Encode(req, Decision{Verdict: Deny, Reason: "x"}); ans.Stdout != nil || ans.ExitCode != 0 {
			t.Errorf("%s: %+v", c.a.Name(), ans)
		}
	}
}

// TestDetect pins which adapter --agent auto picks for each agent's
// payloads, and that luahook's own format is no agent.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		data string
		want Name // "": not an agent
	}{
		{`{"event":"PreToolUse","toolName":"Bash","toolInput":{},"cwd":"/w"}`, ""},
		{`{"toolName":"Bash","toolInput":{},"cwd":"/w","sessionId":"s"}`, ""},
		{`{"event":"PreToolUse","hook_event_name":"PreToolUse"}`, ""},
		{`not json`, ""},
		{`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash"}`, Claude},
		{`{"hook_event_name":"SessionStart","session_id":"s","source":"startup","model":"gpt-5-codex"}`, Claude},
		{`{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","tool_name":"Bash"}`, Codex},
		{`{"hook_event_name":"PreToolUse","session_id":"s","timestamp":"2026-01-01T00:00:00Z"}`, Copilot},
		{`{"hook_event_name":"SessionStart","session_id":"s","timestamp":"2026-01-01T00:00:00Z"}`, Copilot},
		{`{"sessionId":"s","timestamp":1767225600000,"toolName":"bash","toolArgs":"{}"}`, Copilot},
		{`{"hook_event_name":"preToolUse","conversation_id":"c"}`, Cursor},
		{`{"hook_event_name":"BeforeTool","session_id":"s","timestamp":"2026-01-01T00:00:00Z"}`, Gemini},
		{`{"hook_event_name":"AfterAgent","session_id":"s"}`, Gemini},
	} {
		a, ok := Detect([]byte(c.data))
		var got Name
		if ok {
			got = a.Name()
		}
		if got != c.want {
			t.Errorf("Detect(%s) = %q, want %q", c.data, got, c.want)
		}
	}
}

// TestFromResult: the bridge from the runner's result: deny, ask, Stop
// continuation, explicit allow, rewrite, context.
func TestFromResult(t *testing.T) {
	in := json.RawMessage(`{"command":"pnpm add x"}`)
	for _, c := range []struct {
		r    runner.Result
		want Decision
	}{
		{runner.Result{}, Decision{}},
		{runner.Result{Verdict: luahook.VerdictDeny, Reason: "no", AdditionalContext: "c"}, Decision{Verdict: Deny, Reason: "no", Context: "c"}},
		{runner.Result{Input: in, AdditionalContext: "c"}, Decision{Input: in, Context: "c"}},
		{runner.Result{AdditionalContext: "c"}, Decision{Context: "c"}},
		{runner.Result{Verdict: luahook.VerdictAllow}, Decision{Verdict: Allow}},
		{runner.Result{Verdict: luahook.VerdictAllow, Input: in}, Decision{Verdict: Allow, Input: in}},
		{runner.Result{Verdict: luahook.VerdictAsk, Reason: "sure?", Input: in, AdditionalContext: "c"}, Decision{Verdict: Ask, Reason: "sure?", Input: in, Context: "c"}},
		{runner.Result{Verdict: luahook.VerdictContinue, Reason: "run the tests"}, Decision{Verdict: Continue, Reason: "run the tests"}},
	} {
		got := FromResult(c.r)
		if got.Verdict != c.want.Verdict || got.Reason != c.want.Reason || string(got.Input) != string(c.want.Input) ||
			got.Context != c.want.Context || got.RewriteReason != c.want.RewriteReason {
			t.Errorf("FromResult(%+v) = %+v, want %+v", c.r, got, c.want)
		}
	}
}

// TestFromResultKeepsTheRewritesReasons: the decision of a rewrite carries
// the reasons its hooks gave with hook.mutate, in the order they ran, and
// only theirs: not a validator's mutate (ignored), a shadow hook's (never
// enforced), a failed hook's, an ask's (the result's own reason), nor any
// when nothing was rewritten in the end or the call was denied.
func TestFromResultKeepsTheRewritesReasons(t *testing.T) {
	in := json.RawMessage(`{"command":"pnpm add x"}`)
	mutate := func(name, reason string) runner.HookTrace {
		return runner.HookTrace{Name: name, Stage: luahook.StageMutate,
			Outcome: &luahook.Outcome{Action: luahook.ActionMutate, Input: in, Reason: reason}}
	}
	validator := mutate("validator", "ignored")
	validator.Stage, validator.Skipped = luahook.StageValidate, runner.SkipValidatorMutation
	shadow := mutate("shadow", "not enforced")
	shadow.Mode = luahook.ModeShadow
	failed := mutate("failed", "failed")
	failed.Failure = &luahook.Failure{Kind: luahook.FailTimeout}
	ask := runner.HookTrace{Name: "ask", Stage: luahook.StageMutate,
		Outcome: &luahook.Outcome{Action: luahook.ActionAsk, Input: in, Reason: "sure?"}}
	trace := []runner.HookTrace{mutate("pnpm", "this repository uses pnpm"), validator, shadow, failed, ask,
		mutate("silent", ""), mutate("pin", "pin versions")}
	for _, c := range []struct {
		r    runner.Result
		want string
	}{
		{runner.Result{Input: in, Trace: trace}, "this repository uses pnpm\npin versions"},
		{runner.Result{Verdict: luahook.VerdictAllow, Input: in, Trace: trace}, "this repository uses pnpm\npin versions"},
		{runner.Result{Verdict: luahook.VerdictAsk, Reason: "sure?", Input: in, Trace: trace}, "this repository uses pnpm\npin versions"},
		{runner.Result{Trace: trace}, ""},
		{runner.Result{Verdict: luahook.VerdictDeny, Reason: "no", Trace: trace}, ""},
		{runner.Result{Input: in, Trace: []runner.HookTrace{mutate("long", strings.Repeat("é", luahook.MaxReasonChars+1))}},
			strings.Repeat("é", luahook.MaxReasonChars)},
	} {
		if got := FromResult(c.r).RewriteReason; got != c.want {
			t.Errorf("FromResult(verdict %v, input %s).RewriteReason = %q, want %q", c.r.Verdict, c.r.Input, got, c.want)
		}
	}
}

// TestRewritesAnAgentCannotApplyDeny: a rewrite that would reach the agent
// in a form it ignores (and so run the original call) is a denial that
// says why.
func TestRewritesAnAgentCannotApplyDeny(t *testing.T) {
	decodeReq := func(a Adapter, data string) *Request {
		req, err := a.Decode([]byte(data), "")
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	for _, c := range []struct {
		a       Adapter
		payload string
		rewrite string
		want    string
	}{
		// Gemini merges the rewrite into the arguments: a removed key would stay.
		{geminiAdapter{}, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"/"}}`,
			`{"command":"ls"}`, `"decision":"deny","reason":"luahook: the policy's rewrite removes dir_path`},
		// Codex needs a string command for Bash and apply_patch.
		{codexAdapter{}, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			`{"cmd":"ls"}`, `"permissionDecision":"deny","permissionDecisionReason":"luahook: Codex applies a rewritten Bash call only when`},
		// Not an object.
		{claudeAdapter{}, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			`["ls"]`, `"permissionDecision":"deny","permissionDecisionReason":"luahook: the rewritten tool input is not a JSON object"`},
	} {
		ans := c.a.Encode(decodeReq(c.a, c.payload), Decision{Input: json.RawMessage(c.rewrite)})
		if !strings.Contains(string(ans.Stdout), c.want) {
			t.Errorf("%s: %s, want %s", c.a.Name(), ans.Stdout, c.want)
		}
	}
}

// TestCapabilitiesMakeShellPortable: every agent's shell tool declares
// "shell", and MCP tools "mcp", whatever their spelling.
func TestCapabilitiesMakeShellPortable(t *testing.T) {
	for _, name := range []string{"Bash", "PowerShell", "Shell", "run_shell_command", "bash", "powershell", "exec_command", "BASH"} {
		if got := Capabilities(name); len(got) != 1 || got[0] != CapShell {
			t.Errorf("Capabilities(%q) = %v, want [shell]", name, got)
		}
	}
	for _, name := range []string{"mcp__github__create_issue", "mcp_github_create_issue", "MCP:create_issue", "MCP",
		"mcp__" + strings.Repeat("s", 100) + "__tool",
		// Copilot CLI's camelCase dialect: server-tool.
		"conformance-touch", "github-mcp-server-get_issue", "context7-resolve-library-id",
		strings.Repeat("s", 100) + "-tool"} {
		if got := Capabilities(name); len(got) != 1 || got[0] != CapMCP {
			t.Errorf("Capabilities(%q) = %v, want [mcp]", name, got)
		}
	}
	for _, name := range []string{"", "mcp_", "Unknown", strings.Repeat("x", 100)} {
		if got := Capabilities(name); got != nil {
			t.Errorf("Capabilities(%q) = %v, want nil", name, got)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, n := range Names() {
		a, err := Lookup(strings.ToUpper(string(n)))
		if err != nil || a.Name() != n {
			t.Errorf("Lookup(%q): %v", n, err)
		}
	}
	if _, err := Lookup("windsurf"); err == nil || !strings.Contains(err.Error(), "claude, codex, copilot, cursor, gemini, auto") {
		t.Errorf("Lookup(windsurf): %v", err)
	}
}
