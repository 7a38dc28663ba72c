//go:build unix

package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/internal/otheruser"
)

// TestAddWritesInsideTheHooksFolderThroughNoLink: a lib folder that is a
// link out of the hooks folder, a pack file that is a link or a named pipe
// (refused at once), and a pack file others can write are refused, naming
// the path and the problem, and nothing at all is written; with --force a
// link at a pack file is replaced (the link itself, its target untouched).
func TestAddWritesInsideTheHooksFolderThroughNoLink(t *testing.T) {
	add := func(dir string, force bool, packs ...string) (string, error) {
		var out bytes.Buffer
		err := addPacks(&streams{out: &out, err: &out}, dir, packs, addMode{force: force})
		return out.String(), err
	}
	t.Run("lib a link out of the folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "hooks.d")
		elsewhere := t.TempDir()
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(dir, "lib")); err != nil {
			t.Fatal(err)
		}
		_, err := add(dir, true, "git")
		if err == nil || !strings.Contains(err.Error(), "leads out of the hooks folder through the link lib -> "+elsewhere) {
			t.Errorf("add: %v, want the link named", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Errorf("%d files written where the link leads", len(ents))
		}
		if _, err := os.Lstat(filepath.Join(dir, "git.lua")); err == nil {
			t.Error("git.lua was written: a refusal writes nothing")
		}
	})
	t.Run("a pack file a link", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), ".bashrc")
		if err := os.WriteFile(target, []byte("# rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "git.lua")); err != nil {
			t.Fatal(err)
		}
		if _, err := add(dir, false, "git"); err == nil || !strings.Contains(err.Error(), "a symbolic link") {
			t.Errorf("add: %v, want the link refused", err)
		}
		if _, err := add(dir, true, "git"); err != nil {
			t.Fatalf("add --force: %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "# rc\n" {
			t.Errorf("the link's target now holds %q", b)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "git.lua")); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
			t.Errorf("git.lua: %v, %v; want the pack's file, mode 0644", fi, err)
		}
	})
	t.Run("a pack file a named pipe", func(t *testing.T) {
		dir := t.TempDir()
		fifo := fifotest.Make(t, filepath.Join(dir, "git.lua"))
		fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
			if _, err := add(dir, false, "git"); err == nil || !strings.Contains(err.Error(), "a named pipe (FIFO)") {
				t.Errorf("add: %v, want the pipe refused", err)
			}
		})
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
			t.Errorf("the pipe was replaced: %v, %v", fi, err)
		}
	})
	t.Run("a pack file of another user, a folder others can write", func(t *testing.T) {
		dir := t.TempDir()
		theirs := filepath.Join(dir, "git.lua")
		if err := os.WriteFile(theirs, []byte("-- theirs\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := os.Chown(theirs, otheruser.UID, otheruser.UID); err != nil {
				t.Fatal(err)
			}
			_, err := add(dir, true, "git")
			if err == nil || !strings.Contains(err.Error(), theirs+": is owned by uid "+strconv.Itoa(otheruser.UID)) {
				t.Errorf("add --force: %v, want the file of uid %d refused", err, otheruser.UID)
			}
			if b, _ := os.ReadFile(theirs); string(b) != "-- theirs\n" {
				t.Errorf("the file of uid %d now holds %q", otheruser.UID, b)
			}
		}
		open := filepath.Join(t.TempDir(), "hooks.d")
		if err := os.Mkdir(open, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(open, 0o777)
		if _, err := add(open, false, "git"); err == nil || !strings.Contains(err.Error(), open+": mode 0777 lets others write it") {
			t.Errorf("add into a folder of mode 0777: %v", err)
		}
		if ents, _ := os.ReadDir(open); len(ents) != 0 {
			t.Errorf("%d files written in the refused folder", len(ents))
		}
	})
	t.Run("a pack file others can write", func(t *testing.T) {
		dir := t.TempDir()
		loose := filepath.Join(dir, "git.lua")
		if err := os.WriteFile(loose, []byte("-- mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(loose, 0o666)
		_, err := add(dir, true, "git")
		if err == nil || !strings.Contains(err.Error(), loose+": mode 0666 lets others write it") {
			t.Errorf("add --force: %v, want the loose file refused", err)
		}
		if b, _ := os.ReadFile(loose); string(b) != "-- mine\n" {
			t.Errorf("the loose file now holds %q", b)
		}
	})
}
