//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claudeNew and claudeOld are the releases of Claude Code in agents.txt:
// the one the suite runs, and the last one without onFailure.
const (
	claudeNew = "2.1.332"
	claudeOld = "2.1.197"
)

// agentBin returns the program name of the npm package pkg at version, as
// .ci/run installs it from agents.txt under LUAHOOK_AGENTS_DIR.
func agentBin(t *testing.T, pkg, version, name string) string {
	t.Helper()
	dir := os.Getenv("LUAHOOK_AGENTS_DIR")
	if dir == "" {
		t.Fatalf("LUAHOOK_AGENTS_DIR is not set: install the agents of agents.txt, each with npm install --prefix DIR/NAME PACKAGE@VERSION (NAME: the line with / and @ made _), and set it to DIR, as .ci/run does")
	}
	folder := strings.NewReplacer("/", "_", "@", "_").Replace(pkg + "@" + version)
	path := filepath.Join(dir, folder, "node_modules", ".bin", name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s@%s is not installed: %v", pkg, version, err)
	}
	return path
}

// binDir is the folder the suite builds luahook's commands into, side by
// side as go install puts them (luahook-fire is found next to luahook).
var binDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "luahook-conformance-bin") })

// buildOnce returns a function giving the path of luahook's command name,
// built into binDir once per test binary.
func buildOnce(name string) func(t *testing.T) string {
	build := sync.OnceValues(func() (string, error) {
		dir, err := binDir()
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", path, "github.com/luahook/luahook/cmd/"+name).CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", name, err, out)
		}
		return path, nil
	})
	return func(t *testing.T) string {
		t.Helper()
		path, err := build()
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// luahookBin is the luahook command the agents run.
var luahookBin = buildOnce("luahook")

// project is a folder with a hooks.d holding the given policies, under a
// HOME of its own, and luahook's folder first on PATH.
type project struct {
	dir, home, path string
}

func newProject(t *testing.T, policies map[string]string) *project {
	t.Helper()
	root := agentTempDir(t)
	p := &project{dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	p.path = filepath.Dir(luahookBin(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, d := range []string{filepath.Join(p.dir, "hooks.d"), p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range policies {
		if err := os.WriteFile(filepath.Join(p.dir, "hooks.d", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// agentTempDir is t.TempDir for a folder an agent's program works in: an
// agent may leave a process behind that still writes under it for a moment
// after the test (Copilot CLI unpacks itself under HOME's .cache), so the
// removal is tried again for a while before it counts as a failure.
func agentTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "conformance-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(15 * time.Second)
		for {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("removing %s: %v", dir, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

func (p *project) env(extra ...string) []string {
	return append([]string{"HOME=" + p.home, "PATH=" + p.path, "TMPDIR=" + os.TempDir()}, extra...)
}

// luahook runs the luahook command in the project.
func (p *project) luahook(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(luahookBin(t), args...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("luahook %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// claude runs Claude Code's print mode on prompt in the project, asking
// model, with Bash allowed without its own prompt (so that only luahook
// can stop a call).
func (p *project) claude(t *testing.T, model *fakeModel, prompt string) (string, error) {
	t.Helper()
	return p.claudeAt(t, claudeNew, model, prompt)
}

// claudeAt is claude with the given release of Claude Code.
func (p *project) claudeAt(t *testing.T, version string, model *fakeModel, prompt string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@anthropic-ai/claude-code", version, "claude"), "-p", prompt, "--allowedTools", "Bash")
	cmd.Dir = p.dir
	cmd.Env = p.env("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-conformance",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// markerCall is a shell call whose only effect is creating the marker.
func markerCall(marker string) toolCall {
	return toolCall{Name: "Bash", Input: map[string]any{"command": "touch " + marker, "description": "create the marker"}}
}

// A file added since the folder was trusted does not run, and blocks the
// prompt, naming it.
func TestClaudeCodeUntrustedFileBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	p.luahook(t, "install", "claude", "--project")
	p.luahook(t, "trust")
	if err := os.WriteFile(filepath.Join(p.dir, "hooks.d", "30-new.lua"), []byte("-- new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := startFakeModel(t, markerCall(filepath.Join(t.TempDir(), "marker")))
	out, _ := p.claude(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; claude said:\n%s", n, out)
	}
	if !strings.Contains(out, "30-new.lua") || !strings.Contains(out, "luahook trust") {
		t.Errorf("the block does not name the new file and the way out; claude said:\n%s", out)
	}
	if !t.Failed() {
		observe("@anthropic-ai/claude-code", claudeNew, checkUntrusted, "yes")
	}
}
