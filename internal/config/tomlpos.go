package config

import (
	"fmt"
	"strconv"
)

// scanTOML scans TOML text and returns the line on which every value is
// defined, as a tree that follows the key paths (array-of-tables entries
// indexed). It refuses, with an *Error naming the line and the key, text
// nested more than MaxNesting levels deep or with a key path longer than
// MaxKeyBytes, so that it runs before the TOML library and keeps the
// library's recursion and per-key work bounded.
//
// BurntSushi/toml v1.6.0 keeps key positions private, and keys of different
// [[array]] entries share one position slot, so the lines are found here by a
// small scanner of our own. It follows TOML's lexical rules (strings,
// comments, brackets) closely enough to count nesting as the library will
// see it; on text the library then refuses it merely records less. Its work
// is linear in the text: a value's path is never spelled out, only its
// place.
func scanTOML(file string, src []byte) (*tomlPos, error) {
	s := &tomlScanner{file: file, src: src, line: 1, root: &tomlPos{}}
	s.table = s.root
	s.scan()
	if s.err != nil {
		return nil, s.err
	}
	return s.root, nil
}

// tomlPos is the line a value of a TOML file is defined on, and the
// positions of the values below it.
type tomlPos struct {
	place
	line   int
	depth  int // parts of the key path
	bytes  int // bytes of the key path's keys and dots, as the TOML library spells it
	fields map[string]*tomlPos
	elems  []*tomlPos
	tables bool // an array of tables: a [header] naming it means its latest entry
}

// field returns the position of key below p, or nil.
func (p *tomlPos) field(key string) *tomlPos {
	if p == nil {
		return nil
	}
	return p.fields[key]
}

// elem returns the position of entry i of p, or nil.
func (p *tomlPos) elem(i int) *tomlPos {
	if p == nil || i >= len(p.elems) {
		return nil
	}
	return p.elems[i]
}

type tomlScanner struct {
	file  string
	src   []byte
	i     int
	line  int
	root  *tomlPos
	table *tomlPos // the current [table]
	err   *Error   // the first limit passed; the scan stops there
}

func (s *tomlScanner) eof() bool { return s.i >= len(s.src) }

func (s *tomlScanner) peek(off int) byte {
	if s.i+off < len(s.src) {
		return s.src[s.i+off]
	}
	return 0
}

