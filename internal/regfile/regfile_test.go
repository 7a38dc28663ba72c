//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

func TestOnlyRegularFilesAreOpenedAndNothingBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.lua")
	fifotest.Make(t, fifo)
	if err := os.Mkdir(filepath.Join(dir, "sub.lua"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe.lua", filepath.Join(dir, "link.lua")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct{ name, path, kind string }{
		{"named pipe", fifo, "a named pipe (FIFO)"},
		{"link to a named pipe", filepath.Join(dir, "link.lua"), "a named pipe (FIFO)"},
		{"folder", filepath.Join(dir, "sub.lua"), "a folder"},
		{"/dev/zero", "/dev/zero", "a character device"},
		{"/dev/null", "/dev/null", "a character device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(err error) {
				t.Helper()
				var nr *NotRegularError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.kind) {
					t.Errorf("err = %v, want a *NotRegularError naming %s and %q", err, tt.path, tt.kind)
				}
			}
			fifotest.Within(t, time.Second, []string{fifo}, func() {
				_, err := Read(tt.path, 1<<20)
				check(err)
			})
			if rel, err := filepath.Rel(dir, tt.path); err == nil && filepath.IsLocal(rel) {
				fifotest.Within(t, time.Second, []string{fifo}, func() {
					_, err := ReadIn(root, rel, tt.path, 1<<20)
					check(err)
				})
			}
		})
	}
}

// TestRootOpenPassesNonBlockThrough guards what OpenIn relies on: os.Root's
// OpenFile hands O_NONBLOCK to openat, so that a named pipe inside a root
// does not block the open either.
func TestRootOpenPassesNonBlockThrough(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	fifotest.Make(t, fifo)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fifotest.Within(t, time.Second, []string{fifo}, func() {
		f, err := root.OpenFile("p", os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Errorf("OpenFile: %v", err)
			return
		}
		f.Close()
	})
}

func TestReadAllowsTheLimitAndRefusesOneByteMore(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	const limit = 4 << 10
	for _, size := range []int{0, 1, 511, 512, 513, limit - 1, limit, limit + 1, 3 * limit} {
		path := filepath.Join(dir, "f")
		want := strings.Repeat("x", size)
		if err := os.WriteFile(path, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		for how, read := range map[string]func() ([]byte, error){
			"Read":   func() ([]byte, error) { return Read(path, limit) },
			"ReadIn": func() ([]byte, error) { return ReadIn(root, "f", path, limit) },
		} {
			got, err := read()
			if size <= limit {
				if err != nil || string(got) != want {
					t.Errorf("%s of %d bytes: %d bytes, %v; want it whole", how, size, len(got), err)
				}
				continue
			}
			var tl *TooLargeError
			if !errors.As(err, &tl) || err.Error() != path+": file is larger than 4 KiB" {
				t.Errorf("%s of %d bytes: %v; want the 4 KiB limit named", how, size, err)
			}
		}
	}
}

// TestReadInKeepsLinksInsideTheRoot: a link inside the root to a file
// inside it is followed; one that leads out is refused.
func TestReadInKeepsLinksInsideTheRoot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "in")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sub", "a"), []byte("inside"), 0o600)
	os.WriteFile(filepath.Join(base, "out"), []byte("outside"), 0o600)
	os.Symlink("sub/a", filepath.Join(dir, "in-link"))
	os.Symlink("../out", filepath.Join(dir, "out-link"))
	os.Symlink(filepath.Join(base, "out"), filepath.Join(dir, "abs-link"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := ReadIn(root, "in-link", "in-link", 100); err != nil || string(got) != "inside" {
		t.Errorf("in-link: %q, %v", got, err)
	}
	for _, name := range []string{"out-link", "abs-link", "../out"} {
		if got, err := ReadIn(root, name, name, 100); err == nil {
			t.Errorf("%s: read %q, want it refused", name, got)
		}
	}
}

func TestOpenFileForAppendingRefusesANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "history")
	fifotest.Make(t, fifo)
	fifotest.Within(t, time.Second, []string{fifo}, func() {
		_, _, err := OpenFile(fifo, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
		var nr *NotRegularError
		if !errors.As(err, &nr) {
			t.Errorf("err = %v, want a *NotRegularError", err)
		}
	})
}

// TestOpenRootRefusesANamedPipeAtOnce: os.OpenRoot opens its folder
// without O_DIRECTORY, so a named pipe there blocks it; OpenRoot refuses it
// at once, and opens a folder, a folder named with a trailing slash and a
// link to a folder.
func TestOpenRootRefusesANamedPipeAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := fifotest.Make(t, filepath.Join(dir, "lib"))
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	os.Symlink("sub", filepath.Join(dir, "link"))
	for name, want := range map[string]string{
		"lib":  fifo + ": not a folder: it is a named pipe (FIFO)",
		"file": filepath.Join(dir, "file") + ": not a folder: it is a regular file",
	} {
		fifotest.Within(t, time.Second, []string{fifo}, func() {
			root, err := OpenRoot(filepath.Join(dir, name))
			if err == nil {
				root.Close()
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("OpenRoot(%s): %v, want %q", name, err, want)
			}
		})
	}
	for _, name := range []string{"sub", "sub/", "link", "."} {
		root, err := OpenRoot(filepath.Join(dir, name) + map[bool]string{true: "/"}[strings.HasSuffix(name, "/")])
		if err != nil {
			t.Errorf("OpenRoot(%s): %v", name, err)
			continue
		}
		root.Close()
	}
}
