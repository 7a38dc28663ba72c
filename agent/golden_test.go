package agent

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// nativeCase is one native payload under testdata/<agent>/: <event>[-variant].native.json.
type nativeCase struct {
	name, event, path string
}

func nativeCases(t testing.TB, a Adapter) []nativeCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", string(a.Name()), "*.native.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no payloads for %s: %v", a.Name(), err)
	}
	var out []nativeCase
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".native.json")
		event, _, _ := strings.Cut(name, "-")
		out = append(out, nativeCase{name: name, event: event, path: p})
	}
	return out
}

// golden compares got with the file at path, or writes it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./agent -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the adapter produces (-update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestDecodeGolden decodes every native payload of every agent, each
// given the event its file is named for, and compares the Request with
// <name>.input.json.
func TestDecodeGolden(t *testing.T) {
	for _, a := range adapters {
		for _, c := range nativeCases(t, a) {
			t.Run(string(a.Name())+"/"+c.name, func(t *testing.T) {
				data, err := os.ReadFile(c.path)
				if err != nil {
					t.Fatal(err)
				}
				req, err := a.Decode(data, c.event)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(req.Native, bytes.TrimSpace(data)) {
					t.Errorf("Native is not the payload as sent")
				}
				got, err := json.MarshalIndent(struct {
					Agent Name           `json:"agent"`
					Event string         `json:"event"`
					Input *luahook.Input `json:"input"`
				}{req.Agent, req.Event, req.Input}, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden(t, strings.TrimSuffix(c.path, ".native.json")+".input.json", append(got, '\n'))
			})
		}
	}
}

// decisions are the decisions every payload is answered with in the
// encode goldens.
func decisions(req *Request) []struct {
	name string
	d    Decision
} {
	rewrite := rewriteOf(req)
	return []struct {
		name string
		d    Decision
	}{
		{"no objection", Decision{}},
		{"allow", Decision{Verdict: Allow}},
		{"deny", Decision{Verdict: Deny, Reason: "force-push to main is not allowed"}},
		{"ask", Decision{Verdict: Ask, Reason: "pushing to a shared branch: confirm"}},
		{"rewrite", Decision{Input: rewrite}},
		{"rewrite with a reason", Decision{Input: rewrite, RewriteReason: "this repository uses pnpm"}},
		{"rewrite + allow", Decision{Verdict: Allow, Input: rewrite, RewriteReason: "this repository uses pnpm"}},
		{"rewrite + ask", Decision{Verdict: Ask, Reason: "installs a package: confirm", Input: rewrite, RewriteReason: "this repository uses pnpm"}},
		{"context", Decision{Context: "Project uses pnpm; run tests with pnpm test."}},
		{"continue", Decision{Verdict: Continue, Reason: "Tests still fail: run pnpm test and fix them."}},
	}
}

// rewriteOf is the payload's tool input with its command replaced (or
// {"command": ...} when it has none).
func rewriteOf(req *Request) json.RawMessage {
	m := map[string]any{}
	if req.Input != nil && req.Input.ToolInput != nil {
		if err := json.Unmarshal(req.Input.ToolInput, &m); err != nil {
			panic(err)
		}
	}
	m["command"] = "pnpm add left-pad"
	b, _ := json.Marshal(m)
	return b
}

func formatAnswer(b *bytes.Buffer, title string, ans Answer) {
	fmt.Fprintf(b, "-- %s --\nexit %d\n", title, ans.ExitCode)
	if ans.Stdout != nil {
		fmt.Fprintf(b, "stdout: %s", ans.Stdout)
	}
	if ans.Stderr != "" {
		fmt.Fprintf(b, "stderr: %s", ans.Stderr)
	}
}

// TestEncodeGolden answers every native payload of every agent with each
// decision and with Block, and compares the exact stdout, stderr and exit
// code with testdata/<agent>/<name>.answers.
func TestEncodeGolden(t *testing.T) {
	for _, a := range adapters {
		for _, c := range nativeCases(t, a) {
			t.Run(string(a.Name())+"/"+c.name, func(t *testing.T) {
				req := decodeFile(t, a, c)
				var b bytes.Buffer
				for _, d := range decisions(req) {
					formatAnswer(&b, d.name, a.Encode(req, d.d))
				}
				formatAnswer(&b, "block", a.Block(req.Event, "luahook: hooks.d/10-guard.lua:3: attempt to index a nil value"))
				golden(t, strings.TrimSuffix(c.path, ".native.json")+".answers", b.Bytes())
			})
		}
	}
}

func decodeFile(t testing.TB, a Adapter, c nativeCase) *Request {
	t.Helper()
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	req, err := a.Decode(data, c.event)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestNoObjectionEmitsNoDecision: a decision with nothing in it writes
// nothing and exits 0, on every event of every agent (an explicit allow
// would auto-approve in Claude Code, Codex and Copilot).
func TestNoObjectionEmitsNoDecision(t *testing.T) {
	for _, a := range adapters {
		for _, c := range nativeCases(t, a) {
			ans := a.Encode(decodeFile(t, a, c), Decision{})
			if ans.Stdout != nil || ans.ExitCode != 0 || ans.Stderr != "" {
				t.Errorf("%s %s: no objection answered %+v, want nothing", a.Name(), c.name, ans)
			}
		}
	}
}

// TestBlockBlocksWhereTheEventCan: Block exits 2 with the reason on stderr
// and a JSON refusal on stdout on every event that can block (exit 0 where
// the agent reads the refusal only then: Copilot's prompt), and lets the
// agent proceed (exit 0, nothing on stdout) on the others.
func TestBlockBlocksWhereTheEventCan(t *testing.T) {
	const reason = "luahook: payload: duplicate key"
	for _, a := range adapters {
		events := []string{""}
		for _, c := range nativeCases(t, a) {
			events = append(events, c.event)
		}
		for _, ev := range events {
			ans := a.Block(ev, reason)
			canBlock := ev == "" || blocking(a.Name(), ev)
			code := 2
			if blocksWithExit0(a.Name(), ev) {
				canBlock, code = true, 0
			}
			switch {
			case canBlock && (ans.ExitCode != code || !json.Valid(ans.Stdout) || !strings.Contains(string(ans.Stdout), reason) || ans.Stderr != reason+"\n"):
				t.Errorf("%s %q: Block answered %+v, want exit %d, the reason on stderr and a JSON refusal", a.Name(), ev, ans, code)
			case !canBlock && (ans.ExitCode != 0 || ans.Stdout != nil):
				t.Errorf("%s %q: Block answered %+v, want exit 0 and nothing on stdout", a.Name(), ev, ans)
			}
		}
	}
}

// blocksWithExit0 lists, per agent, the events whose refusal the agent
// reads only with exit 0.
func blocksWithExit0(agent Name, event string) bool {
	return agent == Copilot && (event == "userPromptSubmitted" || event == "UserPromptSubmit")
}

// blocking lists, per agent, the events luahook blocks on with exit 2.
func blocking(agent Name, event string) bool {
	return slices.Contains(map[Name][]string{
		Claude:  {"PreToolUse", "UserPromptSubmit"},
		Codex:   {"PreToolUse", "UserPromptSubmit"},
		Copilot: {"preToolUse", "PreToolUse"}, // exit 2 on a prompt is only a warning in Copilot
		Cursor:  {"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt"},
		Gemini:  {"BeforeTool", "BeforeAgent"},
	}[agent], event)
}

// TestCodexEmitsOnlyWhatItAccepts: Codex fails a hook whose output it does
// not accept for the event (and then runs the tool, or keeps the tool's
// output), so no answer to Codex carries ask, continue, stopReason,
// suppressOutput, updatedToolOutput or updatedMCPToolOutput, a rewritten
// output is a block with a reason, and on PreToolUse
// every answer passes Codex's own checks (codex-rs/hooks output_parser.rs):
// "allow" only with updatedInput, updatedInput only with "allow", "deny"
// only with a reason, and a reason only with a decision.
func TestCodexEmitsOnlyWhatItAccepts(t *testing.T) {
	a := codexAdapter{}
	for _, c := range nativeCases(t, a) {
		req := decodeFile(t, a, c)
		all := decisions(req)
		if req.Input != nil && req.Input.Event == luahook.PostToolUse {
			for _, oc := range outputCases(t, req) {
				all = append(all, struct {
					name string
					d    Decision
				}{oc.name, oc.d})
			}
		}
		for _, d := range all {
			out := a.Encode(req, d.d).Stdout
			if req.Event == "PostToolUse" && d.d.Output != nil {
				var o claudeOutput
				if err := json.Unmarshal(out, &o); err != nil || o.Decision != "block" || strings.TrimSpace(o.Reason) == "" {
					t.Errorf("%s %s: %s is not a block with a reason (%v)", c.name, d.name, out, err)
				}
			}
			for _, bad := range []string{`"ask"`, `"continue"`, `"stopReason"`, `"suppressOutput"`, `"updatedToolOutput"`, `"updatedMCPToolOutput"`} {
				if bytes.Contains(out, []byte(bad)) {
					t.Errorf("%s %s: %s has %s", c.name, d.name, out, bad)
				}
			}
			if req.Event != "PreToolUse" || out == nil {
				continue
			}
			var o claudeOutput
			if err := json.Unmarshal(out, &o); err != nil || o.HookSpecificOutput == nil {
				t.Errorf("%s %s: %s is not PreToolUse's hookSpecificOutput (%v)", c.name, d.name, out, err)
				continue
			}
			h := o.HookSpecificOutput
			switch {
			case h.PermissionDecision == "allow" && h.UpdatedInput == nil:
				t.Errorf("%s %s: %s allows without updatedInput", c.name, d.name, out)
			case h.UpdatedInput != nil && h.PermissionDecision != "allow":
				t.Errorf("%s %s: %s has updatedInput without allow", c.name, d.name, out)
			case h.PermissionDecision == "deny" && strings.TrimSpace(h.PermissionDecisionReason) == "":
				t.Errorf("%s %s: %s denies without a reason", c.name, d.name, out)
			case h.PermissionDecision == "" && h.PermissionDecisionReason != "":
				t.Errorf("%s %s: %s has a reason without a decision", c.name, d.name, out)
			case o.Decision != "" || o.Reason != "":
				t.Errorf("%s %s: %s mixes the legacy decision in", c.name, d.name, out)
			}
		}
	}
}

// TestEveryAnswerIsOneJSONObjectLine: whatever is on stdout is one JSON
// object and a newline.
func TestEveryAnswerIsOneJSONObjectLine(t *testing.T) {
	for _, a := range adapters {
		for _, c := range nativeCases(t, a) {
			req := decodeFile(t, a, c)
			for _, d := range decisions(req) {
				out := a.Encode(req, d.d).Stdout
				if out == nil {
					continue
				}
				if !luahook.IsJSONObject(out) || !json.Valid(out) || bytes.Count(out, []byte("\n")) != 1 || out[len(out)-1] != '\n' {
					t.Errorf("%s %s %s: stdout %q is not one JSON object line", a.Name(), c.name, d.name, out)
				}
			}
		}
	}
}
