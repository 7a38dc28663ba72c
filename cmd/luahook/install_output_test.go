package main

import (
	"strings"
	"testing"
)

// install warns where the agent it wires cannot keep from the model a
// tool's output that luahook's PostToolUse hooks rewrote, naming the gap
// and what the model gets instead (with --print too, which writes
// nothing), and notes the block whose reason carries the output where that
// is the agent's only way; an agent that replaces the output is neither.
func TestInstallWarnsWhereTheAgentCannotReplaceAToolsOutput(t *testing.T) {
	const warning = "luahook: warning: "
	for _, c := range []struct {
		name, agent, program, prints string
		args                         []string
		stderr, stdout               string // "" when none is wanted
	}{
		{name: "cursor", agent: "cursor",
			stderr: warning + "Cursor cannot replace a built-in tool's output: where luahook's PostToolUse hooks redact or replace it, the model gets additional_context"},
		{name: "cursor printed", agent: "cursor", args: []string{"--print"},
			stderr: warning + "Cursor cannot replace a built-in tool's output"},
		{name: "claude reported to ignore it", agent: "claude", program: "claude", prints: "2.1.150 (Claude Code)", args: []string{"--allow-old-agent"},
			stderr: warning + "Claude Code 2.1.150 is among the releases reported to ignore updatedToolOutput for Bash and WebFetch (2.1.121 through 2.1.177"},
		{name: "claude before updatedToolOutput", agent: "claude", program: "claude", prints: "2.1.100 (Claude Code)", args: []string{"--allow-old-agent"},
			stderr: warning + "Claude Code 2.1.100 cannot replace a built-in tool's output (only an MCP tool's, with updatedMCPToolOutput; the rest came in 2.1.121)"},
		{name: "recent claude", agent: "claude", program: "claude", prints: "2.1.332 (Claude Code)"},
		{name: "codex", agent: "codex", program: "codex", prints: "codex-cli 0.171.0",
			stdout: `note: Codex takes a rewritten tool output only as a block's reason: where luahook's PostToolUse hooks redact or replace a tool's output, luahook answers "decision":"block"`},
		{name: "gemini", agent: "gemini", stdout: `note: Gemini CLI takes a rewritten tool output only as a block's reason`},
		{name: "copilot", agent: "copilot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			installEnv(t)
			if c.program != "" {
				fakeOnPath(t, c.program, c.prints)
			} else {
				t.Setenv("PATH", t.TempDir())
			}
			code, out, errs := runInstallCmd(t, append([]string{c.agent, "--command", testLuahook}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, want 0\n%s%s", code, out, errs)
			}
			gaps := strings.Count(errs, "cannot replace") + strings.Count(errs, "reported to ignore")
			if c.stderr != "" && !strings.Contains(errs, c.stderr) || c.stderr == "" && gaps > 0 {
				t.Errorf("stderr:\n%s\nwant the warning %q", errs, c.stderr)
			}
			notes := strings.Count(out, "only as a block's reason")
			if c.stdout != "" && !strings.Contains(out, c.stdout) || c.stdout == "" && notes > 0 {
				t.Errorf("stdout:\n%s\nwant the note %q", out, c.stdout)
			}
		})
	}
}
