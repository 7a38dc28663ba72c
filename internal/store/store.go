// Package store is what the Lua store module means, whatever keeps its
// entries: the Backend interface every backend implements (the in-process
// store of luabind, the Redis store of internal/redisstore), the limits on
// keys and values and their defaults, and the checks and errors every
// backend shares, so that a hook sees the same answers on each.
//
// It imports only the standard library: a backend, and luahook.toml's
// [store] section, use it without linking the Lua VM.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Backend is where the store module keeps its entries: the in-process store,
// or a shared server (internal/redisstore) when several luahook processes
// must count together. Every implementation keeps the semantics the store
// module documents for Lua:
//
//   - a value is a string, a float64, a bool or a json.RawMessage (a Lua
//     table), and Get returns it with the type it was Set with;
//   - Set with ttl > 0 expires the entry after ttl; ttl 0 never expires;
//   - Incr is atomic: an absent or expired key counts from 0 and takes ttl
//     as its expiry, an existing key keeps its expiry (a fixed window); a
//     value that is not a number is an error with NotNumber's text;
//   - a key or a value past Limits is a *LimitError, refused before
//     anything is sent anywhere (Limits.Check).
//
// Each call takes the context of the hook call that makes it, so that the
// hook's deadline bounds it; a call that fails returns an error whose text
// says what failed, starting with "store: ". Implementations are safe for
// concurrent use.
type Backend interface {
	// Get returns the value of key and whether it is present.
	Get(ctx context.Context, key string) (value any, ok bool, err error)
	// Set stores value under key (ttl > 0: for ttl).
	Set(ctx context.Context, key string, value any, ttl time.Duration) error
	// Incr adds delta to the number under key and returns the new value.
	Incr(ctx context.Context, key string, delta float64, ttl time.Duration) (float64, error)
	// Delete removes key.
	Delete(ctx context.Context, key string) error
	// Limits returns the limits in force, defaults applied.
	Limits() Limits
	// Ping reports whether the backend answers, within ctx.
	Ping(ctx context.Context) error
	// Close releases what the backend holds; calls after it may fail.
	Close()
}

// ErrUnavailable is what the error of a call a backend refused without
// trying it is (errors.Is): its server failed the calls before, and the
// backend fails calls at once for a while rather than have each wait out
// its timeout (internal/redisstore's breaker). The hook fails at once, as
// it would have after the wait.
var ErrUnavailable = errors.New("store: unavailable")

// Defaults of Limits, applied to its zero fields.
const (
	DefaultMaxKeyBytes   = 1 << 10 // 1 KiB
	DefaultMaxValueBytes = 1 << 20 // 1 MiB
	DefaultMaxKeys       = 100_000
	DefaultMaxBytes      = 64 << 20 // 64 MiB
)

// MaxTTL is the longest expiry an entry may be given (ten years). Zero is
// "never"; a longer TTL is an error rather than a silent overflow of
// time.Duration into "never" or into the past.
const MaxTTL = 10 * 365 * 24 * time.Hour

// NumberBytes is what a number or a boolean counts for against the limits.
const NumberBytes = 8

// Limits bound what hooks can keep in a store. A zero field means its
// default. The limits apply to writes: a write that would pass one is refused
// with a *LimitError, after expired entries are dropped; live entries are
// never evicted to make room (a rate limiter's counter evicted would be its
// limit reset). Lowering a limit below what the store holds keeps the
// entries, and refuses writes that would grow the store further.
type Limits struct {
	// MaxKeyBytes caps the length of a key (default 1 KiB).
	MaxKeyBytes int
	// MaxValueBytes caps a value: a string's length, a table's JSON text
	// (default 1 MiB).
	MaxValueBytes int
	// MaxKeys caps the number of entries (default 100,000).
	MaxKeys int
	// MaxBytes caps the store's total: every key's length plus every
	// value's size, numbers and booleans counting 8 bytes (default 64 MiB).
	MaxBytes int
}

