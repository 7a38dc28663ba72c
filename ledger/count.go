package ledger

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// Count adds delta to session's counter name over window and returns its
// total: the sum of the deltas since the window began. Windows are exact
// and fixed: a counter's window begins at the first count after the
// previous one ended (the store's incr keeps a key's expiry), so a counter
// of 10 minutes counts from the session's first call in it, not from the
// top of the clock. A window of 0 is the ledger's age bound (MaxAge): a
// count over the session. Delta 0 reads the total without starting a
// window. A window longer than MaxAge, or not positive, is an error; so is a
// new counter past the session's MaxMarks counters.
func (lg *Ledger) Count(ctx context.Context, session, name string, window time.Duration, delta float64) (float64, error) {
	total, err := lg.count(ctx, session, name, window, delta)
	if s := scopeOf(ctx); s != nil {
		s.add(Entry{Op: OpCount, Name: name, Value: total, Delta: delta, WindowMs: window.Milliseconds()}, err)
	}
	return total, err
}

// CountOp is one counter of Counts: delta added to name over window.
type CountOp struct {
	Name   string
	Window time.Duration
	Delta  float64
}

// MaxCountOps bounds the counters of one Counts.
const MaxCountOps = 16

// Counts counts ops, in order, as Count counts each, and returns their
// totals; with calls > 0 it returns the session's last calls too, as
// Calls(calls) does. On a store.LedgerBackend (Redis) it is one round
// trip, where as many Counts and a Calls would be one each, and on the
// in-process store one hold of its lock (countsBackend): for a policy that
// reads several counters and the last calls on every call (the budget
// pack). Every op is checked before any is counted; a counter refused
// (past the session's counters) ends it, with the ops before it counted.
func (lg *Ledger) Counts(ctx context.Context, session string, ops []CountOp, calls int) ([]float64, []Call, error) {
	totals, last, err := lg.counts(ctx, session, ops, calls)
	if s := scopeOf(ctx); s != nil {
		for i, op := range ops {
			var t float64
			if i < len(totals) {
				t = totals[i]
			}
			var opErr error
			if err != nil && i >= len(totals) {
				opErr = err
			}
			s.add(Entry{Op: OpCount, Name: op.Name, Value: t, Delta: op.Delta, WindowMs: op.Window.Milliseconds()}, opErr)
		}
		if calls > 0 && err == nil {
			s.add(Entry{Op: OpCalls, Value: float64(len(last))}, nil)
		}
	}
	return totals, last, err
}

// counterWindow checks a count of name over window and returns the window
// it counts over (0: MaxAge).
func counterWindow(name string, window time.Duration, l Limits) (time.Duration, error) {
	if err := CheckName("name", name); err != nil {
		return 0, err
	}
	if window == 0 {
		window = l.MaxAge
	}
	if window < time.Millisecond || window > l.MaxAge {
		return 0, fmt.Errorf("ledger: a window of %v for %q is out of range (1 ms to ledger_max_age_ms, %d ms)",
			window, name, l.MaxAge.Milliseconds())
	}
	return window, nil
}

// counterKeys returns the key of the counter name over window (checked) in
// the session of prefix p, and its name in the session's bookkeeping.
func counterKeys(p, name string, window time.Duration) (key, idx string) {
	// both keys built in a buffer on the stack: one allocation each
	var buf [160]byte
	b := append(append(buf[:0], p...), 'c')
	b = strconv.AppendInt(b, window.Milliseconds(), 10)
	b = append(append(b, 0), name...)
	key = string(b)
	b = append(append(append(buf[:0], p...), 'c', 'x'), key[len(p)+1:]...)
	return key, string(b)
}

// maxMemoCounters bounds the counters whose keys the ledger remembers for
// the session last asked for (a pack counts a few on every call).
const maxMemoCounters = 8

// counterMemo is a counter's keys (counterKeys) in the session of a
// prefixMemo: name over a window of ms milliseconds.
type counterMemo struct {
	name     string
	ms       int64
	key, idx string
}

