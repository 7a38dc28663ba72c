package security

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/server"
)

// attackerFolder makes a folder a client controls, with its own
// scripts/guard.sh that allows everything and leaves a marker file; it
// returns the folder and the marker's path.
func attackerFolder(t *testing.T) (dir, marker string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "attacker")
	marker = filepath.Join(t.TempDir(), "attacker-script-ran")
	guard := filepath.Join(dir, "scripts", "guard.sh")
	writeFile(t, guard, "#!/bin/sh\ntouch '"+marker+"'\nexit 0\n")
	if err := os.Chmod(guard, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, marker
}

// realGuard writes the operator's scripts/guard.sh next to the config: it
// denies, naming the folder LUAHOOK_CONFIG_DIR gives it.
func realGuard(t *testing.T, confDir string) {
	t.Helper()
	guard := filepath.Join(confDir, "scripts", "guard.sh")
	writeFile(t, guard, "#!/bin/sh\ncat >/dev/null\necho \"real guard in $LUAHOOK_CONFIG_DIR\" >&2\nexit 2\n")
	if err := os.Chmod(guard, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A command hook's relative script paths are resolved against the folder of
// the config file when it loads, never against the payload's cwd: a client
// that can write one folder and names it as cwd cannot swap in its own
// scripts/guard.sh.
func TestCommandScriptPathsResolveAgainstTheConfigFolderNotThePayload(t *testing.T) {
	tests := []struct{ name, hook string }{
		{"script operand of sh, as examples/luahook.toml ships it", `command = "sh ./scripts/guard.sh"`},
		{"script operand without ./", `command = "sh scripts/guard.sh"`},
		{"relative program", `command = "./scripts/guard.sh"`},
		{"../ path", `command = "sh ../conf/scripts/guard.sh"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, nil)
			confDir := filepath.Dir(dir)
			realGuard(t, confDir)
			if err := os.Rename(confDir, filepath.Join(filepath.Dir(confDir), "conf")); err != nil {
				t.Fatal(err)
			}
			confDir = filepath.Join(filepath.Dir(confDir), "conf")
			dir = filepath.Join(confDir, "hooks.d")
			cfg := writeConfig(t, dir, "[command]\nallow = [\"guard.sh\"]\n[[hooks.PreToolUse]]\n"+tt.hook+"\nfailure_policy = \"closed\"\n")
			e := open(t, engine.Options{Dir: dir, ConfigPath: cfg})
			attacker, marker := attackerFolder(t)

			res := e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.PreToolUse,
				ToolName: "bash", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`), Cwd: attacker})
			if _, err := os.Stat(marker); err == nil {
				t.Error("the attacker's scripts/guard.sh ran")
			}
			if !res.Denied() || res.Reason != "real guard in "+confDir {
				t.Errorf("result %+v (%s); want the real guard's deny, naming LUAHOOK_CONFIG_DIR=%s", res, failures(res), confDir)
			}
		})
	}
}

// The same through `serve`: the client chooses the payload's cwd.
func TestServeClientCannotChooseWhichGuardScriptRuns(t *testing.T) {
	dir := hooksDir(t, nil)
	confDir := filepath.Dir(dir)
	realGuard(t, confDir)
	e := open(t, engine.Options{Dir: dir, ConfigPath: writeConfig(t, dir,
		"[[hooks.PreToolUse]]\ncommand = \"sh ./scripts/guard.sh\"\nfailure_policy = \"closed\"\n")})
	srv := httptest.NewServer(server.New(e.Runner(), server.Options{}))
	defer srv.Close()
	attacker, marker := attackerFolder(t)
	body, _ := json.Marshal(map[string]any{"event": "PreToolUse", "toolName": "bash",
		"toolInput": map[string]string{"command": "rm -rf /"}, "cwd": attacker})
	resp, err := http.Post(srv.URL+"/hook", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Error("the attacker's scripts/guard.sh ran")
	}
	if !strings.Contains(string(answer), "real guard in "+confDir) {
		t.Errorf("answer %d %s; want the real guard's deny", resp.StatusCode, answer)
	}
}

// A shell's -c script cannot be resolved safely: one that names a relative
// path is refused when the config loads, with the file, the line and the fix.
func TestCommandShellScriptNamingARelativePathIsRefusedAtLoad(t *testing.T) {
	for _, cmd := range []string{
		`sh -c './scripts/guard.sh'`,
		`bash -ec 'cd ../x && make lint'`,
		`dash -c 'exec ./guard.sh "$@"' guard`,
		`zsh -c '. ./lib.sh; check'`,
	} {
		t.Run(cmd, func(t *testing.T) {
			dir := hooksDir(t, nil)
			cfg := writeConfig(t, dir, "[[hooks.PreToolUse]]\ncommand = \""+strings.ReplaceAll(cmd, `"`, `\"`)+"\"\n")
			_, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true})
			if err == nil {
				t.Fatal("engine.Open loaded the hook; want it refused")
			}
			for _, want := range []string{"luahook.toml:1:", "LUAHOOK_CONFIG_DIR", "absolute path"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("engine.Open: %v; want it to name %q", err, want)
				}
			}
		})
	}
}
