package engine

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The digest of a folder changes with every file luahook would read or run
// (config, hook files, test files, lib modules at any depth, a file added or
// removed) and with nothing else; a FIFO is counted, never opened.
func TestContentChangesWithEveryFileThatRuns(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"luahook.toml":            "[runner]\nallow_non_policy = true\n",
		"hooks.d/10-a.lua":        "-- a\n",
		"hooks.d/10-a_test.lua":   "-- test\n",
		"hooks.d/lib/util.lua":    "return {}\n",
		"hooks.d/lib/deep/x.lua":  "return {}\n",
		"hooks.d/notes.txt":       "not code\n",
		"hooks.d/.10-a.lua.swp":   "swap\n",
		"hooks.d/sub/nested.lua":  "-- not loaded\n",
		"hooks.d/lib/README.md":   "docs\n",
		"elsewhere/unrelated.lua": "-- outside\n",
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "hooks.d", "20-fifo.lua"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "luahook.toml")
	sum := func() [32]byte {
		t.Helper()
		done := make(chan *Content, 1)
		go func() {
			c, err := ReadContent(cfg, "")
			if err != nil {
				t.Error(err)
			}
			done <- c
		}()
		select {
		case c := <-done:
			if c == nil {
				t.FailNow()
			}
			return c.Sum
		case <-time.After(10 * time.Second):
			t.Fatal("ReadContent hangs (on the FIFO?)")
		}
		return [32]byte{}
	}
	base := sum()
	if sum() != base {
		t.Fatal("the digest is not stable")
	}
	for _, name := range []string{"hooks.d/notes.txt", "hooks.d/.10-a.lua.swp", "hooks.d/sub/nested.lua", "hooks.d/lib/README.md", "elsewhere/unrelated.lua"} {
		writeFile(t, filepath.Join(dir, name), "changed\n")
		if sum() != base {
			t.Errorf("changing %s, which never runs, changed the digest", name)
		}
	}
	for _, name := range []string{"luahook.toml", "hooks.d/10-a.lua", "hooks.d/10-a_test.lua", "hooks.d/lib/util.lua", "hooks.d/lib/deep/x.lua", "hooks.d/30-new.lua"} {
		path := filepath.Join(dir, name)
		old, _ := os.ReadFile(path)
		writeFile(t, path, string(old)+"-- edited\n")
		if sum() == base {
			t.Errorf("changing %s did not change the digest", name)
		}
		if old == nil {
			os.Remove(path)
		} else {
			writeFile(t, path, string(old))
		}
		if sum() != base {
			t.Errorf("restoring %s did not restore the digest", name)
		}
	}
	// A config that names another hooks folder is other content.
	writeFile(t, filepath.Join(dir, "other", "10-a.lua"), "-- a\n")
	writeFile(t, cfg, "hooks_dir = \"other\"\n")
	if sum() == base {
		t.Error("a config naming another hooks folder kept the digest")
	}
}