// findCounter returns the keys of name over a window of ms in keys.
func findCounter(keys []counterMemo, name string, ms int64) (key, idx string, ok bool) {
	for i := range keys {
		if c := &keys[i]; c.ms == ms && c.name == name {
			return c.key, c.idx, true
		}
	}
	return "", "", false
}

// keys returns the key of the counter name over window (checked) in the
// session of m, and its name in the bookkeeping: remembered in m, or built
// and added to new, the counters to remember, while m and new hold fewer
// than maxMemoCounters.
func (m *prefixMemo) keys(name string, window time.Duration, added *[]counterMemo) (key, idx string) {
	ms := window.Milliseconds()
	if key, idx, ok := findCounter(m.counters, name, ms); ok {
		return key, idx
	}
	if key, idx, ok := findCounter(*added, name, ms); ok {
		return key, idx
	}
	key, idx = counterKeys(m.prefix, name, window)
	if len(m.counters)+len(*added) < maxMemoCounters {
		*added = append(*added, counterMemo{name: name, ms: ms, key: key, idx: idx})
	}
	return key, idx
}

// remember makes m's session remember the counters added too, unless
// another session (or another call) was asked for since m was read: the
// memo is never changed, only replaced.
func (lg *Ledger) remember(m *prefixMemo, added []counterMemo) {
	if len(added) == 0 {
		return
	}
	counters := make([]counterMemo, 0, len(m.counters)+len(added))
	counters = append(append(counters, m.counters...), added...)
	lg.last.CompareAndSwap(m, &prefixMemo{session: m.session, prefix: m.prefix, cn: m.cn, ks: m.ks, kc: m.kc, counters: counters})
}

// countsBackend is a backend that answers a whole LedgerCounts itself,
// without the rest of store.LedgerBackend: the in-process store
// (modules.Store), in one hold of its lock. It answers as the generic code
// does (countsIn), a refused or failed counter ending it with the totals
// of those before it, so that a ledger's answers, and its journal, are
// the same through it.
type countsBackend interface {
	LedgerCounts(ctx context.Context, req store.LedgerCountsRequest) (store.LedgerCountsReply, error)
}

func (lg *Ledger) counts(ctx context.Context, session string, ops []CountOp, calls int) ([]float64, []Call, error) {
	m, err := lg.memo(session)
	if err != nil {
		return nil, nil, err
	}
	p := m.prefix
	if len(ops) == 0 || len(ops) > MaxCountOps {
		return nil, nil, fmt.Errorf("ledger: a count of %d counters (1 to %d)", len(ops), MaxCountOps)
	}
	l := lg.Limits()
	if calls > l.MaxCalls {
		calls = l.MaxCalls
	}
	items := make([]store.LedgerCounter, len(ops))
	var added []counterMemo
	for i, op := range ops {
		window, err := counterWindow(op.Name, op.Window, l)
		if err != nil {
			return nil, nil, err
		}
		if math.IsNaN(op.Delta) || math.IsInf(op.Delta, 0) {
			return nil, nil, fmt.Errorf("ledger: cannot add %v to %q: not a finite number", op.Delta, op.Name)
		}
		key, idx := m.keys(op.Name, window, &added)
		items[i] = store.LedgerCounter{Idx: idx, Key: key, Delta: op.Delta, Window: window}
	}
	lg.remember(m, added)
	_, scripted := lg.backend.(store.LedgerBackend)
	cb, whole := lg.backend.(countsBackend)
	if !whole {
		return countsIn(ctx, lg.backend, p, ops, items, calls, l)
	}
	reply, err := cb.LedgerCounts(ctx, store.LedgerCountsRequest{Counters: m.cn, MaxCounters: l.MaxMarks, TTL: l.MaxAge,
		Items: items, CallsKey: m.ks, CallsPrefix: m.kc, Ring: l.MaxCalls, Calls: max(calls, 0), MaxEntry: maxCallJSON})
	if err != nil || reply.Refused >= 0 {
		// a server's script answers no totals when it refused or failed;
		// the in-process store, those of the counters before, as countsIn
		totals := reply.Totals
		if scripted {
			totals = totals[:0]
		}
		if err != nil {
			if scripted {
				totals = nil
			}
			return totals, nil, storeErr(err)
		}
		return totals, nil, &LimitError{Label: ops[reply.Refused].Name, Limit: "ledger_max_counters", Max: l.MaxMarks}
	}
	if calls <= 0 || !reply.CallsPresent {
		return reply.Totals, nil, nil
	}
	last, err := lg.callsFrom(ctx, p, calls, reply.CallsCount, reply.First, reply.Entries)
	return reply.Totals, last, err
}

