package luahook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// errTruncated reports JSON that ends before its last value does.
var errTruncated = errors.New("invalid JSON: unexpected end of input")

// walkObject checks the structure of the JSON object that is the whole of
// data (white space around it aside) and calls visit with each member's key
// (unescaped), the byte offset of its value in data, and the value's text.
// It checks braces, colons, commas and strings; what a value holds is
// checked by whoever decodes it. Keys are visited in order, duplicates
// included. Nothing is copied or decoded on the way, so a large tool input
// costs one scan here and one in the decoder.
func walkObject(data []byte, visit func(key string, off int, value []byte) error) error {
	return walkObjectIn(data, "", visit)
}

// walkObjectIn is walkObject with text, when not empty, a string holding
// data's bytes: the keys it visits are then its substrings, allocated once
// for all of them.
func walkObjectIn(data []byte, text string, visit func(key string, off int, value []byte) error) error {
	w := walker{data: data, text: text}
	return w.object(visit)
}

// object walks the JSON object that is the whole of w.data (walkObjectIn).
// A member whose key is in w.deep and whose value is an object has that
// value validated and checked for duplicate keys (scanJSON) as the walk
// passes it, one scan for both, and w.checked holds the verdict while visit
// runs: nil, the duplicate key, or errInvalidJSON. For any other member
// w.checked is errUnchecked.
func (w *walker) object(visit func(key string, off int, value []byte) error) error {
	w.space()
	if !w.next('{') {
		return w.unexpected("want '{'")
	}
	w.space()
	if w.next('}') {
		return w.end()
	}
	for {
		w.space()
		keyAt := w.pos
		if w.pos >= len(w.data) {
			return errTruncated
		}
		if w.data[w.pos] != '"' {
			return w.unexpected("want a key")
		}
		if err := w.skipString(); err != nil {
			return err
		}
		key, err := w.unquote(keyAt)
		if err != nil {
			return fmt.Errorf("invalid JSON at byte %d: %w", keyAt, err)
		}
		w.space()
		if !w.next(':') {
			return w.unexpected("want ':' after a key")
		}
		w.space()
		valAt := w.pos
		w.checked = errUnchecked
		if w.pos < len(w.data) && w.data[w.pos] == '{' && slices.Contains(w.deep, key) {
			if end, err := scanJSON(key, w.data, w.pos); err != errInvalidJSON {
				w.pos, w.checked = end, err
				w.space()
			} else {
				w.checked = err // the walk goes on for the error that says where
			}
		}
		if w.checked == errUnchecked || w.checked == errInvalidJSON {
			if err := w.skipValue(); err != nil {
				return err
			}
		}
		value := bytes.TrimRight(w.data[valAt:w.pos], " \t\r\n")
		if len(value) == 0 {
			return w.unexpected("want a value")
		}
		if err := visit(key, valAt, value); err != nil {
			return err
		}
		if w.next(',') {
			continue
		}
		if w.next('}') {
			return w.end()
		}
		return w.unexpected("want ',' or '}'")
	}
}

// walker is a position in JSON text.
type walker struct {
	data []byte
	text string // data as a string, or ""
	pos  int
	// deep lists the keys whose object values the walk validates
	// (walker.object), and checked is the verdict on the current member.
	deep    []string
	checked error
}

// errUnchecked is walker.checked for a member the walk did not validate.
var errUnchecked = errors.New("not checked")

// unquote returns the text of the string literal from at to pos, a
// substring of text when it needs no decoding and text is there.
func (w *walker) unquote(at int) (string, error) {
	lit := w.data[at:w.pos]
	if w.text != "" && bytes.IndexByte(lit, '\\') < 0 {
		return w.text[at+1 : w.pos-1], nil
	}
	return unquote(lit)
}

func (w *walker) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n':
			w.pos++
		default:
			return
		}
	}
}

// next consumes c if it comes next.
func (w *walker) next(c byte) bool {
	if w.pos < len(w.data) && w.data[w.pos] == c {
		w.pos++
		return true
	}
	return false
}

// end checks that only white space follows the object.
func (w *walker) end() error {
	w.space()
	if w.pos == len(w.data) {
		return nil
	}
	if bytes.IndexByte([]byte(`{["-0123456789tfn`), w.data[w.pos]) >= 0 {
		return fmt.Errorf("more than one JSON value (at byte %d)", w.pos)
	}
	return w.unexpected("want the end of the payload")
}

func (w *walker) unexpected(want string) error {
	if w.pos >= len(w.data) {
		return errTruncated
	}
	return fmt.Errorf("invalid JSON at byte %d: %s, got %q", w.pos, want, w.data[w.pos])
}

// skipString moves past the string that starts at pos.
func (w *walker) skipString() error {
	i := w.pos + 1
	for {
		j := bytes.IndexByte(w.data[i:], '"')
		if j < 0 {
			return errTruncated
		}
		i += j
		backslashes := 0
		for k := i - 1; k > w.pos && w.data[k] == '\\'; k-- {
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			w.pos = i
			return nil
		}
	}
}

// skipValue moves to the ',' or '}' that ends the member value at pos,
// matching brackets and skipping strings.
func (w *walker) skipValue() error {
	depth := 0
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case '"':
			if err := w.skipString(); err != nil {
				return err
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return nil
			}
			depth--
		case ',':
			if depth == 0 {
				return nil
			}
		}
		w.pos++
	}
	return errTruncated
}

// unquote returns the text of a JSON string literal.
func unquote(lit []byte) (string, error) {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}
