package codec

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/jsontext"
)

// Encoder turns Lua values into compact JSON, byte for byte as encoding/json
// (with HTML escaping off) would write the same document:
//
//   - a table marked by json.array, or whose keys are exactly 1..n, is an
//     array; any other table with only string keys is an object; an empty
//     table that is not marked as an array is {};
//   - object keys come out in the order they were first set (gopher-lua keeps
//     insertion order), so a decoded document that is returned unchanged
//     re-encodes to the same bytes;
//   - json.null is null; integers print without a fraction;
//   - NaN and infinities, functions and other userdata, cycles, sparse
//     arrays, tables mixing keys, and keys that are neither strings nor array
//     indexes are errors naming the path ($.a.b[2]);
//   - a mutate's input (EncodeInput, EncodeOutcome) copies the original text
//     of every number, string and key it has unchanged (see origin).
//
// Tables are read raw: no metamethod runs, so no Lua code runs while encoding.
// One Encoder belongs to one state; its buffer is reused.
type Encoder struct {
	c     *Codec
	buf   []byte
	stack []*lua.LTable // tables being encoded, for cycle errors
	path  []pathElem
	limit int
	orig  origin // the text EncodeInput and EncodeOutcome walk alongside
	input bool   // the root's input and modifiedInput fields walk orig
}

type pathElem struct {
	key   lua.LValue // object key; nil for an array index
	index int
}

// EncodeError is a value that has no JSON form, or a text past the limit
// (TooLong); path locates it.
type EncodeError struct {
	path    string
	msg     string
	TooLong bool
}

func (e *EncodeError) Error() string { return e.msg + " at " + e.path }

// Encode returns the JSON text of v in the encoder's buffer, which stays valid
// until the next call. Numbers and strings are formatted as encoding/json
// formats them.
func (e *Encoder) Encode(v lua.LValue) (out []byte, err error) {
	return e.run(v, -1, e.c.MaxStringBytes)
}

// EncodeAtMost is Encode with a JSON text of at most limit bytes (and never
// more than Codec.MaxStringBytes): the store's value limit, a log record's
// room. On the error that the limit was reached, out holds the text up to
// there.
func (e *Encoder) EncodeAtMost(v lua.LValue, limit int) (out []byte, err error) {
	return e.run(v, -1, limit)
}

// EncodeInput is Encode for a mutate's input, v, walking orig (the JSON text
// the payload's toolInput came as) alongside: what v holds at a path where
// orig has the same value is written as orig's text (see origin).
func (e *Encoder) EncodeInput(v lua.LValue, orig []byte) (out []byte, err error) {
	defer e.orig.release()
	if len(orig) > 0 && e.orig.index(orig) {
		return e.run(v, 0, e.c.MaxStringBytes)
	}
	return e.run(v, -1, e.c.MaxStringBytes)
}

// EncodeOutcome is Encode for an outcome table t whose input or
// modifiedInput field holds a mutate's input: those fields are encoded as
// EncodeInput encodes them.
func (e *Encoder) EncodeOutcome(t *lua.LTable, orig []byte) (out []byte, err error) {
	defer e.orig.release()
	e.input = len(orig) > 0 && e.orig.index(orig)
	return e.run(t, -1, e.c.MaxStringBytes)
}

// run encodes v, whose original text is node at of e.orig (-1: none), into
// at most limit bytes (never more than Codec.MaxStringBytes).
func (e *Encoder) run(v lua.LValue, at, limit int) (out []byte, err error) {
	e.buf, e.stack, e.path = e.buf[:0], e.stack[:0], e.path[:0]
	e.limit = min(limit, e.c.MaxStringBytes)
	err = e.value(v, at)
	e.input = false
	clear(e.stack[:cap(e.stack)])
	clear(e.path[:cap(e.path)])
	if cap(e.buf) > 1<<20 && err == nil {
		// Hand back a copy and drop the big buffer rather than keep it per state.
		out = append([]byte(nil), e.buf...)
		e.buf = nil
		return out, nil
	}
	return e.buf, err
}

func (e *Encoder) tooLong() error {
	err := e.fail("JSON text exceeds the %s limit", MiB(e.limit))
	err.(*EncodeError).TooLong = true
	return err
}

func (e *Encoder) fail(format string, args ...any) error {
	return &EncodeError{path: e.pathString(), msg: fmt.Sprintf(format, args...)}
}

func (e *Encoder) pathString() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range e.path {
		if p.key == nil {
			fmt.Fprintf(&b, "[%d]", p.index)
			continue
		}
		if s, ok := p.key.(lua.LString); ok && IsIdent(string(s)) {
			b.WriteByte('.')
			b.WriteString(string(s))
		} else {
			fmt.Fprintf(&b, "[%s]", luaLiteral(p.key))
		}
	}
	return b.String()
}

// IsIdent reports whether s is a Lua identifier: a name a field can be
// written after a dot.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

func luaLiteral(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return strconv.Quote(string(s))
	}
	return v.String()
}

// value writes v, whose original text is node at of e.orig (-1: none).
func (e *Encoder) value(v lua.LValue, at int) error {
	switch v := v.(type) {
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case lua.LBool:
		e.buf = strconv.AppendBool(e.buf, bool(v))
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return e.fail("cannot encode the number %v", f)
		}
		mark := len(e.buf)
		e.buf = appendFloat(e.buf, f)
		if at >= 0 && !bytes.Equal(e.buf[mark:], e.orig.text(at)) && e.orig.sameNumber(at, f) {
			e.buf = e.buf[:mark]
			return e.original(at)
		}
	case lua.LString:
		if at >= 0 && e.orig.sameString(at, string(v)) {
			return e.original(at)
		}
		return e.str(string(v))
	case *lua.LUserData:
		if v != e.c.Null {
			return e.fail("cannot encode a userdata")
		}
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		return e.table(v, at)
	default:
		return e.fail("cannot encode a %s", v.Type().String())
	}
	return nil
}