// countsIn is counts with b's four calls: each item counted in turn (ops
// naming them), then with calls > 0 the session's last calls read. A
// counter refused or failed ends it, with the totals of those before it.
func countsIn(ctx context.Context, b store.Backend, p string, ops []CountOp, items []store.LedgerCounter, calls int, l Limits) ([]float64, []Call, error) {
	totals := make([]float64, 0, len(items))
	for i, it := range items {
		t, err := countOne(ctx, b, p, ops[i].Name, it, l)
		if err != nil {
			return totals, nil, err
		}
		totals = append(totals, t)
	}
	if calls <= 0 {
		return totals, nil, nil
	}
	last, err := callsIn(ctx, b, p, calls, l)
	return totals, last, err
}

// count is Count without its journal entry.
func (lg *Ledger) count(ctx context.Context, session, name string, window time.Duration, delta float64) (float64, error) {
	m, err := lg.memo(session)
	if err != nil {
		return 0, err
	}
	p := m.prefix
	l := lg.Limits()
	window, err = counterWindow(name, window, l)
	if err != nil {
		return 0, err
	}
	var added []counterMemo
	key, idx := m.keys(name, window, &added)
	lg.remember(m, added)
	it := store.LedgerCounter{Idx: idx, Key: key, Delta: delta, Window: window}
	if delta == 0 {
		return countOne(ctx, lg.backend, p, name, it, l)
	}
	if sb, ok := lg.backend.(store.LedgerBackend); ok {
		reply, err := sb.LedgerCounts(ctx, store.LedgerCountsRequest{Counters: p + "cn", MaxCounters: l.MaxMarks, TTL: l.MaxAge,
			Items: []store.LedgerCounter{it}})
		switch {
		case err != nil:
			return 0, storeErr(err)
		case reply.Refused >= 0:
			return 0, &LimitError{Label: name, Limit: "ledger_max_counters", Max: l.MaxMarks}
		}
		return reply.Totals[0], nil
	}
	return countOne(ctx, lg.backend, p, name, it, l)
}

// countOne counts it with b's four calls.
func countOne(ctx context.Context, b store.Backend, p, name string, it store.LedgerCounter, l Limits) (float64, error) {
	if it.Delta == 0 {
		v, ok, err := b.Get(ctx, it.Key)
		if err != nil {
			return 0, storeErr(err)
		}
		f, _ := v.(float64)
		if !ok {
			f = 0
		}
		return f, nil
	}
	// Each counter is named once in the session's bookkeeping (cx + its
	// key), so that the number of counters is bounded like the marks.
	_, known, err := b.Get(ctx, it.Idx)
	if err != nil {
		return 0, storeErr(err)
	}
	if !known {
		n, err := b.Incr(ctx, p+"cn", 1, l.MaxAge)
		if err != nil {
			return 0, storeErr(err)
		}
		if n > float64(l.MaxMarks) {
			_, _ = b.Incr(ctx, p+"cn", -1, l.MaxAge)
			return 0, &LimitError{Label: name, Limit: "ledger_max_counters", Max: l.MaxMarks}
		}
		if err := b.Set(ctx, it.Idx, true, l.MaxAge); err != nil {
			return 0, storeErr(err)
		}
	}
	total, err := b.Incr(ctx, it.Key, it.Delta, it.Window)
	if err != nil {
		return 0, storeErr(err)
	}
	return total, nil
}
