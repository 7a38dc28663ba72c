//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestLoadingANamedPipeFailsAtOnce: :load of a named pipe, or of /dev/zero,
// is refused within a second, naming the file and what it is (item 1 of the
// second security review).
func TestLoadingANamedPipeFailsAtOnce(t *testing.T) {
	fifo := fifotest.Make(t, filepath.Join(t.TempDir(), "policy.lua"))
	for path, kind := range map[string]string{fifo: "a named pipe (FIFO)", "/dev/zero": "a character device"} {
		var errs string
		fifotest.Within(t, time.Second, []string{fifo}, func() {
			_, errs, _ = script(t, Options{}, ":load "+path, "=1+1")
		})
		if want := path + ": not a regular file: it is " + kind; !strings.Contains(errs, want) {
			t.Errorf(":load %s: stderr %q, want %q", path, errs, want)
		}
	}
}

// TestTerminalWithANamedPipeAsHistoryStartsAtOnce: a history file that is
// a named pipe is neither waited on nor read: the REPL says so and starts
// without a history (item 1 of the second security review).
func TestTerminalWithANamedPipeAsHistoryStartsAtOnce(t *testing.T) {
	h := newHome(t)
	fifotest.Make(t, h.history)
	// Were the pipe waited on, start would fail after its 20 s wait for
	// the banner, and the process is killed when the test ends.
	begin := time.Now()
	s := start(t, h)
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("the REPL took %v to start", took)
	}
	s.send("=40 + 2\r")
	s.result("42")
	s.quit()
	s.mu.Lock()
	out := s.out.String()
	s.mu.Unlock()
	if want := h.history + ": not a regular file: it is a named pipe (FIFO)"; !strings.Contains(out, want) {
		t.Errorf("output %q\nwant a warning naming %q", out, want)
	}
}

// TestHistoryKeepsItsLastEntriesWithinItsLimits: the history file is read
// from its end, at most maxHistoryBytes and historyLimit entries of it, and
// rewritten to those when it held more; /dev/zero and a folder are refused.
func TestHistoryKeepsItsLastEntriesWithinItsLimits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history")
	var lines []string
	for i := range historyLimit + 10 {
		lines = append(lines, strings.Repeat("x", i%50)+"=1")
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, entries, err := openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != historyLimit || entries[0] != lines[10] || entries[len(entries)-1] != lines[len(lines)-1] {
		t.Errorf("%d entries from %q to %q, want the last %d", len(entries), entries[0], entries[len(entries)-1], historyLimit)
	}
	h.add("=2")
	h.close()
	data, _ := os.ReadFile(path)
	if got := strings.Count(string(data), "\n"); got != historyLimit+1 || !strings.HasSuffix(string(data), lines[len(lines)-1]+"\n=2\n") {
		t.Errorf("history file holds %d lines ending %q; want it compacted to %d and the new entry", got, data[max(0, len(data)-40):], historyLimit+1)
	}

	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat(strings.Repeat("y", 99)+"\n", maxHistoryBytes/100+10)), 0o600); err != nil {
		t.Fatal(err)
	}
	h, entries, err = openHistory(big)
	if err != nil {
		t.Fatal(err)
	}
	h.close()
	if len(entries) != historyLimit || entries[0] != strings.Repeat("y", 99) {
		t.Errorf("big history: %d entries, first %q", len(entries), entries[0])
	}
	if st, _ := os.Stat(big); st.Size() > maxHistoryBytes {
		t.Errorf("big history file still %d bytes after opening", st.Size())
	}

	for p, want := range map[string]string{"/dev/zero": "/dev/zero: not a regular file: it is a character device", dir: dir + ": not a regular file: it is a folder"} {
		if _, _, err := openHistory(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("openHistory(%s): %v, want %q", p, err, want)
		}
	}
}
