//go:build conformance

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The context a SessionStart hook gives reaches the model.
func TestClaudeCodeSessionStartContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-context.lua": sessionContextPolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	model := startFakeModel(t, toolCall{Name: "Bash", Input: map[string]any{"command": "true", "description": "nothing"}})
	if out, err := p.claude(t, model, "do nothing"); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	if !model.received("conformance: session context 7f3a") {
		t.Errorf("the session's context never reached the model (%d requests)", model.count())
	} else {
		observe("@anthropic-ai/claude-code", claudeNew, checkSessionContext, "yes")
	}
}

// The context a PostToolUse hook adds after a call reaches the model with
// the call's result.
func TestClaudeCodePostToolUseContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-post.lua": postContextPolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeModel(t, markerCall(marker))
	if out, err := p.claude(t, model, "create the marker"); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run: %v", err)
	}
	if !model.received("conformance: after the call 91c2") {
		t.Errorf("the PostToolUse context never reached the model (%d requests)", model.count())
	} else {
		observe("@anthropic-ai/claude-code", claudeNew, checkPostContext, "yes")
	}
}

// A rewrite a hook explicitly allows runs as rewritten: the original
// command never runs.
func TestClaudeCodeRunsTheRewrittenCommand(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-approve.lua": approvePolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeModel(t, toolCall{Name: "Bash", Input: map[string]any{"command": "touch " + filepath.Join(dir, "original"), "description": "x"}})
	if out, err := p.claude(t, model, "create the file"); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "original")); err == nil {
		t.Errorf("the original command ran")
	}
	if _, err := os.Stat(filepath.Join(dir, "rewritten")); err != nil {
		t.Errorf("the rewritten command did not run: %v", err)
	}
	if !t.Failed() {
		observe("@anthropic-ai/claude-code", claudeNew, checkRewrite, "yes")
	}
}

// withoutDir returns list without dir.
func withoutDir(list []string, dir string) []string {
	var out []string
	for _, d := range list {
		if d != dir {
			out = append(out, d)
		}
	}
	return out
}

// A rewrite no hook explicitly allowed is Claude Code's own ask with the
// rewritten call: in print mode, where it cannot ask, neither the original
// nor the rewritten command runs (no approval the policies did not give).
func TestClaudeCodeAskOfARewriteApprovesNothingInPrintMode(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeModel(t, toolCall{Name: "Bash", Input: map[string]any{"command": "touch " + filepath.Join(dir, "original"), "description": "x"}})
	if out, err := p.claude(t, model, "create the file"); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("the %s command ran without an approval", name)
		}
	}
	if model.count() < 2 {
		t.Errorf("the model heard nothing after its call (%d requests)", model.count())
	}
	if !t.Failed() {
		observe("@anthropic-ai/claude-code", claudeNew, checkAsk, "nothing runs")
	}
}

// Claude Code before 2.1.295 ignores onFailure: luahook install refuses to
// wire it (found on PATH), and with --allow-old-agent a hook that cannot
// run lets the call through there — the reason it refuses.
func TestClaudeCodeWithoutOnFailureIsRefusedAndWouldLetCallsThrough(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	old := agentBin(t, "@anthropic-ai/claude-code", claudeOld, "claude")
	p.path = filepath.Dir(old) + string(os.PathListSeparator) + p.path
	cmd := exec.Command(luahookBin(t), "install", "claude", "--project")
	cmd.Dir, cmd.Env = p.dir, p.env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), claudeOld) {
		t.Fatalf("install wired Claude Code %s (err %v):\n%s", claudeOld, err, out)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".claude", "settings.json")); err == nil {
		t.Fatalf("install refused, yet wrote the settings")
	}
	p.luahook(t, "install", "claude", "--project", "--allow-old-agent")
	p.luahook(t, "trust")
	p.path = strings.Join(withoutDir(filepath.SplitList(p.path), filepath.Dir(luahookBin(t))), string(os.PathListSeparator))
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeModel(t, markerCall(marker))
	if out, err := p.claudeAt(t, claudeOld, model, "create the marker"); err != nil {
		t.Fatalf("claude %s: %v\n%s", claudeOld, err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("Claude Code %s blocked a call its missing hook could not decide (%v): it honours onFailure, and install need not refuse it", claudeOld, err)
	} else {
		observe("@anthropic-ai/claude-code", claudeOld, checkMissingLuahook, "no: the call runs")
	}
}
