package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeOnPath puts a program name that prints out on PATH, alone there.
func fakeOnPath(t *testing.T, name, out string) {
	t.Helper()
	dir := t.TempDir()
	writePrivate(t, dir, name, "#!/bin/sh\necho '"+out+"'\n", 0o755)
	t.Setenv("PATH", dir)
}

// install states the agent release each setting it writes needs, asks the
// agent on PATH for its release, and refuses (nothing written) an older
// one unless --allow-old-agent; --print only warns. Without the agent on
// PATH the release is not checked, and install says so.
func TestInstallStatesAndChecksTheAgentsRelease(t *testing.T) {
	const onFailure = `"onFailure": "block" (PreToolUse, UserPromptSubmit) needs Claude Code 2.1.295 or later; older releases ignore it`
	const httpHooks = `"type": "http" with "headers" and "allowedEnvVars" needs Claude Code 2.1.63 or later`
	for _, c := range []struct {
		name, agent, program, prints string
		args                         []string
		code                         int
		written                      bool
		stdout, stderr               []string
	}{
		{name: "recent claude", agent: "claude", program: "claude", prints: "2.1.301 (Claude Code)", code: 0, written: true,
			stdout: []string{onFailure, "claude on PATH is 2.1.301: recent enough"}},
		{name: "old claude", agent: "claude", program: "claude", prints: "2.1.200 (Claude Code)", code: 1,
			stderr: []string{"claude on PATH is Claude Code 2.1.200: " + `"onFailure": "block" (PreToolUse, UserPromptSubmit) needs 2.1.295`,
				"nothing was written: upgrade Claude Code, or write the entries all the same with --allow-old-agent"}},
		{name: "old claude allowed", agent: "claude", program: "claude", prints: "2.1.200 (Claude Code)", args: []string{"--allow-old-agent"},
			code: 0, written: true, stdout: []string{onFailure}, stderr: []string{"luahook: warning: ", "claude on PATH is Claude Code 2.1.200"}},
		{name: "old claude printed", agent: "claude", program: "claude", prints: "2.1.200 (Claude Code)", args: []string{"--print"},
			code: 0, stderr: []string{"luahook: warning: ", "is Claude Code 2.1.200", onFailure}},
		{name: "claude over HTTP", agent: "claude", program: "claude", prints: "2.1.100 (Claude Code)", args: []string{"--http", "http://127.0.0.1:8787"},
			code: 1, stderr: []string{"needs 2.1.295"}},
		{name: "claude over HTTP, older still", agent: "claude", program: "claude", prints: "2.1.62 (Claude Code)",
			args: []string{"--http", "http://127.0.0.1:8787", "--allow-old-agent"}, code: 0, written: true,
			stdout: []string{httpHooks}, stderr: []string{`"type": "http" with "headers" and "allowedEnvVars" needs 2.1.63`}},
		{name: "no claude on PATH", agent: "claude", code: 0, written: true,
			stdout: []string{onFailure, "Claude Code's release was not checked (claude: the agent's program is not on PATH): make sure it is 2.1.295 or later"}},
		{name: "claude printing no version", agent: "claude", program: "claude", prints: "Claude Code", code: 0, written: true,
			stdout: []string{"printed no version number"}},
		{name: "old codex", agent: "codex", program: "codex", prints: "codex-cli 0.123.9", code: 1,
			stderr: []string{"codex on PATH is Codex 0.123.9: hooks.json needs 0.124.0"}},
		{name: "recent codex", agent: "codex", program: "codex", prints: "codex-cli 0.171.0", code: 0, written: true,
			stdout: []string{"hooks.json needs Codex 0.124.0 or later", "codex on PATH is 0.171.0: recent enough"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			project, _ := installEnv(t)
			if c.program != "" {
				fakeOnPath(t, c.program, c.prints)
			} else {
				t.Setenv("PATH", t.TempDir())
			}
			code, out, errs := runInstallCmd(t, append([]string{c.agent, "--command", testLuahook}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			for _, want := range c.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, want := range c.stderr {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
			file := map[string]string{"claude": ".claude/settings.json", "codex": ".codex/hooks.json"}[c.agent]
			if _, err := os.Stat(filepath.Join(project, file)); (err == nil) != c.written {
				t.Errorf("%s written: %v, want %v", file, err == nil, c.written)
			}
		})
	}
}

// Agents none of whose settings needs a known release get no note about
// releases, and their program is not run.
func TestInstallRunsNoAgentWhoseReleaseNothingNeeds(t *testing.T) {
	installEnv(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	writePrivate(t, dir, "cursor-agent", "#!/bin/sh\n: > '"+marker+"'\n", 0o755)
	t.Setenv("PATH", dir)
	code, out, errs := runInstallCmd(t, "cursor", "--command", testLuahook)
	if code != 0 || strings.Contains(out+errs, "or later") || strings.Contains(out+errs, "release") {
		t.Errorf("exit %d\n%s%s; want no note on releases", code, out, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("install ran the agent's program")
	}
}
