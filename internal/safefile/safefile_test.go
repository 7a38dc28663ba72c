//go:build unix

package safefile

import (
	"errors"
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

// refused fails t unless err is an *Error naming path with a problem that
// holds want.
func refused(t *testing.T, err error, path, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Path != path || !strings.Contains(e.Problem, want) {
		t.Errorf("err = %v, want an *Error naming %s: %q", err, path, want)
	}
}

// content fails t unless the file at path holds want.
func content(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q left as it was", path, got, err, want)
	}
}

func write(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

// giveAway gives path to otheruser.UID and reports whether it could: only
// root can.
func giveAway(t *testing.T, path string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if err := os.Lchown(path, otheruser.UID, otheruser.UID); err != nil {
		t.Fatal(err)
	}
	return true
}

// groupWritable makes the folder dir writable by its group, a group that
// is not the owner's private group (root's when the test runs as root),
// else by others too, and returns the mode it got.
func groupWritable(t *testing.T, dir string) fs.FileMode {
	t.Helper()
	if err := os.Chmod(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if PrivateGroup(fi) {
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		return 0o777
	}
	return 0o770
}

// writers are the ways a file is written through a Dir.
var writers = map[string]func(d *Dir, name string) error{
	"OpenFile append": func(d *Dir, name string) error {
		f, _, err := d.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			_, err = f.WriteString("new\n")
			f.Close()
		}
		return err
	},
	"WriteFile": func(d *Dir, name string) error { return d.WriteFile(name, []byte("new\n"), 0o600) },
}

// TestAWriteGoesToNoLinkNoPipeAndNoOneElsesFile: through OpenFile (append)
// and WriteFile, a link at the file (its target untouched), a named pipe
// (refused at once, never opened), a file of another user and a file
// others or the group can write are each refused with an *Error naming
// the file and the problem, and nothing is written.
func TestAWriteGoesToNoLinkNoPipeAndNoOneElsesFile(t *testing.T) {
	for how, w := range writers {
		t.Run(how, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "scope")
			d, err := OpenDir(Scope{Dir: dir}, "", 0o700)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()

			target := filepath.Join(base, "bashrc")
			write(t, target, "old\n", 0o644)
			link := filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			refused(t, w(d, "link"), link, "is a symbolic link (to "+target+")")
			content(t, target, "old\n")
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v", err)
			}

			fifo := fifotest.Make(t, filepath.Join(dir, "fifo"))
			fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
				refused(t, w(d, "fifo"), fifo, "not a regular file: it is a named pipe (FIFO)")
			})

			loose := filepath.Join(dir, "loose")
			write(t, loose, "old\n", 0o666)
			refused(t, w(d, "loose"), loose, "mode 0666 lets others write it (chmod go-w "+loose+")")
			content(t, loose, "old\n")

			theirs := filepath.Join(dir, "theirs")
			write(t, theirs, "old\n", 0o644)
			if giveAway(t, theirs) {
				refused(t, w(d, "theirs"), theirs, "is owned by uid "+strconv.Itoa(otheruser.UID)+", not by this user")
				content(t, theirs, "old\n")
			} else if err := w(d, "theirs"); err != nil {
				t.Errorf("the user's own file: %v", err)
			}

			// What is the user's own and closed to others is written.
			own := filepath.Join(dir, "own")
			write(t, own, "old\n", 0o644)
			if err := w(d, "own"); err != nil {
				t.Fatalf("the user's own file: %v", err)
			}
			if err := w(d, "fresh"); err != nil {
				t.Fatalf("a new file: %v", err)
			}
			if fi, err := os.Lstat(filepath.Join(dir, "fresh")); err != nil || fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
				t.Errorf("new file: %v, %v; want a regular file of mode 0600", fi, err)
			}
		})
	}
}

