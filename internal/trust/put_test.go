//go:build unix

package trust

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/internal/otheruser"
)

// refusedPut fails t unless err refuses a record, naming path and want.
func refusedPut(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "trust records: ") || !strings.Contains(err.Error(), path+": "+want) {
		t.Errorf("Put: %v, want the record refused: %q", err, path+": "+want)
	}
}

// TestPutWritesNoLinkNoPipeAndNoOneElsesRecord: at a record's name, a link
// (its target untouched), a named pipe (refused at once), another user's
// file and a file others can write are each refused by Put, naming the
// file and the problem, and left as they are.
func TestPutWritesNoLinkNoPipeAndNoOneElsesRecord(t *testing.T) {
	dir, c := project(t)
	rec := NewRecord(dir, c)
	place := func(t *testing.T) (*Store, string) {
		s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
		if err := os.Mkdir(s.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		return s, s.recordFile(dir)
	}

	t.Run("link", func(t *testing.T) {
		s, file := place(t)
		target := filepath.Join(t.TempDir(), "elsewhere.json")
		if err := os.WriteFile(target, []byte("mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, file); err != nil {
			t.Fatal(err)
		}
		refusedPut(t, s.Put(rec), file, "is a symbolic link (to "+target+")")
		if b, _ := os.ReadFile(target); string(b) != "mine\n" {
			t.Errorf("the link's target now holds %q", b)
		}
	})
	t.Run("named pipe", func(t *testing.T) {
		s, file := place(t)
		fifotest.Make(t, file)
		fifotest.Within(t, 5*time.Second, []string{file}, func() {
			refusedPut(t, s.Put(rec), file, "not a regular file: it is a named pipe (FIFO)")
		})
	})
	t.Run("loose", func(t *testing.T) {
		s, file := place(t)
		if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(file, 0o666)
		refusedPut(t, s.Put(rec), file, "mode 0666 lets others write it (chmod go-w "+file+")")
		if b, _ := os.ReadFile(file); string(b) != "{}\n" {
			t.Errorf("the loose record now holds %q", b)
		}
	})
	t.Run("another user's", func(t *testing.T) {
		s, file := place(t)
		if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() != 0 {
			// Only root can give a file away: the user's own is written.
			if err := s.Put(rec); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.Chown(file, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		refusedPut(t, s.Put(rec), file, "is owned by uid "+strconv.Itoa(otheruser.UID)+", not by this user")
		if b, _ := os.ReadFile(file); string(b) != "{}\n" {
			t.Errorf("the record of uid %d now holds %q", otheruser.UID, b)
		}
	})
}

// TestPutRefusesARecordsFolderThatIsALinkOrOpen: the records folder must be
// the folder itself (a link in its place is refused, by Put and by Get,
// and nothing is written where it leads), the user's own, and closed to
// the group's and others' writes.
func TestPutRefusesARecordsFolderThatIsALinkOrOpen(t *testing.T) {
	dir, c := project(t)
	rec := NewRecord(dir, c)
	base := t.TempDir()
	elsewhere := filepath.Join(base, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Store{Dir: filepath.Join(base, "trust")}
	if err := os.Symlink(elsewhere, s.Dir); err != nil {
		t.Fatal(err)
	}
	refusedPut(t, s.Put(rec), s.Dir, "is a symbolic link (to "+elsewhere+")")
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("%d files written where the link leads", len(ents))
	}
	if _, err := s.Get(dir); err == nil || !strings.Contains(err.Error(), s.Dir+": is a symbolic link") {
		t.Errorf("Get through the link: %v", err)
	}

	open := &Store{Dir: filepath.Join(base, "open")}
	if err := os.Mkdir(open.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open.Dir, 0o777)
	refusedPut(t, open.Put(rec), open.Dir, "mode 0777 lets others write it")

	if os.Geteuid() == 0 {
		theirs := &Store{Dir: filepath.Join(base, "theirs")}
		if err := os.Mkdir(theirs.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs.Dir, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		refusedPut(t, theirs.Put(rec), theirs.Dir, "is owned by uid "+strconv.Itoa(otheruser.UID))
		if ents, _ := os.ReadDir(theirs.Dir); len(ents) != 0 {
			t.Errorf("%d files written in the folder of uid %d", len(ents), otheruser.UID)
		}
	}
}
