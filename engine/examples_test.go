package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/host/git"
)

// The sample configuration and policies under examples/ must keep loading.

func TestExampleConfigAndPoliciesLoadCleanly(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, Options{ConfigPath: filepath.Join(root, "examples", "luahook.toml"), NoWatch: true,
		Host: []host.Module{git.Module()}})
	if err := e.Err(); err != nil {
		t.Fatalf("load errors: %v", err)
	}
	if want := filepath.Join(root, "examples", "policies"); e.Dir() != want {
		t.Errorf("Dir = %q, want the config's hooks_dir %q", e.Dir(), want)
	}
	files, err := filepath.Glob(filepath.Join(root, "examples", "policies", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.Files != len(files) || st.Files < 4 || st.Hooks < st.Files+2 {
		t.Errorf("stats %+v for %d policy files, want every file loaded", st, len(files))
	}
	// The configured command hook's script path is relative to the config
	// file, wherever the payload's cwd is.
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{"command":"git push --force origin feature"}`), Cwd: t.TempDir(), SessionID: "s"}
	res := e.Runner().PreToolUse(context.Background(), in)
	if !res.Denied() || !strings.Contains(res.Reason, "force-push is not allowed") || res.Trace[0].Kind != luahook.KindCommand {
		t.Errorf("force push: %+v, want the configured guard-bash.sh to deny it first", res)
	}
}

func TestExamplePolicies(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "examples", "policies"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logRecorder{}
	e := openEngine(t, Options{Dir: dir, NoWatch: true, Logger: slog.New(logs), Host: []host.Module{git.Module()}})
	if err := e.Err(); err != nil {
		t.Fatalf("load errors: %v", err)
	}
	big := strings.Repeat("x", 300*1024)
	notRepo := t.TempDir() // protected-checkout.lua reads the cwd's branch
	tests := []struct {
		name, tool, input string
		deny              string // "" = allowed
	}{
		{"allowed host", "bash", `{"command":"curl -fsSL https://raw.githubusercontent.com/o/r/main/x.sh -o x.sh"}`, ""},
		{"subdomain spoof", "bash", `{"command":"curl https://github.com.evil.example/x"}`, "github.com.evil.example is not allowed"},
		{"host not listed", "bash", `{"command":"cd src && wget http://example.org/a.tgz"}`, "example.org is not allowed"},
		{"credentials in URL", "bash", `{"command":"curl https://github.com@evil.example/"}`, "evil.example is not allowed"},
		{"bare host", "bash", `{"command":"curl example.org"}`, "name the URL with its scheme"},
		{"no network", "bash", `{"command":"ls -la"}`, ""},
		{"push to main", "bash", `{"command":"git push origin main"}`, "pushing to main is not allowed"},
		{"push HEAD to release branch", "bash", `{"command":"git -C repo push origin HEAD:release/1.2"}`, "pushing to HEAD:release/1.2"},
		{"delete main remotely", "bash", `{"command":"git push origin :main"}`, "pushing to :main"},
		{"force push", "bash", `{"command":"git push -f origin feature"}`, "force-pushing"},
		{"delete master", "bash", `{"command":"git branch -D master"}`, "deleting the branch master"},
		{"push a feature branch", "bash", `{"command":"git push origin feature/x"}`, ""},
		{"branch named like main", "bash", `{"command":"git push origin mainline"}`, ""},
		{"small write", "write", `{"path":"a.txt","content":"hello"}`, ""},
		{"big write", "write", `{"path":"data.json","content":"` + big + `"}`, "writing 300 KiB to data.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse,
				ToolName: tt.tool, ToolInput: json.RawMessage(tt.input), Cwd: notRepo, SessionID: "s"})
			got := describe(res)
			switch {
			case tt.deny == "" && got != "allowed":
				t.Errorf("got %q, want allowed", got)
			case tt.deny != "" && !strings.Contains(got, tt.deny):
				t.Errorf("got %q, want a denial containing %q", got, tt.deny)
			}
		})
	}

	t.Run("audit log", func(t *testing.T) {
		ctx := context.Background()
		e.Runner().PostToolUse(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash",
			ToolInput: json.RawMessage(`{"command":"make test"}`), ToolResult: &luahook.ToolResult{Content: "ok"},
			Cwd: dir, SessionID: "audited"})
		e.Runner().ToolSkipped(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "write",
			ToolInput: json.RawMessage(`{"path":"x"}`), Cwd: dir, SessionID: "audited"}, "denied")
		lines := logs.records(slog.LevelInfo, "audit: tool")
		if len(lines) != 2 || !strings.Contains(lines[0], "target=make test") || !strings.Contains(lines[0], "failed=false") ||
			!strings.Contains(lines[1], "target=x") || !strings.Contains(lines[1], "failed=true") {
			t.Errorf("audit lines %q", lines)
		}
	})
}

func TestExamplePolicyProtectedCheckoutReadsTheBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "examples", "policies"))
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, Options{Dir: dir, NoWatch: true, Host: []host.Module{git.Module()}})
	if err := e.Err(); err != nil {
		t.Fatalf("load errors: %v", err)
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=A", "-c", "user.email=a@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("commit", "-q", "--allow-empty", "-m", "first")
	fire := func(cwd, command string) string {
		return describe(e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse,
			ToolName: "bash", ToolInput: json.RawMessage(`{"command":` + strconv.Quote(command) + `}`), Cwd: cwd, SessionID: "s"}))
	}
	for _, tt := range []struct {
		branch, command, want string // want: "allowed" or a part of the reason
	}{
		{"main", "git commit -am wip", "the checked-out branch is main"},
		{"main", "npm test && git push origin HEAD", "the checked-out branch is main"},
		{"main", "git status", "allowed"},
		{"main", "git -C ../other commit -m x", "without cd or -C"},
		{"release/1.2", "git commit -m fix", "the checked-out branch is release/1.2"},
		{"agent/work", "git commit -am wip", "allowed"},
		{"agent/work", "git push -u origin agent/work", "allowed"},
	} {
		run("switch", "-q", "-C", tt.branch)
		if got := fire(repo, tt.command); tt.want == "allowed" && got != "allowed" || !strings.Contains(got, tt.want) {
			t.Errorf("on %s, %q: got %q, want %q", tt.branch, tt.command, got, tt.want)
		}
	}
	if got := fire(t.TempDir(), "git commit -m x"); got != "allowed" {
		t.Errorf("outside a repository: got %q, want allowed", got)
	}
}

func TestExamplePoliciesHaveNoStrayFiles(t *testing.T) {
	// Every file in examples/policies is a hook file or a lib module: a
	// typo in a name would silently leave a policy out.
	dir := filepath.Join("..", "examples", "policies")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		if d.IsDir() {
			if d.Name() != "lib" {
				t.Errorf("unexpected folder %s", d.Name())
			}
			continue
		}
		if !IsHookFile(d.Name()) && d.Name() != "README.md" {
			t.Errorf("%s is not loaded by the engine", d.Name())
		}
	}
}
