package modules

import (
	"fmt"
	"time"
)

// SetClock makes s read the time from now rather than time.Now, so that a
// test can move it; it must be called before s is used.
func SetClock(s *Store, now func() time.Time) { s.now = now }

// CheckStore verifies s's bookkeeping, for tests: its byte count, and that
// the expiry heap holds exactly the entries with a TTL, in heap order. It
// returns the first inconsistency found.
func CheckStore(s *Store) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bytes, expiring := 0, 0
	for k, e := range s.m {
		if e.key != k {
			return fmt.Errorf("entry under %q has key %q", k, e.key)
		}
		bytes += len(k) + e.size
		if !e.expires.IsZero() {
			expiring++
			if e.index < 0 || e.index >= len(s.exp) || s.exp[e.index] != e {
				return fmt.Errorf("entry %q with a TTL is not at its heap index %d", k, e.index)
			}
		} else if e.index != -1 {
			return fmt.Errorf("entry %q without a TTL has heap index %d", k, e.index)
		}
	}
	if bytes != s.bytes || expiring != len(s.exp) {
		return fmt.Errorf("store counts %d bytes and %d expiring entries, holds %d and %d", s.bytes, len(s.exp), bytes, expiring)
	}
	for i := 1; i < len(s.exp); i++ {
		if s.exp[i].expires.Before(s.exp[(i-1)/2].expires) {
			return fmt.Errorf("expiry heap out of order at %d", i)
		}
	}
	return nil
}
