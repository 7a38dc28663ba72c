// Package filestore is a store.Backend in one file on the local disk: the
// store that lasts across one-shot calls (luahook fire, one process per
// agent call), so that a counter a hook keeps still counts on the next call.
// The file is a bbolt database (go.etcd.io/bbolt: pure Go, one file, kept by
// the etcd project); many processes share it, one at a time.
//
// Each call opens the file, takes its lock, runs one bbolt transaction and
// closes the file again: the lock is held for one store call, never for a
// process's life, so that many fire processes at once take turns rather
// than wait for each other to finish (bbolt holds an exclusive lock for as
// long as a database is open for writing). The wait for the lock is bounded
// (Options.LockTimeout, and the hook's deadline); past it the call fails
// with an error naming the file, and a fail-closed hook denies, as with a
// Redis server that does not answer.
package filestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/luahook/luahook/internal/store"
)

// DefaultLockTimeout is how long a call waits for the file's lock by
// default.
const DefaultLockTimeout = 500 * time.Millisecond

// Options configure a Store.
type Options struct {
	// Path is the database file. Its folder is made (0700) when missing;
	// the file is made 0600. "" is DefaultPath.
	Path string
	// LockTimeout bounds the wait for the file's lock (default
	// DefaultLockTimeout); the hook call's deadline bounds it too.
	LockTimeout time.Duration
	// Limits bound what the store holds; zero fields are their defaults.
	Limits store.Limits
	// Now reads the time (nil: time.Now). Expiries are wall-clock times:
	// they are shared by processes that have no other clock in common.
	Now func() time.Time
}

// Store is a store.Backend in a bbolt file. Its methods are safe for
// concurrent use, by goroutines and by processes: calls of one process take
// turns before they take the file's lock.
type Store struct {
	path        string
	pathErr     error // why there is no path (DefaultPath failed); every call fails with it
	lockTimeout time.Duration
	now         func() time.Time

	mu  sync.Mutex // guards lim
	lim store.Limits

	// turn lets one call of this process at a time at the file: the others
	// wait here, on their context, rather than poll the file's lock.
	turn chan struct{}
}

var _ store.Backend = (*Store)(nil)

// New returns a store kept in o.Path. It touches no file: the file and its
// folder are made by the first call that needs them, and a file that cannot
// be used fails the calls that use it, naming it.
func New(o Options) *Store {
	s := &Store{path: o.Path, lockTimeout: o.LockTimeout, now: o.Now, lim: o.Limits.WithDefaults(),
		turn: make(chan struct{}, 1)}
	if s.path == "" {
		s.path, s.pathErr = DefaultPath()
	}
	if s.lockTimeout <= 0 {
		s.lockTimeout = DefaultLockTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// DefaultPath returns where the store is kept when no path is given:
// $XDG_STATE_HOME/luahook/store.db, or $HOME/.local/state/luahook/store.db
// when XDG_STATE_HOME is unset (or not an absolute path, as the XDG base
// directory specification says to ignore).
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "luahook", "store.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", errors.New("store: no place for the store file: neither $XDG_STATE_HOME nor $HOME names a folder (set [store] path)")
	}
	return filepath.Join(home, ".local", "state", "luahook", "store.db"), nil
}

// Path returns the database file's path ("" when there is none).
func (s *Store) Path() string { return s.path }

// SetLimits sets the store's limits. It applies to later writes only.
func (s *Store) SetLimits(l store.Limits) {
	s.mu.Lock()
	s.lim = l.WithDefaults()
	s.mu.Unlock()
}

// Limits returns the limits in force, defaults applied.
func (s *Store) Limits() store.Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lim
}

// Stats counts what the store holds: entries (expired ones not yet swept
// included), their bytes as store.Limits counts them, and the entries with
// a TTL.
type Stats struct {
	Keys, Bytes, Expiring int
}

// Stats returns what the store holds, read from the file within ctx.
func (s *Store) Stats(ctx context.Context) (st Stats, err error) {
	err = s.do(ctx, false, func(t *txn) error {
		st.Keys, st.Bytes, err = t.counts()
		if b := t.tx.Bucket(bucketExpiry); b != nil {
			st.Expiring = b.Stats().KeyN
		}
		return err
	})
	return st, err
}

// Close releases nothing: a Store holds no file between calls. Calls after
// it still work.
func (s *Store) Close() {}

// Ping opens the file and reads it, within ctx: it fails as a store call
// would (a lock held past the wait, a file that is not a store).
func (s *Store) Ping(ctx context.Context) error {
	return s.do(ctx, false, func(*txn) error { return nil })
}

// Get returns the value of key, and whether it is present and not expired.
func (s *Store) Get(ctx context.Context, key string) (value any, ok bool, err error) {
	err = s.do(ctx, false, func(t *txn) error {
		e, err := t.live(key)
		if err != nil || e == nil {
			return err
		}
		value, ok = e.get(), true
		return nil
	})
	return value, ok, err
}

// Set stores value under key; ttl > 0 makes it expire after ttl, at most
// store.MaxTTL. A write that would pass a limit is a *store.LimitError and
// changes nothing.
func (s *Store) Set(ctx context.Context, key string, value any, ttl time.Duration) error {
	size, err := store.ValueSize(value)
	if err != nil {
		return err
	}
	if err := store.CheckTTL(ttl); err != nil {
		return err
	}
	lim := s.Limits()
	if err := lim.Check(key, size); err != nil {
		return err
	}
	return s.do(ctx, true, func(t *txn) error {
		old, err := t.reserve(lim, key, size)
		if err != nil {
			return err
		}
		return t.put(key, old, entryOf(value, t.expiry(ttl)))
	})
}

