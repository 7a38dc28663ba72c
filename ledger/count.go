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
// trip, where as many Counts and a Calls would be one each: for a policy
// that reads several counters and the last calls on every call (the budget
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

// counterKeys checks a count and returns its counter's key and its name in
// the session's bookkeeping.
func counterKeys(p, name string, window time.Duration, l Limits) (key, idx string, _ time.Duration, _ error) {
	if err := CheckName("name", name); err != nil {
		return "", "", 0, err
	}
	if window == 0 {
		window = l.MaxAge
	}
	if window < time.Millisecond || window > l.MaxAge {
		return "", "", 0, fmt.Errorf("ledger: a window of %v for %q is out of range (1 ms to ledger_max_age_ms, %d ms)",
			window, name, l.MaxAge.Milliseconds())
	}
	// both keys built in a buffer on the stack: one allocation each
	var buf [160]byte
	b := append(append(buf[:0], p...), 'c')
	b = strconv.AppendInt(b, window.Milliseconds(), 10)
	b = append(append(b, 0), name...)
	key = string(b)
	b = append(append(append(buf[:0], p...), 'c', 'x'), key[len(p)+1:]...)
	return key, string(b), window, nil
}

func (lg *Ledger) counts(ctx context.Context, session string, ops []CountOp, calls int) ([]float64, []Call, error) {
	p, err := lg.prefix(session)
	if err != nil {
		return nil, nil, err
	}
	if len(ops) == 0 || len(ops) > MaxCountOps {
		return nil, nil, fmt.Errorf("ledger: a count of %d counters (1 to %d)", len(ops), MaxCountOps)
	}
	l := lg.Limits()
	if calls > l.MaxCalls {
		calls = l.MaxCalls
	}
	items := make([]store.LedgerCounter, len(ops))
	for i, op := range ops {
		key, idx, window, err := counterKeys(p, op.Name, op.Window, l)
		if err != nil {
			return nil, nil, err
		}
		if math.IsNaN(op.Delta) || math.IsInf(op.Delta, 0) {
			return nil, nil, fmt.Errorf("ledger: cannot add %v to %q: not a finite number", op.Delta, op.Name)
		}
		items[i] = store.LedgerCounter{Idx: idx, Key: key, Delta: op.Delta, Window: window}
	}
	sb, scripted := lg.backend.(store.LedgerBackend)
	if !scripted {
		totals := make([]float64, 0, len(ops))
		for i, it := range items {
			t, err := lg.countOne(ctx, p, ops[i].Name, it, l)
			if err != nil {
				return totals, nil, err
			}
			totals = append(totals, t)
		}
		if calls <= 0 {
			return totals, nil, nil
		}
		last, err := lg.calls(ctx, session, calls)
		return totals, last, err
	}
	reply, err := sb.LedgerCounts(ctx, store.LedgerCountsRequest{Counters: p + "cn", MaxCounters: l.MaxMarks, TTL: l.MaxAge,
		Items: items, CallsKey: p + "ks", CallsPrefix: p + "kc", Ring: l.MaxCalls, Calls: max(calls, 0), MaxEntry: maxCallJSON})
	if err != nil {
		return nil, nil, storeErr(err)
	}
	if reply.Refused >= 0 {
		return reply.Totals[:0], nil, &LimitError{Label: ops[reply.Refused].Name, Limit: "ledger_max_counters", Max: l.MaxMarks}
	}
	if calls <= 0 || !reply.CallsPresent {
		return reply.Totals, nil, nil
	}
	last, err := lg.callsFrom(ctx, p, calls, reply.CallsCount, reply.First, reply.Entries)
	return reply.Totals, last, err
}

// count is Count without its journal entry.
func (lg *Ledger) count(ctx context.Context, session, name string, window time.Duration, delta float64) (float64, error) {
	p, err := lg.prefix(session)
	if err != nil {
		return 0, err
	}
	l := lg.Limits()
	key, idx, window, err := counterKeys(p, name, window, l)
	if err != nil {
		return 0, err
	}
	it := store.LedgerCounter{Idx: idx, Key: key, Delta: delta, Window: window}
	if sb, ok := lg.backend.(store.LedgerBackend); ok && delta != 0 {
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
	return lg.countOne(ctx, p, name, it, l)
}

// countOne counts it with the backend's four calls.
func (lg *Ledger) countOne(ctx context.Context, p, name string, it store.LedgerCounter, l Limits) (float64, error) {
	if it.Delta == 0 {
		v, ok, err := lg.backend.Get(ctx, it.Key)
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
	_, known, err := lg.backend.Get(ctx, it.Idx)
	if err != nil {
		return 0, storeErr(err)
	}
	if !known {
		n, err := lg.backend.Incr(ctx, p+"cn", 1, l.MaxAge)
		if err != nil {
			return 0, storeErr(err)
		}
		if n > float64(l.MaxMarks) {
			_, _ = lg.backend.Incr(ctx, p+"cn", -1, l.MaxAge)
			return 0, &LimitError{Label: name, Limit: "ledger_max_counters", Max: l.MaxMarks}
		}
		if err := lg.backend.Set(ctx, it.Idx, true, l.MaxAge); err != nil {
			return 0, storeErr(err)
		}
	}
	total, err := lg.backend.Incr(ctx, it.Key, it.Delta, it.Window)
	if err != nil {
		return 0, storeErr(err)
	}
	return total, nil
}
