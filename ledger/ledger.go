// Package ledger is the session ledger: what a session did, kept per
// session in a store backend so that a policy can judge a call by the ones
// before it (information flow, budgets, loops). A session's ledger holds
// marks (a label with a detail and a time: "private-data", read ~/.ssh/id_rsa
// at 12:03), counters over windows, and its last calls with their outcome.
//
// The ledger is built on the four calls of store.Backend (Get, Set, Incr,
// Delete), so that every backend keeps it: the in-process store, the file
// store of one machine, or a Redis server that every replica of luahook
// serve shares, where a mark made through one replica is seen by the next
// call through another. Lists are rings of one key per slot, claimed with
// an Incr'd sequence number: writers on several replicas at once never
// overwrite each other's list, at worst the same slot of a ring that has
// come round.
//
// Every key of a session lives under a prefix no store key of a hook can
// collide with by accident ("\x00ledger\x00" and a digest of the session
// id) and carries the ledger's age bound as its TTL. A session's ledger is
// bounded (Limits): marks past MaxMarks or MaxBytes are refused with a
// *LimitError, details and summaries past their caps are cut with a marker,
// and the calls ring keeps the last MaxCalls.
//
// Lua hooks reach it through the session module (session.mark, session.has,
// session.marks, session.count, session.calls); Go hooks and hosts call a
// Ledger directly. Its methods are safe for concurrent use. A call made
// under a context that carries a Journal is recorded in it (what it read or
// wrote, and what it found): the decision log, explain and replay read a
// decision's journal.
package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/luahook/luahook/internal/store"
)

// Defaults of Limits, applied to its zero fields.
const (
	DefaultMaxMarks = 64
	DefaultMaxCalls = 32
	DefaultMaxBytes = 64 << 10 // 64 KiB
	DefaultMaxAge   = 24 * time.Hour
)

// Bounds of Limits and of what a ledger call may be given.
const (
	// MaxLimitEntries caps MaxMarks and MaxCalls.
	MaxLimitEntries = 4096
	// MaxLimitBytes caps MaxBytes.
	MaxLimitBytes = 16 << 20
	// MaxNameBytes caps a label or a counter's name.
	MaxNameBytes = 128
	// MaxDetailBytes caps a mark's detail; a longer one is cut with a
	// marker (CutMarker).
	MaxDetailBytes = 1 << 10
	// MaxSummaryBytes caps a call's summary, cut the same way.
	MaxSummaryBytes = 256
)

// Limits bound one session's ledger. A zero field means its default.
type Limits struct {
	// MaxMarks caps the marks of a session (and, apart, its counters): a
	// mark of a new label past it is refused (default 64).
	MaxMarks int
	// MaxCalls is how many of a session's last calls the ledger keeps
	// (default 32); older ones are overwritten.
	MaxCalls int
	// MaxBytes caps the labels and details of a session's marks together
	// (default 64 KiB): a mark that would pass it is refused.
	MaxBytes int
	// MaxAge is the TTL of every key the ledger writes (default 24 h): a
	// mark, a call, a counter and the ledger's own bookkeeping expire that
	// long after they were last written.
	MaxAge time.Duration
}

// WithDefaults returns l with its zero (or negative) fields set to their
// defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxMarks <= 0 {
		l.MaxMarks = DefaultMaxMarks
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxAge <= 0 {
		l.MaxAge = DefaultMaxAge
	}
	return l
}

// Check returns an error naming the first limit out of its range.
func (l Limits) Check() error {
	switch {
	case l.MaxMarks > MaxLimitEntries:
		return fmt.Errorf("ledger: MaxMarks %d is over the limit of %d", l.MaxMarks, MaxLimitEntries)
	case l.MaxCalls > MaxLimitEntries:
		return fmt.Errorf("ledger: MaxCalls %d is over the limit of %d", l.MaxCalls, MaxLimitEntries)
	case l.MaxBytes > MaxLimitBytes:
		return fmt.Errorf("ledger: MaxBytes %d is over the limit of %d", l.MaxBytes, MaxLimitBytes)
	case l.MaxAge > store.MaxTTL:
		return fmt.Errorf("ledger: MaxAge %v is over the limit of %v", l.MaxAge, store.MaxTTL)
	}
	return nil
}

// Ledger keeps the ledgers of every session in one store backend.
type Ledger struct {
	backend store.Backend
	limits  atomic.Pointer[Limits]
	now     func() time.Time
	lost    lostMarks // sessions whose marks could not be written (lost.go)
	// last is the key prefix of the session last asked for: a session's
	// calls come one after another, and the prefix is a hash of its id.
	last atomic.Pointer[prefixMemo]
}

