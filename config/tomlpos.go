package config

import "strconv"

// tomlLines scans TOML text and returns the line on which every key path
// (in joinKey/joinIndex form, array-of-tables entries indexed) is defined.
//
// BurntSushi/toml v1.6.0 keeps key positions private, and keys of different
// [[array]] entries share one position slot, so the lines are found here by a
// small scanner of our own. It runs after the library has accepted the text,
// so it may assume valid TOML; on anything else it still terminates and never
// panics, it merely records less.
func tomlLines(src []byte) map[string]int {
	s := &tomlScanner{src: src, line: 1, lines: map[string]int{}, arrays: map[string]int{}}
	s.scan()
	return s.lines
}

type tomlScanner struct {
	src    []byte
	i      int
	line   int
	lines  map[string]int
	arrays map[string]int // array-of-tables path -> number of entries so far
	table  string         // path of the current [table]
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

func (s *tomlScanner) record(path string, line int) {
	if _, ok := s.lines[path]; !ok {
		s.lines[path] = line
	}
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
			keys := s.key()
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
	keys := s.key()
	if len(keys) == 0 {
		return
	}
	if !array {
		s.table = s.resolve(keys, line)
		return
	}
	p := joinKey(s.resolve(keys[:len(keys)-1], line), keys[len(keys)-1])
	s.record(p, line)
	n := s.arrays[p]
	s.arrays[p] = n + 1
	s.table = joinIndex(p, n)
	s.record(s.table, line)
}

// resolve turns header keys into a path: a key naming an array of tables
// means its latest entry.
func (s *tomlScanner) resolve(keys []string, line int) string {
	p := ""
	for _, k := range keys {
		p = joinKey(p, k)
		s.record(p, line)
		if n := s.arrays[p]; n > 0 {
			p = joinIndex(p, n-1)
		}
	}
	return p
}

// dotted records a dotted key (a.b.c = ...) below base and returns its path.
func (s *tomlScanner) dotted(base string, keys []string, line int) string {
	p := base
	for _, k := range keys {
		p = joinKey(p, k)
		s.record(p, line)
	}
	return p
}

// key reads a possibly dotted key and returns its parts.
func (s *tomlScanner) key() []string {
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

// value skips one value, recording the paths of array entries and of keys of
// inline tables below path.
func (s *tomlScanner) value(path string) {
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
		for n := 0; ; n++ {
			s.skipBlank()
			if s.eof() || s.peek(0) == ']' {
				s.advance()
				return
			}
			start := s.i
			p := joinIndex(path, n)
			s.record(p, s.line)
			s.value(p)
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
			keys := s.key()
			s.skipSpace()
			if s.peek(0) == '=' && len(keys) > 0 {
				s.i++
				s.skipSpace()
				s.value(s.dotted(path, keys, line))
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
