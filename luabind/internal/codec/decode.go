package codec

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// Decoder turns JSON text straight into Lua values, without a detour through
// Go maps: objects become tables marked as objects (keys set in document
// order, which LTable iteration keeps), arrays become tables marked as arrays,
// null becomes json.null, numbers become float64 (integers exact up to 2^53).
// A document is bounded: at most MaxDepth levels, at most
// Codec.MaxValues values, no key twice in one object (which value
// counts would be a guess: Lua would see the last, another reader the
// first), and the decoding stops once its context is done.
// One Decoder belongs to one state and is reused across calls.
type Decoder struct {
	c     *Codec
	data  []byte
	pos   int
	depth int
	ctx   context.Context       // checked every ctxEvery values; nil: never
	count int                   // values read so far
	limit int                   // the cap on count; 0: none
	check int                   // count at which limit or ctx is next checked
	keys  []lua.LValue          // object keys being collected (LStrings), all levels
	vals  []lua.LValue          // object values and array items being collected
	names map[string]lua.LValue // interned object keys, boxed
	boxed map[string]lua.LValue // interned short string values, boxed once
	ints  map[int64]lua.LValue  // interned integer values, boxed once
}

// Bounds of the decoder's interning: keys and short values repeat from call
// to call (field names, tool names, the cwd, the session id), so a state
// converts each once; a state that sees many distinct values starts over
// rather than grow.
const (
	maxInternLen = 64   // longer strings are never interned
	maxNames     = 4096 // interned keys per state
	maxBoxed     = 256  // interned values per state
)

// ctxEvery is how many values the decoder reads between two looks at its
// context: about 250 µs of work at most.
const ctxEvery = 1024

// DecodeError is why a document was not converted, with its byte offset.
type DecodeError struct {
	Offset int
	Msg    string
	Why    DecodeFault
	err    error // the context's error, for FaultDone
}

// DecodeFault classifies a DecodeError.
type DecodeFault int

const (
	FaultSyntax    DecodeFault = iota // not valid JSON
	FaultTooMany                      // more values than the cap
	FaultDuplicate                    // a key twice in one object
	FaultDone                         // the context ended
)

func (e *DecodeError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

func (e *DecodeError) Unwrap() error { return e.err }

// Decode converts one JSON document (with optional surrounding white space)
// for Lua code running in the state: json.decode, the store. It watches the
// state's context, the one Lua runs under.
func (d *Decoder) Decode(data []byte) (lua.LValue, error) {
	return d.DecodeIn(d.c.L.Context(), data)
}

// DecodeIn converts one JSON document, watching ctx (nil: not at all) and the
// state's cap on values.
func (d *Decoder) DecodeIn(ctx context.Context, data []byte) (v lua.LValue, err error) {
	d.count = 0
	return d.DecodeMore(ctx, data)
}

// DecodeMore is DecodeIn with the values of the documents decoded since the
// last DecodeIn counted towards the cap: the documents of one payload
// (toolInput, native) share it.
func (d *Decoder) DecodeMore(ctx context.Context, data []byte) (v lua.LValue, err error) {
	d.data, d.pos, d.depth = data, 0, 0
	d.ctx, d.limit = ctx, max(0, d.c.MaxValues)
	d.check = d.nextCheck()
	defer func() {
		clear(d.vals)
		d.keys, d.vals, d.data, d.ctx = d.keys[:0], d.vals[:0], nil, nil
	}()
	v, err = d.value()
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.pos < len(d.data) {
		return nil, d.unexpected("after the JSON value")
	}
	return v, nil
}

func (d *Decoder) errorf(format string, args ...any) error {
	return &DecodeError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// nextCheck returns the count at which the cap or the context is next
// checked, so that reading a value costs one comparison.
func (d *Decoder) nextCheck() int {
	next := d.count + ctxEvery
	if d.limit > 0 && d.limit+1 < next {
		next = d.limit + 1
	}
	return next
}

// counted checks the cap and the context when the count reaches d.check.
func (d *Decoder) counted() error {
	if d.limit > 0 && d.count > d.limit {
		return &DecodeError{Offset: d.pos, Why: FaultTooMany,
			Msg: fmt.Sprintf("more than %d JSON values (max_input_values)", d.limit)}
	}
	if d.ctx != nil {
		if err := d.ctx.Err(); err != nil {
			return &DecodeError{Offset: d.pos, Why: FaultDone, err: err, Msg: "stopped: " + err.Error()}
		}
	}
	d.check = d.nextCheck()
	return nil
}

// unexpected reports the character at the current offset, or the end of the
// input, as out of place.
func (d *Decoder) unexpected(where string) error {
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of JSON input")
	}
	return d.errorf("invalid character %s %s", strconv.QuoteRune(rune(d.data[d.pos])), where)
}

func (d *Decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *Decoder) value() (lua.LValue, error) {
	if d.count++; d.count >= d.check {
		if err := d.counted(); err != nil {
			return nil, err
		}
	}
	d.ws()
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of JSON input")
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.strValue()
	case 't':
		return lua.LTrue, d.literal("true")
	case 'f':
		return lua.LFalse, d.literal("false")
	case 'n':
		return d.c.Null, d.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
		return nil, d.unexpected("looking for a value")
	}
}