// original writes node at's original text, within the limit.
func (e *Encoder) original(at int) error {
	text := e.orig.text(at)
	if len(e.buf)+len(text) > e.limit {
		return e.tooLong()
	}
	e.buf = append(e.buf, text...)
	return nil
}

func (e *Encoder) table(t *lua.LTable, at int) error {
	if len(e.stack) >= MaxDepth {
		return e.fail("tables nested deeper than %d levels", MaxDepth)
	}
	for _, s := range e.stack {
		if s == t {
			return e.fail("cannot encode a table that contains itself (cycle)")
		}
	}
	e.stack = append(e.stack, t)
	var err error
	switch t.Metatable {
	case e.c.ArrayMT:
		err = e.array(t, at)
	case e.c.ObjectMT:
		err = e.object(t, at)
	default:
		if n := t.MaxN(); n > 0 && dense(t, n) {
			err = e.items(t, n, at)
		} else if k, _ := t.Next(lua.LNil); k == lua.LNil {
			e.buf = append(e.buf, "{}"...)
		} else if _, ok := k.(lua.LString); ok {
			err = e.object(t, at)
		} else {
			err = e.array(t, at)
		}
	}
	e.stack = e.stack[:len(e.stack)-1]
	if err == nil && len(e.buf) > e.limit {
		err = e.tooLong()
	}
	return err
}

// dense reports whether t's keys are exactly 1..n, all in the array part.
func dense(t *lua.LTable, n int) bool {
	for i := 1; i <= n; i++ {
		if t.RawGetInt(i) == lua.LNil {
			return false
		}
	}
	k, _ := t.Next(lua.LNumber(n))
	return k == lua.LNil
}

// array writes a table that must be an array: keys exactly 1..n.
func (e *Encoder) array(t *lua.LTable, at int) error {
	if n := t.MaxN(); n > 0 && dense(t, n) {
		return e.items(t, n, at)
	}
	count, last := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || n < 1 || n != lua.LNumber(math.Trunc(float64(n))) || n > 1<<53 {
			e.path = append(e.path, pathElem{key: k})
			if _, isStr := k.(lua.LString); isStr {
				return e.fail("cannot encode a table with both array items and string keys")
			}
			return e.fail("cannot encode a table key of type %s (JSON object keys are strings)", k.Type().String())
		}
		count++
		last = max(last, int(n))
	}
	if count != last {
		for i := 1; i <= last; i++ {
			if t.RawGet(lua.LNumber(i)) == lua.LNil {
				e.path = append(e.path, pathElem{index: i})
				return e.fail("cannot encode a sparse array: item %d is nil (use json.null for holes)", i)
			}
		}
	}
	return e.items(t, last, at)
}

// items writes t[1..n], item i alongside the original array's item i.
func (e *Encoder) items(t *lua.LTable, n int, at int) error {
	e.buf = append(e.buf, '[')
	e.path = append(e.path, pathElem{})
	item, end := -1, -1
	if at >= 0 {
		item, end = e.orig.itemsOf(at)
	}
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		var v lua.LValue
		if i < lua.MaxArrayIndex {
			v = t.RawGetInt(i)
		} else {
			v = t.RawGet(lua.LNumber(i))
		}
		e.path[len(e.path)-1].index = i
		if err := e.value(v, item); err != nil {
			return err
		}
		item = e.orig.after(item, end)
	}
	e.path = e.path[:len(e.path)-1]
	e.buf = append(e.buf, ']')
	return nil
}

// object writes a table whose keys must all be strings, in insertion order,
// each alongside the original object's value of the same key.
func (e *Encoder) object(t *lua.LTable, at int) error {
	e.buf = append(e.buf, '{')
	ks := originKeys{obj: -1}
	if at >= 0 {
		ks = e.orig.keysOf(at)
	}
	input := e.input && len(e.stack) == 1
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		e.path = append(e.path, pathElem{key: k})
		s, ok := k.(lua.LString)
		if !ok {
			if _, isNum := k.(lua.LNumber); isNum {
				return e.fail("cannot encode a table with both array items and string keys")
			}
			return e.fail("cannot encode a table key of type %s (JSON object keys are strings)", k.Type().String())
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		key, val := e.orig.member(&ks, string(s))
		if key >= 0 {
			if err := e.original(key); err != nil {
				return err
			}
		} else if err := e.str(string(s)); err != nil {
			return err
		}
		e.buf = append(e.buf, ':')
		if input && (s == "input" || s == "modifiedInput") {
			val = 0
		}
		if err := e.value(v, val); err != nil {
			return err
		}
		e.path = e.path[:len(e.path)-1]
	}
	e.buf = append(e.buf, '}')
	return nil
}

// appendFloat formats f as encoding/json does (ES6 number formatting).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// str appends s quoted, checking first that the text stays within the
// limit: quoting writes up to 6 bytes for one ("\u0001").
func (e *Encoder) str(s string) error {
	room := e.limit - len(e.buf)
	if len(s)+2 > room || (6*len(s)+2 > room && jsontext.QuotedLen(s) > room) {
		return e.tooLong()
	}
	e.buf = jsontext.AppendString(e.buf, s)
	return nil
}
