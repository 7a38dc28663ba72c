package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
)

// An agent's hook names its policies on its command line: LUAHOOK_DIR and
// LUAHOOK_CONFIG, pointed at a folder or config without policies, would
// let rm -rf ~ through. With --project they are not read (the project's
// policy denies); with --agent alone (or an agent's payload given to plain
// fire) either one set denies naming it; a --dir on the command line wins
// over them, as it always did; fire by hand in luahook's own format still
// takes them, the operator's choice.
func TestTheEnvironmentDoesNotPickAnAgentsPolicies(t *testing.T) {
	installEnv(t)
	project := t.TempDir()
	writeFiles(t, filepath.Join(project, "hooks.d"), map[string]string{"10-guard.lua": `hook.register("PreToolUse", "@shell", function(input)
  if (input.toolInput.command or ""):find("rm -rf", 1, true) then return hook.deny("no rm -rf here") end
end)`})
	if code, out, errs := runArgs(t, "trust", project); code != 0 {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errs)
	}
	empty := t.TempDir()
	emptyConfig := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(emptyConfig, []byte("hooks_dir = \"nothing.d\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(filepath.Dir(emptyConfig), "nothing.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	rm := agentPayload{agent: agent.Claude, name: "rm", data: []byte(`{"session_id":"s","cwd":"` + project +
		`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`)}
	// A policy's denial is Claude Code's JSON (exit 0); a denial for a
	// problem also exits 2 with the reason on standard error.
	deniedBy := func(a agent.Answer, why string) bool {
		return strings.Contains(string(a.Stdout), `"permissionDecision":"deny"`) && strings.Contains(string(a.Stdout), why)
	}
	for _, c := range []struct {
		name, env, val string
		globals, extra []string
		why            string
	}{
		{"--project, LUAHOOK_DIR", "LUAHOOK_DIR", empty, nil, []string{"--project"}, "no rm -rf here"},
		{"--project, LUAHOOK_CONFIG", "LUAHOOK_CONFIG", emptyConfig, nil, []string{"--project"}, "no rm -rf here"},
		{"--agent, LUAHOOK_DIR", "LUAHOOK_DIR", empty, nil, nil, "LUAHOOK_DIR is set (" + empty + "), but an agent's hook does not take its policies from the environment"},
		{"--agent, LUAHOOK_CONFIG", "LUAHOOK_CONFIG", emptyConfig, nil, nil, "LUAHOOK_CONFIG is set (" + emptyConfig + ")"},
		{"--dir over LUAHOOK_DIR", "LUAHOOK_DIR", empty, []string{"--dir", filepath.Join(project, "hooks.d")}, nil, "no rm -rf here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.env, c.val)
			got := fireAgent(t, c.globals, rm, c.extra...)
			if !deniedBy(got, c.why) {
				t.Errorf("fire answered %q %q %d; want a denial naming %q", got.Stdout, got.Stderr, got.ExitCode, c.why)
			}
			if strings.Contains(c.why, "rm -rf here") && strings.Contains(got.Stderr, c.env) {
				t.Errorf("fire named %s, which it does not read here: %q", c.env, got.Stderr)
			}
		})
	}

	t.Setenv("LUAHOOK_DIR", empty)
	code, out, errs := runArgs(t, "fire", "--input", string(rm.data))
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "LUAHOOK_DIR is set") {
		t.Errorf("an agent's payload given to plain fire: exit %d, %q %q; want a denial naming LUAHOOK_DIR", code, out, errs)
	}
	code, out, errs = runArgs(t, "fire", "PreToolUse", "--tool", "bash", "--input", `{"toolInput":{"command":"rm -rf ~"}}`)
	if code != 0 || strings.TrimSpace(out) != "{}" {
		t.Errorf("fire by hand, in luahook's own format: exit %d, %q %q; want LUAHOOK_DIR's (empty) folder to decide", code, out, errs)
	}
}
