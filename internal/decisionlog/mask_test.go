package decisionlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// secretsOf are strings each built-in pattern finds.
var secretsOf = []string{
	"AKIAIOSFODNN7EXAMPLE",
	"ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
	"sk-proj-abcdefghijklmnopqrstuv",
	"xoxb-1234567890-abcdef",
	"-----BEGIN OPENSSH PRIVATE KEY-----",
}

// echoHook denies with the command in its reason and rewrites the command:
// a hook's outcome can carry the payload's secret too.
const echoHook = `
hook.register("PreToolUse", "bash", function(input)
  return hook.mutate({command = input.toolInput.command .. " # checked"})
end, {name = "rewrite"})
hook.register("PreToolUse", "bash", function(input)
  return hook.deny("refused: " .. input.toolInput.command)
end, {name = "echo", stage = "validate"})
`

func TestASecretInThePayloadNeverReachesTheLogFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, _ := openWith(t, map[string]string{"10-echo.lua": echoHook}, log)
	ctx := context.Background()
	cases := []struct {
		name string
		in   *luahook.Input
		want []string // the paths Masked must list
	}{
		{"in a command string", bash("curl -H 'Authorization: Bearer " + secretsOf[3] + "' https://x"),
			[]string{"input.toolInput.command", "hooks[0].outcome.input.command", "hooks[1].outcome.reason", "decision.outcome.reason"}},
		{"nested", &luahook.Input{Event: luahook.PreToolUse, ToolName: "write", Cwd: "/w",
			ToolInput: json.RawMessage(`{"path":"a","env":{"deep":{"AWS":"` + secretsOf[0] + `"}}}`)},
			[]string{"input.toolInput.env.deep.AWS"}},
		{"in an array", &luahook.Input{Event: luahook.PreToolUse, ToolName: "run", Cwd: "/w",
			ToolInput: json.RawMessage(`{"args":["--token","` + secretsOf[1] + `"]}`)},
			[]string{"input.toolInput.args[1]"}},
		{"in native", &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", Cwd: "/w", Agent: "claude",
			ToolInput: json.RawMessage(`{"command":"ls"}`),
			Native:    json.RawMessage(`{"tool_input":{"key":"` + secretsOf[2] + `"},"list":[{"k":"` + secretsOf[4] + `\nMIIE"}]}`)},
			[]string{"input.native.tool_input.key", "input.native.list[0].k"}},
		{"in a prompt", &luahook.Input{Event: luahook.UserPromptSubmit, Cwd: "/w", Prompt: "use " + secretsOf[2]},
			[]string{"input.prompt"}},
		{"in a tool result", &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", Cwd: "/w",
			ToolResult: &luahook.ToolResult{Content: "export KEY=" + secretsOf[0]}},
			[]string{"input.toolResult.content"}},
	}
	for _, c := range cases {
		e.Runner().Fire(ctx, c.in)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secretsOf {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the log holds the secret %q:\n%s", s, data)
		}
	}
	recs := readRecords(t, path)
	if len(recs) != len(cases) {
		t.Fatalf("%d records, want %d", len(recs), len(cases))
	}
	for i, c := range cases {
		for _, p := range c.want {
			if !slices.Contains(recs[i].Masked, strings.TrimPrefix(p, "input.")) {
				t.Errorf("%s: masked = %q, want it to list %s", c.name, recs[i].Masked, p)
			}
		}
		if !bytes.Contains(recs[i].Input, []byte(decisionlog.DefaultMaskWith)) {
			t.Errorf("%s: input %s has no %s", c.name, recs[i].Input, decisionlog.DefaultMaskWith)
		}
	}
}

