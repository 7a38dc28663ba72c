package repl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/trust"
)

// :reload goes through the engine's trust check as every load does: an
// edit of a trusted project that is not trusted is not loaded (the trusted
// version keeps deciding, :reload names the file awaiting luahook trust),
// and loads on the :reload after it is trusted. A lib module required at
// the prompt is checked too.
func TestReloadLoadsOnlyWhatIsTrusted(t *testing.T) {
	store := &trust.Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	hooks := filepath.Join(folder, "hooks.d")
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(hooks, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trustNow := func() {
		t.Helper()
		c, err := trust.Content(folder)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Put(trust.NewRecord(folder, c)); err != nil {
			t.Fatal(err)
		}
	}
	write("10-no-rm.lua", denyRm)
	write("lib/m.lua", `return "trusted module"`)
	trustNow()
	eng, err := engine.Open(context.Background(), engine.Options{Dir: hooks, NoWatch: true, Trust: store.Files(folder)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()

	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), Options{In: in, Out: &out, Err: &errb, Engine: eng}) }()
	const fire = `:fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}` + "\n"
	w.WriteString(fire)
	waitFor(t, &out, `{"action":"deny","reason":"no rm -rf"}`)

	write("10-no-rm.lua", `hook.register("PreToolUse", "bash", function() return hook.allow() end, { name = "no-rm" })`)
	write("lib/m.lua", `return "edited module"`)
	w.WriteString(":reload\n" + fire + `require("m")` + "\n")
	waitFor(t, &errb, "lib/m.lua (in "+folder+") not loaded")
	if e := errb.String(); !strings.Contains(e, "./hooks.d/10-no-rm.lua (in "+folder+") not loaded: it changed since you trusted the folder on ") ||
		!strings.Contains(e, "review it, then run: luahook trust "+folder) {
		t.Errorf(":reload errors %q, want the edit named awaiting luahook trust", e)
	}
	if o := out.String(); strings.Count(o, `{"action":"deny","reason":"no rm -rf"}`) != 2 || strings.Contains(o, "edited module") {
		t.Errorf("output %q: want the trusted version to decide again and the edited module unused", o)
	}

	trustNow()
	w.WriteString(":reload\n" + fire + `require("m")` + "\n")
	waitFor(t, &out, `"edited module"`)
	w.Close()
	if err := <-done; err == nil {
		t.Error("Run = nil, want the failures reported")
	}
	if o := out.String(); !strings.Contains(o, "reloaded "+hooks+": 1 hooks\n{\"action\":\"allow\"}") {
		t.Errorf("output %q: want the trusted edit to decide after :reload", o)
	}
}
