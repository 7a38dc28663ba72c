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