// A failed hook's message that quotes a secret is masked, and listed at
// the hook's place; so is a context a hook adds.
func TestAFailedHooksMessageIsMaskedAtItsPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, _ := openWith(t, map[string]string{"10-fail.lua": `
hook.register("PostToolUse", "bash", function(input)
  return hook.context("ran " .. input.toolInput.command)
end, {name = "context"})
hook.register("PostToolUse", "bash", function(input)
  error("cannot read " .. input.toolInput.command)
end, {name = "fail"})`}, log)
	in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", Cwd: "/w",
		ToolInput: json.RawMessage(`{"command":"cat ` + secretsOf[1] + `"}`), ToolResult: &luahook.ToolResult{Content: "ok"}}
	e.Runner().Fire(context.Background(), in)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secretsOf[1])) {
		t.Fatalf("the log holds the secret:\n%s", data)
	}
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	for _, p := range []string{"toolInput.command", "hooks[0].outcome.additionalContext", "hooks[1].failure.message", "decision.outcome.additionalContext"} {
		if !slices.Contains(recs[0].Masked, p) {
			t.Errorf("masked = %q, want it to list %s", recs[0].Masked, p)
		}
	}
}

func TestConfiguredPathsAreDroppedOrMasked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{
		Drop:     []string{"toolInput.env", "native.*.cookie"},
		Mask:     []string{"toolInput.headers.Authorization", "toolInput.args[*]"},
		MaskWith: "<hidden>",
	})
	e, _ := openWith(t, map[string]string{"10-pass.lua": `hook.register("PreToolUse", nil, function() end, {name = "pass"})`}, log)
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "http", Cwd: "/w", Agent: "codex",
		ToolInput: json.RawMessage(`{"url":"https://x","env":{"A":"1"},"headers":{"Authorization":"Basic abc","Accept":"*/*"},"args":["a",{"b":1}]}`),
		Native:    json.RawMessage(`{"req":{"cookie":"c=1","id":7}}`)}
	e.Runner().Fire(context.Background(), in)
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	var got luahook.Input
	if err := json.Unmarshal(recs[0].Input, &got); err != nil {
		t.Fatal(err)
	}
	if want := `{"url":"https://x","headers":{"Authorization":"<hidden>","Accept":"*/*"},"args":["<hidden>","<hidden>"]}`; string(got.ToolInput) != want {
		t.Errorf("toolInput = %s, want %s", got.ToolInput, want)
	}
	if want := `{"req":{"id":7}}`; string(got.Native) != want {
		t.Errorf("native = %s, want %s", got.Native, want)
	}
	want := []string{"toolInput.env", "toolInput.headers.Authorization", "toolInput.args[0]", "toolInput.args[1]", "native.req.cookie"}
	if !slices.Equal(recs[0].Masked, want) {
		t.Errorf("masked = %q, want %q", recs[0].Masked, want)
	}
	// The digest is the payload's before masking.
	data, _ := json.Marshal(in)
	if d := recs[0].InputDigest; d != sha(data) {
		t.Errorf("inputDigest = %s, want the digest of the unmasked payload %s", d, sha(data))
	}
}

func TestBadPathsAreRefusedNamingThem(t *testing.T) {
	for _, p := range []string{"", "toolInput..env", "tool_input.env", "toolInput.args[x]", "toolInput.args[1"} {
		_, err := decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(func(decisionlog.Record) {}), Mask: []string{p}})
		if err == nil || !strings.Contains(err.Error(), "mask") {
			t.Errorf("mask %q: err = %v, want an error naming mask", p, err)
		}
	}
}

// seededHooks are hooks that carry seed everywhere they can: in their
// names (hence the decider's), in a rewrite (a key, a value, a nested
// array), in a context, in a failure and in a deny's reason.
func seededHooks(seed string) string {
	return `local S = "` + seed + `"
hook.register("PreToolUse", nil, function(input)
  local t = {command = "echo " .. S, list = {"a", {S}}}
  t[S] = "key " .. S
  return hook.mutate(t)
end, {name = "rewrite " .. S})
hook.register("PreToolUse", nil, function(input)
  return hook.context("saw " .. S)
end, {name = "context " .. S, stage = "validate"})
hook.register("PreToolUse", nil, function(input)
  error("failed on " .. S)
end, {name = "fail " .. S, stage = "validate", failure_policy = "open"})
hook.register("PreToolUse", nil, function(input)
  return hook.deny("refused " .. S)
end, {name = "deny " .. S, stage = "validate"})
`
}

