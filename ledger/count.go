package ledger

import (
	"context"
	"fmt"
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

func (lg *Ledger) count(ctx context.Context, session, name string, window time.Duration, delta float64) (float64, error) {
	if err := CheckName("name", name); err != nil {
		return 0, err
	}
	p, err := keyPrefix(session)
	if err != nil {
		return 0, err
	}
	l := lg.Limits()
	if window == 0 {
		window = l.MaxAge
	}
	if window < time.Millisecond || window > l.MaxAge {
		return 0, fmt.Errorf("ledger: a window of %v for %q is out of range (1 ms to ledger_max_age_ms, %d ms)",
			window, name, l.MaxAge.Milliseconds())
	}
	key := p + "c" + strconv.FormatInt(window.Milliseconds(), 10) + "\x00" + name
	if delta == 0 {
		v, ok, err := lg.backend.Get(ctx, key)
		if err != nil {
			return 0, storeErr(err)
		}
		f, _ := v.(float64)
		if !ok {
			f = 0
		}
		return f, nil
	}
	idx := p + "cx" + key[len(p):]
	if sb, ok := lg.backend.(store.LedgerBackend); ok {
		total, refused, err := sb.LedgerCount(ctx, idx, key, p+"cn", delta, window, l.MaxMarks, l.MaxAge)
		switch {
		case err != nil:
			return 0, storeErr(err)
		case refused:
			return 0, &LimitError{Label: name, Limit: "ledger_max_counters", Max: l.MaxMarks}
		}
		return total, nil
	}
	// Each counter is named once in the session's bookkeeping (cx + its
	// key), so that the number of counters is bounded like the marks.
	_, known, err := lg.backend.Get(ctx, idx)
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
		if err := lg.backend.Set(ctx, idx, true, l.MaxAge); err != nil {
			return 0, storeErr(err)
		}
	}
	total, err := lg.backend.Incr(ctx, key, delta, window)
	if err != nil {
		return 0, storeErr(err)
	}
	return total, nil
}
