package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/install"
)

// installCase is one agent's settings file as a user has it: unrelated
// keys, the user's own hooks, and comments where the agent reads them.
var installCases = []struct {
	agent, file, existing, broken, brokenAt string
}{
	{"claude", ".claude/settings.json", `{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./scripts/audit.sh" } ] }
    ]
  }
}
`, "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n", ":3:13: "},
	{"codex", ".codex/hooks.json", `{
  "description": "team hooks",
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "python3 .codex/stop.py" } ] } ]
  }
}
`, "{\n  \"hooks\": []\n}\n", `:2:12: "hooks" is an array: want an object`},
	{"copilot", ".github/hooks/luahook.json", `{
  "version": 1,
  "hooks": {
    "errorOccurred": [ { "type": "command", "bash": "./scripts/log-error.sh" } ]
  }
}
`, "{\n  \"version\": 1\n  \"hooks\": {}\n}\n", ":3:3: unexpected '\"' in an object"},
	{"cursor", ".cursor/hooks.json", `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }]
  }
}
`, "{\n  // hooks\n  \"version\": 1\n}\n", ":2:3: comments are not allowed"},
	{"gemini", ".gemini/settings.json", `// Project settings
{
  "general": { "vimMode": true }, // the team's editor
  "hooks": {
    /* our own shell auditor */
    "BeforeTool": [
      { "matcher": "run_shell_command", "hooks": [{ "type": "command", "command": "./audit.sh" }] }
    ]
  }
}
`, "{\n  \"hooks\": {\n    \"BeforeTool\": {}\n  }\n}\n", ":3:19: hooks.BeforeTool is an object: want an array"},
}

const testLuahook = "/opt/luahook/bin/luahook"

// installEnv runs each test in its own project folder and home, with no
// agent folder moved by the environment.
func installEnv(t *testing.T) (project, home string) {
	project, home = t.TempDir(), t.TempDir()
	t.Chdir(project)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"} {
		t.Setenv(v, "")
	}
	return project, home
}

func runInstallCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"install"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// containsInOrder reports whether every byte of a appears in b, in order.
func containsInOrder(a, b string) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

func TestInstallMergesIntoAnExistingFileAndASecondRunChangesNothing(t *testing.T) {
	for _, tc := range installCases {
		t.Run(tc.agent, func(t *testing.T) {
			project, _ := installEnv(t)
			path := filepath.Join(project, tc.file)
			writeTestFile(t, path, tc.existing)

			code, out, errs := runInstallCmd(t, tc.agent, "--command", testLuahook)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			backup := path + install.BackupSuffix
			if !strings.HasPrefix(out, "wrote "+path+" (the previous file is "+backup+")\n") {
				t.Errorf("stdout:\n%s", out)
			}
			if got := readTestFile(t, backup); got != tc.existing {
				t.Errorf("the backup holds:\n%s", got)
			}
			merged := readTestFile(t, path)
			if !containsInOrder(tc.existing, merged) {
				t.Errorf("the user's text did not survive the merge:\n%s", merged)
			}
			if !strings.Contains(merged, testLuahook+" fire --agent "+tc.agent) {
				t.Errorf("no luahook hook in:\n%s", merged)
			}

			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			for _, p := range []string{path, backup} {
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errs = runInstallCmd(t, tc.agent, "--command", testLuahook)
			if code != 0 || !strings.HasPrefix(out, path+" is already up to date: nothing written\n") {
				t.Fatalf("second run: exit %d\n%s%s", code, out, errs)
			}
			if got := readTestFile(t, path); got != merged {
				t.Errorf("the second run changed the file:\n%s", got)
			}
			if got := readTestFile(t, backup); got != tc.existing {
				t.Errorf("the second run changed the backup:\n%s", got)
			}
			for _, p := range []string{path, backup} {
				if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
					t.Errorf("the second run touched %s", p)
				}
			}
		})
	}
}

