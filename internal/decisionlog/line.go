package decisionlog

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/runner"
)

// AppendLine appends rec's JSON line (the log's line format: what
// json.Marshal of rec decodes to, without HTML escaping, ending in a
// newline) to b. It writes the fields itself: encoding/json would compact
// and check the payload again, which the writer has just produced.
func AppendLine(b []byte, rec *Record) []byte {
	b = append(b, '{')
	if rec.Seq != 0 || rec.LogID != "" || rec.Prev != "" {
		// the chain's fields come first: a reader finds them in the line's
		// first bytes
		n := len(b)
		if rec.Seq != 0 {
			b = append(b, `,"seq":`...)
			b = strconv.AppendUint(b, rec.Seq, 10)
		}
		b = optString(b, "logId", rec.LogID)
		b = optString(b, "prev", rec.Prev)
		b = append(dropLeadingComma(b, n), ',')
	}
	b = append(b, `"time":"`...)
	b = rec.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","luahookVersion":`...)
	b = appendString(b, rec.LuahookVersion)
	b = optString(b, "instance", rec.Instance)
	b = optString(b, "agent", rec.Agent)
	b = optString(b, "sessionId", rec.SessionID)
	b = append(b, `,"event":`...)
	b = appendString(b, string(rec.Event))
	b = optString(b, "toolName", rec.ToolName)
	b = append(b, `,"inputDigest":`...)
	b = appendString(b, rec.InputDigest)
	b = append(b, `,"input":`...)
	b = appendRaw(b, rec.Input)
	b = optStrings(b, "masked", rec.Masked)
	if rec.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if rec.InputBytes != 0 {
		b = append(b, `,"inputBytes":`...)
		b = strconv.AppendInt(b, int64(rec.InputBytes), 10)
	}
	b = append(b, `,"hooks":[`...)
	for i := range rec.Hooks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendHook(b, &rec.Hooks[i])
	}
	b = append(b, `],"decision":{`...)
	d := &rec.Decision
	n := len(b)
	b = optString(b, "action", string(d.Action))
	b = optString(b, "reason", d.Reason)
	b = optString(b, "decidedBy", d.DecidedBy)
	b = dropLeadingComma(b, n)
	if len(b) > n {
		b = append(b, ',')
	}
	b = append(b, `"outcome":`...)
	b = appendOutcome(b, d.Outcome)
	b = append(b, '}')
	if d := rec.Delivered; d != nil {
		b = append(b, `,"delivered":{"verdict":`...)
		b = appendString(b, d.Verdict)
		b = append(b, `,"exitCode":`...)
		b = strconv.AppendInt(b, int64(d.ExitCode), 10)
		b = optString(b, "agent", d.Agent)
		b = optString(b, "cause", d.Cause)
		b = optString(b, "reason", d.Reason)
		b = optString(b, "note", d.Note)
		b = append(b, '}')
	}
	if a := rec.Approval; a != nil {
		b = append(b, `,"approval":`...)
		b = appendApproval(b, a)
	}
	if len(rec.Ledger) > 0 {
		b = append(b, `,"ledger":[`...)
		for i := range rec.Ledger {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLedgerEntry(b, &rec.Ledger[i])
		}
		b = append(b, ']')
	}
	if len(rec.Files) > 0 {
		b = append(b, `,"files":{`...)
		var keysBuf [16]string
		keys := keysBuf[:0]
		for k := range rec.Files {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		i := 0
		for _, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, rec.Files[k])
		}
		b = append(b, '}')
	}
	return append(b, "}\n"...)
}

func appendHook(b []byte, h *Hook) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, h.Name)
	b = optString(b, "source", h.Source)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(h.Kind))
	b = optString(b, "version", h.Version)
	b = optString(b, "mode", h.Mode)
	if h.Outcome != nil {
		b = append(b, `,"outcome":`...)
		b = appendOutcome(b, h.Outcome)
	}
	if f := h.Failure; f != nil {
		b = append(b, `,"failure":{"kind":`...)
		b = appendString(b, string(f.Kind))
		b = append(b, `,"message":`...)
		b = appendString(b, f.Message)
		b = append(b, '}')
	}
	b = optString(b, "skipped", h.Skipped)
	b = append(b, `,"durationMs":`...)
	b = strconv.AppendFloat(b, h.DurationMs, 'f', -1, 64)
	return append(b, '}')
}

