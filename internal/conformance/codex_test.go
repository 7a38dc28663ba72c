//go:build conformance

package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexVersion is the release of Codex CLI in agents.txt.
const codexVersion = "0.171.0"

// codex runs `codex exec` on prompt in the project, asking model through a
// provider of the temporary CODEX_HOME's config.toml (Codex ignores
// OPENAI_BASE_URL), the project trusted (Codex runs no project hook
// otherwise, and says nothing), its hooks run without the interactive
// review (--dangerously-bypass-hook-trust) and no sandbox or approval of
// its own (so that only luahook can stop a call). CODEX_HOME is outside
// the temporary folder, where Codex refuses to make its helpers.
func (p *project) codex(t *testing.T, model *fakeResponses, prompt string) (string, error) {
	t.Helper()
	home, err := os.MkdirTemp(filepath.Join(p.home, ".."), "codex-home")
	if err != nil {
		t.Fatal(err)
	}
	config := `model_provider = "fake"
model = "fake-model"

[model_providers.fake]
name = "fake"
base_url = "` + model.URL + `"
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"
supports_websockets = false

[projects."` + p.dir + `"]
trust_level = "trusted"
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@openai/codex", codexVersion, "codex"), "exec", "--skip-git-repo-check",
		"-s", "danger-full-access", "--dangerously-bypass-hook-trust", prompt)
	cmd.Dir = p.dir
	cmd.WaitDelay = 5 * time.Second // its children may hold the output open
	cmd.Env = p.env("CODEX_HOME="+home, "FAKE_MODEL_KEY=conformance")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// execCall is Codex's shell tool creating the marker.
func execCall(marker string) toolCall {
	return toolCall{Name: "exec_command", Input: map[string]any{"cmd": "touch " + marker}}
}

// Without luahook the fake model's call runs.
func TestCodexRunsTheFakeModelsCall(t *testing.T) {
	p := newProject(t, nil)
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeResponses(t, execCall(marker))
	out, err := p.codex(t, model, "create the marker")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run (%v); codex said:\n%s", err, out)
	}
}

// A policy's deny through the hooks install wrote: the call never runs and
// the model receives the reason.
func TestCodexDeniedCallDoesNotRunAndTheModelGetsTheReason(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicyAnyShell})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeResponses(t, execCall(marker))
	out, err := p.codex(t, model, "create the marker")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the denied call ran; codex said:\n%s", out)
	}
	if !model.received("conformance: no markers here") {
		t.Errorf("the model never received the policy's reason; codex said:\n%s", out)
	}
}

// A hooks folder that does not load blocks the prompt: no request reaches
// the model.
func TestCodexBrokenFolderBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicyAnyShell, "20-broken.lua": "hook.register(\n"})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	model := startFakeResponses(t, execCall(filepath.Join(t.TempDir(), "marker")))
	out, _ := p.codex(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; codex said:\n%s", n, out)
	}
	if !strings.Contains(out, "UserPromptSubmit Blocked") {
		t.Errorf("codex does not say its prompt hook blocked:\n%s", out)
	}
}
