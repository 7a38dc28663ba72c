package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// kind is the type of a JSON value.
type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

var kindNames = [...]string{"", "an object", "an array", "a string", "a number", "a boolean", "null"}

func (k kind) String() string { return kindNames[k] }

// node is one value of a parsed settings file, with the byte span it
// occupies in the text, so that a change can be spliced in without
// rewriting anything else.
type node struct {
	kind       kind
	start, end int // src[start:end] is the value's text
	members    []member
	elems      []*node
	str        string  // a string's value
	num        float64 // a number's value
	b          bool
}

// member is one key of an object.
type member struct {
	key      string
	keyStart int // offset of the key's opening quote
	value    *node
}

// FileError is a settings file that cannot be used: not valid for its
// format, or not of the shape its agent reads. Nothing is written.
type FileError struct {
	Path      string
	Line, Col int // 1-based; 0 when the error concerns the whole file
	Offset    int // byte offset of Line:Col
	Msg       string
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// errorAt returns a *FileError at offset off of src.
func errorAt(path string, src []byte, off int, format string, args ...any) *FileError {
	off = min(max(off, 0), len(src))
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	col := 1 + utf8.RuneCount(src[bytes.LastIndexByte(src[:off], '\n')+1:off])
	return &FileError{Path: path, Line: line, Col: col, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds the nesting of a settings file: no agent's settings come
// near it, and the parser recurses once per level.
const maxDepth = 512

// utf8BOM is kept where it is (JSON parsers in the agents' runtimes skip it).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parser reads JSON, and JSON with // and /* */ comments when comments is
// set. It is strict otherwise: no trailing commas, no single quotes, no
// unquoted keys, no NaN: what the agent's own reader refuses.
type parser struct {
	path     string
	src      []byte
	pos      int
	comments bool
	depth    int
}

// parse reads src as one JSON (or JSONC) value.
func parse(path string, src []byte, comments bool) (*node, error) {
	p := &parser{path: path, src: src, comments: comments}
	if bytes.HasPrefix(src, utf8BOM) {
		p.pos = len(utf8BOM)
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, p.errorf("the file is empty: want a JSON object")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %s after the end of the top-level value", p.describe())
	}
	return v, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return errorAt(p.path, p.src, p.pos, format, args...)
}

// describe names the byte at pos for an error.
func (p *parser) describe() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return strconv.QuoteRune(r)
}

// skip passes white space and, where allowed, comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '/' || p.src[p.pos+1] == '*'):
			if !p.comments {
				return p.errorf("comments are not allowed: this agent reads the file as strict JSON")
			}
			if p.src[p.pos+1] == '/' {
				i := bytes.IndexByte(p.src[p.pos:], '\n')
				if i < 0 {
					p.pos = len(p.src)
				} else {
					p.pos += i
				}
				continue
			}
			i := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if i < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += 2 + i + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of file: want a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, start: start, end: p.pos, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", &node{kind: kindBool, b: true})
	case c == 'f':
		return p.literal("false", &node{kind: kindBool})
	case c == 'n':
		return p.literal("null", &node{kind: kindNull})
	}
	return nil, p.errorf("unexpected %s: want a value", p.describe())
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested more than %d levels deep", maxDepth)
	}
	return nil
}

func (p *parser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &node{kind: kindObject, start: p.pos}
	p.pos++ // {
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		p.depth--
		return n, nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("unexpected %s: want a key in double quotes", p.describe())
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("unexpected %s after key %q: want ':'", p.describe(), key)
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, value: v})
		done, err := p.itemEnd('}', "object")
		if err != nil {
			return nil, err
		}
		if done {
			n.end = p.pos
			return n, nil
		}
	}
}

func (p *parser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n := &node{kind: kindArray, start: p.pos}
	p.pos++ // [
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		p.depth--
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		done, err := p.itemEnd(']', "array")
		if err != nil {
			return nil, err
		}
		if done {
			n.end = p.pos
			return n, nil
		}
	}
}

// string reads a string at pos (its opening quote) and returns its value.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++
	escaped := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.src[start:p.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", errorAt(p.path, p.src, start, "bad string: %v", err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			if p.pos+1 >= len(p.src) {
				p.pos++
				return "", p.errorf("unterminated string")
			}
			switch e := p.src[p.pos+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.src) || !isHex4(p.src[p.pos+2:p.pos+6]) {
					return "", p.errorf(`bad \u escape: want four hexadecimal digits`)
				}
				p.pos += 6
			default:
				return "", p.errorf("bad escape %q in a string", "\\"+string(rune(e)))
			}
		case c < 0x20:
			return "", p.errorf("control character %q in a string: write it as an escape", rune(c))
		default:
			p.pos++
		}
	}
	return "", errorAt(p.path, p.src, start, "unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() (*node, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.errorf("bad number: want a digit")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("bad number: want a digit after '.'")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("bad number: want a digit in the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.src[start:p.pos]), 64)
	if err != nil {
		return nil, errorAt(p.path, p.src, start, "bad number %s", p.src[start:p.pos])
	}
	return &node{kind: kindNumber, start: start, end: p.pos, num: f}, nil
}

func (p *parser) literal(word string, n *node) (*node, error) {
	if !bytes.HasPrefix(p.src[p.pos:], []byte(word)) {
		return nil, p.errorf("unexpected %s: want a value", p.describe())
	}
	n.start = p.pos
	p.pos += len(word)
	n.end = p.pos
	return n, nil
}

// get returns the value of key in object n, nil when n has no such key.
// A key written twice is an error: agents read one of the two (which one
// depends on their parser), and luahook would edit one of them.
func (n *node) get(path string, src []byte, key string) (*node, error) {
	var found *node
	for _, m := range n.members {
		if m.key == key {
			if found != nil {
				return nil, errorAt(path, src, m.keyStart, "key %q appears twice in the same object", key)
			}
			found = m.value
		}
	}
	return found, nil
}

// value returns n as encoding/json would decode it into an any.
func (n *node) value() any {
	switch n.kind {
	case kindObject:
		m := make(map[string]any, len(n.members))
		for _, mb := range n.members {
			m[mb.key] = mb.value.value()
		}
		return m
	case kindArray:
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.value()
		}
		return a
	case kindString:
		return n.str
	case kindNumber:
		return n.num
	case kindBool:
		return n.b
	}
	return nil
}

// itemEnd reads what follows a member of an object or an element of an
// array: a comma (not before close: JSON has no trailing comma), or close,
// which ends the container (done) and leaves it.
func (p *parser) itemEnd(close byte, what string) (done bool, err error) {
	if err := p.skip(); err != nil {
		return false, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ',' {
		comma := p.pos
		p.pos++
		if err := p.skip(); err != nil {
			return false, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == close {
			return false, errorAt(p.path, p.src, comma, "trailing comma before '%c'", close)
		}
		return false, nil
	}
	if p.pos < len(p.src) && p.src[p.pos] == close {
		p.pos++
		p.depth--
		return true, nil
	}
	return false, p.errorf("unexpected %s in an %s: want ',' or '%c'", p.describe(), what, close)
}
