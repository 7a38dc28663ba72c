package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The config's [store] bounds reach the store every Lua file shares, on
// Open and on a reload; a write past one fails the hook, and a fail-closed
// hook denies.
func TestConfigStoreBoundsReachTheStore(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[store]\nmax_keys = 2\n")
	writeFile(t, filepath.Join(root, "hooks.d", "50-count.lua"), `
hook.register("PreToolUse", "bash", function(input, rt)
  store.incr("calls:" .. rt.session_id, 1, 60000)
end, { name = "count", failure_policy = "closed" })`)
	e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
	denied := false
	fire := func(session string) string {
		in := bashInput(os.TempDir())
		in.SessionID = session
		res := e.Runner().PreToolUse(context.Background(), in)
		denied = res.Denied()
		return describe(res)
	}
	for _, s := range []string{"a", "b", "a"} {
		if got := fire(s); got != "allowed" {
			t.Fatalf("session %s: %s", s, got)
		}
	}
	if got := fire("c"); !strings.Contains(got, `cannot add "calls:c": the store holds its limit of 2 keys`) {
		t.Fatalf("a third session with max_keys = 2: %s", got)
	}
	if !denied {
		t.Error("a fail-closed hook past the store's bound did not deny")
	}
	writeFile(t, cfg, "[store]\nmax_keys = 3\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fire("c"); got != "allowed" {
		t.Errorf("a third session after max_keys = 3: %s", got)
	}
}
