package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// Store is a goroutine-safe key/value store with expiry and atomic counters,
// kept in the process: the default store.Backend of the store module, and the only
// sanctioned way for hooks to keep state between calls. Values are strings, float64
// numbers, booleans or JSON documents (json.RawMessage, what Lua tables are
// stored as). Everything it holds is bounded by its store.Limits.
//
// Expired entries are removed whatever the traffic: each write drops a few,
// and a sweeper timer, armed while some entry has a TTL, drops them within
// storeSweepInterval of their expiry. Close stops the sweeper. The zero
// Store is an empty store with the default limits, ready to use.
type Store struct {
	mu      sync.Mutex // guards everything below
	m       map[string]*storeEntry
	exp     expiryHeap // the entries of m with a TTL, soonest first
	bytes   int        // keys and values of m, as store.Limits.MaxBytes counts them
	lim     store.Limits
	now     func() time.Time // nil: time.Now (tests set a fake clock)
	sweeper storeSweeper
	spare   *storeEntry // a removed entry, reused by the next new key
}

type storeEntry struct {
	key     string
	value   any       // a string, a bool or a json.RawMessage; nil for a number
	num     float64   // the number, when value is nil (not boxed: Incr allocates nothing)
	size    int       // the value's size in bytes
	expires time.Time // zero: never
	index   int       // in Store.exp; -1 when not there
}

// NewStore returns an empty store with the default limits.
func NewStore() *Store { return &Store{} }

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
	return s.lim.WithDefaults()
}

// StoreStats counts what a store holds.
type StoreStats struct {
	Keys     int // entries, expired ones not yet swept included
	Bytes    int // their keys and values, as store.Limits.MaxBytes counts them
	Expiring int // entries with a TTL
}

// Stats returns what the store holds.
func (s *Store) Stats() StoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return StoreStats{Keys: len(s.m), Bytes: s.bytes, Expiring: len(s.exp)}
}

var _ store.Backend = (*Store)(nil)

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	// The time since a fixed start reads only the monotonic clock: one
	// clock read where time.Now makes two (about 40 ns against 55 in a
	// VM), and expiries that a change of the wall clock does not move.
	return storeEpoch.Add(time.Since(storeEpoch))
}

// storeEpoch is the start stores measure their time from.
var storeEpoch = time.Now()

// live returns the entry of key unless it is absent or expired; an expired
// one is removed.
func (s *Store) live(key string, now time.Time) *storeEntry {
	e := s.m[key]
	if e != nil && e.expired(now) {
		s.remove(e)
		return nil
	}
	return e
}

