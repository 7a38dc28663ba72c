package ledger

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// A mark that could not be written is information lost: a policy that asks
// has("private-data") of a session whose read of ~/.ssh/id_rsa was never
// kept would be told no, and let its upload through. So the ledger
// remembers, in the process, each session a mark was lost for (a store that
// failed, a store full, a session past its bounds), and from then on
// answers has and marks for that session with a *LostMarkError rather than
// with what the store holds: a policy that fails closed denies. A later
// mark of the same label, written, is the information back and clears it;
// so does the ledger's age bound. What one process remembers, another does
// not: a replica whose own mark was lost refuses, the others answer from
// the store.

// MaxLostSessions bounds the sessions the ledger remembers lost marks for;
// past it the oldest is forgotten.
const MaxLostSessions = 4096

// LostMarkError is the error of a read of a session one of whose marks
// could not be written.
type LostMarkError struct {
	Label string    // the label of the mark lost (the first, when several were)
	At    time.Time // when
	Cause error     // why the mark was not written
}

func (e *LostMarkError) Error() string {
	return fmt.Sprintf("ledger: the session's mark %q could not be kept at %s (%v): the ledger cannot say what the session did, and does not answer for it",
		e.Label, e.At.UTC().Format("15:04:05 UTC"), e.Cause)
}

func (e *LostMarkError) Unwrap() error { return e.Cause }

// lostMarks are the lost marks of the sessions, by key prefix.
type lostMarks struct {
	any   atomic.Bool // some session is in by: a read takes the lock only then
	mu    sync.Mutex
	by    map[string]map[string]*LostMarkError // session prefix -> label -> what was lost
	order []string                             // prefixes, oldest first (for the bound)
}

// lose remembers that session p's mark of label was not written.
func (l *lostMarks) lose(p, label string, at time.Time, cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]map[string]*LostMarkError{}
	}
	labels, ok := l.by[p]
	if !ok {
		for len(l.order) >= MaxLostSessions {
			delete(l.by, l.order[0])
			l.order = l.order[1:]
		}
		labels = map[string]*LostMarkError{}
		l.by[p] = labels
		l.order = append(l.order, p)
		l.any.Store(true)
	}
	if _, held := labels[label]; !held {
		labels[label] = &LostMarkError{Label: label, At: at, Cause: cause}
	}
}

// found clears the lost mark of label, written since.
func (l *lostMarks) found(p, label string) {
	if !l.any.Load() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	labels, ok := l.by[p]
	if !ok {
		return
	}
	delete(labels, label)
	if len(labels) == 0 {
		delete(l.by, p)
		for i, q := range l.order {
			if q == p {
				l.order = append(l.order[:i], l.order[i+1:]...)
				break
			}
		}
		l.any.Store(len(l.by) > 0)
	}
}

// check returns the error of a read of session p: its oldest lost mark
// younger than maxAge, or nil.
func (l *lostMarks) check(p string, now time.Time, maxAge time.Duration) error {
	if !l.any.Load() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var first *LostMarkError
	for label, e := range l.by[p] {
		if now.Sub(e.At) > maxAge {
			delete(l.by[p], label)
			continue
		}
		if first == nil || e.At.Before(first.At) {
			first = e
		}
	}
	if first == nil {
		return nil
	}
	return first
}
