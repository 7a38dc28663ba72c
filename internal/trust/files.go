package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/luahook/luahook/engine"
)

// Files is the engine.Trust of one project folder: it trusts a file whose
// content is the content the folder's record holds for it. It reads the
// record again whenever the record file changes on disk (luahook trust,
// luahook untrust), so that a running engine follows it; the engine's
// watcher watches the record too (engine.TrustWatcher). A record from
// before per-file sums trusts each file as the folder holds it when the
// record is read, if the folder's content is the content trusted then, and
// nothing otherwise. It is safe for concurrent use.
type Files struct {
	store  *Store
	folder string

	mu     sync.Mutex
	seen   fs.FileInfo // the record file as last read; nil: none read yet, or none there
	read   bool        // the record was looked for at least once
	rec    *Record     // nil: the folder is not trusted
	sums   map[string][sha256.Size]byte
	stale  bool  // a record without per-file sums whose folder changed since
	recErr error // why the record could not be read
}

var (
	_ engine.Trust        = (*Files)(nil)
	_ engine.TrustWatcher = (*Files)(nil)
)

// Files returns the trust of folder (absolute, links resolved) under the
// records of s.
func (s *Store) Files(folder string) *Files { return &Files{store: s, folder: folder} }

// TrustFiles returns the record file the decisions are read from.
func (t *Files) TrustFiles() []string { return []string{t.store.recordFile(t.folder)} }

// Check returns nil when the file name (relative to the folder,
// engine.Trust's name) with content sum is trusted, else an
// *UntrustedError naming it (or why the record cannot be read).
func (t *Files) Check(name string, sum [sha256.Size]byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refresh()
	if t.recErr != nil {
		return fmt.Errorf("%s (in %s): cannot check whether it is trusted: %w", displayName(name), t.folder, t.recErr)
	}
	if t.rec == nil {
		return &UntrustedError{Folder: t.folder, File: name}
	}
	want, ok := t.sums[name]
	if ok && want == sum {
		return nil
	}
	return &UntrustedError{Folder: t.folder, File: name, Since: t.rec.Trusted, New: !ok && !t.stale}
}

// refresh reads the record again when its file changed since it was last
// read (another inode, size, time or mode). t.mu is held.
func (t *Files) refresh() {
	fi, err := os.Lstat(t.store.recordFile(t.folder))
	if err != nil {
		fi = nil
	}
	if t.read && sameStat(t.seen, fi) {
		return
	}
	t.read, t.seen = true, fi
	t.rec, t.sums, t.stale, t.recErr = nil, nil, false, nil
	rec, err := t.store.Get(t.folder)
	if err != nil {
		t.recErr = err
		t.seen = nil // read again next time
		t.read = false
		return
	}
	if rec == nil {
		return
	}
	t.rec = rec
	if rec.FileSums == nil {
		t.legacy(rec)
		return
	}
	t.sums = make(map[string][sha256.Size]byte, len(rec.FileSums))
	for name, h := range rec.FileSums {
		var sum [sha256.Size]byte
		if b, err := hex.DecodeString(h); err == nil && len(b) == sha256.Size {
			copy(sum[:], b)
			t.sums[name] = sum
		}
	}
}

// legacy trusts, for a record without per-file sums, each file as the
// folder holds it now when the folder's content is the content trusted.
func (t *Files) legacy(rec *Record) {
	c, err := Content(t.folder)
	if err != nil {
		t.recErr = err
		t.seen, t.read = nil, false
		return
	}
	if !rec.Matches(c) {
		t.stale = true
		return
	}
	t.sums = c.Sums
}

// sameStat reports whether a and b describe the same file unchanged; two
// nils (no record) are the same.
func sameStat(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}