func (e *storeEntry) expired(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

// Get returns the value of key, and whether it is present and not expired.
// It never fails, and does not look at ctx (nor do the other methods: an
// in-process call does not wait).
func (s *Store) Get(_ context.Context, key string) (any, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.live(key, s.clock()); e != nil {
		return e.get(), true, nil
	}
	return nil, false, nil
}

// Set stores value under key; ttl > 0 makes it expire after ttl, at most
// store.MaxTTL. The value must be a string, a float64, a bool or a
// json.RawMessage. A write that would pass a limit is a *store.LimitError and
// changes nothing.
func (s *Store) Set(_ context.Context, key string, value any, ttl time.Duration) error {
	size, err := store.ValueSize(value)
	if err != nil {
		return err
	}
	if err := store.CheckTTL(ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lim := s.lim.WithDefaults()
	if err := lim.Check(key, size); err != nil {
		return err
	}
	now := s.clock()
	e, err := s.reserve(lim, key, size, now)
	if err != nil {
		return err
	}
	if f, ok := value.(float64); ok {
		e.value, e.num = nil, f
	} else {
		e.value = value
	}
	s.setExpiry(e, expiry(now, ttl), now)
	return nil
}

// Incr adds delta to the number under key atomically and returns the new
// value. An absent or expired key counts from 0, and then ttl > 0 sets its
// expiry; incrementing an existing key keeps its expiry, so a counter with a
// TTL counts a fixed window. A value that is not a number, a delta or a
// result that is not a finite number, and a write that would pass a limit
// (*store.LimitError) are errors that change nothing.
func (s *Store) Incr(_ context.Context, key string, delta float64, ttl time.Duration) (float64, error) {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return 0, store.BadDelta(key, delta)
	}
	if err := store.CheckTTL(ttl); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lim := s.lim.WithDefaults()
	if err := lim.Check(key, store.NumberBytes); err != nil {
		return 0, err
	}
	now := s.clock()
	if e := s.live(key, now); e != nil {
		if e.value != nil {
			return 0, store.NotNumber(key, storeType(e.value))
		}
		v := e.num
		if r := v + delta; math.IsInf(r, 0) || math.IsNaN(r) {
			return 0, store.NotFinite(key, v, delta)
		}
		e.num = v + delta
		s.sweepSome(now, writeSweep)
		return v + delta, nil
	}
	e, err := s.reserve(lim, key, store.NumberBytes, now)
	if err != nil {
		return 0, err
	}
	e.value, e.num = nil, delta
	s.setExpiry(e, expiry(now, ttl), now)
	return delta, nil
}

// reserve returns the entry of key, created if need be, accounted at size
// bytes: the caller sets its value and expiry. It first drops a few expired
// entries; when the write would pass MaxKeys or MaxBytes it drops every
// expired entry, and if that is not enough it refuses the write, changing
// nothing. s.mu is held.
func (s *Store) reserve(lim store.Limits, key string, size int, now time.Time) (*storeEntry, error) {
	s.sweepSome(now, writeSweep)
	e := s.live(key, now)
	over := func() error {
		if e == nil && len(s.m)+1 > lim.MaxKeys {
			return &store.LimitError{Key: store.ShortKey(key), Limit: "MaxKeys", Max: lim.MaxKeys, Size: len(s.m) + 1}
		}
		total := s.bytes + size
		if e != nil {
			total -= e.size
		} else {
			total += len(key)
		}
		if total > lim.MaxBytes && (e == nil || size > e.size) {
			return &store.LimitError{Key: store.ShortKey(key), Limit: "MaxBytes", Max: lim.MaxBytes, Size: total}
		}
		return nil
	}
	if over() != nil {
		s.sweepSome(now, math.MaxInt)
		e = s.live(key, now)
		if err := over(); err != nil {
			return nil, err
		}
	}
	if e == nil {
		if s.m == nil {
			s.m = make(map[string]*storeEntry)
		}
		e = s.spare
		if e == nil {
			e = &storeEntry{}
		}
		s.spare = nil
		*e = storeEntry{key: key, index: -1}
		s.m[key] = e
		s.bytes += len(key)
	}
	s.bytes += size - e.size
	e.size = size
	return e, nil
}

// Delete removes key. It never fails.
func (s *Store) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	if e := s.m[key]; e != nil {
		s.remove(e)
	}
	s.mu.Unlock()
	return nil
}

// Ping reports ctx's error: the in-process store always answers.
func (s *Store) Ping(ctx context.Context) error { return ctx.Err() }

// remove drops e from the store. s.mu is held.
func (s *Store) remove(e *storeEntry) {
	delete(s.m, e.key)
	s.bytes -= len(e.key) + e.size
	if e.index >= 0 {
		s.exp.remove(e)
	}
	*e = storeEntry{index: -1}
	s.spare = e
}

// get returns the entry's value as Store.Get does.
func (e *storeEntry) get() any {
	if e.value == nil {
		if i := int(e.num); float64(i) == e.num && i >= 0 && i < len(smallAnys) && !math.Signbit(e.num) {
			return smallAnys[i] // a counter's usual value, boxed once
		}
		return e.num
	}
	return e.value
}

// smallAnys holds the float64 values 0 to len-1 as interfaces, boxed once.
var smallAnys = func() (s [1024]any) {
	for i := range s {
		s[i] = float64(i)
	}
	return s
}()

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

func storeType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.RawMessage:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}
