//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/otheruser"
)

// TestHistoryIsNoLinkAndNoOneElsesFile: a history file that is a link
// (what is typed would land in the file it names: its target is left
// untouched), another user's file, or one others can write is refused,
// naming the path and the problem; the REPL then runs without a history.
func TestHistoryIsNoLinkAndNoOneElsesFile(t *testing.T) {
	dir := t.TempDir()
	bashrc := filepath.Join(t.TempDir(), ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(bashrc, link); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, "loose")
	if err := os.WriteFile(loose, []byte("=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o622)
	cases := map[string]string{
		link:  link + ": is a symbolic link (to " + bashrc + ")",
		loose: loose + ": mode 0622 lets others write it",
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		if err := os.WriteFile(theirs, []byte("=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		cases[theirs] = theirs + ": is owned by uid " + strconv.Itoa(otheruser.UID)
	}
	for path, want := range cases {
		h, _, err := openHistory(path)
		if err == nil {
			h.add("$(touch /tmp/pwned)")
			h.close()
			t.Errorf("openHistory(%s) succeeded, want %q", path, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("openHistory(%s): %v, want %q", path, err, want)
		}
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# rc\n" {
		t.Errorf("the link's target now holds %q", b)
	}

	// A folder others can write: they could swap the file between two
	// runs of the REPL.
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, _, err := openHistory(filepath.Join(open, "history")); err == nil || !strings.Contains(err.Error(), open+": mode 0777 lets others write it") {
		t.Errorf("openHistory in a folder of mode 0777: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(open, "history")); err == nil {
		t.Error("the history was made in the refused folder")
	}
}
