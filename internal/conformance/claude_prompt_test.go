//go:build conformance

package conformance

import (
	"path/filepath"
	"strings"
	"testing"
)

// promptPolicy blocks every prompt that names a secret.
const promptPolicy = `hook.register("UserPromptSubmit", nil, function(input)
  if (input.prompt or ""):find("s3cr3t", 1, true) then return hook.deny("conformance: no secrets in prompts") end
end)
`

// A policy's block of a prompt, on both releases of Claude Code (the old
// one wired with --allow-old-agent): no request that could carry it
// reaches the model, not even a session title (2.1.197 sends a HEAD /,
// which carries nothing), and the user is shown the reason. Claude Code
// exits 0 all the same, which the table records.
func TestClaudeCodeBlockedPromptSendsNoRequest(t *testing.T) {
	for _, version := range []string{claudeNew, claudeOld} {
		t.Run(version, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-prompt.lua": promptPolicy})
			p.luahook(t, "install", "claude", "--project", "--allow-old-agent")
			p.luahook(t, "trust")
			model := startFakeModel(t, markerCall(filepath.Join(t.TempDir(), "marker")))
			out, err := p.claudeAt(t, version, model, "the password is s3cr3t")
			if n := model.posts(); n != 0 {
				t.Fatalf("%d requests reached the model, want none; claude %s said:\n%s", n, version, out)
			}
			if model.received("s3cr3t") {
				t.Fatalf("the blocked prompt reached the model")
			}
			observe("@anthropic-ai/claude-code", version, checkPromptBlocked, "yes")
			if !strings.Contains(out, "conformance: no secrets in prompts") {
				t.Errorf("the user is not shown the block's reason; claude %s said:\n%s", version, out)
			} else {
				observe("@anthropic-ai/claude-code", version, checkBlockShown, "yes")
			}
			observe("@anthropic-ai/claude-code", version, checkBlockExitStatus, exitStatus(t, err))
		})
	}
}

// A policy's ask of a rewritten call is Claude Code's own prompt, with
// the rewritten call: in print mode, where no one can answer it, neither
// the original nor the rewritten command runs, and the model is told.
func TestClaudeCodeHookAskRunsNothingInPrintMode(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-ask.lua": askPolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeModel(t, rewriteCall(markerCall, dir))
	if out, err := p.claude(t, model, "create the file"); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if ran(dir, name) {
			t.Errorf("the %s command ran without an approval", name)
		}
	}
	if model.count() < 2 {
		t.Errorf("the model heard nothing after its call (%d requests)", model.count())
	}
	if !t.Failed() {
		observe("@anthropic-ai/claude-code", claudeNew, checkHookAsk, "nothing runs")
	}
}
