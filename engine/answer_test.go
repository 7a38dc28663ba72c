package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswerIsTheDoorsAnswer: a Go host's Answer gives the bytes and exit
// status fire gives: luahook's own format or the agent's, a broken file with
// no version in force denying with its name, no objection never an allow,
// and on_load_error = "fail" answering nothing.
func TestAnswerIsTheDoorsAnswer(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	writeFile(t, filepath.Join(dir, "10-deny.lua"), denyFile("no rm"))
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	own := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"cwd":"/w"}`
	claude := `{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`

	rep := e.Answer(context.Background(), "", "", []byte(own))
	if rep.ExitCode != 2 || !strings.Contains(string(rep.Stdout), `"action":"deny"`) || !strings.Contains(rep.Stderr, "no rm") {
		t.Errorf("own format: %q %q exit %d", rep.Stdout, rep.Stderr, rep.ExitCode)
	}
	rep = e.Answer(context.Background(), "", "", []byte(claude))
	if rep.ExitCode != 0 || !strings.Contains(string(rep.Stdout), `"permissionDecision":"deny"`) {
		t.Errorf("claude's payload at the own door: %q %q exit %d", rep.Stdout, rep.Stderr, rep.ExitCode)
	}

	writeFile(t, filepath.Join(dir, "10-deny.lua"), "return 1\n")
	writeFile(t, filepath.Join(dir, "20-broken.lua"), "hook.register(\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Logf("reload: %v", err)
	}
	rep = e.Answer(context.Background(), "", "", []byte(own))
	if rep.ExitCode != 2 || !strings.Contains(string(rep.Stdout), "20-broken.lua") {
		t.Errorf("a file with no version in force: %q exit %d, want a denial naming it", rep.Stdout, rep.ExitCode)
	}
	rep = e.Answer(context.Background(), "claude", "", []byte(claude))
	if rep.ExitCode != 2 || !strings.Contains(rep.Stderr, "20-broken.lua") {
		t.Errorf("claude, a file with no version in force: %q %q exit %d, want the block signal naming it", rep.Stdout, rep.Stderr, rep.ExitCode)
	}

	writeFile(t, filepath.Join(dir, "20-broken.lua"), "")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep = e.Answer(context.Background(), "", "", []byte(own))
	if rep.ExitCode != 0 || string(rep.Stdout) != "{}\n" {
		t.Errorf("no objection: %q exit %d, want {}", rep.Stdout, rep.ExitCode)
	}
}

// A Go host's Answer cuts a tool's output past luahook.MaxScanBytes as
// every door does: the hooks see it cut, and the answer gives the model
// the cut output; a PreToolUse with such a string is refused as one over
// the cap is.
func TestAnswerCutsABigOutputAsTheDoorsDo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks.d")
	writeFile(t, filepath.Join(dir, "10-look.lua"), `hook.register("PostToolUse", nil, function(input)
  return hook.context("cut=" .. tostring(input.toolResult.cut))
end)`)
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	big := strings.Repeat("y", 3<<20)
	own := `{"event":"PostToolUse","toolName":"bash","toolInput":{"command":"cat log"},"cwd":"/w","toolResult":{"content":"` + big + `"}}`
	rep := e.Answer(context.Background(), "", "", []byte(own))
	if rep.ExitCode != 0 || !strings.Contains(string(rep.Stdout), `"action":"replace_output"`) ||
		!strings.Contains(string(rep.Stdout), `was withheld: too large to scan]"`) || !strings.Contains(string(rep.Stdout), "cut=") ||
		len(rep.Stdout) > 2<<20 {
		t.Errorf("a 3 MiB output: exit %d, %d bytes answered: %.200q…", rep.ExitCode, len(rep.Stdout), rep.Stdout)
	}
	pre := `{"event":"PreToolUse","toolName":"write","toolInput":{"path":"x","content":"` + big + `"},"cwd":"/w"}`
	rep = e.Answer(context.Background(), "", "", []byte(pre))
	if rep.ExitCode != 0 || string(rep.Stdout) != "{}\n" {
		t.Errorf("a PreToolUse with a 3 MiB tool input: exit %d, %q, stderr %q; want it decided on its whole input", rep.ExitCode, rep.Stdout, rep.Stderr)
	}
	claude := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"` + big + `"}`
	rep = e.Answer(context.Background(), "claude", "", []byte(claude))
	if !strings.Contains(string(rep.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(rep.Stdout), "larger than") {
		t.Errorf("a PreToolUse with an output member past MaxScanBytes: exit %d, %q; want it denied as over the cap", rep.ExitCode, rep.Stdout)
	}
}

// DecidePayload cuts as Answer does.
func TestDecidePayloadCutsABigOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks.d")
	writeFile(t, filepath.Join(dir, "10-look.lua"), `hook.register("PostToolUse", nil, function(input) return nil end)`)
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	big := strings.Repeat("y", 3<<20)
	res, err := e.DecidePayload(context.Background(), []byte(`{"event":"PostToolUse","toolName":"bash","cwd":"/w","toolResult":{"content":"`+big+`"}}`))
	if err != nil || res.Output == nil {
		t.Fatalf("DecidePayload: %v, output %v", err, res.Output)
	}
	if len(res.Output.Content) > 1<<20 || !strings.HasSuffix(res.Output.Content, "was withheld: too large to scan]") {
		t.Fatalf("DecidePayload: the output the model reads is %d bytes, ending %q", len(res.Output.Content), res.Output.Content[max(0, len(res.Output.Content)-80):])
	}
	res, err = e.DecidePayload(context.Background(), []byte(`{"event":"PreToolUse","toolName":"write","cwd":"/w","toolInput":{"content":"`+big+`"}}`))
	if err != nil || res.Denied() {
		t.Fatalf("DecidePayload of a PreToolUse with a 3 MiB tool input: %v, denied %v (%s); want it decided whole", err, res.Denied(), res.Reason)
	}
}