// TestAFolderOnTheWayIsNoLinkAndClosedToOthers: below the scope's folder,
// a folder on the way that is a link (leading out of the scope, or within
// it), a named pipe, another user's folder, or a folder its group or
// others can write is refused naming the problem, and nothing is made
// through it; the scope's folder itself is a link only with Follow.
func TestAFolderOnTheWayIsNoLinkAndClosedToOthers(t *testing.T) {
	base := t.TempDir()
	scope := Scope{Dir: filepath.Join(base, "project"), What: "the project"}
	if err := os.MkdirAll(filepath.Join(scope.Dir, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "home-claude")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(scope.Dir, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside", filepath.Join(scope.Dir, "in-link")); err != nil {
		t.Fatal(err)
	}
	fifo := fifotest.Make(t, filepath.Join(scope.Dir, "pipe"))
	for _, tt := range []struct{ rel, path, want string }{
		{".claude", filepath.Join(scope.Dir, ".claude"), "leads out of the project through the link .claude -> " + outside},
		{".claude/sub", filepath.Join(scope.Dir, ".claude"), "leads out of the project through the link .claude -> " + outside},
		{"in-link", filepath.Join(scope.Dir, "in-link"), "goes through the link in-link -> inside: luahook follows no link inside the project"},
		{"pipe", fifo, "not a folder: it is a named pipe (FIFO)"},
		{"../project-2", filepath.Join(scope.Dir, "../project-2"), "is not inside the project"},
	} {
		fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
			d, err := OpenDir(scope, tt.rel, 0o700)
			if err == nil {
				d.Close()
			}
			refused(t, err, tt.path, tt.want)
		})
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%d entries made through the link, want none", len(ents))
	}

	loose := filepath.Join(scope.Dir, "loose")
	if err := os.Mkdir(loose, 0o700); err != nil {
		t.Fatal(err)
	}
	m := groupWritable(t, loose)
	_, err := OpenDir(scope, "loose", 0)
	refused(t, err, loose, "mode 0"+strconv.FormatUint(uint64(m), 8)+" lets")
	refused(t, err, loose, "write it (chmod go-w "+loose+")")

	theirs := filepath.Join(scope.Dir, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if giveAway(t, theirs) {
		_, err := OpenDir(scope, "theirs", 0)
		refused(t, err, theirs, "is owned by uid "+strconv.Itoa(otheruser.UID)+", not by this user")
		// Root's folder is no one else's.
		if err := os.Chown(theirs, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDir(scope, "theirs/new", 0o700)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()

	// The scope's own folder: a link is refused, unless Follow.
	link := filepath.Join(base, "link")
	if err := os.Symlink(scope.Dir, link); err != nil {
		t.Fatal(err)
	}
	_, err = OpenDir(Scope{Dir: link}, "", 0o700)
	refused(t, err, link, "is a symbolic link (to "+scope.Dir+")")
	d, err = OpenDir(Scope{Dir: link, Follow: true}, "inside", 0)
	if err != nil {
		t.Fatalf("Follow: %v", err)
	}
	d.Close()
}

// TestCheckJudgesTheWayAsOpeningWould: Check refuses what OpenDir and
// OpenFile refuse, without making anything, and passes what is missing.
func TestCheckJudgesTheWayAsOpeningWould(t *testing.T) {
	base := t.TempDir()
	scope := Scope{Dir: filepath.Join(base, "project"), Follow: true, What: "the project"}
	if err := os.MkdirAll(filepath.Join(scope.Dir, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "dot-claude")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(scope.Dir, ".claude"))
	write(t, filepath.Join(base, "settings.json"), "{}", 0o644)
	os.Symlink(filepath.Join(base, "settings.json"), filepath.Join(scope.Dir, ".gemini", "settings.json"))
	fifo := fifotest.Make(t, filepath.Join(scope.Dir, "pipe.json"))
	write(t, filepath.Join(scope.Dir, "loose.json"), "{}", 0o664)
	for _, tt := range []struct{ rel, path, want string }{
		{".claude/settings.json", filepath.Join(scope.Dir, ".claude/settings.json"), "leads out of the project through the link .claude -> " + outside},
		{".gemini/settings.json", filepath.Join(scope.Dir, ".gemini/settings.json"),
			"leads out of the project through the link .gemini/settings.json -> " + filepath.Join(base, "settings.json")},
		{"pipe.json", fifo, "not a regular file: it is a named pipe (FIFO)"},
		{"loose.json", filepath.Join(scope.Dir, "loose.json"), "mode 0664 lets its group write it"},
	} {
		refused(t, Check(scope, tt.rel), tt.path, tt.want)
	}
	for _, rel := range []string{".codex/hooks.json", ".github/hooks/luahook.json", ".gemini/other.json"} {
		if err := Check(scope, rel); err != nil {
			t.Errorf("Check(%s): %v, want nil (nothing there yet)", rel, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(scope.Dir, ".codex")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check made %s: %v", ".codex", err)
	}
}

// TestRenameAndRemoveActOnALinkItself: a rotation's rename and removal move
// or remove a link, never the file it names; a name that is not one
// element of the folder is refused.
func TestRenameAndRemoveActOnALinkItself(t *testing.T) {
	base := t.TempDir()
	d, err := OpenDir(Scope{Dir: filepath.Join(base, "logs")}, "", 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	target := filepath.Join(base, "target")
	write(t, target, "kept\n", 0o600)
	os.Symlink(target, filepath.Join(d.Path(), "a.1"))
	if err := d.Rename("a.1", "a.2"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(d.Path(), "a.2")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("a.2: %v, %v; want the link moved", fi, err)
	}
	if err := d.Remove("a.2"); err != nil {
		t.Fatal(err)
	}
	content(t, target, "kept\n")
	for _, name := range []string{"", ".", "..", "a/b", "../x"} {
		if err := d.WriteFile(name, nil, 0o600); err == nil {
			t.Errorf("WriteFile(%q) succeeded, want a refusal", name)
		}
	}
}
