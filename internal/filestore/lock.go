package filestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/luahook/luahook/internal/safefile"
)

// The wait between two tries at a lock another process holds: from
// lockPollMin, doubling up to lockPollMax. A store call holds the lock for
// well under a millisecond, so that short first waits take the lock soon
// after it is freed, and the cap keeps a long queue of processes from
// spinning. (bbolt's own wait retries every 50 ms: under a crowd of fire
// processes, a call would wait whole multiples of it.)
const (
	lockPollMin = 50 * time.Microsecond
	lockPollMax = 2 * time.Millisecond
)

// openLocked opens the database file, made 0600 in a folder made 0700 when
// missing, as internal/safefile opens every file luahook writes (never
// through a link, the user's own, closed to others' writes), and takes its
// exclusive lock, waiting for it until deadline or ctx ends.
func (s *Store) openLocked(ctx context.Context, deadline time.Time) (*os.File, error) {
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(s.path), Follow: true, What: "the store's folder"}, "", 0o700)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	f, _, err := dir.OpenFile(filepath.Base(s.path), os.O_RDWR|os.O_CREATE, 0o600)
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	for wait := lockPollMin; ; wait = min(2*wait, lockPollMax) {
		locked, err := tryLock(f)
		if locked {
			return f, nil
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("store: %s: cannot lock it: %w", s.path, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, s.lockError(ctx, deadline)
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, s.lockError(ctx, deadline)
		}
	}
}