// prefixMemo is a session id, its key prefix, and the keys of the
// counters counted in it last (at most maxMemoCounters). A memo is never
// changed once stored: a session's next counter replaces it with a copy.
type prefixMemo struct {
	session, prefix string
	// the keys of the session's count of counters (cn), and of its calls'
	// count (ks) and slots (kc): what LedgerCounts names on every call
	cn, ks, kc string
	counters   []counterMemo
}

// prefix is keyPrefix(session), remembered for the session last asked for.
func (lg *Ledger) prefix(session string) (string, error) {
	m, err := lg.memo(session)
	if err != nil {
		return "", err
	}
	return m.prefix, nil
}

// memo returns the memo of session: the one remembered when it is the
// session last asked for, else a new one, remembered instead (the last
// session's counters are forgotten with it).
func (lg *Ledger) memo(session string) (*prefixMemo, error) {
	if m := lg.last.Load(); m != nil && m.session == session {
		return m, nil
	}
	p, err := keyPrefix(session)
	if err != nil {
		return nil, err
	}
	m := &prefixMemo{session: session, prefix: p, cn: p + "cn", ks: p + "ks", kc: p + "kc"}
	lg.last.Store(m)
	return m, nil
}

// New returns a ledger over backend with limits (zero fields: defaults;
// fields past their bounds are cut to them). The backend is the caller's:
// the ledger never closes it.
func New(backend store.Backend, limits Limits) *Ledger {
	lg := &Ledger{backend: backend, now: time.Now}
	lg.SetLimits(limits)
	return lg
}

// SetLimits replaces the limits (zero fields: defaults; fields past their
// bounds cut to them) for the calls that start afterwards. A lower bound
// keeps what sessions hold, and refuses new marks past it.
func (lg *Ledger) SetLimits(l Limits) {
	l = l.WithDefaults()
	l.MaxMarks = min(l.MaxMarks, MaxLimitEntries)
	l.MaxCalls = min(l.MaxCalls, MaxLimitEntries)
	l.MaxBytes = min(l.MaxBytes, MaxLimitBytes)
	l.MaxAge = min(l.MaxAge, store.MaxTTL)
	lg.limits.Store(&l)
}

// Limits returns the limits in force, defaults applied.
func (lg *Ledger) Limits() Limits { return *lg.limits.Load() }

// LimitError is a ledger write refused because it would pass one of the
// session's bounds.
type LimitError struct {
	Label string // the label or counter name written
	Limit string // the bound: "ledger_max_marks" or "ledger_max_bytes"
	Max   int    // the bound's value
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "ledger_max_bytes":
		return fmt.Sprintf("ledger: cannot mark %q: the session's marks would pass ledger_max_bytes (%d bytes)", e.Label, e.Max)
	case "ledger_max_counters":
		return fmt.Sprintf("ledger: cannot count %q: the session holds ledger_max_marks (%d) counters", e.Label, e.Max)
	}
	return fmt.Sprintf("ledger: cannot mark %q: the session holds ledger_max_marks (%d) marks", e.Label, e.Max)
}

// ErrNoSession is the error of a call with an empty session id.
var ErrNoSession = errors.New("ledger: the call has no session id")

// CheckName refuses a label or a counter name that is empty or longer than
// MaxNameBytes; what names the argument ("label", "name").
func CheckName(what, name string) error {
	if name == "" {
		return fmt.Errorf("ledger: the %s must not be empty", what)
	}
	if len(name) > MaxNameBytes {
		return fmt.Errorf("ledger: a %s of %d bytes is over the limit of %d (%q...)", what, len(name), MaxNameBytes, name[:32])
	}
	return nil
}

// keyPrefix is "\x00ledger\x00", a digest of the session id, "\x00": no
// key a hook writes by accident starts with a NUL byte, and the digest keeps
// every session's keys one length whatever its id.
func keyPrefix(session string) (string, error) {
	if session == "" {
		return "", ErrNoSession
	}
	sum := sha256.Sum256([]byte(session))
	var b [8 + 32 + 1]byte
	copy(b[:], "\x00ledger\x00")
	hex.Encode(b[8:40], sum[:16])
	b[40] = 0
	return string(b[:]), nil
}

// CutMarker ends a detail or a summary that was cut: "…[cut N bytes]".
const CutMarker = "…[cut %d bytes]"

