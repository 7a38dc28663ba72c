package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// install --http never writes the token: Claude Code's HTTP hooks name the
// variable (in the header and in allowedEnvVars), whatever the installing
// shell holds.
func TestInstallHTTPWritesTheVariableNeverTheToken(t *testing.T) {
	project, _ := installEnv(t)
	t.Setenv(tokenEnv, "tok-of-the-installer")
	code, out, errs := runInstallCmd(t, "claude", "--http", "http://127.0.0.1:8787", "--command", testLuahook)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got := readTestFile(t, filepath.Join(project, ".claude", "settings.json"))
	// every event's HTTP hook; SessionStart's command (Claude Code runs
	// no HTTP hook there) is fire --http, which reads the variable itself
	if n := strings.Count(got, `"Authorization": "Bearer $LUAHOOK_TOKEN"`); n != 10 {
		t.Errorf("%d hooks send the token's header, want all 10 HTTP hooks:\n%s", n, got)
	}
	if n := strings.Count(got, `"allowedEnvVars": [`+"\n"+`              "LUAHOOK_TOKEN"`); n != 10 {
		t.Errorf("%d hooks let Claude Code fill the variable in, want all 10 HTTP hooks:\n%s", n, got)
	}
	if strings.Contains(got+out+errs, "tok-of-the-installer") {
		t.Errorf("the token was written or printed:\n%s\n%s%s", got, out, errs)
	}
	if !strings.Contains(out, "the hooks send serve the token of $LUAHOOK_TOKEN") {
		t.Errorf("install does not say where the token comes from:\n%s", out)
	}
}

// install --user --http --token-file writes a forwarding command that
// reads that file, and the hook it wrote, run as the agent runs it, sends
// the file's token to the server. A file fire could not read is refused
// at install, nothing written; Claude Code's HTTP hooks and a project's
// committed settings take no token file; an http URL to another machine
// is refused for every agent.
func TestInstallTokenFile(t *testing.T) {
	_, home := installEnv(t)
	t.Setenv(tokenEnv, "")
	ts := newTokenServer(t, http.StatusOK, "")
	tokens := t.TempDir()
	file := writePrivate(t, tokens, "token", "laptop tok-laptop\nci tok-ci\n", 0o600)
	code, out, errs := runInstallCmd(t, "cursor", "--user", "--http", ts.URL, "--token-file", file, "--token-name", "ci", "--command", testLuahook)
	if code != 0 || !strings.Contains(out, "the hooks send serve the token of "+file) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var settings struct {
		Hooks map[string][]struct{ Command string } `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readTestFile(t, filepath.Join(home, ".cursor", "hooks.json"))), &settings); err != nil {
		t.Fatal(err)
	}
	hook := settings.Hooks["preToolUse"][0].Command
	want := testLuahook + " fire --agent cursor --http " + ts.URL + " --token-file " + file + " --token-name ci"
	if hook != want {
		t.Fatalf("the hook runs %q, want %q", hook, want)
	}
	var stdout, stderr bytes.Buffer
	cursorPre := `{"conversation_id":"c","generation_id":"g","hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"ls"},"cwd":"/tmp","workspace_roots":["/tmp"]}`
	run(context.Background(), strings.Fields(hook)[1:], strings.NewReader(cursorPre), &stdout, &stderr)
	if calls := ts.calls(); len(calls) != 1 || calls[0] != "Bearer tok-ci" {
		t.Errorf("the installed hook sent Authorization %q (stderr %q); want the file's ci token", calls, stderr.String())
	}

	loose := writePrivate(t, tokens, "loose", "tok\n", 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"codex", "--user", "--http", ts.URL, "--token-file", loose}, "--token-file " + loose + ": open to its group or others (mode 0644)"},
		{[]string{"codex", "--user", "--http", ts.URL, "--token-file", file, "--token-name", "prod"}, "no line prod TOKEN"},
		{[]string{"claude", "--user", "--http", ts.URL, "--token-file", file}, "claude's HTTP hooks send the token of $LUAHOOK_TOKEN"},
		{[]string{"codex", "--http", ts.URL, "--token-file", file}, "the project's settings are a file the team commits"},
		{[]string{"gemini", "--user", "--http", "http://hooks.internal:8787"}, "would cross the network in clear: use https"},
	} {
		code, out, errs := runInstallCmd(t, append(c.args, "--command", testLuahook)...)
		if code != 1 || !strings.Contains(errs, c.msg) || strings.Contains(out, "wrote") || strings.Contains(out, "created") {
			t.Errorf("install %q: exit %d\n%s%s; want exit 1, nothing written, and %q", c.args, code, out, errs, c.msg)
		}
	}
}
