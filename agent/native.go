package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	buf     [24]member
}

type member struct {
	key   []byte // unescaped
	value []byte
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
	if !json.Valid(data) {
		// encoding/json names the byte at fault.
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	n := &native{data: data}
	n.members = n.buf[:0]
	if err := n.scan(); err != nil {
		return nil, err
	}
	return n, nil
}

// frame is an object or array open in scan.
type frame struct {
	object bool
	base   int                 // index in keys of the object's first key
	big    map[string]struct{} // the object's keys once it has more than smallObject
	n      int
	key    []byte // the current member's key (for errors)
	index  int    // the array's current element (for errors)
}

// scan walks the validated object once: it records the top-level members
// and refuses a key given twice in any object. It allocates only for
// escaped keys, objects of more than smallObject keys and deep nesting.
func (n *native) scan() error {
	data := n.data
	var framesBuf [16]frame
	var keysBuf [64][]byte
	frames, keys := framesBuf[:0], keysBuf[:0]
	wantKey := false
	valStart := -1
	closeMember := func(end int) {
		if valStart >= 0 {
			n.members[len(n.members)-1].value = bytes.TrimRight(data[valStart:end], " \t\r\n")
			valStart = -1
		}
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '"':
			end := stringEnd(data, i)
			if wantKey {
				wantKey = false
				key, err := keyText(data[i:end])
				if err != nil {
					return fmt.Errorf("invalid key at byte %d: %w", i, err)
				}
				top := &frames[len(frames)-1]
				if top.has(keys, key) {
					return duplicateError(frames, key)
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
				if len(frames) == 1 {
					n.members = append(n.members, member{key: key})
				}
			}
			i = end - 1
		case ':':
			if len(frames) == 1 {
				valStart = i + 1
				for valStart < len(data) && isSpace(data[valStart]) {
					valStart++
				}
			}
		case '{', '[':
			frames = append(frames, frame{object: c == '{', base: len(keys)})
			wantKey = c == '{'
		case '}', ']':
			if len(frames) == 1 {
				closeMember(i)
			}
			keys = keys[:frames[len(frames)-1].base]
			frames = frames[:len(frames)-1]
		case ',':
			if len(frames) == 1 {
				closeMember(i)
			}
			if top := &frames[len(frames)-1]; top.object {
				wantKey = true
			} else {
				top.index++
			}
		}
	}
	return nil
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

// stringEnd returns the index just past the JSON string starting at data[i].
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
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
