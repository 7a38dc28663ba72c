package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/install"
)

// agentsOnPath puts fake agent programs, each printing its --version
// answer, on a PATH of their own (and nothing else).
func agentsOnPath(t *testing.T, versions map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, out := range versions {
		writePrivate(t, dir, name, "#!/bin/sh\necho '"+out+"'\n", 0o755)
	}
	t.Setenv("PATH", dir)
}

func runDoctorCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"doctor"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// mustInstall wires luahook with the real install command.
func mustInstall(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runInstallCmd(t, append(args, "--command", testLuahook)...)
	if code != 0 {
		t.Fatalf("install %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func doctorJSON(t *testing.T) map[string]install.Report {
	t.Helper()
	_, out, errs := runDoctorCmd(t, "--json")
	var reports []install.Report
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, out, errs)
	}
	m := map[string]install.Report{}
	for _, r := range reports {
		m[string(r.Agent)] = r
	}
	return m
}

// A Claude Code older than 2.1.295 ignores onFailure: its command hooks
// cannot block when luahook cannot run, so doctor exits 1, says which
// wiring cannot block, and names the upgrade; 2.1.332 exits 0.
func TestDoctorClaudeReleaseDecidesWhetherItsWiringBlocks(t *testing.T) {
	for _, c := range []struct {
		name, version string
		code          int
		want, not     []string
	}{
		{name: "2.1.197", version: "2.1.197 (Claude Code)", code: 1,
			want: []string{"release 2.1.197", "step: upgrade Claude Code to 2.1.295 or later", "cannot block: Claude Code 2.1.197 ignores onFailure",
				`honours no:     "onFailure": "block"`, "luahook cannot block as it expects in: claude",
				"seen by luahook's agent conformance suite on Claude Code 2.1.197 (the release found):",
				"    luahook missing from PATH blocks the prompt: no: the call runs"},
		},
		{name: "2.1.332", version: "2.1.332 (Claude Code)", code: 0,
			want: []string{"release 2.1.332", `honours yes:    "onFailure": "block"`, "every wired agent (claude) can block as luahook expects",
				"seen by luahook's agent conformance suite on Claude Code 2.1.332 (the release found):",
				"    luahook missing from PATH blocks the prompt: yes"},
			not: []string{"upgrade", "cannot block:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			project, _ := installEnv(t)
			agentsOnPath(t, map[string]string{"claude": c.version, "codex": "codex-cli 0.130.0", "gemini": "0.30.1"})
			mustInstall(t, "claude", "--allow-old-agent")
			code, out, errs := runDoctorCmd(t)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			want := append(c.want, "project settings "+filepath.Join(project, ".claude", "settings.json")+": luahook wired (command) on PreToolUse")
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("stdout has %q:\n%s", n, out)
				}
			}
			r := doctorJSON(t)["claude"]
			if r.Version != strings.Fields(c.version)[0] || !r.Wired || (len(r.CannotBlock) > 0) != (c.code == 1) {
				t.Errorf("--json: version %q wired %v cannot_block %q", r.Version, r.Wired, r.CannotBlock)
			}
			if r.Seen == nil || r.Seen.Release != "Claude Code "+c.name || !r.Seen.Exact || len(r.Seen.Checks) == 0 {
				t.Errorf("--json: conformance %+v, want the suite's column of Claude Code %s", r.Seen, c.name)
			}
		})
	}
}

// Copilot CLI runs no project hook in a folder it does not trust: doctor
// and install both give that step for a project's wiring, not for the
// user's own hooks, which it runs everywhere.
func TestDoctorAndInstallGiveCopilotsFolderTrustStep(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, map[string]string{"copilot": "1.0.102"})
	out := mustInstall(t, "copilot")
	if !strings.Contains(out, "step: "+install.CopilotTrustStep) {
		t.Errorf("install's stdout lacks the folder-trust step:\n%s", out)
	}
	code, out, errs := runDoctorCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, w := range []string{"Copilot CLI (copilot)", "release 1.0.102", "step: " + install.CopilotTrustStep,
		"seen by luahook's agent conformance suite on Copilot CLI 1.0.102 (the release found):"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	out = mustInstall(t, "copilot", "--user")
	if strings.Contains(out, install.CopilotTrustStep) {
		t.Errorf("install --user gives the project's folder-trust step:\n%s", out)
	}
}

// Codex runs no hook until the user approves it in /hooks: doctor and
// install both give that step, which is not a wiring that cannot block.
func TestDoctorAndInstallGiveCodexsApprovalStep(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, map[string]string{"codex": "codex-cli 0.130.0"})
	out := mustInstall(t, "codex")
	if !strings.Contains(out, "step: "+install.CodexApprovalStep) {
		t.Errorf("install's stdout lacks the /hooks step:\n%s", out)
	}
	code, out, errs := runDoctorCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, w := range []string{"Codex (codex)", "release 0.130.0", "step: " + install.CodexApprovalStep, "Codex never shows a block's reason"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if r := doctorJSON(t)["codex"]; len(r.Steps) != 1 || r.Steps[0] != install.CodexApprovalStep {
		t.Errorf("--json steps %q", r.Steps)
	}
}

