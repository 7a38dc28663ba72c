//go:build conformance

package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	return p.codexWith(t, model, prompt, "")
}

// codexWith is codex with more of config.toml (TOML tables) after the
// provider's and the project's.
func (p *project) codexWith(t *testing.T, model *fakeResponses, prompt, more string) (string, error) {
	t.Helper()
	return p.codexAsking(t, model, "fake-model", prompt, more)
}

// codexAsking is codexWith asking for the model named name (config.toml
// names its model before its tables, where more cannot reach).
func (p *project) codexAsking(t *testing.T, model *fakeResponses, name, prompt, more string) (string, error) {
	t.Helper()
	home, err := os.MkdirTemp(filepath.Join(p.home, ".."), "codex-home")
	if err != nil {
		t.Fatal(err)
	}
	config := `model_provider = "fake"
model = "` + name + `"

[model_providers.fake]
name = "fake"
base_url = "` + model.URL + `"
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"
supports_websockets = false

[projects."` + p.dir + `"]
trust_level = "trusted"
` + more
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
