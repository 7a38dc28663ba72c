package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func sum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// A hook carries the content hash of the file that registered it: the Lua
// file, or the config file of a configured hook.
func TestHooksCarryTheirFilesContentHash(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[[hooks.Stop]]\nname = \"cfg\"\ncommand = \"sh -c true\"\n")
	dir := filepath.Join(root, "hooks.d")
	writeFile(t, filepath.Join(dir, "10-stop.lua"), `hook.register("Stop", nil, function() end, {name = "lua"})`)
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true})
	res := e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.Stop})
	want := map[string]string{"cfg": sum(t, cfgPath), "lua": sum(t, filepath.Join(dir, "10-stop.lua"))}
	if len(res.Trace) != 2 {
		t.Fatalf("trace %+v", res.Trace)
	}
	for _, tr := range res.Trace {
		if tr.Version != want[tr.Name] {
			t.Errorf("%s: version %q, want %q", tr.Name, tr.Version, want[tr.Name])
		}
	}
}

// The config's [decision_log] is the engine's log, and a reload that
// changes it reopens it.
func TestTheConfigsDecisionLogIsOpenedAndReopenedOnReload(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"one.jsonl\"\n")
	dir := hooksDir(t, map[string]string{"10-stop.lua": `hook.register("Stop", nil, function() end)`})
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true})
	fire := func() { e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.Stop}) }
	fire()
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"two.jsonl\"\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	fire()
	fire()
	writeFile(t, cfgPath, "[decision_log]\nenabled = false\npath = \"two.jsonl\"\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	fire()
	e.Close()
	for name, n := range map[string]int{"one.jsonl": 1, "two.jsonl": 2} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(b), "\n"); got != n {
			t.Errorf("%s: %d records, want %d:\n%s", name, got, n, b)
		}
	}
	if st := e.DecisionLogStats(); st.Written != 3 || st.Dropped != 0 {
		t.Errorf("stats %+v, want 3 written over both logs", st)
	}
}

func TestAnUnopenableLogFileIsAConfigError(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"missing/folder/d.jsonl\"\n")
	_, err := Open(context.Background(), Options{ConfigPath: cfgPath, Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	if err == nil || !strings.Contains(err.Error(), "luahook.toml: decision_log.path") {
		t.Errorf("Open = %v, want an error naming the file and key", err)
	}
}

func TestTheLibraryLogsNothingUnlessTold(t *testing.T) {
	e := openEngine(t, Options{Dir: hooksDir(t, nil), NoWatch: true})
	if e.dlog.cur != nil {
		t.Error("an engine without [decision_log] has a decision log")
	}
}

// A reload loop that keeps changing the log holds only the logs still
// closing: a replaced log is forgotten once it closed, and its counts
// still count.
func TestReplacedDecisionLogsAreForgottenOnceClosed(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"log0.jsonl\"\n")
	dir := hooksDir(t, map[string]string{"10-stop.lua": `hook.register("Stop", nil, function() end)`})
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true})
	const reloads = 50
	for i := 1; i <= reloads; i++ {
		e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.Stop})
		writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"log"+strconv.Itoa(i%2)+".jsonl\"\n")
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	retired := func() int {
		e.dlog.mu.Lock()
		defer e.dlog.mu.Unlock()
		return len(e.dlog.retired)
	}
	eventually(t, "replaced logs forgotten", func() bool { return retired() == 0 })
	if st := e.DecisionLogStats(); st.Written != reloads {
		t.Errorf("stats %+v, want %d written over every log", st, reloads)
	}
}
