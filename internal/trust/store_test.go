package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/engine"
)

func project(t *testing.T) (string, *engine.Content) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hooks.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks.d", "10-a.lua"), []byte("-- a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := engine.ReadContent("", filepath.Join(dir, "hooks.d"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, c
}

// A folder is trusted with the content it was trusted with, and with no
// other; records are private files, and untrust removes them.
func TestRecordsTrustExactlyTheContentTrusted(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "luahook", "trust")}
	dir, c := project(t)
	var ue *UntrustedError
	if err := s.Check(dir, c, []string{"hooks.d"}); !errors.As(err, &ue) || !ue.Since.IsZero() ||
		!strings.Contains(err.Error(), "run: luahook trust "+dir) {
		t.Fatalf("Check of a folder never trusted = %v", err)
	}
	if err := s.Put(NewRecord(dir, c)); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(dir, c, nil); err != nil {
		t.Fatalf("Check after Put = %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*"))
	if len(files) != 1 {
		t.Fatalf("record files %v, want one (no temporary file left)", files)
	}
	for path, want := range map[string]os.FileMode{s.Dir: 0o700, files[0]: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	os.WriteFile(filepath.Join(dir, "hooks.d", "10-a.lua"), []byte("-- changed\n"), 0o644)
	c2, _ := engine.ReadContent("", filepath.Join(dir, "hooks.d"))
	if err := s.Check(dir, c2, []string{"hooks.d"}); !errors.As(err, &ue) || ue.Since.IsZero() || !strings.Contains(err.Error(), "changed since you trusted it") {
		t.Fatalf("Check of changed content = %v", err)
	}
	if list, err := s.List(); err != nil || len(list) != 1 || list[0].Path != dir {
		t.Fatalf("List = %v, %v", list, err)
	}
	if ok, err := s.Delete(dir); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if err := s.Check(dir, c, nil); !errors.As(err, &ue) {
		t.Fatalf("Check after Delete = %v", err)
	}
}

// A record that someone else could have written decides nothing: it is
// refused as a loose hook file would be, and so is a link.
func TestLooseOrLinkedRecordsAreRefused(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	dir, c := project(t)
	if err := s.Put(NewRecord(dir, c)); err != nil {
		t.Fatal(err)
	}
	file := s.recordFile(dir)
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	var pe *engine.PermissionError
	if err := s.Check(dir, c, nil); !errors.As(err, &pe) {
		t.Fatalf("Check with a world-writable record = %v, want a *PermissionError", err)
	}
	other := filepath.Join(t.TempDir(), "forged.json")
	data, _ := os.ReadFile(file)
	os.WriteFile(other, data, 0o600)
	os.Remove(file)
	if err := os.Symlink(other, file); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(dir, c, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Check with a linked record = %v", err)
	}
	os.Remove(file)
	os.Chmod(s.Dir, 0o777)
	if err := s.Check(dir, c, nil); !errors.As(err, &pe) {
		t.Fatalf("Check with a world-writable records folder = %v", err)
	}
}
