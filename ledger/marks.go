package ledger

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/luahook/luahook/internal/jsontext"
	"github.com/luahook/luahook/internal/store"
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

// A session's marks are kept twice: under their label (l + label), for Has,
// and in the list of marks (ms + its slot), for Marks. No other key of a
// session starts with l: under m + label, the label "b" was the key of the
// marks' bytes (mb) and "s1" the first slot. The list's length is
// an Incr'd counter (mn), and the bytes of labels and details another (mb):
// two replicas marking at once each claim a slot of their own.

// Mark gives session the label with detail (cut to MaxDetailBytes), now. A
// label the session holds already gets the new detail and time in its
// slot. A new label past MaxMarks, or a mark that would take the session's
// marks past MaxBytes, is refused with a *LimitError.
func (lg *Ledger) Mark(ctx context.Context, session, label, detail string) (Mark, error) {
	var m Mark
	err := CheckName("label", label)
	var p string
	if err == nil {
		p, err = lg.prefix(session)
	}
	if err == nil {
		// A mark the store did not keep is information lost (lost.go);
		// a call that was wrong (above) loses nothing.
		if m, err = lg.mark(ctx, p, label, detail); err == nil {
			lg.lost.found(p, label)
		} else {
			lg.lost.lose(p, label, lg.now(), err)
		}
	}
	if s := scopeOf(ctx); s != nil {
		e := Entry{Op: OpMark, Name: label, Detail: m.Detail, AtMs: m.AtMs}
		if err != nil {
			e.Detail = cut(detail, MaxDetailBytes)
		}
		s.add(e, err)
	}
	return m, err
}

// mark writes the mark of a checked label for the session whose keys start
// with p.
func (lg *Ledger) mark(ctx context.Context, p, label, detail string) (Mark, error) {
	l := lg.Limits()
	detail = cut(detail, MaxDetailBytes)
	now := lg.now()
	m := Mark{Label: label, Detail: detail, AtMs: now.UnixMilli()}
	if sb, ok := lg.backend.(store.LedgerBackend); ok {
		slot, refused, err := sb.LedgerMark(ctx, p, label, m.appendHead(nil), len(detail), l.MaxMarks, l.MaxBytes, l.MaxAge)
		switch {
		case err != nil:
			return Mark{}, storeErr(err)
		case refused == "bytes":
			return Mark{}, &LimitError{Label: label, Limit: "ledger_max_bytes", Max: l.MaxBytes}
		case refused != "":
			return Mark{}, &LimitError{Label: label, Limit: "ledger_max_marks", Max: l.MaxMarks}
		}
		m.Slot = slot
		return m, nil
	}
	old, held, err := lg.get(ctx, p+"l"+label)
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
	raw := strconv.AppendInt(m.appendHead(nil), m.Slot, 10)
	raw = append(raw, '}')
	if err := lg.backend.Set(ctx, p+"ms"+strconv.FormatInt(m.Slot, 10), json.RawMessage(raw), l.MaxAge); err != nil {
		return Mark{}, storeErr(err)
	}
	if err := lg.backend.Set(ctx, p+"l"+label, json.RawMessage(raw), l.MaxAge); err != nil {
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
	p, err := lg.prefix(session)
	if err != nil {
		return Mark{}, false, err
	}
	if err := lg.lost.check(p, lg.now(), lg.Limits().MaxAge); err != nil {
		return Mark{}, false, err
	}
	return lg.get(ctx, p+"l"+label)
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
	p, err := lg.prefix(session)
	if err != nil {
		return nil, err
	}
	if err := lg.lost.check(p, lg.now(), lg.Limits().MaxAge); err != nil {
		return nil, err
	}
	var out []Mark
	seen := map[string]int{}
	err = lg.each(ctx, p+"mn", p+"ms", 0, MaxLimitEntries, maxMarkJSON, func(_ int64, raw json.RawMessage) {
		var m Mark
		if raw == nil || decodeMark(raw, &m) != nil {
			return
		}
		// Two replicas that made the same new label at once hold it in
		// two slots: the latest is the mark.
		if j, dup := seen[m.Label]; dup {
			if m.AtMs >= out[j].AtMs {
				out[j].Detail, out[j].AtMs = m.Detail, m.AtMs
			}
			return
		}
		seen[m.Label] = len(out)
		out = append(out, m)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxMarkJSON bounds a mark's JSON: its label and detail at their caps,
// each character escaped (six bytes), and its other fields.
const maxMarkJSON = 6*(MaxNameBytes+MaxDetailBytes) + 128

// appendHead appends m's JSON up to its slot's number: what json.Marshal
// makes of it, without the slot's value and the closing brace.
func (m Mark) appendHead(b []byte) []byte {
	b = append(b, `{"label":`...)
	b = jsontext.AppendString(b, m.Label)
	if m.Detail != "" {
		b = append(b, `,"detail":`...)
		b = jsontext.AppendString(b, m.Detail)
	}
	b = append(b, `,"at":`...)
	b = strconv.AppendInt(b, m.AtMs, 10)
	return append(b, `,"slot":`...)
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
	if err := decodeMark(raw, &m); err != nil {
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
