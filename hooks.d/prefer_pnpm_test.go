package hooksd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	hooksd "github.com/luahook/luahook/hooks.d"
)

// TestPreferPnpmReadsTheProjectsLockfiles runs the shipped prefer-pnpm
// policy with the io library granted and without it, on real project
// folders: npm
// commands are rewritten only where the nearest lockfile is pnpm's and no
// other package manager's; without io it looks through the fs module,
// which sees the project folder and nothing above it.
func TestPreferPnpmReadsTheProjectsLockfiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("npm-app/package.json")
	write("npm-app/package-lock.json")
	write("pnpm-app/package.json")
	write("pnpm-app/pnpm-lock.yaml")
	write("pnpm-app/packages/web/package.json") // a workspace package: the lockfile is at the root
	write("both/pnpm-lock.yaml")
	write("both/package-lock.json")
	write("yarn-app/yarn.lock")
	write("new-app/package.json")
	write("mono/pnpm-lock.yaml")
	write("mono/legacy/package-lock.json") // a nested npm project inside a pnpm one
	write("mono/legacy/package.json")

	hooks := t.TempDir()
	if err := os.CopyFS(hooks, hooksd.FS); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(config, []byte("[lua]\nallow_libs = [\"io\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(config string) *engine.Engine {
		e, err := engine.Open(context.Background(), engine.Options{Dir: hooks, ConfigPath: config, NoWatch: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	fire := func(e *engine.Engine, cwd, command string) string {
		input, _ := json.Marshal(map[string]string{"command": command})
		in := luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Cwd: cwd, ToolInput: input}
		res := e.Runner().Fire(context.Background(), &in)
		if res.Verdict == luahook.VerdictDeny {
			t.Fatalf("%s in %s: denied: %s", command, cwd, res.Reason)
		}
		if res.Input == nil {
			return command
		}
		var out struct{ Command string }
		if err := json.Unmarshal(res.Input, &out); err != nil {
			t.Fatal(err)
		}
		return out.Command
	}

	type rewriteCase struct{ cwd, command, want string }
	check := func(e *engine.Engine, how string, cases []rewriteCase) {
		for _, tt := range cases {
			cwd := filepath.Join(root, filepath.FromSlash(tt.cwd))
			if got := fire(e, cwd, tt.command); got != tt.want {
				t.Errorf("%s, in %s: %q became %q, want %q", how, tt.cwd, tt.command, got, tt.want)
			}
		}
		// No cwd: nothing to look at, nothing rewritten.
		if got := fire(e, "", "npm install x"); got != "npm install x" {
			t.Errorf("%s and no cwd: npm install x became %q", how, got)
		}
	}

	check(open(config), "with io", []rewriteCase{
		{"npm-app", "npm install left-pad", "npm install left-pad"},
		{"npm-app", "npm ci", "npm ci"},
		{"pnpm-app", "npm install left-pad", "pnpm add left-pad"},
		{"pnpm-app/packages/web", "npm run build", "pnpm run build"},
		{"both", "npm install", "npm install"},
		{"yarn-app", "npx tsc", "npx tsc"},
		{"new-app", "npm install x", "npm install x"},
		{"mono/legacy", "npm install x", "npm install x"},
		{"mono", "npm install x", "pnpm add x"},
		// the folder a leading cd moves to is the one looked at
		{"", "cd npm-app && npm install", "cd npm-app && npm install"},
		{"", "cd pnpm-app && npm install", "cd pnpm-app && pnpm install"},
		{"mono", "cd legacy && npm i x", "cd legacy && npm i x"},
		{"npm-app", "cd /tmp && cd " + filepath.Join(root, "pnpm-app") + " && npm i", "cd /tmp && cd " + filepath.Join(root, "pnpm-app") + " && pnpm install"},
	})

	// Without io the policy looks through the fs module: the cwd and the
	// folders below it, never above (a workspace package's lockfile at the
	// root is not seen, and the command is left alone).
	check(open(""), "without io", []rewriteCase{
		{"npm-app", "npm install x", "npm install x"},
		{"pnpm-app", "npm install x", "pnpm add x"},
		{"new-app", "npm install x", "npm install x"},
		{"both", "npm ci", "npm ci"},
		{"pnpm-app/packages/web", "npm run build", "npm run build"},
		{"mono", "cd legacy && npm i x", "cd legacy && npm i x"},
		{"mono", "npm install x", "pnpm add x"},
		{"", "cd pnpm-app && npm install", "cd pnpm-app && pnpm install"},
		{"npm-app", "cd " + filepath.Join(root, "pnpm-app") + " && npm i", "cd " + filepath.Join(root, "pnpm-app") + " && npm i"},
	})
}
