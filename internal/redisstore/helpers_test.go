package redisstore_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/runner"
)

// openEngine opens an engine over a hooks folder holding files (name ->
// source) and a luahook.toml holding config, and closes it when t ends.
func openEngine(t testing.TB, config string, files map[string]string) *engine.Engine {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(root, "luahook.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.Errors != 0 {
		t.Fatalf("hook files did not load: %+v", e.Problems())
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// bash fires a PreToolUse of the bash tool running command.
func bash(e *engine.Engine, ctx context.Context, session, command string) runner.Result {
	cmd, _ := json.Marshal(map[string]string{"command": command})
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: cmd, Cwd: os.TempDir(), SessionID: session}
	return e.Runner().PreToolUse(ctx, in)
}

// failure returns the failure of the first hook in res's trace, or nil.
func failure(res runner.Result) *luahook.Failure {
	for _, tr := range res.Trace {
		if tr.Failure != nil {
			return tr.Failure
		}
	}
	return nil
}
