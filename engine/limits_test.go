package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// The config's [runner] context bound and [lua] max_input_values reach the
// runner and the Lua hooks.
func TestConfigRunnerAndLuaBoundsReachTheHooks(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[runner]\nmax_context_bytes = 1024\n\n[lua]\nmax_input_values = 10\n")
	writeFile(t, filepath.Join(root, "hooks.d", "10-context.lua"), `
for i = 1, 3 do
  hook.register("SessionStart", nil, function() return hook.context(("c"):rep(600)) end, { name = "ctx" .. i })
end
hook.register("PreToolUse", "bash", function(input) end, { name = "reader" })`)
	e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
	res := e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.SessionStart, Cwd: os.TempDir()})
	if n := strings.Count(res.AdditionalContext, "c"); n > 1024 || n < 600 || !strings.Contains(res.AdditionalContext, "left out") {
		t.Errorf("joined context of %d bytes with %d c's, want at most 1024 bytes of context and a marker: %q", len(res.AdditionalContext), n, res.AdditionalContext)
	}
	in := bashInput(os.TempDir())
	in.ToolInput = []byte(`{"command":"ls","args":[1,2,3,4,5,6,7,8,9,10]}`)
	pre := e.Runner().PreToolUse(context.Background(), in)
	if !pre.Denied() || len(pre.Trace) == 0 || pre.Trace[0].Failure == nil || pre.Trace[0].Failure.Kind != luahook.FailRejected {
		t.Errorf("a toolInput of 12 values with max_input_values = 10: %+v", pre)
	}
}