// Incr adds delta to the number under key atomically (across processes:
// one bbolt transaction under the file's lock) and returns the new value.
// An absent or expired key counts from 0 and takes ttl as its expiry; an
// existing key keeps its expiry.
func (s *Store) Incr(ctx context.Context, key string, delta float64, ttl time.Duration) (float64, error) {
	if !finite(delta) {
		return 0, store.BadDelta(key, delta)
	}
	if err := store.CheckTTL(ttl); err != nil {
		return 0, err
	}
	lim := s.Limits()
	if err := lim.Check(key, store.NumberBytes); err != nil {
		return 0, err
	}
	var n float64
	err := s.do(ctx, true, func(t *txn) error {
		e, err := t.live(key)
		if err != nil {
			return err
		}
		if e != nil {
			if e.kind != kindNumber {
				return store.NotNumber(key, e.luaType())
			}
			if r := e.num + delta; !finite(r) {
				return store.NotFinite(key, e.num, delta)
			}
			n = e.num + delta
			if err := t.sweep(writeSweep); err != nil {
				return err
			}
			return t.put(key, e, entry{kind: kindNumber, num: n, expires: e.expires})
		}
		old, err := t.reserve(lim, key, store.NumberBytes)
		if err != nil {
			return err
		}
		n = delta
		return t.put(key, old, entry{kind: kindNumber, num: n, expires: t.expiry(ttl)})
	})
	return n, err
}

// Delete removes key.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.do(ctx, true, func(t *txn) error {
		e, err := t.entry(key)
		if err != nil || e == nil {
			return err
		}
		return t.remove(key, e)
	})
}

// do runs fn in a transaction (write: a read-write one) on the file, opened
// and locked for it. The wait for this process's turn and for the file's
// lock is bounded by the lock timeout and by ctx. A panic of bbolt's on a
// damaged file, and a fault on its memory map, are errors naming the file:
// never a crash of the process.
func (s *Store) do(ctx context.Context, write bool, fn func(*txn) error) (err error) {
	if s.pathErr != nil {
		return s.pathErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %s: %w", s.path, context.Cause(ctx))
	}
	deadline := time.Now().Add(s.lockTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case s.turn <- struct{}{}:
	case <-timer.C:
		return s.lockError(ctx, deadline)
	case <-ctx.Done():
		return fmt.Errorf("store: %s: %w", s.path, context.Cause(ctx))
	}
	defer func() { <-s.turn }()

	// bbolt reads the file through a memory map: a file cut short or
	// damaged under it faults, which SetPanicOnFault turns into a panic
	// this goroutine recovers, as it recovers bbolt's own panics on pages
	// it cannot make sense of.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: %s is damaged (%v): move it away, and luahook starts a new one", s.path, r)
		}
	}()
	f, err := s.openLocked(ctx, deadline)
	if err != nil {
		return err
	}
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{
		// The descriptor holds the lock already (openLocked): bbolt's own
		// flock on it succeeds at once. (Where openLocked leaves the lock
		// to bbolt, this is its wait.)
		Timeout: max(time.Until(deadline), time.Millisecond),
		// No fsync per write: it costs 3 to 4 ms a call, more than the
		// rest of a one-shot fire's store work tenfold. What the store
		// keeps is short-lived (counters over minutes or hours); a
		// process that dies loses nothing (its writes are in the
		// kernel's cache), and an OS crash may lose the last writes or
		// leave a file that is refused, naming it, until it is moved
		// away.
		NoSync:   true,
		OpenFile: func(string, int, os.FileMode) (*os.File, error) { return f, nil },
	})
	if err != nil {
		// bbolt closed f, and with it the lock.
		return fmt.Errorf("store: %s is not a luahook store (a bbolt database): %w", s.path, err)
	}
	defer db.Close()
	// A write refused by the limits has written nothing but the expired
	// entries it dropped looking for room: those are committed, so that a
	// sweep cut short by the call's end is not done again from the start.
	var refused error
	run := func(tx *bolt.Tx) error {
		err := fn(&txn{tx: tx, path: s.path, now: s.now().UnixNano(), ctx: ctx})
		var le *store.LimitError
		if write && errors.As(err, &le) {
			refused, err = err, nil
		}
		return err
	}
	if write {
		err = db.Update(run)
	} else {
		err = db.View(run)
	}
	if err == nil {
		err = refused
	}
	if err != nil && !isStoreError(err) {
		err = fmt.Errorf("store: %s: %w", s.path, err)
	}
	return err
}

// lockError is the error of a call that did not get the file's lock by
// deadline: the hook's own deadline, or the lock timeout.
func (s *Store) lockError(ctx context.Context, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %s: %w", s.path, context.Cause(ctx))
	}
	if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
		return fmt.Errorf("store: %s: waiting for its lock: %w", s.path, context.DeadlineExceeded)
	}
	return fmt.Errorf("store: %s: locked by another luahook for over %v (lock_timeout_ms)", s.path, s.lockTimeout)
}

// isStoreError reports whether err already says what failed, starting
// with "store: ".
func isStoreError(err error) bool {
	var le *store.LimitError
	if errors.As(err, &le) {
		return true
	}
	msg := err.Error()
	return len(msg) >= 7 && msg[:7] == "store: "
}
