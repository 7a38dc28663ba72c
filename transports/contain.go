package transports

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"
)

// maxSweepRounds bounds how many times one call's leftovers are swept: a
// round kills every marked process it finds, and the next looks again for
// what they forked meanwhile.
const maxSweepRounds = 8

// sweepPause is how long the sweeper waits before the next round when a
// process's environment read empty: an exec takes well under a millisecond.
const sweepPause = 2 * time.Millisecond

// newMarker returns a value unique to one call, for LUAHOOK_CALL.
func newMarker() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// sweeper kills, off the caller's path, what a command hook's calls left
// behind outside their process group (see leftovers). It runs at most one
// goroutine per Command, which takes every pending call in one pass over
// /proc; Close waits for it.
type sweeper struct {
	logger  *slog.Logger
	mu      sync.Mutex
	pending []*leftovers
	running bool
	idle    sync.Cond // signalled, with mu, when running turns false
	buf     []byte    // the running goroutine's scratch space
}

// schedule queues l for sweeping.
func (s *sweeper) schedule(l *leftovers) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, l)
	if !s.running {
		s.running = true
		go s.run()
	}
}

func (s *sweeper) run() {
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	for {
		s.mu.Lock()
		jobs := s.pending
		s.pending = nil
		if len(jobs) == 0 {
			s.running = false
			if s.idle.L != nil {
				s.idle.Broadcast()
			}
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		for round := 0; len(jobs) > 0; round++ {
			if round == maxSweepRounds {
				for _, j := range jobs {
					if j.marked {
						s.logger.Warn("command hook: processes it left behind still appear after the last sweep",
							slog.Int("rounds", maxSweepRounds), slog.Int("pid", j.leader))
					}
				}
				break
			}
			jobs = sweep(jobs, s.buf)
			for _, j := range jobs {
				if j.unsure {
					// a process was in the middle of an exec: let it finish
					time.Sleep(sweepPause)
					break
				}
			}
		}
	}
}

// wait blocks until every sweep scheduled so far has run. Calls may go on
// scheduling meanwhile.
func (s *sweeper) wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle.L == nil {
		s.idle.L = &s.mu
	}
	for s.running {
		s.idle.Wait()
	}
}