// WithDefaults returns l with its zero (or negative) fields set to their
// defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = DefaultMaxKeyBytes
	}
	if l.MaxValueBytes <= 0 {
		l.MaxValueBytes = DefaultMaxValueBytes
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultMaxKeys
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Check refuses a key or a value of size bytes larger than its limit, with
// a *LimitError; zero fields are their defaults. Every backend checks a
// write with it before doing anything else.
func (l Limits) Check(key string, size int) error {
	l = l.WithDefaults()
	if len(key) > l.MaxKeyBytes {
		return &LimitError{Key: ShortKey(key), Limit: "MaxKeyBytes", Max: l.MaxKeyBytes, Size: len(key)}
	}
	if size > l.MaxValueBytes {
		return &LimitError{Key: ShortKey(key), Limit: "MaxValueBytes", Max: l.MaxValueBytes, Size: size}
	}
	return nil
}

// LimitError is a write refused because it would pass one of the store's
// limits.
type LimitError struct {
	Key   string // the key written, cut to 64 bytes (ShortKey)
	Limit string // the Limits field: "MaxKeyBytes", "MaxValueBytes", "MaxKeys" or "MaxBytes"
	Max   int    // the limit's value
	Size  int    // what the write would make it: the key's or value's size, the number of keys, the total bytes
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "MaxKeyBytes":
		return fmt.Sprintf("store: a key of %d bytes exceeds the %s limit on a key (%q...)", e.Size, bytesText(e.Max), e.Key)
	case "MaxValueBytes":
		return fmt.Sprintf("store: the value for %q (%d bytes) exceeds the %s limit on a value", e.Key, e.Size, bytesText(e.Max))
	case "MaxKeys":
		return fmt.Sprintf("store: cannot add %q: the store holds its limit of %d keys (delete keys, or give them a TTL)", e.Key, e.Max)
	}
	return fmt.Sprintf("store: cannot store %q: the store would hold %d bytes, over its %s limit (delete keys, or give them a TTL)", e.Key, e.Size, bytesText(e.Max))
}

