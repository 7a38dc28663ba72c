package ledger

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The ledger reads back its own marks and calls on every has and every
// loop check; encoding/json's reflection made that most of their cost
// (9 of 11 µs for two calls on the in-process store). decodeMark and
// decodeCall read the JSON that appendHead writes, field by field, and
// hand anything else (a string with an escape, a field in another order,
// another writer's JSON) to encoding/json, so what they return is what
// json.Unmarshal would.

// jsonReader reads one of the ledger's records; ok turns false at the
// first byte it does not expect.
type jsonReader struct {
	b  []byte
	i  int
	ok bool
}

// lit reads s.
func (r *jsonReader) lit(s string) {
	if !r.ok || len(r.b)-r.i < len(s) || string(r.b[r.i:r.i+len(s)]) != s {
		r.ok = false
		return
	}
	r.i += len(s)
}

// peek reports whether s comes next.
func (r *jsonReader) peek(s string) bool {
	return r.ok && len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s
}

// str reads a string without escapes, of valid UTF-8.
func (r *jsonReader) str() string {
	if !r.ok || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.ok = false
		return ""
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			s := r.b[start:j]
			if !utf8.Valid(s) {
				break
			}
			r.i = j + 1
			return string(s)
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	r.ok = false
	return ""
}

// int reads a whole number.
func (r *jsonReader) int() int64 {
	if !r.ok {
		return 0
	}
	j := r.i
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
		j++
	}
	if j-digits > 1 && r.b[digits] == '0' { // JSON has no leading zeros
		r.ok = false
		return 0
	}
	n, err := strconv.ParseInt(string(r.b[r.i:j]), 10, 64)
	if err != nil {
		r.ok = false
		return 0
	}
	r.i = j
	return n
}

// end reads the record's closing brace, and nothing after it.
func (r *jsonReader) end() bool {
	r.lit("}")
	return r.ok && r.i == len(r.b)
}

// decodeMark reads a mark's JSON.
func decodeMark(raw []byte, m *Mark) error {
	r := jsonReader{b: raw, ok: true}
	var v Mark
	r.lit(`{"label":`)
	v.Label = r.str()
	if r.peek(`,"detail":`) {
		r.lit(`,"detail":`)
		v.Detail = r.str()
	}
	r.lit(`,"at":`)
	v.AtMs = r.int()
	r.lit(`,"slot":`)
	v.Slot = r.int()
	if r.end() {
		*m = v
		return nil
	}
	return json.Unmarshal(raw, m)
}

// decodeCall reads a call's JSON.
func decodeCall(raw []byte, c *Call) error {
	r := jsonReader{b: raw, ok: true}
	var v Call
	r.lit(`{"tool":`)
	v.Tool = r.str()
	r.lit(`,"event":`)
	v.Event = r.str()
	switch {
	case r.peek(`,"ok":true`):
		r.lit(`,"ok":true`)
		v.OK = true
	default:
		r.lit(`,"ok":false`)
	}
	if r.peek(`,"summary":`) {
		r.lit(`,"summary":`)
		v.Summary = r.str()
	}
	r.lit(`,"digest":`)
	v.Digest = r.str()
	r.lit(`,"at":`)
	v.AtMs = r.int()
	r.lit(`,"seq":`)
	v.Seq = r.int()
	if r.end() {
		*c = v
		return nil
	}
	return json.Unmarshal(raw, c)
}
