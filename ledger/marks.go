package ledger

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Mark is a label a session was given, with a detail and when.
type Mark struct {
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty"`
	// AtMs is when it was made, in milliseconds since the epoch.
	AtMs int64 `json:"at"`
	// Slot is the mark's place in the session's list of marks (1 up).
	Slot int64 `json:"slot"`
}

// A session's marks are kept twice: under their label (m + label), for Has,
// and in the list of marks (ms + its slot), for Marks. The list's length is
// an Incr'd counter (mn), and the bytes of labels and details another (mb):
// two replicas marking at once each claim a slot of their own.

// Mark gives session the label with detail (cut to MaxDetailBytes), now. A
// label the session holds already gets the new detail and time in its
// slot. A new label past MaxMarks, or a mark that would take the session's
// marks past MaxBytes, is refused with a *LimitError.
func (lg *Ledger) Mark(ctx context.Context, session, label, detail string) (Mark, error) {
	m, err := lg.mark(ctx, session, label, detail)
	if s := scopeOf(ctx); s != nil {
		e := Entry{Op: OpMark, Name: label, Detail: m.Detail, AtMs: m.AtMs}
		if err != nil {
			e.Detail = cut(detail, MaxDetailBytes)
		}
		s.add(e, err)
	}
	return m, err
}

func (lg *Ledger) mark(ctx context.Context, session, label, detail string) (Mark, error) {
	if err := CheckName("label", label); err != nil {
		return Mark{}, err
	}
	p, err := keyPrefix(session)
	if err != nil {
		return Mark{}, err
	}
	l := lg.Limits()
	detail = cut(detail, MaxDetailBytes)
	now := lg.now()
	m := Mark{Label: label, Detail: detail, AtMs: now.UnixMilli()}
	old, held, err := lg.get(ctx, p+"m"+label)
	if err != nil {
		return Mark{}, err
	}
	delta := len(label) + len(detail)
	if held {
		delta = len(detail) - len(old.Detail)
		m.Slot = old.Slot
	}
	if delta > 0 {
		total, err := lg.backend.Incr(ctx, p+"mb", float64(delta), l.MaxAge)
		if err != nil {
			return Mark{}, storeErr(err)
		}
		if total > float64(l.MaxBytes) {
			_, _ = lg.backend.Incr(ctx, p+"mb", float64(-delta), l.MaxAge)
			return Mark{}, &LimitError{Label: label, Limit: "ledger_max_bytes", Max: l.MaxBytes}
		}
	}
	if !held {
		n, err := lg.backend.Incr(ctx, p+"mn", 1, l.MaxAge)
		if err != nil {
			return Mark{}, storeErr(err)
		}
		if n > float64(l.MaxMarks) {
			_, _ = lg.backend.Incr(ctx, p+"mn", -1, l.MaxAge)
			if delta > 0 {
				_, _ = lg.backend.Incr(ctx, p+"mb", float64(-delta), l.MaxAge)
			}
			return Mark{}, &LimitError{Label: label, Limit: "ledger_max_marks", Max: l.MaxMarks}
		}
		m.Slot = int64(n)
	} else if delta < 0 {
		_, _ = lg.backend.Incr(ctx, p+"mb", float64(delta), l.MaxAge)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return Mark{}, storeErr(err)
	}
	if err := lg.backend.Set(ctx, p+"ms"+strconv.FormatInt(m.Slot, 10), json.RawMessage(raw), l.MaxAge); err != nil {
		return Mark{}, storeErr(err)
	}
	if err := lg.backend.Set(ctx, p+"m"+label, json.RawMessage(raw), l.MaxAge); err != nil {
		return Mark{}, storeErr(err)
	}
	return m, nil
}

// Has returns session's mark of label, and whether it holds one.
func (lg *Ledger) Has(ctx context.Context, session, label string) (Mark, bool, error) {
	m, ok, err := lg.has(ctx, session, label)
	if s := scopeOf(ctx); s != nil {
		s.add(Entry{Op: OpHas, Name: label, Found: ok, Detail: m.Detail, AtMs: m.AtMs}, err)
	}
	return m, ok, err
}

func (lg *Ledger) has(ctx context.Context, session, label string) (Mark, bool, error) {
	if err := CheckName("label", label); err != nil {
		return Mark{}, false, err
	}
	p, err := keyPrefix(session)
	if err != nil {
		return Mark{}, false, err
	}
	return lg.get(ctx, p+"m"+label)
}

// Marks returns session's marks in the order they were first made.
func (lg *Ledger) Marks(ctx context.Context, session string) ([]Mark, error) {
	marks, err := lg.marks(ctx, session)
	if s := scopeOf(ctx); s != nil {
		e := Entry{Op: OpMarks, Value: float64(len(marks))}
		for _, m := range marks[:min(len(marks), maxEntryLabels)] {
			e.Labels = append(e.Labels, m.Label)
		}
		s.add(e, err)
	}
	return marks, err
}

func (lg *Ledger) marks(ctx context.Context, session string) ([]Mark, error) {
	p, err := keyPrefix(session)
	if err != nil {
		return nil, err
	}
	v, ok, err := lg.backend.Get(ctx, p+"mn")
	if err != nil || !ok {
		return nil, wrapNil(err)
	}
	n, _ := v.(float64)
	n = min(n, float64(MaxLimitEntries))
	var out []Mark
	seen := map[string]int{}
	for i := int64(1); i <= int64(n); i++ {
		m, ok, err := lg.get(ctx, p+"ms"+strconv.FormatInt(i, 10))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// Two replicas that made the same new label at once hold it in
		// two slots: the latest is the mark.
		if j, dup := seen[m.Label]; dup {
			if m.AtMs >= out[j].AtMs {
				out[j].Detail, out[j].AtMs = m.Detail, m.AtMs
			}
			continue
		}
		seen[m.Label] = len(out)
		out = append(out, m)
	}
	return out, nil
}

// get reads the mark stored under key.
func (lg *Ledger) get(ctx context.Context, key string) (Mark, bool, error) {
	v, ok, err := lg.backend.Get(ctx, key)
	if err != nil {
		return Mark{}, false, storeErr(err)
	}
	raw, isJSON := v.(json.RawMessage)
	if !ok || !isJSON {
		return Mark{}, false, nil
	}
	var m Mark
	if err := json.Unmarshal(raw, &m); err != nil {
		return Mark{}, false, nil
	}
	return m, true, nil
}

func wrapNil(err error) error {
	if err == nil {
		return nil
	}
	return storeErr(err)
}

// At returns when m was made.
func (m Mark) At() time.Time { return time.UnixMilli(m.AtMs) }