// bytesText renders a limit: "1 MiB", "1 KiB", else "N bytes".
func bytesText(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ValueSize returns the size a value counts for against the limits: a
// string's or a JSON document's length, NumberBytes for a number or a
// boolean. A value of any other type is an error.
func ValueSize(value any) (int, error) {
	switch v := value.(type) {
	case string:
		return len(v), nil
	case json.RawMessage:
		return len(v), nil
	case float64, bool:
		return NumberBytes, nil
	}
	return 0, fmt.Errorf("store: cannot store a %T (want string, float64, bool or json.RawMessage)", value)
}

// CheckTTL refuses a TTL longer than MaxTTL.
func CheckTTL(ttl time.Duration) error {
	if ttl > MaxTTL {
		return fmt.Errorf("store: a TTL of %v exceeds the limit of %v", ttl, MaxTTL)
	}
	return nil
}

// NotNumber is the error of an Incr on a key whose value is not a number;
// typ is the Lua type of the value ("string", "boolean", "table").
func NotNumber(key, typ string) error {
	return fmt.Errorf("store: the value of %q is a %s, not a number", ShortKey(key), typ)
}

// BadDelta is the error of an Incr whose delta is not a finite number.
func BadDelta(key string, delta float64) error {
	return fmt.Errorf("store: cannot add %v to %q: not a finite number", delta, ShortKey(key))
}

// NotFinite is the error of an Incr whose result, v + delta, is not a
// finite number.
func NotFinite(key string, v, delta float64) error {
	return fmt.Errorf("store: %v + %v under %q is not a finite number", v, delta, ShortKey(key))
}

// ShortKey cuts a key to its first 64 bytes, as errors quote it.
func ShortKey(key string) string {
	if len(key) > 64 {
		return key[:64]
	}
	return key
}

// LedgerBackend is a Backend whose server runs each operation of the
// session ledger (package ledger) whole, in one round trip: internal/
// redisstore, with a server-side script for each. It works on the keys
// the ledger's generic code (four calls of Backend each) writes and reads,
// and answers as that code does, so that a ledger kept by one is read by
// the other; the ledger uses it when its backend has it. Keys are given as
// the ledger names them, before the backend's own prefix. Every value a
// method writes is a table (json.RawMessage) or a number, and every TTL is
// positive. A method refuses a key or a value past Limits, as Set does,
// before anything is sent.
type LedgerBackend interface {
	Backend
	// LedgerMark gives a session the mark whose JSON is head followed by
	// its slot number and "}": it reads the mark under prefix+"l"+label; a
	// label held keeps its slot, and the marks' bytes (prefix+"mb") move
	// by detailLen less the old detail's length; a new one adds
	// len(label)+detailLen to them and takes the next slot (prefix+"mn"),
	// refusing, with nothing changed, a total past maxBytes (refused
	// "bytes") or a slot past maxMarks (refused "marks"). The mark is then
	// written under prefix+"ms"+slot and prefix+"l"+label.
	LedgerMark(ctx context.Context, prefix, label string, head []byte, detailLen, maxMarks, maxBytes int, ttl time.Duration) (slot int64, refused string, err error)
	// LedgerCounts adds each item's delta to the counter under its key (a
	// window of its window: the key's TTL when it is created, kept after;
	// delta 0 reads the total, 0 when there is none) and returns their
	// totals, in order. A counter not named under its idx yet is counted
	// first in req.Counters (refused past req.MaxCounters: Refused is its
	// index, and it and the items after it are not counted) and named there
	// (for req.TTL). When req.Calls > 0 the reply also holds what
	// LedgerRange(req.CallsKey, req.CallsPrefix, req.Ring, 0, req.Calls,
	// req.Calls, req.MaxEntry) would (the first page), read after the
	// counts, in the same round trip.
	LedgerCounts(ctx context.Context, req LedgerCountsRequest) (LedgerCountsReply, error)
	// LedgerRecord takes the next number of the sequence under seqKey and
	// writes the call whose JSON is head followed by that number and "}"
	// under slotPrefix + (number-1) mod ring, for ttl.
	LedgerRecord(ctx context.Context, seqKey, slotPrefix string, head []byte, ring int, ttl time.Duration) (seq int64, err error)
	// LedgerRange reads the number under countKey (present false when
	// there is none) and the entries of a list of at most n from it: when
	// ring is 0 the entries 1, 2, ... under slotPrefix + their number
	// (marks), else the last n of the sequence, each under slotPrefix +
	// (number-1) mod ring (calls); from, when positive, is the first
	// number to read instead. It returns at most max entries, from first
	// on, an absent one as nil, and one longer than maxEntry bytes as nil;
	// the caller asks again from first+len(entries) for more.
	LedgerRange(ctx context.Context, countKey, slotPrefix string, ring int, from, n, max, maxEntry int) (count float64, present bool, first int64, entries []json.RawMessage, err error)
}

// LedgerCountsRequest is what LedgerBackend.LedgerCounts does.
type LedgerCountsRequest struct {
	Counters    string        // the key of the session's count of counters
	MaxCounters int           // the bound on that count
	TTL         time.Duration // the TTL of the bookkeeping (idx, Counters)
	Items       []LedgerCounter
	// The calls to read with the counts (Calls 0: none).
	CallsKey, CallsPrefix string
	Ring, Calls, MaxEntry int
}

// LedgerCounter is one counter of a LedgerCounts.
type LedgerCounter struct {
	Idx, Key string        // the counter's name in the bookkeeping, and its key
	Delta    float64       // what to add (0: read)
	Window   time.Duration // the counter's window, its TTL when created
}

// LedgerCountsReply is LedgerCounts's answer.
type LedgerCountsReply struct {
	Totals  []float64 // one per item counted, in order
	Refused int       // the item refused past MaxCounters, -1 when none was
	// The calls, as LedgerRange answers them.
	CallsCount   float64
	CallsPresent bool
	First        int64
	Entries      []json.RawMessage
}