func TestInstallPrintWritesNothing(t *testing.T) {
	for _, tc := range installCases {
		t.Run(tc.agent, func(t *testing.T) {
			project, _ := installEnv(t)
			path := filepath.Join(project, tc.file)

			// No file yet: the whole new file, and no folder made for it.
			code, out, errs := runInstallCmd(t, tc.agent, "--print", "--command", testLuahook)
			if code != 0 || !strings.Contains(out, testLuahook+" fire --agent "+tc.agent) || !strings.HasPrefix(out, "{\n") {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			if !strings.Contains(errs, "would write "+path+" (nothing written: --print)") {
				t.Errorf("stderr: %s", errs)
			}
			if entries, _ := os.ReadDir(project); len(entries) != 0 {
				t.Errorf("--print created %v", entries)
			}

			// An existing file: what it would become, and it stays as it is.
			writeTestFile(t, path, tc.existing)
			code, out, _ = runInstallCmd(t, tc.agent, "--print", "--command", testLuahook)
			if code != 0 || !containsInOrder(tc.existing, out) || out == tc.existing {
				t.Fatalf("exit %d; printed:\n%s", code, out)
			}
			if got := readTestFile(t, path); got != tc.existing {
				t.Errorf("--print changed the file")
			}
			if _, err := os.Stat(path + install.BackupSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("--print wrote a backup")
			}
		})
	}
}

func TestInstallRefusesABrokenFileWithoutWriting(t *testing.T) {
	for _, tc := range installCases {
		t.Run(tc.agent, func(t *testing.T) {
			project, _ := installEnv(t)
			path := filepath.Join(project, tc.file)
			writeTestFile(t, path, tc.broken)
			for _, print := range []bool{false, true} {
				args := []string{tc.agent, "--command", testLuahook}
				if print {
					args = append(args, "--print")
				}
				code, out, errs := runInstallCmd(t, args...)
				if code != 1 || out != "" {
					t.Errorf("exit %d, stdout %q; want exit 1 and nothing printed", code, out)
				}
				if !strings.Contains(errs, "luahook: "+path+tc.brokenAt) || !strings.Contains(errs, "nothing was written") {
					t.Errorf("stderr does not name %s%s:\n%s", path, tc.brokenAt, errs)
				}
			}
			if got := readTestFile(t, path); got != tc.broken {
				t.Errorf("the file changed")
			}
			if _, err := os.Stat(path + install.BackupSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a backup was written")
			}
		})
	}
}

func TestInstallUserScopeRunsTheUsersOwnPolicies(t *testing.T) {
	_, home := installEnv(t)
	hooks := filepath.Join(home, ".config", "luahook", "hooks.d")
	code, out, errs := runInstallCmd(t, "cursor", "--user", "--command", testLuahook)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "created "+hooks+": put your Lua policies there\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if fi, err := os.Stat(hooks); err != nil || !fi.IsDir() {
		t.Errorf("the user's hooks folder was not created: %v", err)
	}
	got := readTestFile(t, filepath.Join(home, ".cursor", "hooks.json"))
	if !strings.Contains(got, `"command": "`+testLuahook+` fire --agent cursor --dir `+hooks+`"`) {
		t.Errorf("the hooks do not run the user's folder:\n%s", got)
	}

	// With a luahook.toml of their own, the hooks run that config (and
	// the hooks_dir it names).
	cfg := filepath.Join(home, ".config", "luahook", "luahook.toml")
	writeTestFile(t, cfg, "")
	if code, out, errs := runInstallCmd(t, "claude", "--user", "--command", testLuahook); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got = readTestFile(t, filepath.Join(home, ".claude", "settings.json"))
	if !strings.Contains(got, `"command": "`+testLuahook+` fire --agent claude --config `+cfg+`"`) {
		t.Errorf("the hooks do not run the user's config:\n%s", got)
	}
}