func (d *Decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal (want %s)", word)
	}
	d.pos += len(word)
	return nil
}

func (d *Decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.errorf("JSON nested deeper than %d levels", MaxDepth)
	}
	return nil
}

func (d *Decoder) object() (lua.LValue, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	start := d.pos
	d.pos++ // '{'
	base := len(d.keys)
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
	} else {
		for {
			d.ws()
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return nil, d.unexpected("looking for an object key")
			}
			key, err := d.key()
			if err != nil {
				return nil, err
			}
			d.ws()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return nil, d.unexpected("after an object key")
			}
			d.pos++
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.keys = append(d.keys, key)
			d.vals = append(d.vals, v)
			if more, err := d.after('}', "after an object value"); err != nil {
				return nil, err
			} else if !more {
				break
			}
		}
	}
	n := len(d.keys) - base
	vbase := len(d.vals) - n
	t := d.c.ObjectTable(d.keys[base:], d.vals[vbase:])
	if n > 1 && keyCount(t) < n {
		k := string(firstRepeat(d.keys[base:]).(lua.LString))
		if short := luahook.TruncateChars(k, 64); short != k {
			k = short + "…"
		}
		return nil, &DecodeError{Offset: start, Why: FaultDuplicate, Msg: "duplicate key " + strconv.Quote(k)}
	}
	clear(d.keys[base:])
	clear(d.vals[vbase:])
	d.keys, d.vals = d.keys[:base], d.vals[:vbase]
	d.depth--
	return t, nil
}

func (d *Decoder) array() (lua.LValue, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '['
	base := len(d.vals)
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
	} else {
		for {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.vals = append(d.vals, v)
			if more, err := d.after(']', "after an array item"); err != nil {
				return nil, err
			} else if !more {
				break
			}
		}
	}
	t := d.c.ArrayTable(d.vals[base:])
	clear(d.vals[base:])
	d.vals = d.vals[:base]
	d.depth--
	return t, nil
}

// keyCount returns the number of keys of an object table.
func keyCount(t *lua.LTable) int {
	if DirectTables {
		return len((*rawTable)(unsafe.Pointer(t)).keys)
	}
	n := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n++
	}
	return n
}

// firstRepeat returns the first key of keys that an earlier one repeats.
func firstRepeat(keys []lua.LValue) lua.LValue {
	seen := make(map[lua.LValue]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			return k
		}
		seen[k] = true
	}
	return nil
}

// after reads what follows an object's value or an array's item: a comma
// (more follows) or the closing byte.
func (d *Decoder) after(closing byte, where string) (more bool, err error) {
	d.ws()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			return true, nil
		case closing:
			d.pos++
			return false, nil
		}
	}
	return false, d.unexpected(where)
}

