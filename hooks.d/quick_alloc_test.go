package hooksd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/luabind"
)

// TestShellPoliciesPlainLineAllocatesNothing: every hook of the shipped
// shell policies, called on a plain build command (shell.quick lets it
// through), allocates nothing: the check is re.match calls only and the
// reuse analysis proves each hook lean, so the payload's tables are
// refilled rather than built anew.
func TestShellPoliciesPlainLineAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		t.Fatal(err)
	}
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", SessionID: "alloc", Cwd: "/home/dev/project",
		ToolInput: json.RawMessage(`{"command":"go test ./... -run TestRunner -count=1","description":"Run the runner tests"}`)}
	ctx := context.Background()
	for _, name := range quickPolicies {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := luabind.Compile(path, src)
		if err != nil {
			t.Fatal(err)
		}
		f, err := luabind.Load(ctx, c, luabind.Options{LibDir: filepath.Join(dir, "lib"), MaxStates: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		for _, r := range f.Registrations() {
			h := r.Hook
			if out, err := h.Call(ctx, in); err != nil || out != nil {
				t.Fatalf("%s %s: %+v %v, want no objection", name, r.Spec.Name, out, err)
			}
			if n := testing.AllocsPerRun(100, func() { h.Call(ctx, in) }); n != 0 && !raceEnabled {
				t.Errorf("%s %s: %v allocations per call, want 0", name, r.Spec.Name, n)
			}
		}
	}
}