// advance moves one byte on, counting lines.
func (s *tomlScanner) advance() {
	if s.i < len(s.src) {
		if s.src[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
}

// key returns the position of key below p, defined on line if it is new.
func (s *tomlScanner) key(p *tomlPos, key string, line int) *tomlPos {
	if c := p.fields[key]; c != nil {
		return c
	}
	c := &tomlPos{place: p.at(key), line: line, depth: p.depth + 1, bytes: p.bytes + len(key)}
	if p.depth > 0 {
		c.bytes++ // the dot
	}
	if p.fields == nil {
		p.fields = map[string]*tomlPos{}
	}
	p.fields[key] = c
	s.limit(c)
	return c
}

// entry returns the position of a new entry of the array p, on line.
func (s *tomlScanner) entry(p *tomlPos, line int) *tomlPos {
	c := &tomlPos{place: p.place.elem(len(p.elems)), line: line, depth: p.depth + 1, bytes: p.bytes}
	p.elems = append(p.elems, c)
	s.limit(c)
	return c
}

// limit stops the scan at the first position past MaxNesting or
// MaxKeyBytes.
func (s *tomlScanner) limit(c *tomlPos) {
	if s.err != nil {
		return
	}
	var msg string
	switch {
	case c.depth > MaxNesting:
		msg = fmt.Sprintf("nested more than %d levels deep (arrays, inline tables and the parts of keys and table names count)", MaxNesting)
	case c.bytes > MaxKeyBytes:
		msg = fmt.Sprintf("key path is longer than %d bytes", MaxKeyBytes)
	default:
		return
	}
	s.err = &Error{File: s.file, Line: c.line, Key: c.briefPath(), Msg: msg}
	s.i = len(s.src)
}

// skipSpace skips blanks on the current line.
func (s *tomlScanner) skipSpace() {
	for !s.eof() && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || s.src[s.i] == '\r') {
		s.i++
	}
}

// skipComment skips a comment up to, not including, the end of the line.
func (s *tomlScanner) skipComment() {
	for !s.eof() && s.src[s.i] != '\n' {
		s.i++
	}
}

// skipBlank skips blanks, newlines and comments (inside arrays and tables).
func (s *tomlScanner) skipBlank() {
	for !s.eof() {
		switch s.src[s.i] {
		case ' ', '\t', '\r', '\n':
			s.advance()
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

func (s *tomlScanner) scan() {
	for !s.eof() {
		start := s.i
		s.skipSpace()
		switch s.peek(0) {
		case 0:
			if s.eof() {
				return
			}
		case '\n':
		case '#':
			s.skipComment()
		case '[':
			s.header()
		default:
			line := s.line
			keys := s.keys()
			s.skipSpace()
			if s.peek(0) == '=' && len(keys) > 0 {
				s.i++
				s.skipSpace()
				s.value(s.dotted(s.table, keys, line))
			}
		}
		if s.i == start {
			s.advance()
		}
	}
}

// header reads a [table] or [[array]] header and makes it the current table.
func (s *tomlScanner) header() {
	line := s.line
	s.i++
	array := s.peek(0) == '['
	if array {
		s.i++
	}
	keys := s.keys()
	if len(keys) == 0 {
		return
	}
	if !array {
		s.table = s.resolve(keys, line)
		return
	}
	p := s.key(s.resolve(keys[:len(keys)-1], line), keys[len(keys)-1], line)
	p.tables = true
	s.table = s.entry(p, line)
}

// resolve returns the position of a table named in a header: a key naming
// an array of tables means its latest entry.
func (s *tomlScanner) resolve(keys []string, line int) *tomlPos {
	p := s.root
	for _, k := range keys {
		p = s.key(p, k, line)
		if p.tables && len(p.elems) > 0 {
			p = p.elems[len(p.elems)-1]
		}
	}
	return p
}

// dotted returns the position of a dotted key (a.b.c = ...) below base.
func (s *tomlScanner) dotted(base *tomlPos, keys []string, line int) *tomlPos {
	p := base
	for _, k := range keys {
		p = s.key(p, k, line)
	}
	return p
}

// keys reads a possibly dotted key and returns its parts.
func (s *tomlScanner) keys() []string {
	var keys []string
	for {
		s.skipSpace()
		var k string
		switch s.peek(0) {
		case '"':
			k = s.basicString()
		case '\'':
			k = s.literalString()
		default:
			start := s.i
			for !s.eof() && isBareKeyByte(s.src[s.i]) {
				s.i++
			}
			if s.i == start {
				return keys
			}
			k = string(s.src[start:s.i])
		}
		keys = append(keys, k)
		s.skipSpace()
		if s.peek(0) != '.' {
			return keys
		}
		s.i++
	}
}

// isBareKeyByte accepts the bytes of bare keys, and any non-ASCII byte so
// that keys outside the TOML 1.0 set are still read whole.
func isBareKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c >= 0x80
}

// value skips one value, recording the positions of its array entries and
// of the keys of its inline tables below p.
func (s *tomlScanner) value(p *tomlPos) {
	switch s.peek(0) {
	case '"':
		if s.peek(1) == '"' && s.peek(2) == '"' {
			s.multiline('"')
		} else {
			s.basicString()
		}
	case '\'':
		if s.peek(1) == '\'' && s.peek(2) == '\'' {
			s.multiline('\'')
		} else {
			s.literalString()
		}
	case '[':
		s.i++
		for {
			s.skipBlank()
			if s.eof() || s.peek(0) == ']' {
				s.advance()
				return
			}
			start := s.i
			s.value(s.entry(p, s.line))
			s.skipBlank()
			if s.peek(0) == ',' {
				s.i++
			} else if s.i == start {
				s.advance()
			}
		}
	case '{':
		s.i++
		for {
			s.skipBlank()
			if s.eof() || s.peek(0) == '}' {
				s.advance()
				return
			}
			start, line := s.i, s.line
			keys := s.keys()
			s.skipSpace()
			if s.peek(0) == '=' && len(keys) > 0 {
				s.i++
				s.skipSpace()
				s.value(s.dotted(p, keys, line))
			}
			s.skipBlank()
			if s.peek(0) == ',' {
				s.i++
			} else if s.i == start {
				s.advance()
			}
		}
	default:
		// A number, boolean or date: it ends where a separator, a comment
		// or the line does. Dates may hold a space, so blanks do not end it.
		for !s.eof() {
			switch s.src[s.i] {
			case ',', ']', '}', '\n', '#':
				return
			}
			s.i++
		}
	}
}

// basicString reads a "..." string and returns its value.
func (s *tomlScanner) basicString() string {
	start := s.i
	s.i++
	for !s.eof() {
		switch s.src[s.i] {
		case '\\':
			s.i += 2
			continue
		case '\n':
			return string(s.src[start+1 : s.i])
		case '"':
			s.i++
			raw := string(s.src[start:s.i])
			if v, err := strconv.Unquote(raw); err == nil {
				return v
			}
			return raw[1 : len(raw)-1]
		}
		s.i++
	}
	s.i = min(s.i, len(s.src))
	return string(s.src[min(start+1, s.i):s.i])
}

// literalString reads a '...' string and returns its value.
func (s *tomlScanner) literalString() string {
	start := s.i + 1
	s.i++
	for !s.eof() && s.src[s.i] != '\'' && s.src[s.i] != '\n' {
		s.i++
	}
	v := string(s.src[start:s.i])
	if s.peek(0) == '\'' {
		s.i++
	}
	return v
}

// multiline skips a multi-line string (three quotes of kind q), counting its lines. The
// closing delimiter may be followed by up to two more quotes, which belong
// to the string.
func (s *tomlScanner) multiline(q byte) {
	s.i += 3
	for !s.eof() {
		c := s.src[s.i]
		if c == '\\' && q == '"' {
			s.advance()
			s.advance()
			continue
		}
		if c == q && s.peek(1) == q && s.peek(2) == q {
			s.i += 3
			for extra := 0; extra < 2 && s.peek(0) == q; extra++ {
				s.i++
			}
			return
		}
		s.advance()
	}
}
