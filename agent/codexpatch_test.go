package agent

import (
	"encoding/json"
	"slices"
	"testing"
)

// Codex applies a patch given to its shell itself, as a file edit, while
// its hooks see a Bash call: such a call is also an fs.write, so that
// "@fs.write" policies see it. A plain shell call is not, nor is Claude
// Code's Bash naming apply_patch (Claude Code runs it as a command).
func TestCodexShellPatchIsAFileWrite(t *testing.T) {
	payload := func(tool, command string) []byte {
		b, err := json.Marshal(map[string]any{"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse",
			"tool_name": tool, "tool_input": map[string]any{"command": command}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	patch := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: written.txt\n+hello\n*** End Patch\nEOF\n"
	cases := []struct {
		name       string
		adapter    Adapter
		tool, cmd  string
		want, none []string
	}{
		{"codex heredoc", codexAdapter{}, "Bash", patch, []string{CapShell, CapFSWrite}, nil},
		{"codex in bash -lc", codexAdapter{}, "Bash", "bash -lc \"applypatch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\"", []string{CapShell, CapFSWrite}, nil},
		{"codex plain shell", codexAdapter{}, "Bash", "ls -la", []string{CapShell}, []string{CapFSWrite}},
		{"codex apply_patch tool", codexAdapter{}, "apply_patch", patch, []string{CapFSWrite}, []string{CapShell}},
		{"claude", claudeAdapter{}, "Bash", patch, []string{CapShell}, []string{CapFSWrite}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := c.adapter.Decode(payload(c.tool, c.cmd), "")
			if err != nil {
				t.Fatal(err)
			}
			caps := req.Input.ToolCapabilities
			for _, w := range c.want {
				if !slices.Contains(caps, w) {
					t.Errorf("capabilities %q lack %q", caps, w)
				}
			}
			for _, n := range c.none {
				if slices.Contains(caps, n) {
					t.Errorf("capabilities %q hold %q", caps, n)
				}
			}
		})
	}
}
