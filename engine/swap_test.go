//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestAHookFileSwappedBetweenListingAndOpeningNeverLoads: a hook file
// replaced after the folder was listed (and, before, after its path was
// checked) and before it is opened, by a link to a file outside the folder,
// by a file others can write, or by a named pipe, is refused on what was
// opened: the swapped-in content never loads, the previous version stays
// live, the reload does not freeze on the pipe with the engine's lock held,
// and the error names the file (item 7 of the second security review).
func TestAHookFileSwappedBetweenListingAndOpeningNeverLoads(t *testing.T) {
	tests := []struct {
		name string
		swap func(t *testing.T, path string) // replaces the file at path
		want string                          // in the error after the path; "" loads
		live string                          // the verdict after the reload
	}{
		{"link to a file outside the folder", func(t *testing.T, path string) {
			outside := filepath.Join(t.TempDir(), "outside.lua")
			writeFile(t, outside, denyFile("outside"))
			replace(t, path, func(tmp string) error { return os.Symlink(outside, tmp) })
		}, "refused: symbolic link to", "v1"},
		{"relative link climbing out of the folder", func(t *testing.T, path string) {
			writeFile(t, filepath.Join(filepath.Dir(filepath.Dir(path)), "outside.lua"), denyFile("outside"))
			replace(t, path, func(tmp string) error { return os.Symlink("../outside.lua", tmp) })
		}, "refused: symbolic link to", "v1"},
		{"file writable by others", func(t *testing.T, path string) {
			replace(t, path, func(tmp string) error {
				if err := os.WriteFile(tmp, []byte(denyFile("loose")), 0o600); err != nil {
					return err
				}
				return os.Chmod(tmp, 0o666)
			})
		}, "refused: mode -rw-rw-rw- is writable by group and others", "v1"},
		{"link to a loose file in the folder", func(t *testing.T, path string) {
			loose := filepath.Join(filepath.Dir(path), "variants", "loose.lua")
			writeFile(t, loose, denyFile("loose"))
			if err := os.Chmod(loose, 0o646); err != nil {
				t.Fatal(err)
			}
			replace(t, path, func(tmp string) error { return os.Symlink("variants/loose.lua", tmp) })
		}, "refused: mode -rw-r--rw- is writable by others", "v1"},
		{"named pipe", func(t *testing.T, path string) {
			replace(t, path, func(tmp string) error { fifotest.Make(t, tmp); return nil })
		}, "not a regular file: it is a named pipe (FIFO)", "v1"},
		{"link to a named pipe in the folder", func(t *testing.T, path string) {
			fifotest.Make(t, filepath.Join(filepath.Dir(path), "pipe"))
			replace(t, path, func(tmp string) error { return os.Symlink("pipe", tmp) })
		}, "not a regular file: it is a named pipe (FIFO)", "v1"},
		{"link to a file in the folder (allowed)", func(t *testing.T, path string) {
			writeFile(t, filepath.Join(filepath.Dir(path), "variants", "v2.lua"), denyFile("v2"))
			replace(t, path, func(tmp string) error { return os.Symlink("variants/v2.lua", tmp) })
		}, "", "v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, map[string]string{"guard.lua": denyFile("v1")})
			guard := filepath.Join(dir, "guard.lua")
			e := openEngine(t, Options{Dir: dir, NoWatch: true})
			if err := e.Err(); err != nil {
				t.Fatal(err)
			}
			if got := verdict(e); got != "v1" {
				t.Fatalf("verdict %q before the swap", got)
			}
			swapped := false
			e.beforeOpen = func(path string) {
				if path == guard && !swapped {
					swapped = true
					tt.swap(t, path)
				}
			}
			var err error
			fifos := []string{guard, filepath.Join(dir, "pipe")}
			fifotest.Within(t, 2*time.Second, fifos, func() { err = e.Reload(context.Background()) })
			if !swapped {
				t.Fatal("the test hook was not called")
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Reload: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), guard+": "+tt.want)):
				t.Errorf("Reload: %v\nwant an error naming %s: %s", err, guard, tt.want)
			}
			if got := verdict(e); got != tt.live {
				t.Errorf("verdict %q after the swap, want %q", got, tt.live)
			}
		})
	}
}

// replace puts what make creates at a temporary name next to path in
// path's place, in one rename.
func replace(t *testing.T, path string, make func(tmp string) error) {
	t.Helper()
	tmp := path + ".swap~"
	if err := make(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
