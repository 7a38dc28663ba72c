package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeInATrustedProjectLoadsOnlyTrustedEdits runs serve in a trusted
// project folder, with hot reload: an edit of a hook file or of the config
// that is not trusted is not loaded (the trusted version keeps deciding, a
// command hook the edit adds never runs), /readyz names what awaits
// luahook trust, and luahook trust makes both live, the record's change
// reloading them.
func TestServeInATrustedProjectLoadsOnlyTrustedEdits(t *testing.T) {
	project := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), ".config"))
	t.Chdir(project)
	const config = "[runner]\non_load_error = \"deny\"\n"
	writeFiles(t, project, map[string]string{
		"luahook.toml": config,
		"hooks.d/10-guard.lua": `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then return hook.deny("no rm -rf") end
end, { name = "guard" })`,
	})
	trust := func() {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"trust"}, nil, &out, &errb); code != 0 {
			t.Fatalf("luahook trust: exit %d\n%s%s", code, out.String(), errb.String())
		}
	}
	trust()
	s := startServe(t, nil)
	const rm = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`
	decision := func() string {
		code, body := s.post(rm)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		return body
	}
	denied := `{"action":"deny","reason":"no rm -rf"}`
	if got := decision(); got != denied {
		t.Fatalf("before: %s", got)
	}

	writeFiles(t, project, map[string]string{
		"hooks.d/10-guard.lua": `hook.register("PreToolUse", "bash", function() return hook.allow() end, { name = "guard" })`,
		"luahook.toml":         config + "\n[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n",
	})
	eventually(t, "/readyz names both edits awaiting luahook trust", func() bool {
		code, body := get(t, s.base+"/readyz")
		return code == 503 && strings.Contains(body, `"status":"degraded"`) &&
			strings.Contains(body, "./hooks.d/10-guard.lua (in "+project) && strings.Contains(body, "./luahook.toml (in "+project) &&
			strings.Contains(body, "review it, then run: luahook trust "+project)
	})
	if got := decision(); got != denied {
		t.Errorf("after untrusted edits: %s, want the trusted version's %s", got, denied)
	}
	if _, err := os.Stat(filepath.Join(project, "pwned")); err == nil {
		t.Fatal("the command hook of an untrusted config edit ran")
	}
	if !strings.Contains(s.stderr.String(), "hook file not trusted; the previous version stays live") {
		t.Errorf("log %q, want the hook file named as not trusted", s.stderr.String())
	}

	trust()
	eventually(t, "the trusted edits are live", func() bool { return decision() == `{"action":"allow"}` })
	eventually(t, "/readyz is ok again", func() bool {
		code, body := get(t, s.base+"/readyz")
		return code == 200 && body == `{"status":"ok"}`
	})
	if _, err := os.Stat(filepath.Join(project, "pwned")); err != nil {
		t.Errorf("the trusted config's command hook did not run: %v", err)
	}
}

// TestServeInAProjectNeverTrustedDeniesWhatCanBlock: serve started in a
// project folder never trusted loads nothing of it, but starts: every event
// that can block is denied naming the folder and what to run, on the plain
// route and an agent's alike, /readyz names it, and the folder's command
// hook never runs. An agent's HTTP hook that found no server would read
// "proceed".
func TestServeInAProjectNeverTrustedDeniesWhatCanBlock(t *testing.T) {
	project := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), ".config"))
	t.Chdir(project)
	writeFiles(t, project, map[string]string{
		"luahook.toml":         "[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n",
		"hooks.d/10-allow.lua": `hook.register("PreToolUse", "bash", function() return hook.allow() end, { name = "allow" })`,
	})
	s := startServe(t, nil)
	code, body := s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`)
	if code != 200 || !strings.Contains(body, `"action":"deny"`) || !strings.Contains(body, "the folder is not trusted") {
		t.Errorf("POST /: %d %s, want a denial naming the untrusted folder", code, body)
	}
	code, body = post(t, s.base+"/agent/claude", `{"session_id":"s","transcript_path":"/t","cwd":"`+project+`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if code != 200 || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "luahook trust") {
		t.Errorf("POST /agent/claude: %d %s, want Claude Code's denial naming luahook trust", code, body)
	}
	code, body = s.post(`{"event":"Stop"}`)
	if code != 200 || body != "{}" {
		t.Errorf("Stop: %d %s, want no objection", code, body)
	}
	if code, body := get(t, s.base+"/readyz"); code != 503 || !strings.Contains(body, "not trusted") {
		t.Errorf("/readyz: %d %s, want it to name the untrusted folder", code, body)
	}
	if _, err := os.Stat(filepath.Join(project, "pwned")); err == nil {
		t.Error("the untrusted folder's command hook ran")
	}
}

// TestServeStartsOnAnEditedConfigAndDenies: serve started in a trusted
// project whose config was edited since (not trusted again) starts on the
// defaults: the edit's command hook never runs, every event that can block
// is denied naming the config, /readyz names it, and luahook trust brings
// the edit in on the record's change.
func TestServeStartsOnAnEditedConfigAndDenies(t *testing.T) {
	project := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), ".config"))
	t.Chdir(project)
	writeFiles(t, project, map[string]string{
		"luahook.toml":         "[runner]\non_load_error = \"deny\"\n",
		"hooks.d/10-allow.lua": `hook.register("PreToolUse", "bash", function() return hook.allow() end, { name = "allow" })`,
	})
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"trust"}, nil, &out, &errb); code != 0 {
		t.Fatalf("luahook trust: exit %d\n%s%s", code, out.String(), errb.String())
	}
	writeFiles(t, project, map[string]string{
		"luahook.toml": "[runner]\non_load_error = \"skip\"\n\n[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n",
	})
	s := startServe(t, nil)
	code, body := s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`)
	if code != 200 || !strings.Contains(body, `"action":"deny"`) || !strings.Contains(body, "./luahook.toml (in "+project) {
		t.Errorf("POST /: %d %s, want a denial naming the edited config", code, body)
	}
	if code, body := get(t, s.base+"/readyz"); code != 503 || !strings.Contains(body, "luahook.toml") {
		t.Errorf("/readyz: %d %s, want it to name the config", code, body)
	}
	if _, err := os.Stat(filepath.Join(project, "pwned")); err == nil {
		t.Error("the edited config's command hook ran")
	}
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"trust"}, nil, &out, &errb); code != 0 {
		t.Fatalf("luahook trust: exit %d\n%s%s", code, out.String(), errb.String())
	}
	eventually(t, "the trusted edit decides", func() bool {
		code, body := s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`)
		return code == 200 && body == `{"action":"allow"}`
	})
}
