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

// geminiVersion is the release of Gemini CLI in agents.txt.
const geminiVersion = "0.61.0"

// gemini runs Gemini CLI's non-interactive mode on prompt in the project,
// asking model, every tool call approved by the CLI itself (--yolo: only
// luahook can stop a call). The home's settings select the API-key login
// and trust the project folder, whose .gemini/settings.json install wrote.
func (p *project) gemini(t *testing.T, model *fakeGemini, prompt string) (string, error) {
	t.Helper()
	p.geminiHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@google/gemini-cli", geminiVersion, "gemini"), "-p", prompt, "--yolo")
	cmd.Dir = p.dir
	cmd.Env = p.env("GEMINI_API_KEY=conformance", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_NO_RELAUNCH=true")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// geminiHome writes the home's settings: the API-key login, and the
// project folder trusted.
func (p *project) geminiHome(t *testing.T) {
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
}

// shellCall is Gemini CLI's shell tool creating the marker.
func shellCall(marker string) toolCall {
	return toolCall{Name: "run_shell_command", Input: map[string]any{"command": "touch " + marker, "description": "create the marker"}}
}
