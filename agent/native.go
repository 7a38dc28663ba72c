package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// smallObject is how many keys an object may have before its keys go into
// a map rather than being compared one by one.
const smallObject = 16

// native is a native payload read strictly: one JSON object (white space
// around it aside) in which no object, at any depth, holds a key twice
// (keys compared as encoding/json decodes them, escapes resolved), so that
// a proxy reading the first "tool_input" and luahook reading the last cannot
// see different payloads. It keeps the top-level members in order; values
// are slices of the payload, not copies.
type native struct {
	data    []byte // the object, trimmed
	members []member
	buf     [16]member // the agents send at most a dozen top-level keys
}

type member struct {
	key   []byte // unescaped
	value []byte
}

// nativePool holds natives given back once decoded (release): a native is
// the largest allocation of an agent payload's decoding, on every call.
var nativePool = sync.Pool{New: func() any { return new(native) }}

// release gives n back to the pool; nothing may use n, or a member of it,
// afterwards (the values decoded from it are copies). A native never given
// back is only garbage.
func (n *native) release() {
	clear(n.members) // keeps no payload alive
	n.data, n.members = nil, nil
	nativePool.Put(n)
}

// errNotObject is the error for a payload that is not a JSON object.
var errNotObject = errors.New("want a JSON object")

// parseNative reads data as a native payload.
func parseNative(data []byte) (*native, error) {
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 {
		return nil, errors.New("empty payload; want a JSON object")
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("%w, got %s", errNotObject, snippet(data))
	}
	n := nativePool.Get().(*native)
	n.data = data
	n.members = n.buf[:0]
	if err := n.scan(); err != nil {
		if err != errInvalidJSON {
			return nil, err
		}
		// encoding/json names the byte at fault.
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return n, nil
}

// errInvalidJSON is scan's answer for text json.Valid refuses.
var errInvalidJSON = errors.New("invalid JSON")

// maxNesting is the depth of objects and arrays past which encoding/json
// refuses a text.
const maxNesting = 10000

// frame is an object or array open in scan.
type frame struct {
	object bool
	base   int                 // index in keys of the object's first key
	big    map[string]struct{} // the object's keys once it has more than smallObject
	n      int
	key    []byte // the current member's key (for errors)
	index  int    // the array's current element (for errors)
}

// What scan expects next.
const (
	wantValue = iota
	wantKey
	afterValue
)

// scan reads the object in one pass: it accepts exactly what json.Valid
// accepts (errInvalidJSON otherwise), records the top-level members, and
// refuses a key given twice in any object. A text that is invalid is
// reported as such even when a key was given twice before the fault, as
// when validity was checked first. It allocates only for escaped keys,
// objects of more than smallObject keys and deep nesting.
func (n *native) scan() error {
	data := n.data
	var framesBuf [16]frame
	var keysBuf [64][]byte
	frames, keys := framesBuf[:0], keysBuf[:0]
	var dup error // the first key given twice
	valStart := -1
	i, want := 0, wantValue
	for {
		switch want {
		case wantValue:
			i = skipSpace(data, i)
			if i >= len(data) {
				return errInvalidJSON
			}
			switch c := data[i]; c {
			case '{', '[':
				if len(frames) >= maxNesting {
					return errInvalidJSON
				}
				frames = append(frames, frame{object: c == '{', base: len(keys)})
				i = skipSpace(data, i+1)
				switch {
				case i < len(data) && data[i] == closer(c):
					want = afterValue
					frames = frames[:len(frames)-1]
					i++
				case c == '{':
					want = wantKey
				}
				continue
			case '"':
				end, ok := stringEnd(data, i)
				if !ok {
					return errInvalidJSON
				}
				i = end
			case 't':
				i = literalEnd(data, i, "true")
			case 'f':
				i = literalEnd(data, i, "false")
			case 'n':
				i = literalEnd(data, i, "null")
			default:
				i = numberEnd(data, i)
			}
			if i < 0 {
				return errInvalidJSON
			}
			want = afterValue
		case wantKey:
			i = skipSpace(data, i)
			if i >= len(data) || data[i] != '"' {
				return errInvalidJSON
			}
			end, ok := stringEnd(data, i)
			if !ok {
				return errInvalidJSON
			}
			key, err := keyText(data[i:end])
			if err != nil {
				return errInvalidJSON
			}
			top := &frames[len(frames)-1]
			if dup == nil && top.has(keys, key) {
				dup = duplicateError(frames, key)
			}
			top.n++
			top.key = key
			if top.big != nil {
				top.big[string(key)] = struct{}{}
			} else if top.n > smallObject {
				top.big = make(map[string]struct{}, 2*smallObject)
				for _, k := range keys[top.base:] {
					top.big[string(k)] = struct{}{}
				}
				top.big[string(key)] = struct{}{}
				keys = keys[:top.base]
			} else {
				keys = append(keys, key)
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return errInvalidJSON
			}
			i = skipSpace(data, i+1)
			if len(frames) == 1 {
				n.members = append(n.members, member{key: key})
				valStart = i
			}
			want = wantValue
		case afterValue:
			if len(frames) == 0 {
				if i != len(data) {
					return errInvalidJSON
				}
				return dup
			}
			if len(frames) == 1 && valStart >= 0 {
				n.members[len(n.members)-1].value = data[valStart:i]
				valStart = -1
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return errInvalidJSON
			}
			top := &frames[len(frames)-1]
			switch data[i] {
			case ',':
				if top.object {
					want = wantKey
				} else {
					top.index++
					want = wantValue
				}
			case '}', ']':
				if (data[i] == '}') != top.object {
					return errInvalidJSON
				}
				keys = keys[:top.base]
				frames = frames[:len(frames)-1]
			default:
				return errInvalidJSON
			}
			i++
		}
	}
}

func (f *frame) has(keys [][]byte, key []byte) bool {
	if f.big != nil {
		_, ok := f.big[string(key)]
		return ok
	}
	for _, k := range keys[f.base:] {
		if bytes.Equal(k, key) {
			return true
		}
	}
	return false
}

// duplicateError names the key met twice, with its path: tool_input.edits[1].path.
func duplicateError(frames []frame, key []byte) error {
	var b bytes.Buffer
	for i, f := range frames[:len(frames)-1] {
		if f.object {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(keyName(string(f.key)))
		} else {
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(keyName(string(key)))
	return fmt.Errorf("%s: duplicate key", b.String())
}

// stringEnd returns the index just past the JSON string starting at
// data[i], and whether the string is valid JSON: no control character, only
// the escapes JSON has. Bytes that are not UTF-8 are accepted, as
// encoding/json accepts them.
func stringEnd(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			j++
			if j >= len(data) {
				return 0, false
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(data) {
					return 0, false
				}
				for _, h := range data[j+1 : j+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				j += 4
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// literalEnd returns the index just past lit at data[i], or -1.
func literalEnd(data []byte, i int, lit string) int {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// numberEnd returns the index just past the JSON number at data[i], or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = digitsEnd(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if j := digitsEnd(data, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if j := digitsEnd(data, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digitsEnd(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// closer is the byte that closes what c opens.
func closer(c byte) byte {
	if c == '{' {
		return '}'
	}
	return ']'
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// keyText returns the text of a JSON string token as encoding/json decodes
// it: a slice of tok when nothing needs unescaping, else a copy.
func keyText(tok []byte) ([]byte, error) {
	if bytes.IndexByte(tok, '\\') < 0 && utf8.Valid(tok) {
		return tok[1 : len(tok)-1], nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return []byte(s), err
}

// get returns the raw value of the top-level key (exact spelling), or nil
// when it is absent or null.
func (n *native) get(key string) []byte {
	for _, m := range n.members {
		if string(m.key) == key {
			if string(m.value) == "null" {
				return nil
			}
			return m.value
		}
	}
	return nil
}

// str returns the string value of key ("" when absent), or an error when
// the value is not a string.
func (n *native) str(key string) (string, error) {
	v := n.get(key)
	if v == nil {
		return "", nil
	}
	if v[0] != '"' {
		return "", fmt.Errorf("%s must be a string, got %s", key, snippet(v))
	}
	s, err := keyText(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	return string(s), nil
}

// object returns a copy of the object value of key (nil when absent), or an
// error when the value is not an object.
func (n *native) object(key string) (json.RawMessage, error) {
	v := n.get(key)
	if v == nil {
		return nil, nil
	}
	if v[0] != '{' {
		return nil, fmt.Errorf("%s must be an object, got %s", key, snippet(v))
	}
	return bytes.Clone(v), nil
}

// objectOrString returns the object value of key, or the object held as
// JSON text in a string value (Cursor's MCP tool_input, Copilot's toolArgs):
// the text is read with the same strictness as the payload.
func (n *native) objectOrString(key string) (json.RawMessage, error) {
	v := n.get(key)
	if v == nil || v[0] != '"' {
		return n.object(key)
	}
	s, err := n.str(key)
	if err != nil {
		return nil, err
	}
	inner, err := parseNative([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%s (JSON text): %w", key, err)
	}
	return json.RawMessage(inner.data), nil
}

// text returns the value of key as text: a string as it is, anything else
// as its compact JSON text ("" when absent).
func (n *native) text(key string) (string, error) {
	v := n.get(key)
	if v == nil {
		return "", nil
	}
	if v[0] == '"' {
		return n.str(key)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	return b.String(), nil
}

// maxKeyInError is how much of a key an error quotes.
const maxKeyInError = 64

func keyName(key string) string {
	if len(key) <= maxKeyInError {
		return key
	}
	return luahook.TruncateChars(key, maxKeyInError) + "…"
}

func snippet(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	return luahook.TruncateChars(string(b), max) + "…"
}