// cut returns s cut to at most max bytes, on a UTF-8 boundary, the marker
// included, when it is longer.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max - len(fmt.Sprintf(CutMarker, len(s)))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	n = maxInt(n, 0)
	return s[:n] + fmt.Sprintf(CutMarker, len(s)-n)
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// storeErr wraps a backend's error so that it reads as the ledger's,
// keeping it for errors.Is (store.ErrUnavailable).
func storeErr(err error) error {
	return fmt.Errorf("ledger: %w", err)
}

// each calls fn with every entry of a session's list, in order, with its
// number: its count under countKey, its entries under slotPrefix. ring 0
// is the marks (entry i under slotPrefix+i, at most n of them), else a
// ring of calls (the last n of the sequence, entry i under slotPrefix +
// (i-1) mod ring). An entry that is absent, or not a table, is nil. A
// store.LedgerBackend reads the list in one round trip (more only for a
// list past what one reply holds); any other, one Get an entry.
func (lg *Ledger) each(ctx context.Context, countKey, slotPrefix string, ring, n, maxEntry int, fn func(int64, json.RawMessage)) error {
	if sb, ok := lg.backend.(store.LedgerBackend); ok {
		count, present, first, entries, err := sb.LedgerRange(ctx, countKey, slotPrefix, ring, 0, n, n, maxEntry)
		if err != nil {
			return storeErr(err)
		}
		if !present {
			return nil
		}
		return lg.pages(ctx, sb, countKey, slotPrefix, ring, n, maxEntry, listEnd(count, ring, n), first, entries, fn)
	}
	return eachIn(ctx, lg.backend, countKey, slotPrefix, ring, n, fn)
}

// eachIn is each with b's Get, an entry at a time.
func eachIn(ctx context.Context, b store.Backend, countKey, slotPrefix string, ring, n int, fn func(int64, json.RawMessage)) error {
	v, ok, err := b.Get(ctx, countKey)
	if err != nil || !ok {
		return wrapNil(err)
	}
	count, _ := v.(float64)
	end := listEnd(count, ring, n)
	first := int64(1)
	if ring > 0 {
		first = max(end-int64(n)+1, 1)
	}
	for i := first; i <= end; i++ {
		slot := i
		if ring > 0 {
			slot = (i - 1) % int64(ring)
		}
		v, ok, err := b.Get(ctx, slotPrefix+strconv.FormatInt(slot, 10))
		if err != nil {
			return storeErr(err)
		}
		raw, isJSON := v.(json.RawMessage)
		if !ok || !isJSON {
			raw = nil
		}
		fn(i, raw)
	}
	return nil
}

// listEnd is the number of a list's last entry to read: its count (as a
// whole number, at most 2^53), and for the marks at most n.
func listEnd(count float64, ring, n int) int64 {
	if !(count >= 1) {
		return 0
	}
	end := int64(min(count, 1<<53))
	if ring == 0 {
		end = min(end, int64(n))
	}
	return end
}

// pages hands fn the entries of a page of a list read from a
// store.LedgerBackend, the first numbered first, and reads the pages after
// it, up to the entry numbered end. It hands on at most n entries, and a
// later page must start where the one before ended: whatever the server
// answers, the loop ends (a page that does not advance is an error).
func (lg *Ledger) pages(ctx context.Context, sb store.LedgerBackend, countKey, slotPrefix string, ring, n, maxEntry int,
	end, first int64, entries []json.RawMessage, fn func(int64, json.RawMessage)) error {
	handed := 0
	for {
		for i, raw := range entries {
			if first+int64(i) > end || handed >= n {
				return nil
			}
			fn(first+int64(i), raw)
			handed++
		}
		from := first + int64(len(entries))
		if from > end || len(entries) == 0 || handed >= n {
			return nil
		}
		if sb == nil {
			return fmt.Errorf("ledger: the store answered %d entries of %q from entry %d, to entry %d", len(entries), countKey[len(countKey)-2:], first, end)
		}
		var present bool
		var err error
		_, present, first, entries, err = sb.LedgerRange(ctx, countKey, slotPrefix, ring, int(from), n, int(end-from+1), maxEntry)
		if err != nil {
			return storeErr(err)
		}
		if !present {
			return nil
		}
		if first != from {
			return fmt.Errorf("ledger: the store answered a page of %q from entry %d, asked from %d", countKey[len(countKey)-2:], first, from)
		}
	}
}
