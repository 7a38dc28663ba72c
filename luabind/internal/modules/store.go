package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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
	v, ok := s.getAt(key, s.clock())
	return v, ok, nil
}

// getAt is Get at now. s.mu is held.
func (s *Store) getAt(key string, now time.Time) (any, bool) {
	if e := s.live(key, now); e != nil {
		return e.get(), true
	}
	return nil, false
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
	return s.setAt(key, value, size, ttl, s.clock())
}

// setAt is Set at now, its value checked (of size bytes). s.mu is held.
func (s *Store) setAt(key string, value any, size int, ttl time.Duration, now time.Time) error {
	lim := s.lim.WithDefaults()
	if err := lim.Check(key, size); err != nil {
		return err
	}
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
	return s.incrAt(key, delta, ttl, s.clock())
}

// incrAt is Incr at now, its delta and ttl checked. s.mu is held.
func (s *Store) incrAt(key string, delta float64, ttl time.Duration, now time.Time) (float64, error) {
	lim := s.lim.WithDefaults()
	if err := lim.Check(key, store.NumberBytes); err != nil {
		return 0, err
	}
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
	s.deleteKey(key)
	s.mu.Unlock()
	return nil
}

// deleteKey is Delete. s.mu is held.
func (s *Store) deleteKey(key string) {
	if e := s.m[key]; e != nil {
		s.remove(e)
	}
}

// Ping reports ctx's error: the in-process store always answers.
func (s *Store) Ping(ctx context.Context) error { return ctx.Err() }

// LedgerCounts is store.LedgerBackend's LedgerCounts, what the session
// ledger asks of a store to count a call's counters and read its last
// calls, answered in one hold of the store's lock at one reading of its
// clock: as the ledger's generic code answers it a Get, Set and Incr at a
// time (the same checks, limits and errors, in the same order), but one
// step to every other caller. A counter refused past req.MaxCounters, or a
// write that fails, ends it: Totals then holds the totals of the items
// before it, which stay counted. The calls' entries are the stored values
// themselves, as Get returns them. (The store has no other method of
// store.LedgerBackend: the ledger's generic code does the rest.)
func (s *Store) LedgerCounts(_ context.Context, req store.LedgerCountsRequest) (store.LedgerCountsReply, error) {
	reply := store.LedgerCountsReply{Refused: -1}
	if len(req.Items) == 0 || len(req.Items) > maxLedgerItems {
		return reply, fmt.Errorf("store: a count of %d counters (1 to %d)", len(req.Items), maxLedgerItems)
	}
	if req.Calls > 0 && (req.Ring <= 0 || req.Calls > req.Ring) {
		return reply, fmt.Errorf("store: a read of the last %d calls of a ring of %d", req.Calls, req.Ring)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	reply.Totals = make([]float64, 0, len(req.Items))
	for i, it := range req.Items {
		if it.Delta == 0 {
			v, _ := s.getAt(it.Key, now)
			f, _ := v.(float64)
			reply.Totals = append(reply.Totals, f)
			continue
		}
		if _, known := s.getAt(it.Idx, now); !known {
			n, err := s.checkedIncr(req.Counters, 1, req.TTL, now)
			if err != nil {
				return reply, err
			}
			if n > float64(req.MaxCounters) {
				_, _ = s.checkedIncr(req.Counters, -1, req.TTL, now)
				reply.Refused = i
				return reply, nil
			}
			if err := store.CheckTTL(req.TTL); err != nil {
				return reply, err
			}
			if err := s.setAt(it.Idx, true, boolBytes, req.TTL, now); err != nil {
				return reply, err
			}
		}
		t, err := s.checkedIncr(it.Key, it.Delta, it.Window, now)
		if err != nil {
			return reply, err
		}
		reply.Totals = append(reply.Totals, t)
	}
	if req.Calls > 0 {
		reply.CallsCount, reply.CallsPresent, reply.First, reply.Entries = s.lastCalls(req, now)
	}
	return reply, nil
}

// maxLedgerItems bounds the items of one LedgerCounts.
const maxLedgerItems = 64

// boolBytes is a boolean's size, as store.ValueSize counts it.
var boolBytes, _ = store.ValueSize(true)

// checkedIncr is Incr at now, its arguments checked. s.mu is held.
func (s *Store) checkedIncr(key string, delta float64, ttl time.Duration, now time.Time) (float64, error) {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return 0, store.BadDelta(key, delta)
	}
	if err := store.CheckTTL(ttl); err != nil {
		return 0, err
	}
	return s.incrAt(key, delta, ttl, now)
}

// lastCalls is what LedgerRange(req.CallsKey, req.CallsPrefix, req.Ring,
// 0, req.Calls, req.Calls, req.MaxEntry) answers (req.Calls from 1 to
// req.Ring): the number under the calls key, and the entries of the last
// req.Calls numbers up to it, an absent one, one that is not a table or
// one longer than req.MaxEntry as nil. s.mu is held.
func (s *Store) lastCalls(req store.LedgerCountsRequest, now time.Time) (count float64, present bool, first int64, entries []json.RawMessage) {
	v, present := s.getAt(req.CallsKey, now)
	if !present {
		return 0, false, 0, nil
	}
	count, _ = v.(float64)
	if !(count >= 1) {
		return count, true, 1, nil
	}
	end := int64(min(count, 1<<53))
	first = max(end-int64(req.Calls)+1, 1)
	entries = make([]json.RawMessage, 0, end-first+1)
	var buf [128]byte // a key of the ledger (its prefix, "kc" and a slot) fits
	for i := first; i <= end; i++ {
		key := strconv.AppendInt(append(buf[:0], req.CallsPrefix...), (i-1)%int64(req.Ring), 10)
		var raw json.RawMessage
		if e := s.liveBytes(key, now); e != nil {
			if r, ok := e.value.(json.RawMessage); ok && len(r) <= req.MaxEntry {
				raw = r
			}
		}
		entries = append(entries, raw)
	}
	return count, true, first, entries
}

// liveBytes is live for a key given as bytes (not copied to look it up).
// s.mu is held.
func (s *Store) liveBytes(key []byte, now time.Time) *storeEntry {
	e := s.m[string(key)]
	if e != nil && e.expired(now) {
		s.remove(e)
		return nil
	}
	return e
}

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