// A Codex older than 0.124.0 runs hooks.json only with [features] hooks:
// the wiring cannot block on it.
func TestDoctorOldCodexCannotBlock(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, map[string]string{"codex": "codex-cli 0.123.0"})
	mustInstall(t, "codex", "--allow-old-agent")
	code, out, errs := runDoctorCmd(t)
	if code != 1 || !strings.Contains(out, "step: upgrade Codex to 0.124.0 or later, or turn [features] hooks on") {
		t.Errorf("exit %d, want 1 with the upgrade step\n%s%s", code, out, errs)
	}
}

// An agent wired but not installed is said, with the release its wiring
// needs; its release unknown, it does not fail the check.
func TestDoctorSaysAWiredAgentIsNotInstalled(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, nil)
	mustInstall(t, "claude")
	code, out, errs := runDoctorCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, w := range []string{"program: not installed (claude is not on PATH)",
		"note: luahook is wired for Claude Code, but claude is not on PATH: its release was not checked",
		"step: make sure the Claude Code that runs these hooks is 2.1.295 or later",
		`honours unknown: "onFailure": "block"`} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
}

// With nothing wired, doctor exits 0 and says so.
func TestDoctorWithNothingWired(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, map[string]string{"claude": "2.1.197 (Claude Code)", "gemini": "0.30.1"})
	code, out, errs := runDoctorCmd(t)
	if code != 0 || !strings.Contains(out, "note: luahook is wired into no agent here: run luahook install AGENT") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "Gemini CLI (gemini)\n  program: ") || !strings.Contains(out, "release 0.30.1") {
		t.Errorf("stdout lacks Gemini CLI's release:\n%s", out)
	}
}

