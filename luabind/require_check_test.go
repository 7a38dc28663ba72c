package luabind

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// TestRequireChecksEveryFolderAndTheFileBeforeReading: CheckLib sees the lib
// folder, each folder on the way and the module's file, in that order, with
// the status of what require then reads; a refusal runs nothing of the
// module and is raised naming it.
func TestRequireChecksEveryFolderAndTheFileBeforeReading(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib")
	path := filepath.Join(lib, "a", "b", "mod.lua")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`store.set("mod ran", true) return 1`), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	refuse := filepath.Join(lib, "a", "b")
	refusal := errors.New("refused for the test")
	check := func(p string, fi fs.FileInfo) error {
		seen = append(seen, p)
		if want, err := os.Stat(p); err != nil || !os.SameFile(fi, want) {
			t.Errorf("CheckLib(%s): the status is not the file's", p)
		}
		if p == refuse {
			return refusal
		}
		return nil
	}
	store := NewStore()
	f := load(t, `hook.register("Stop", nil, function() require("a.b.mod") end)`,
		Options{LibDir: lib, Store: store, CheckLib: check})
	_, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if err == nil || !strings.Contains(err.Error(), `require "a.b.mod": refused for the test`) {
		t.Errorf("call: %v; want the refusal, naming the module", err)
	}
	if want := []string{lib, filepath.Join(lib, "a"), refuse}; !slices.Equal(seen, want) {
		t.Errorf("CheckLib saw %v, want %v", seen, want)
	}
	if _, ok, _ := store.Get(context.Background(), "mod ran"); ok {
		t.Error("the refused module ran")
	}

	refuse, seen = "", nil
	if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
		t.Errorf("call once the check passes: %v", err)
	}
	if want := []string{lib, filepath.Join(lib, "a"), filepath.Join(lib, "a", "b"), path}; !slices.Equal(seen, want) {
		t.Errorf("CheckLib saw %v, want %v", seen, want)
	}
}
