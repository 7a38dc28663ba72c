package redisstore_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// untilAnswered fires calls at e until one runs without a failure, which
// it returns, and fails t after 15 s: once the server is back, the store's
// breaker lets a call through within its cool-down (at most 2 s).
func untilAnswered(t *testing.T, e *engine.Engine, session string) runner.Result {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res := bash(e, context.Background(), session, "ls")
		if failure(res) == nil {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store did not answer again within 15 s: %v", failure(res))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