// Gemini CLI's wiring blocks, but its reasons show only as [WARNING]
// lines; the user's own settings are read from the home folder.
func TestDoctorReadsTheUsersGeminiSettings(t *testing.T) {
	_, home := installEnv(t)
	agentsOnPath(t, map[string]string{"gemini": "0.30.1"})
	mustInstall(t, "gemini", "--user")
	code, out, errs := runDoctorCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, w := range []string{"user settings " + filepath.Join(home, ".gemini", "settings.json") + ": luahook wired (command) on BeforeTool",
		"[WARNING] line"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
}

// Claude Code entries written without onFailure (by hand, or by an older
// luahook) cannot block when luahook cannot run, whatever the release;
// HTTP hooks on SessionStart never run.
func TestDoctorFindsClaudeEntriesThatDoNotFailClosed(t *testing.T) {
	project, _ := installEnv(t)
	agentsOnPath(t, map[string]string{"claude": "2.1.332 (Claude Code)"})
	writeTestFile(t, filepath.Join(project, ".claude", "settings.json"), `{
  "hooks": {
    "PreToolUse": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8787/agent/claude"}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8787/agent/claude", "onFailure": "block"}]}],
    "SessionStart": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8787/agent/claude"}]}]
  }
}
`)
	code, out, errs := runDoctorCmd(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	for _, w := range []string{`luahook wired (--http) on PreToolUse, UserPromptSubmit, SessionStart; no onFailure "block" on PreToolUse; never run: SessionStart`,
		`cannot block: ` + filepath.Join(project, ".claude", "settings.json") + `: the entries of PreToolUse have no onFailure "block"`,
		"step: run luahook install claude again (project scope)", "step: run luahook install claude --http URL again (project scope)"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
}

// A settings file whose switch turns every hook off cannot block: doctor
// exits 1, and install, which wrote the entries into it, fails, even with
// --allow-old-agent, which excuses an old release, not the file.
func TestDoctorAndInstallFailOnHooksTurnedOff(t *testing.T) {
	for _, c := range []struct {
		version string
		args    []string
	}{
		{"2.1.332 (Claude Code)", nil},
		{"2.1.197 (Claude Code)", []string{"--allow-old-agent"}},
	} {
		t.Run(c.version, func(t *testing.T) {
			project, _ := installEnv(t)
			agentsOnPath(t, map[string]string{"claude": c.version})
			writeTestFile(t, filepath.Join(project, ".claude", "settings.json"), "{\"disableAllHooks\": true}\n")
			code, out, errs := runInstallCmd(t, append([]string{"claude", "--command", testLuahook}, c.args...)...)
			if code != 1 || !strings.Contains(errs, "the hooks written cannot block") ||
				!strings.Contains(out, "disableAllHooks is true: change it, or Claude Code runs no hook of luahook") {
				t.Errorf("install: exit %d, want 1\n%s%s", code, out, errs)
			}
			code, out, errs = runDoctorCmd(t)
			if code != 1 || !strings.Contains(out, "disableAllHooks is true: Claude Code runs none of its hooks") {
				t.Errorf("doctor: exit %d, want 1\n%s%s", code, out, errs)
			}
		})
	}
}

// A usage error is exit status 2.
func TestDoctorUsageErrorIsTwo(t *testing.T) {
	installEnv(t)
	agentsOnPath(t, nil)
	for _, args := range [][]string{{"claude"}, {"--no-such-flag"}} {
		if code, out, errs := runDoctorCmd(t, args...); code != 2 {
			t.Errorf("doctor %v: exit %d, want 2\n%s%s", args, code, out, errs)
		}
	}
}

// doctor says, for each wired agent, what its release does with a tool's
// output that luahook's PostToolUse hooks rewrote: Cursor replaces an MCP
// tool's only, a warning that leaves the exit status 0; a Claude Code
// among the releases reported to ignore updatedToolOutput is a warning
// too; Codex and Gemini CLI take the output as a block's reason; a recent
// Claude Code and Copilot replace it.
func TestDoctorSaysWhereAToolsOutputCannotBeReplaced(t *testing.T) {
	for _, c := range []struct {
		agent, version, program string
		args                    []string
		code                    int
		want, not               []string
	}{
		{agent: "cursor", program: "cursor-agent", version: "2026.10.01", code: 0,
			want: []string{"  output firewall, built-in tools: not replaced: additional_context",
				"  output firewall, MCP tools: replaced (updated_mcp_tool_output",
				"  cannot replace output: Cursor cannot replace a built-in tool's output: where luahook's PostToolUse hooks redact or replace it",
				"every wired agent (cursor) can block as luahook expects",
				`warning: the model can still read tool output that luahook's PostToolUse hooks redact or replace, in: cursor (see "cannot replace output" above)`}},
		{agent: "claude", program: "claude", version: "2.1.150 (Claude Code)", args: []string{"--allow-old-agent"}, code: 1,
			want: []string{"  output firewall, built-in and MCP tools: replaced, but reported ignored for some tools on this release",
				"  cannot replace output: Claude Code 2.1.150 is among the releases reported to ignore updatedToolOutput for Bash and WebFetch",
				"in: claude (see \"cannot replace output\" above)"}},
		{agent: "claude", program: "claude", version: "2.1.332 (Claude Code)", code: 0,
			want: []string{"  output firewall, built-in and MCP tools: replaced (hookSpecificOutput.updatedToolOutput"},
			not:  []string{"cannot replace output", "warning:"}},
		{agent: "codex", program: "codex", version: "codex-cli 0.171.0", code: 0,
			want: []string{`  output firewall, built-in and MCP tools: replaced by a block's reason ("decision":"block"`},
			not:  []string{"cannot replace output", "warning:"}},
		{agent: "gemini", program: "gemini", version: "0.61.0", code: 0,
			want: []string{`  output firewall, built-in and MCP tools: replaced by a block's reason ("decision":"deny"`},
			not:  []string{"cannot replace output", "warning:"}},
		{agent: "copilot", program: "copilot", version: "1.0.102", code: 0,
			want: []string{"  output firewall, built-in and MCP tools: replaced (modifiedResult"},
			not:  []string{"cannot replace output", "warning:"}},
	} {
		t.Run(c.agent+" "+c.version, func(t *testing.T) {
			installEnv(t)
			agentsOnPath(t, map[string]string{c.program: c.version})
			mustInstall(t, append([]string{c.agent}, c.args...)...)
			code, out, errs := runDoctorCmd(t)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("stdout has %q:\n%s", n, out)
				}
			}
			r := doctorJSON(t)[c.agent]
			if !r.PostToolUse || len(r.Output) == 0 || (len(r.OutputGaps) > 0) != strings.Contains(out, "cannot replace output") {
				t.Errorf("--json: post_tool_use %v output %+v output_gaps %q", r.PostToolUse, r.Output, r.OutputGaps)
			}
		})
	}
}

// A wiring without luahook on the agent's PostToolUse event lets no
// redact policy see a tool's output: doctor says so as a step, and exits
// 0 (the wiring still blocks).
func TestDoctorGivesAStepForAWiringWithoutPostToolUse(t *testing.T) {
	project, _ := installEnv(t)
	agentsOnPath(t, map[string]string{"gemini": "0.61.0"})
	path := filepath.Join(project, ".gemini", "settings.json")
	writeTestFile(t, path, `{"hooks": {"BeforeTool": [{"hooks": [{"name": "luahook", "type": "command", "command": "luahook fire --agent gemini --project"}]}]}}`)
	code, out, errs := runDoctorCmd(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
	}
	want := "  step: run luahook install gemini again (project scope): " + path +
		" has no luahook entry on AfterTool, so no PostToolUse policy (redact, replace_output) sees Gemini CLI's tool output"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if r := doctorJSON(t)["gemini"]; r.PostToolUse || !r.Wired {
		t.Errorf("--json: post_tool_use %v wired %v", r.PostToolUse, r.Wired)
	}
}
