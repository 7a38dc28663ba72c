package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsontext"
	"github.com/luahook/luahook/internal/store"
)

// Call is one tool call of a session, as PostToolUse saw it.
type Call struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Event is the event that reported it ("PostToolUse").
	Event string `json:"event"`
	// OK is false when the tool failed (toolResult.isError, an agent's
	// PostToolUseFailure).
	OK bool `json:"ok"`
	// Summary says what the call did in a line: the command, the path, the
	// URL or the query, else the input's JSON, cut to MaxSummaryBytes.
	Summary string `json:"summary,omitempty"`
	// Digest identifies the call: the tool's name and its input,
	// normalized (object keys sorted, no spaces), hashed (SHA-256, the
	// first 16 bytes in hex). Two calls with the same digest are the same
	// call: what loop detection counts.
	Digest string `json:"digest"`
	// AtMs is when it was recorded, in milliseconds since the epoch.
	AtMs int64 `json:"at"`
	// Seq is the call's number in the session (1 up).
	Seq int64 `json:"seq"`
}

// MaxDigestInputBytes caps the tool input normalized for a digest: a
// larger input is hashed as it came (its key order then counts).
const MaxDigestInputBytes = 256 << 10

// CallOf returns the Call that in, a PostToolUse payload, reports (AtMs
// and Seq are left for Record to set).
func CallOf(in *luahook.Input) Call {
	c := Call{Tool: in.ToolName, Event: string(in.Event), OK: in.ToolResult == nil || !in.ToolResult.IsError}
	// The input is decoded once, for both its summary and its digest.
	var v any
	decoded := len(in.ToolInput) > 0 && len(in.ToolInput) <= MaxDigestInputBytes && json.Unmarshal(in.ToolInput, &v) == nil
	c.Summary = cut(summary(in.ToolInput, v, decoded), MaxSummaryBytes)
	c.Digest = digest(in.ToolName, in.ToolInput, v, decoded)
	return c
}

// summaryKeys are the input fields a summary is made of, first found first.
var summaryKeys = []string{"command", "file_path", "path", "url", "pattern", "query", "prompt"}

// summary is a line of input (v, when decoded): its first summaryKeys
// string, else its compact JSON.
func summary(input json.RawMessage, v any, decoded bool) string {
	if len(input) == 0 {
		return ""
	}
	if fields, ok := v.(map[string]any); ok {
		for _, k := range summaryKeys {
			if s, ok := fields[k].(string); ok && s != "" {
				return s
			}
		}
	}
	var b bytes.Buffer
	if decoded && json.Compact(&b, input) == nil {
		return b.String()
	}
	return string(input[:min(len(input), MaxSummaryBytes+1)])
}

// Digest returns the digest of a call of tool with input (Call.Digest).
func Digest(tool string, input json.RawMessage) string {
	var v any
	decoded := len(input) > 0 && len(input) <= MaxDigestInputBytes && json.Unmarshal(input, &v) == nil
	return digest(tool, input, v, decoded)
}

func digest(tool string, input json.RawMessage, v any, decoded bool) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	if decoded {
		// Marshal sorts object keys: the same input in another key
		// order, or spaced otherwise, is the same call.
		if norm, err := json.Marshal(v); err == nil {
			input = norm
		}
	}
	h.Write(input)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// Record adds c to session's last calls, at now: the call takes the next
// slot of the session's ring of MaxCalls (kc + slot), claimed with an
// Incr of the session's call count (ks), so that replicas recording at once
// each write a slot of their own.
func (lg *Ledger) Record(ctx context.Context, session string, c Call) error {
	p, err := lg.prefix(session)
	if err != nil {
		return err
	}
	l := lg.Limits()
	c.Tool = cut(c.Tool, MaxNameBytes)
	c.Summary = cut(c.Summary, MaxSummaryBytes)
	c.AtMs = lg.now().UnixMilli()
	if sb, ok := lg.backend.(store.LedgerBackend); ok {
		if _, err := sb.LedgerRecord(ctx, p+"ks", p+"kc", c.appendHead(make([]byte, 0, 128+len(c.Tool)+len(c.Summary))), l.MaxCalls, l.MaxAge); err != nil {
			return storeErr(err)
		}
		return nil
	}
	n, err := lg.backend.Incr(ctx, p+"ks", 1, l.MaxAge)
	if err != nil {
		return storeErr(err)
	}
	c.Seq = int64(n)
	raw := strconv.AppendInt(c.appendHead(make([]byte, 0, 128+len(c.Tool)+len(c.Summary))), c.Seq, 10)
	if err := lg.backend.Set(ctx, p+"kc"+strconv.FormatInt((c.Seq-1)%int64(l.MaxCalls), 10), json.RawMessage(append(raw, '}')), l.MaxAge); err != nil {
		return storeErr(err)
	}
	return nil
}

