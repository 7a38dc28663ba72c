package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
)

// parseJSON parses JSON text into a node tree whose nodes carry their lines:
// a key's value gets the key's line, an array entry the line it starts on.
// Duplicate keys are errors (encoding/json would silently keep the last).
func parseJSON(file string, data []byte) (*node, error) {
	p := &jsonParser{file: file, dec: json.NewDecoder(bytes.NewReader(data)), lines: newLineIndex(data)}
	p.dec.UseNumber()
	root, err := p.value(place{}, 0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail(p.dec.InputOffset(), "invalid JSON: unexpected data after the top-level value", err)
	}
	return root, nil
}

type jsonParser struct {
	file  string
	dec   *json.Decoder
	lines lineIndex
}

func (p *jsonParser) fail(offset int64, msg string, err error) *Error {
	return &Error{File: p.file, Line: p.lines.at(offset), Msg: msg, Err: err}
}

// token reads the next token, turning decoder errors into *Error.
func (p *jsonParser) token() (json.Token, error) {
	tok, err := p.dec.Token()
	if err == nil {
		return tok, nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return nil, p.fail(se.Offset, "invalid JSON: "+se.Error(), err)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, p.fail(p.dec.InputOffset(), "invalid JSON: unexpected end of file", err)
	}
	return nil, p.fail(p.dec.InputOffset(), "invalid JSON: "+err.Error(), err)
}

// value reads a value at depth levels of nesting; a container may open
// MaxNesting levels at most, so that a hostile file cannot exhaust the stack.
func (p *jsonParser) value(at place, depth int) (*node, error) {
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	n := &node{place: at, line: p.lines.at(p.dec.InputOffset())}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxNesting {
			return nil, p.fail(p.dec.InputOffset(), "invalid JSON: nested more than "+strconv.Itoa(MaxNesting)+" levels deep", nil)
		}
		if t == '{' {
			return n, p.object(n, depth)
		}
		return n, p.array(n, depth)
	case string:
		n.kind, n.str = kindString, t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			n.kind, n.num = kindInt, i
		} else {
			f, _ := t.Float64()
			n.kind, n.flt, n.str = kindFloat, f, t.String()
		}
	case bool:
		n.kind, n.b = kindBool, t
	case nil:
		n.kind = kindNull
	}
	return n, nil
}

func (p *jsonParser) object(n *node, depth int) error {
	n.kind = kindTable
	n.fields = map[string]*node{}
	for p.dec.More() {
		tok, err := p.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // More and Token guarantee a string key here
		line := p.lines.at(p.dec.InputOffset())
		child, err := p.value(n.at(key), depth+1)
		if err != nil {
			return err
		}
		child.line = line
		if _, dup := n.fields[key]; dup {
			return &Error{File: p.file, Line: line, Key: child.path(), Msg: "duplicate key"}
		}
		n.keys = append(n.keys, key)
		n.fields[key] = child
	}
	_, err := p.token() // '}'
	return err
}

func (p *jsonParser) array(n *node, depth int) error {
	n.kind = kindArray
	for i := 0; p.dec.More(); i++ {
		child, err := p.value(n.elem(i), depth+1)
		if err != nil {
			return err
		}
		n.elems = append(n.elems, child)
	}
	_, err := p.token() // ']'
	return err
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of the '\n' bytes

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

// at returns the line of the byte at offset; an offset just past a token
// (as json.Decoder.InputOffset reports) belongs to the token's line.
func (idx lineIndex) at(offset int64) int {
	return 1 + sort.Search(len(idx), func(i int) bool { return int64(idx[i]) >= offset })
}

// jsonNesting reports the line on which JSON text first opens more than
// MaxNesting arrays and objects, or 0 when it never does. It reads the
// bytes once, stepping over strings, and decodes nothing: it is the check
// run before a JSON library that recurses once per level sees the text.
func jsonNesting(data []byte) (line int) {
	depth, line := 0, 1
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			line++
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				switch data[i] {
				case '\\':
					i++
				case '\n': // invalid JSON; the decoder will say so
					line++
				}
			}
		case '[', '{':
			if depth++; depth > MaxNesting {
				return line
			}
		case ']', '}':
			depth--
		}
	}
	return 0
}