func appendLedgerEntry(b []byte, e *ledger.Entry) []byte {
	b = append(b, '{')
	n := len(b)
	b = optString(b, "hook", e.Hook)
	b = optString(b, "file", e.File)
	b = dropLeadingComma(b, n)
	if len(b) > n {
		b = append(b, ',')
	}
	b = append(b, `"op":`...)
	b = appendString(b, e.Op)
	b = optString(b, "name", e.Name)
	if e.Found {
		b = append(b, `,"found":true`...)
	}
	b = optString(b, "detail", e.Detail)
	if e.AtMs != 0 {
		b = append(b, `,"at":`...)
		b = strconv.AppendInt(b, e.AtMs, 10)
	}
	b = optNumber(b, "value", e.Value)
	b = optNumber(b, "delta", e.Delta)
	if e.WindowMs != 0 {
		b = append(b, `,"windowMs":`...)
		b = strconv.AppendInt(b, e.WindowMs, 10)
	}
	b = optStrings(b, "labels", e.Labels)
	b = optString(b, "error", e.Err)
	return append(b, '}')
}

// optNumber appends ,"key":f unless f is 0; a number JSON cannot hold
// (NaN, an infinity) is written as null.
func optNumber(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func appendOutcome(b []byte, o *luahook.Outcome) []byte {
	if o == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	n := len(b)
	b = optString(b, "action", string(o.Action))
	b = optString(b, "reason", o.Reason)
	if len(o.Input) > 0 {
		b = append(b, `,"input":`...)
		b = appendRaw(b, o.Input)
	}
	b = optString(b, "additionalContext", o.AdditionalContext)
	b = optString(b, "contextAs", string(o.ContextAs))
	if len(o.Output) > 0 {
		b = append(b, `,"output":`...)
		b = appendCompact(b, o.Output)
	}
	if len(o.Redact) > 0 {
		b = append(b, `,"redact":[`...)
		for i := range o.Redact {
			r := &o.Redact[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			m := len(b)
			b = optString(b, "pattern", r.Pattern)
			b = optString(b, "text", r.Text)
			if r.Start != nil && r.End != nil {
				b = append(b, `,"start":`...)
				b = strconv.AppendInt(b, int64(*r.Start), 10)
				b = append(b, `,"end":`...)
				b = strconv.AppendInt(b, int64(*r.End), 10)
			}
			b = optString(b, "label", r.Label)
			b = append(dropLeadingComma(b, m), '}')
		}
		b = append(b, ']')
	}
	b = optString(b, "route", string(o.Route))
	b = optStrings(b, "approvers", o.Approvers)
	if o.TimeoutMs != 0 {
		b = append(b, `,"timeoutMs":`...)
		b = strconv.AppendInt(b, o.TimeoutMs, 10)
	}
	return append(dropLeadingComma(b, n), '}')
}

// appendCompact appends raw JSON compacted, null when it is not valid.
func appendCompact(b, raw []byte) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return append(b, "null"...)
	}
	return buf.Bytes()
}

// dropLeadingComma removes the comma optString wrote before an object's
// first member, which starts at b[n].
func dropLeadingComma(b []byte, n int) []byte {
	if len(b) > n && b[n] == ',' {
		return append(b[:n], b[n+1:]...)
	}
	return b
}

// optStrings appends ,"key":[...] unless list is empty.
func optStrings(b []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// optString appends ,"key":"s" unless s is empty.
func optString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendRaw appends raw JSON the walker produced (compact and valid), or
// null.
func appendRaw(b, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendApproval appends a web approval's record.
func appendApproval(b []byte, a *runner.Approval) []byte {
	b = append(b, '{')
	n := len(b)
	b = optString(b, "id", a.ID)
	b = optString(b, "digest", a.Digest)
	b = optString(b, "verdict", a.Verdict)
	b = optString(b, "by", a.By)
	if at, err := a.At.MarshalJSON(); err == nil {
		b = append(b, `,"at":`...)
		b = append(b, at...)
	}
	b = optString(b, "reason", a.Reason)
	b = optStrings(b, "approvers", a.Approvers)
	b = append(b, `,"timeoutMs":`...)
	b = strconv.AppendInt(b, a.TimeoutMs, 10)
	return append(dropLeadingComma(b, n), '}')
}
