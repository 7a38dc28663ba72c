package repl

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/luahook/luahook/internal/safefile"
)

const (
	// historyLimit is how many entries the history keeps.
	historyLimit = 1000
	// maxHistoryBytes is the most of the history file that is read: its
	// end. A file that holds more, or more than historyLimit entries, is
	// cut to its last entries when the REPL starts.
	maxHistoryBytes = 1 << 20
)

// history is the line history file, opened once (created private: it may
// hold what was typed at the prompt) and appended to entry by entry. It is
// opened as internal/safefile opens the files luahook writes: in its
// folder (the user's own or root's, closed to others' writes), without
// blocking, never through a link (what is typed would land in the file the
// link names), and it must be a regular file of the user's own that
// neither group nor others can write: a named pipe there would otherwise
// hold the REPL before its first prompt, and /dev/zero would be read
// without end.
type history struct {
	f    *os.File
	last string // the last entry, which readline does not repeat either
}

// openHistory opens the history file at path and returns its last
// entries, oldest first.
func openHistory(path string) (*history, []string, error) {
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(path), Follow: true, What: "the history's folder"}, "", 0)
	if err != nil {
		return nil, nil, err
	}
	f, fi, err := dir.OpenFile(filepath.Base(path), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	dir.Close()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	from := max(0, size-maxHistoryBytes)
	data := make([]byte, size-from)
	n, err := f.ReadAt(data, from)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, nil, err
	}
	data = data[:n]
	if from > 0 { // the first line is cut: drop it
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	var entries []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			entries = append(entries, line)
		}
	}
	cut := len(entries) > historyLimit
	if cut {
		entries = entries[len(entries)-historyLimit:]
	}
	h := &history{f: f}
	if len(entries) > 0 {
		h.last = entries[len(entries)-1]
	}
	if cut || from > 0 {
		h.rewrite(entries)
	}
	return h, entries, nil
}

// rewrite replaces the file's content with entries, on the descriptor
// opened (never by path: the file checked is the file written).
func (h *history) rewrite(entries []string) {
	if err := h.f.Truncate(0); err != nil {
		return
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	h.f.WriteString(b.String())
}

// add appends an entry to the file, unless it repeats the last one.
func (h *history) add(entry string) {
	if entry == h.last || strings.TrimSpace(entry) == "" {
		return
	}
	h.last = entry
	h.f.WriteString(entry + "\n")
}

func (h *history) close() { h.f.Close() }