// TestASecretInAnyFieldNeverReachesTheLogFile fires, through a real engine
// and a Logger writing to a real file, a payload that holds a secret in
// every field it has (each top-level field, a key and values of toolInput,
// a nested array, the agent's native payload) at hooks that carry it in
// everything they return and in their own names and file's name; and then
// the same with a value a configured mask path takes out. The file must
// not hold the seed anywhere, and must hold the mask where the seed was.
func TestASecretInAnyFieldNeverReachesTheLogFile(t *testing.T) {
	const authValue = "Basic c2VzYW1lLW9wZW4tdXA="
	for _, c := range []struct {
		name, seed string
		opts       decisionlog.Options
		auth       string // what the log shows of toolInput.headers.Authorization
	}{
		{"a secret of the shipped patterns", secretsOf[1], decisionlog.Options{}, authValue},
		{"the value of a configured mask path", authValue, decisionlog.Options{Mask: []string{"toolInput.headers.Authorization"}}, "[masked]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "decisions.jsonl")
			c.opts.Instance = "replica " + c.seed
			log := newLog(t, path, c.opts)
			e, _ := openWith(t, map[string]string{"10-" + c.seed + ".lua": seededHooks(c.seed)}, log)
			s := c.seed
			key, _ := json.Marshal(s)
			text, _ := json.Marshal("x " + s + " y")
			in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "tool " + s, Cwd: "/w/" + s, SessionID: "session " + s, Agent: "claude " + s,
				ToolInput: json.RawMessage(`{"headers":{"Authorization":"` + authValue + `"},"command":` + string(text) + `,` + string(key) + `:1,"args":["a",[{"deep":` + string(text) + `}]]}`),
				Native:    json.RawMessage(`{"tool_input":{` + string(key) + `:[` + string(text) + `]}}`)}
			res := e.Runner().Fire(context.Background(), in)
			if !res.Denied() {
				t.Fatalf("not denied: %+v", res)
			}
			if err := log.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("the log holds the seed:\n%s", data)
			}
			recs := readRecords(t, path)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			r := recs[0]
			m := decisionlog.DefaultMaskWith
			if r.SessionID != m || r.ToolName != m || r.Agent != m || r.Instance != m || r.Decision.Reason != m || r.Decision.DecidedBy != m {
				t.Errorf("sessionId %q, toolName %q, agent %q, instance %q, reason %q, decidedBy %q: want each %s",
					r.SessionID, r.ToolName, r.Agent, r.Instance, r.Decision.Reason, r.Decision.DecidedBy, m)
			}
			got, err := luahook.DecodeInput(r.Input)
			if err != nil {
				t.Fatalf("the masked payload %s does not decode: %v", r.Input, err)
			}
			if want := `{"headers":{"Authorization":"` + c.auth + `"},"command":"[masked]","[masked]":1,"args":["a",[{"deep":"[masked]"}]]}`; string(got.ToolInput) != want {
				t.Errorf("toolInput = %s, want %s", got.ToolInput, want)
			}
			if want := `{"tool_input":{"[masked]":["[masked]"]}}`; string(got.Native) != want {
				t.Errorf("native = %s, want %s", got.Native, want)
			}
			for i, h := range r.Hooks {
				if h.Name != m || !strings.HasSuffix(h.Source, m) {
					t.Errorf("hook %d: name %q, source %q: want them masked", i, h.Name, h.Source)
				}
			}
			if len(c.opts.Mask) > 0 && !slices.Contains(r.Masked, c.opts.Mask[0]) {
				t.Errorf("masked = %q, want it to list %s", r.Masked, c.opts.Mask[0])
			}
			for _, p := range []string{"sessionId", "toolName", "agent", "instance", "cwd",
				"toolInput.command", "toolInput.[masked]", "toolInput.args[1][0].deep",
				"native.tool_input.[masked]", "native.tool_input.[masked][0]",
				"hooks[0].name", "hooks[0].source", "hooks[0].outcome.input.command", "hooks[0].outcome.input.[masked]",
				"hooks[0].outcome.input.list[1][0]", "hooks[1].outcome.additionalContext", "hooks[2].failure.message",
				"hooks[3].outcome.reason", "decision.reason", "decision.decidedBy", "decision.outcome.reason",
				"decision.outcome.additionalContext", "files.[masked]"} {
				if !slices.Contains(r.Masked, p) {
					t.Errorf("masked = %q, want it to list %s", r.Masked, p)
				}
			}
		})
	}
}
