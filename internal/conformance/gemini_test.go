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

// geminiVersion is the release of Gemini CLI in agents.txt.
const geminiVersion = "0.61.0"

// gemini runs Gemini CLI's non-interactive mode on prompt in the project,
// asking model, every tool call approved by the CLI itself (--yolo: only
// luahook can stop a call). The home's settings select the API-key login
// and trust the project folder, whose .gemini/settings.json install wrote.
func (p *project) gemini(t *testing.T, model *fakeGemini, prompt string) (string, error) {
	t.Helper()
	dir := filepath.Join(p.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), []byte(`{"`+p.dir+`":"TRUST_FOLDER"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@google/gemini-cli", geminiVersion, "gemini"), "-p", prompt, "--yolo")
	cmd.Dir = p.dir
	cmd.Env = p.env("GEMINI_API_KEY=conformance", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_NO_RELAUNCH=true")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// shellCall is Gemini CLI's shell tool creating the marker.
func shellCall(marker string) toolCall {
	return toolCall{Name: "run_shell_command", Input: map[string]any{"command": "touch " + marker, "description": "create the marker"}}
}

// markerPolicyAnyShell denies every shell command that names a marker,
// whatever the agent calls its shell tool.
const markerPolicyAnyShell = `hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("marker", 1, true) then return hook.deny("conformance: no markers here") end
end)
`

// Without luahook the fake model's function call runs.
func TestGeminiCLIRunsTheFakeModelsCall(t *testing.T) {
	p := newProject(t, nil)
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeGemini(t, shellCall(marker))
	out, err := p.gemini(t, model, "create the marker")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run (%v); gemini said:\n%s", err, out)
	}
}

// A policy's deny through the hooks install wrote: the call never runs and
// the model receives the reason.
func TestGeminiCLIDeniedCallDoesNotRunAndTheModelGetsTheReason(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicyAnyShell})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeGemini(t, shellCall(marker))
	out, err := p.gemini(t, model, "create the marker")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the denied call ran; gemini said:\n%s", out)
	}
	if !model.received("conformance: no markers here") {
		t.Errorf("the model never received the policy's reason; gemini said:\n%s", out)
	}
}

// A hooks folder that does not load blocks the prompt (BeforeAgent): no
// conversation request reaches the model.
func TestGeminiCLIBrokenFolderBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicyAnyShell, "20-broken.lua": "hook.register(\n"})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	model := startFakeGemini(t, shellCall(filepath.Join(t.TempDir(), "marker")))
	out, _ := p.gemini(t, model, "create the marker")
	if n := model.streamed(); n != 0 {
		t.Errorf("%d conversation requests reached the model, want none; gemini said:\n%s", n, out)
	}
	if !strings.Contains(out, "20-broken.lua") {
		t.Errorf("the block does not name the file that failed; gemini said:\n%s", out)
	}
}