// key reads an object key as a boxed Lua string. Keys are interned, so that
// the same key in every item of an array, and in every call, is allocated
// once per state.
func (d *Decoder) key() (lua.LValue, error) {
	if raw, ok := d.plain(len(d.data)); ok {
		return d.intern(raw), nil
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	return d.intern(unsafe.Slice(unsafe.StringData(s), len(s))), nil
}

// plain reads a string of at most limit bytes with neither escapes nor
// control characters, the common case, as the bytes between its quotes; ok
// is false, and nothing read, for any other string (str reads those, and
// reports what is wrong with them).
func (d *Decoder) plain(limit int) (raw []byte, ok bool) {
	start := d.pos + 1
	for end := start; end < len(d.data) && end-start <= limit; end++ {
		c := d.data[end]
		if c == '"' {
			d.pos = end + 1
			return d.data[start:end], true
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	return nil, false
}

// str reads a string.
func (d *Decoder) str() (string, error) {
	d.pos++ // '"'
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			raw := d.data[start:d.pos]
			d.pos++
			return string(raw), nil
		}
		if c == '\\' {
			return d.strEscaped(start)
		}
		if c < 0x20 {
			return "", d.errorf("invalid control character %q in a string", d.data[d.pos])
		}
		d.pos++
	}
	return "", d.errorf("unexpected end of JSON input in a string")
}

// intern returns raw as a boxed Lua string, the same value for the same
// short key every time.
func (d *Decoder) intern(raw []byte) lua.LValue {
	if len(raw) > maxInternLen {
		return lua.LString(raw)
	}
	if v, ok := d.names[string(raw)]; ok {
		return v
	}
	s := string(raw)
	v := lua.LValue(lua.LString(s))
	if d.names == nil {
		d.names = make(map[string]lua.LValue)
	}
	if len(d.names) < maxNames {
		d.names[s] = v
	}
	return v
}

// strValue reads a string value. A short one is boxed once per state and
// reused: converting a string to an lua.LValue allocates, and the same short
// values come back on every call.
func (d *Decoder) strValue() (lua.LValue, error) {
	if raw, ok := d.plain(maxInternLen); ok {
		return d.box(raw), nil
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	return lua.LString(s), nil
}

// box returns raw as a boxed Lua string, interned when it is short.
func (d *Decoder) box(raw []byte) lua.LValue {
	if len(raw) > maxInternLen {
		return lua.LString(raw)
	}
	if v, ok := d.boxed[string(raw)]; ok {
		return v
	}
	return remember(&d.boxed, string(raw), lua.LString(raw))
}

// remember stores v under k in *m, a map of interned values, which starts
// over when it holds maxBoxed of them, and returns v.
func remember[K comparable](m *map[K]lua.LValue, k K, v lua.LValue) lua.LValue {
	if *m == nil || len(*m) >= maxBoxed {
		*m = make(map[K]lua.LValue)
	}
	(*m)[k] = v
	return v
}

// BoxString is box for a Go string (the payload's fixed fields).
func (d *Decoder) BoxString(s string) lua.LValue {
	if len(s) > maxInternLen {
		return lua.LString(s)
	}
	if v, ok := d.boxed[s]; ok {
		return v
	}
	return remember(&d.boxed, s, lua.LString(s))
}

// strEscaped reads the rest of a string that has an escape at d.pos. The
// unescaped text is never longer than the raw text, so the buffer is sized
// once from the closing quote; runs without escapes are copied whole; and
// the buffer becomes the string without another copy.
func (d *Decoder) strEscaped(start int) (string, error) {
	end := d.closingQuote()
	if end < 0 {
		return "", d.errorf("unexpected end of JSON input in a string")
	}
	buf := make([]byte, 0, end-start)
	buf = append(buf, d.data[start:d.pos]...)
	buf, err := d.unescape(buf, end)
	if err != nil {
		return "", err
	}
	d.pos = end + 1
	// buf is this string's own memory, never written again.
	return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
}

// unescape appends the string text from d.pos up to end (its closing quote)
// to buf, escapes resolved, and leaves d.pos at end. The origin compares a
// string's original text with a Lua string through it, so that both read
// escapes exactly alike.
func (d *Decoder) unescape(buf []byte, end int) ([]byte, error) {
	for d.pos < end {
		run := d.pos
		for run < end && d.data[run] != '\\' && d.data[run] >= 0x20 {
			run++
		}
		buf = append(buf, d.data[d.pos:run]...)
		d.pos = run
		if d.pos == end {
			break
		}
		if d.data[d.pos] < 0x20 {
			return nil, d.errorf("invalid control character %q in a string", d.data[d.pos])
		}
		d.pos++ // '\\'
		e := d.data[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.errorf("invalid \\u escape in a string")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if len(d.data)-d.pos >= 6 && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					if lo, ok := d.hex4(); ok {
						r2 = utf16.DecodeRune(r, lo)
					}
					if r2 == utf8.RuneError {
						d.pos = save // a lone high surrogate; the next escape stands alone
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos--
			return nil, d.unexpected("in a string escape")
		}
	}
	return buf, nil
}

// closingQuote returns the offset of the quote that ends the string the
// decoder is in (d.pos at or after its start), or -1. A backslash escapes
// the byte after it.
func (d *Decoder) closingQuote() int {
	for i := d.pos; i < len(d.data); i++ {
		switch d.data[i] {
		case '"':
			return i
		case '\\':
			i++
		}
	}
	return -1
}

func (d *Decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

func (d *Decoder) number() (lua.LValue, error) {
	start := d.pos
	neg := d.data[d.pos] == '-'
	if neg {
		d.pos++
	}
	intStart := d.pos
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else {
		if d.pos >= len(d.data) || d.data[d.pos] < '1' || d.data[d.pos] > '9' {
			return nil, d.unexpected("in a number")
		}
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
		}
	}
	intEnd := d.pos
	simple := true
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		simple = false
		d.pos++
		if !d.digits() {
			return nil, d.unexpected("after a decimal point")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		simple = false
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if !d.digits() {
			return nil, d.unexpected("in an exponent")
		}
	}
	if simple && intEnd-intStart <= 15 {
		var n int64
		for _, c := range d.data[intStart:intEnd] {
			n = n*10 + int64(c-'0')
		}
		if neg {
			if n == 0 {
				return lua.LNumber(math.Copysign(0, -1)), nil
			}
			n = -n
		}
		return d.integer(n), nil
	}
	text := d.data[start:d.pos]
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	if err != nil {
		d.pos = start
		return nil, d.errorf("number %s is out of the float64 range", string(text))
	}
	return lua.LNumber(f), nil
}

// integer returns n as a Lua number: a small one boxed once for good
// (Number), any other interned per state as short strings are, since a
// payload's numbers (a timeout, a line) repeat from call to call.
func (d *Decoder) integer(n int64) lua.LValue {
	if n >= 0 && n < int64(len(smallNumbers)) {
		return smallNumbers[n]
	}
	if v, ok := d.ints[n]; ok {
		return v
	}
	return remember(&d.ints, n, lua.LNumber(n))
}

func (d *Decoder) digits() bool {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}
