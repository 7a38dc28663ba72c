package modules

import (
	"container/heap"
	"time"
)

// The store's expiry work: how many expired entries a write drops, how many
// a sweep drops while holding the lock, and how long an expired entry may
// stay when nothing writes.
const (
	writeSweep         = 16
	sweepBatch         = 1024
	storeSweepInterval = 250 * time.Millisecond
)

// expiryHeap orders the store's entries that have a TTL by expiry, soonest
// first (container/heap); each entry knows its index, so that a Delete or a
// new TTL updates it in O(log n).
type expiryHeap []*storeEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *expiryHeap) Push(x any) {
	e := x.(*storeEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}

func (h *expiryHeap) remove(e *storeEntry) { heap.Remove(h, e.index) }

// storeSweeper is the timer that drops expired entries when no write does:
// armed for the soonest expiry while the store has entries with a TTL, at
// most every storeSweepInterval. Its callback runs on a goroutine of its own
// that takes Store.mu, so it never runs concurrently with the store's other
// work, and it ends at once after Close.
type storeSweeper struct {
	timer  *time.Timer
	due    time.Time // on the store's clock, when the armed timer fires; zero: not armed
	closed bool
}

// Close stops the store's sweeper; a sweep in progress ends before Close
// returns. The store stays usable: writes still drop expired entries, as
// reads do, but no timer removes them any more. Close may be called more
// than once. The owner of a store (the engine, a file's private store) closes
// it when it is done with it.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweeper.closed = true
	if s.sweeper.timer != nil {
		s.sweeper.timer.Stop()
	}
	s.sweeper.due = time.Time{}
}

// setExpiry gives e the expiry t (zero: never), keeping the heap and the
// sweeper in step. s.mu is held.
func (s *Store) setExpiry(e *storeEntry, t time.Time, now time.Time) {
	e.expires = t
	switch {
	case t.IsZero():
		if e.index >= 0 {
			s.exp.remove(e)
		}
		return
	case e.index >= 0:
		heap.Fix(&s.exp, e.index)
	default:
		heap.Push(&s.exp, e)
	}
	if e.index == 0 {
		s.arm(now)
	}
}

// sweepSome drops up to n expired entries, soonest first, and reports
// whether expired entries remain. s.mu is held.
func (s *Store) sweepSome(now time.Time, n int) bool {
	for ; len(s.exp) > 0 && s.exp[0].expired(now); n-- {
		if n == 0 {
			return true
		}
		s.remove(s.exp[0])
	}
	return false
}

// arm makes sure the sweeper fires by the soonest expiry, but no sooner than
// storeSweepInterval from now, so that a flood of short TTLs costs a sweep
// per interval rather than one per entry. s.mu is held.
func (s *Store) arm(now time.Time) {
	sw := &s.sweeper
	if sw.closed || len(s.exp) == 0 {
		return
	}
	due := s.exp[0].expires
	if soonest := now.Add(storeSweepInterval); due.Before(soonest) {
		due = soonest
	}
	if !sw.due.IsZero() && !sw.due.After(due) {
		return
	}
	s.schedule(due.Sub(now))
	sw.due = due
}

func (s *Store) schedule(d time.Duration) {
	if s.sweeper.timer == nil {
		s.sweeper.timer = time.AfterFunc(d, s.sweep)
		return
	}
	s.sweeper.timer.Reset(d)
}

// sweep is the sweeper timer's callback: it drops a batch of expired entries
// and arms the timer again, at once when expired entries remain (so that the
// lock is released between batches), or for the next expiry.
func (s *Store) sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sweeper.closed {
		return
	}
	now := s.clock()
	s.sweeper.due = time.Time{}
	if s.sweepSome(now, sweepBatch) {
		s.schedule(0)
		s.sweeper.due = now
		return
	}
	s.arm(now)
}