// Calls returns session's last n calls (n <= 0 or past MaxCalls: all it
// keeps), oldest first.
func (lg *Ledger) Calls(ctx context.Context, session string, n int) ([]Call, error) {
	calls, err := lg.calls(ctx, session, n)
	if s := scopeOf(ctx); s != nil {
		s.add(Entry{Op: OpCalls, Value: float64(len(calls))}, err)
	}
	return calls, err
}

func (lg *Ledger) calls(ctx context.Context, session string, n int) ([]Call, error) {
	p, err := lg.prefix(session)
	if err != nil {
		return nil, err
	}
	l := lg.Limits()
	if n <= 0 || n > l.MaxCalls {
		n = l.MaxCalls
	}
	var out []Call
	err = lg.each(ctx, p+"ks", p+"kc", l.MaxCalls, n, maxCallJSON, callAdder(&out))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// callsIn is calls of the session of prefix p with b's Get, an entry at a
// time, n in range.
func callsIn(ctx context.Context, b store.Backend, p string, n int, l Limits) ([]Call, error) {
	var out []Call
	if err := eachIn(ctx, b, p+"ks", p+"kc", l.MaxCalls, n, callAdder(&out)); err != nil {
		return nil, err
	}
	return out, nil
}

// callAdder returns the function that appends each call of a list read to
// out.
func callAdder(out *[]Call) func(int64, json.RawMessage) {
	return func(seq int64, raw json.RawMessage) {
		var c Call
		// A slot another replica has moved on to a later call, or that
		// holds an earlier round's call, is not this one.
		if raw == nil || decodeCall(raw, &c) != nil || c.Seq != seq {
			return
		}
		*out = append(*out, c)
	}
}

// callsFrom returns the last n calls of session p from the first page of
// them a LedgerCounts read (count, first, entries), reading the rest.
func (lg *Ledger) callsFrom(ctx context.Context, p string, n int, count float64, first int64, entries []json.RawMessage) ([]Call, error) {
	sb, _ := lg.backend.(store.LedgerBackend) // nil: the first page is the whole list (countsBackend)
	ring := lg.Limits().MaxCalls
	var out []Call
	if err := lg.pages(ctx, sb, p+"ks", p+"kc", ring, n, maxCallJSON, listEnd(count, ring, n), first, entries, callAdder(&out)); err != nil {
		return nil, err
	}
	return out, nil
}

// maxCallJSON bounds a call's JSON: its tool and summary at their caps,
// each character escaped (six bytes), and its other fields.
const maxCallJSON = 6*(MaxNameBytes+MaxSummaryBytes) + 256

// appendHead appends c's JSON, as json.Marshal would make it, up to its
// sequence number (without reflection: a call is recorded on every
// PostToolUse); the number and the closing brace follow.
func (c Call) appendHead(b []byte) []byte {
	b = append(b, `{"tool":`...)
	b = jsontext.AppendString(b, c.Tool)
	b = append(b, `,"event":`...)
	b = jsontext.AppendString(b, c.Event)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, c.OK)
	if c.Summary != "" {
		b = append(b, `,"summary":`...)
		b = jsontext.AppendString(b, c.Summary)
	}
	b = append(b, `,"digest":`...)
	b = jsontext.AppendString(b, c.Digest)
	b = append(b, `,"at":`...)
	b = strconv.AppendInt(b, c.AtMs, 10)
	return append(b, `,"seq":`...)
}

// At returns when c was recorded.
func (c Call) At() time.Time { return time.UnixMilli(c.AtMs) }
