//go:build unix

package decisionlog

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/internal/otheruser"
)

// agentRecord is a record that carries text an agent chose: in a shell's
// start-up file, its $(...) would run when the file is sourced.
func agentRecord() *Record {
	return &Record{Event: luahook.PreToolUse, ToolName: "Bash", InputDigest: "sha256:0",
		Input: json.RawMessage(`{"toolInput":{"command":"echo $(touch /tmp/pwned)"}}`)}
}

// refusedLog fails t unless err refuses the decision log, naming path and
// want.
func refusedLog(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "decision log: ") || !strings.Contains(err.Error(), path+": "+want) {
		t.Errorf("err = %v, want the decision log refused: %q", err, path+": "+want)
	}
}

func writeFile(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func unchanged(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q untouched", path, got, err, want)
	}
}

// TestTheLogFileIsNoLinkNoPipeAndNoOneElses: a link at the log's path (to
// a shell's start-up file), a named pipe (refused at once), a file of
// another user and a file others can write are each refused by File with
// an error naming the path and the problem, and nothing is written to
// them.
func TestTheLogFileIsNoLinkNoPipeAndNoOneElses(t *testing.T) {
	dir := t.TempDir()
	bashrc := filepath.Join(t.TempDir(), ".bashrc")
	writeFile(t, bashrc, "alias ll='ls -l'\n", 0o644)

	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(bashrc, link); err != nil {
		t.Fatal(err)
	}
	_, err := File(link, FileOptions{})
	refusedLog(t, err, link, "is a symbolic link (to "+bashrc+")")
	unchanged(t, bashrc, "alias ll='ls -l'\n")

	fifo := fifotest.Make(t, filepath.Join(dir, "fifo.jsonl"))
	fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
		_, err := File(fifo, FileOptions{})
		refusedLog(t, err, fifo, "not a regular file: it is a named pipe (FIFO)")
	})

	loose := filepath.Join(dir, "loose.jsonl")
	writeFile(t, loose, "", 0o666)
	_, err = File(loose, FileOptions{})
	refusedLog(t, err, loose, "mode 0666 lets others write it")
	unchanged(t, loose, "")

	theirs := filepath.Join(dir, "theirs.jsonl")
	writeFile(t, theirs, "", 0o644)
	if os.Geteuid() == 0 {
		if err := os.Chown(theirs, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		_, err = File(theirs, FileOptions{})
		refusedLog(t, err, theirs, "is owned by uid "+strconv.Itoa(otheruser.UID))
		unchanged(t, theirs, "")
	}

	// A log others may read (the operator's choice) is written.
	readable := filepath.Join(dir, "readable.jsonl")
	writeFile(t, readable, "", 0o644)
	s, err := File(readable, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(agentRecord()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(readable); !strings.Contains(string(b), "pwned") {
		t.Errorf("the record was not written: %q", b)
	}
}

// TestTheLogsFolderIsClosedToOthers: a folder that its group or others can
// write, or of another user, is refused (whoever writes the folder could
// put a link in the file's place between two rotations); a link to the
// folder is the operator's way to it and is followed.
func TestTheLogsFolderIsClosedToOthers(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := File(filepath.Join(open, "d.jsonl"), FileOptions{})
	refusedLog(t, err, open, "mode 0777 lets others write it")
	if _, err := os.Lstat(filepath.Join(open, "d.jsonl")); err == nil {
		t.Error("the log was made in the refused folder")
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		_, err := File(filepath.Join(theirs, "d.jsonl"), FileOptions{})
		refusedLog(t, err, theirs, "is owned by uid "+strconv.Itoa(otheruser.UID))
	}
	logs := filepath.Join(base, "logs")
	if err := os.Mkdir(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(logs, filepath.Join(base, "logs-link")); err != nil {
		t.Fatal(err)
	}
	s, err := File(filepath.Join(base, "logs-link", "d.jsonl"), FileOptions{})
	if err != nil {
		t.Fatalf("a link to the log's folder: %v", err)
	}
	s.Close()
	if fi, err := os.Lstat(filepath.Join(logs, "d.jsonl")); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("log: %v, %v; want a regular file of mode 0600 in the linked folder", fi, err)
	}
}

// TestRotationMovesLinksAndReopensNoLink: a link put at the log's path or
// at a rotated file's is moved or removed by rotation, never written
// through, and the fresh log is a file of its own.
func TestRotationMovesLinksAndReopensNoLink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.jsonl")
	bashrc := filepath.Join(t.TempDir(), ".bashrc")
	writeFile(t, bashrc, "# rc\n", 0o644)
	s, err := File(path, FileOptions{MaxBytes: 200, MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.Symlink(bashrc, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bashrc, path+".2"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := s.Write(agentRecord()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.(Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	unchanged(t, bashrc, "# rc\n")
	for _, p := range []string{path, path + ".1", path + ".2"} {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want a regular file of the log", p, fi, err)
		}
	}
	// A link swapped in for the open log: the rotation that follows moves
	// it aside and opens a file of its own.
	os.Remove(path)
	if err := os.Symlink(bashrc, path); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		s.Write(agentRecord())
	}
	s.(Flusher).Flush()
	unchanged(t, bashrc, "# rc\n")
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: %v, %v; want a fresh regular file", path, fi, err)
	}
}