func TestInstallProjectScopeSaysTheFolderNeedsTrust(t *testing.T) {
	project, _ := installEnv(t)
	code, out, _ := runInstallCmd(t, "claude", "--command", testLuahook)
	if code != 0 || !strings.Contains(out, "no ./hooks.d here yet") {
		t.Errorf("without hooks.d: exit %d\n%s", code, out)
	}
	if err := os.Mkdir(filepath.Join(project, "hooks.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runInstallCmd(t, "claude", "--command", testLuahook)
	if code != 0 || !strings.Contains(out, "run luahook trust; until then luahook blocks claude's tool calls") {
		t.Errorf("untrusted hooks.d: exit %d\n%s", code, out)
	}
	if code, out, errs := runArgs(t, "trust"); code != 0 {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runInstallCmd(t, "claude", "--command", testLuahook)
	if code != 0 || strings.Contains(out, "luahook trust") {
		t.Errorf("trusted hooks.d: exit %d\n%s", code, out)
	}
}

func runArgs(t *testing.T, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInstallOverHTTP(t *testing.T) {
	project, _ := installEnv(t)
	code, out, errs := runInstallCmd(t, "claude", "--http", "http://127.0.0.1:8787/", "--command", testLuahook)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got := readTestFile(t, filepath.Join(project, ".claude", "settings.json"))
	if n := strings.Count(got, `"url": "http://127.0.0.1:8787/agent/claude"`); n != 10 {
		t.Errorf("%d HTTP hooks, want one per event but SessionStart:\n%s", n, got)
	}
	if n := strings.Count(got, `"onFailure": "block"`); n != 2 {
		t.Errorf("%d hooks fail closed, want PreToolUse's and UserPromptSubmit's", n)
	}
	// Claude Code runs no HTTP hook on SessionStart: one command forwards
	// it, and no command runs beside an HTTP hook (every policy twice).
	if n := strings.Count(got, "fire --agent claude --http http://127.0.0.1:8787"); n != 1 {
		t.Errorf("%d forwarding commands, want SessionStart's alone:\n%s", n, got)
	}

	// The other agents forward through fire --http.
	code, out, errs = runInstallCmd(t, "cursor", "--http", "http://127.0.0.1:8787", "--command", testLuahook)
	path := filepath.Join(project, ".cursor", "hooks.json")
	if code != 0 || !strings.Contains(readTestFile(t, path), `"command": "`+testLuahook+` fire --agent cursor --http http://127.0.0.1:8787"`) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

func TestInstallFromATemporaryBuildRunsLuahookFromPATH(t *testing.T) {
	installEnv(t)
	// This test binary lives in a go-build folder, as a go run binary does;
	// the user's own settings then name "luahook" from PATH, with a warning.
	code, out, errs := runInstallCmd(t, "gemini", "--user")
	if code != 0 || !strings.Contains(errs, `luahook: warning: this luahook is a temporary build (go run or go test), so the hooks run "luahook" from PATH`) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestInstallProjectNamesNoPathOfThisMachine: the project's settings, a file
// the team commits, run "luahook" from PATH with --project (the project's
// own policies, found from the payload's cwd), never an absolute path.
func TestInstallProjectNamesNoPathOfThisMachine(t *testing.T) {
	project, _ := installEnv(t)
	code, out, errs := runInstallCmd(t, "gemini")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got := readTestFile(t, filepath.Join(project, ".gemini", "settings.json"))
	if !regexp.MustCompile(`"command": "luahook fire --agent gemini --project"`).MatchString(got) {
		t.Errorf("the project's hooks do not run luahook fire --project from PATH:\n%s", got)
	}
	if strings.Contains(got, project) || strings.Contains(got, os.TempDir()) {
		t.Errorf("the project's settings name a path of this machine:\n%s", got)
	}
}

func TestInstallUsage(t *testing.T) {
	installEnv(t)
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"vim"}, `unknown agent "vim"`},
		{[]string{"auto"}, "install needs the agent's name, not auto"},
		{[]string{"claude", "--project", "--user"}, "if any flags in the group [project user] are set none of the others can be"},
		{[]string{"claude", "--http", "127.0.0.1:8787"}, `--http "127.0.0.1:8787": want the base URL of luahook serve`},
		{[]string{}, "accepts 1 arg(s), received 0"},
	} {
		code, _, errs := runInstallCmd(t, tt.args...)
		if code != 1 || !strings.Contains(errs, tt.msg) {
			t.Errorf("install %v: exit %d, stderr %q; want exit 1 and %q", tt.args, code, errs, tt.msg)
		}
	}
}
