package firstvalue

import (
	"bytes"
	"encoding/json"
	"io"
)

// Cut says how ReadCut cuts the long strings of a payload.
type Cut struct {
	// Max is how many bytes of one string literal are kept, counted as the
	// payload encodes them (between the quotes, escapes as written): a
	// longer string keeps its characters (a UTF-8 sequence, an escape, an
	// escaped surrogate pair) that end within Max bytes (less markerRoom
	// when Max is over four times that, so that the string cut, its
	// marker included, is within Max, and reading it again cuts nothing),
	// then Marker's text, inside the string. Zero or less cuts nothing.
	Max int
	// Marker returns the text that ends a string of which n bytes (as
	// encoded) were withheld; ReadCut escapes it for JSON.
	Marker func(n int64) string
	// Keys, when not empty, are the members of the top-level object under
	// which strings are cut (a tool's output: "tool_response",
	// "toolResult"...): a string anywhere else is kept whole, and the
	// limit on what is kept refuses a payload it makes too large, as Read
	// does. Keys are compared as the payload spells them, escapes and all.
	Keys []string
	// Whole reads the stream to its end (an HTTP body, a file), not only up
	// to the end of its first object or array.
	Whole bool
	// Window, when it has at least minWindow bytes of capacity, is the
	// buffer reads go through (a door may lend a pooled one); otherwise
	// ReadCut allocates one of defaultWindow bytes. It is not kept.
	Window []byte
	// Keep, when it has capacity, is where the kept bytes go first: the
	// payload returned shares its array when they fit in it.
	Keep []byte
}

const (
	// markerRoom is what a cut string leaves of Max for its marker: more
	// than any marker's escaped text.
	markerRoom    = 256
	minWindow     = 512
	defaultWindow = 32 << 10
	// firstBlock and maxBlock bound the blocks the kept bytes are written
	// in: doubling from the first, so that a small payload costs one
	// small block, and at most maxBlock, so that the last block wastes
	// little of what it holds.
	firstBlock = 4 << 10
	maxBlock   = 1 << 20
)

// ReadCut reads a payload as Read does (up to the end of the JSON object or
// array it starts with, or to the end of the stream: c.Whole, or a stream
// that starts with anything else), through a buffer of a fixed size, and
// keeps it with every string literal longer than c.Max bytes cut (Cut).
// It returns what it kept and how many bytes it withheld in all. Memory
// follows what is kept, never what is read: the limit applies to the bytes
// kept, and ErrTooLarge comes with the first limit+1 of them. Up to the end
// of the first value, the bytes are Read's when no string is longer than
// c.Max (past it, each reads what its last read brought). A read error other
// than io.EOF is returned as it is, with nothing kept.
func ReadCut(r io.Reader, limit int, c Cut) (data []byte, cut int64, err error) {
	win := c.Window[:cap(c.Window)]
	if len(win) < minWindow {
		win = make([]byte, defaultWindow)
	}
	k := keeper{cur: c.Keep[:0]}
	if cap(k.cur) == 0 {
		k.cur = make([]byte, 0, min(firstBlock, limit+1))
	}
	s := cutter{max: c.Max, marker: c.Marker, keys: c.Keys}
	s.cuts = s.keys == nil
	s.keep = s.max
	if s.max > 4*markerRoom {
		s.keep = s.max - markerRoom
	}
	if s.max <= 0 {
		s.max, s.keep = int(^uint(0)>>1), int(^uint(0)>>1)
	}
	for {
		n, rerr := r.Read(win)
		ended := s.scan(win[:n], &k)
		if k.n > limit {
			return k.bytes(limit + 1), s.total + s.withheld, ErrTooLarge
		}
		if ended && !c.Whole || rerr == io.EOF {
			return k.bytes(k.n), s.total + s.withheld, nil
		}
		if rerr != nil {
			return nil, 0, rerr
		}
	}
}

// keeper holds the kept bytes in blocks that double in size up to
// maxBlock: growing never copies what it holds, and bytes joins the blocks
// once, at the end.
type keeper struct {
	full [][]byte // blocks filled, in order
	cur  []byte   // the block being filled
	n    int      // bytes held in all
}

func (k *keeper) write(p []byte) {
	for len(p) > 0 {
		if len(k.cur) == cap(k.cur) {
			k.full = append(k.full, k.cur)
			k.cur = make([]byte, 0, min(max(2*cap(k.cur), firstBlock), maxBlock))
		}
		m := copy(k.cur[len(k.cur):cap(k.cur)], p)
		k.cur, k.n, p = k.cur[:len(k.cur)+m], k.n+m, p[m:]
	}
}

// truncate drops what was written past the first n bytes.
func (k *keeper) truncate(n int) {
	for k.n-len(k.cur) > n {
		k.n -= len(k.cur)
		k.cur = k.full[len(k.full)-1]
		k.full = k.full[:len(k.full)-1]
	}
	k.cur = k.cur[:len(k.cur)-(k.n-n)]
	k.n = n
}

// bytes returns the first n bytes held, in one slice: the block itself when
// there is one, else a copy of the blocks joined.
func (k *keeper) bytes(n int) []byte {
	if len(k.full) == 0 {
		return k.cur[:n]
	}
	b := make([]byte, 0, n)
	for _, p := range append(k.full, k.cur) {
		b = append(b, p[:min(len(p), n-len(b))]...)
	}
	return b
}

// cutter is valueEnd (the same rule for where the first value ends) that
// also follows the characters of every string, to cut one longer than max
// at a character's end.
type cutter struct {
	keys []string // the top-level members whose strings are cut; nil: all
	// The top-level object's members: expectKey says the next string at
	// depth 1 is a member's name, key holds it (its first bytes) while it
	// is read, top is the name of the member being read, and cuts whether
	// its strings are cut.
	expectKey, inKey, cuts bool
	key                    []byte
	top                    byte // the first value's opening: '{' or '['

	max    int
	keep   int // a cut string keeps its characters that end within keep (max less room for the marker)
	marker func(int64) string

	started, scalar, ended bool
	depth                  int

	inString, escaped bool
	hex               int  // hex digits of a \u escape still expected
	val               rune // the \u escape's value so far
	cont              int  // continuation bytes of a UTF-8 sequence still expected
	n                 int  // the string's bytes read so far
	start             int  // where its bytes start in what is kept
	safe              int  // its bytes up to the last character that ends within max
	hiEnd             int  // > 0: a \uD800-\uDBFF escape ended there, its pair not yet read
	cutting           bool // past max: the rest of the string is withheld
	withheld          int64
	total             int64 // withheld from the strings closed
}

// scan reads the next bytes of the stream, writing what it keeps to k, and
// reports whether the first value has ended. Past its end, the strings of
// the rest are cut as well.
func (c *cutter) scan(p []byte, k *keeper) bool {
	from := 0 // p[from:i] is kept, not yet written
	for i := 0; i < len(p); i++ {
		if c.cutting {
			j := c.skip(p[i:])
			i += j
			if i == len(p) {
				from = i
				break
			}
			// p[i] closes the string: the marker, then the quote.
			c.closeCut(k)
			from = i
			continue
		}
		b := p[i]
		if c.inString && c.inKey {
			if c.char(b) {
				if len(c.key) < maxKeyBytes {
					c.key = append(c.key, b)
				}
				continue
			}
			c.inString, c.inKey = false, false
			c.cuts = c.cutsUnder(c.key)
			continue
		}
		if c.inString {
			if c.char(b) {
				if c.n > c.max && c.cuts && c.whole() {
					k.write(p[from : i+1])
					from = i + 1
					c.cut(k)
				}
				continue
			}
			// b is the closing quote.
			c.inString = false
			if c.n > c.max && c.cuts {
				k.write(p[from:i])
				c.cut(k)
				c.closeCut(k)
				from = i
			}
			continue
		}
		if b == '"' {
			k.write(p[from : i+1])
			from = i + 1
			c.open(k.n)
			switch {
			case c.depth == 1 && c.top == '{' && c.expectKey && !c.ended:
				c.expectKey = false
				c.inKey, c.key = c.keys != nil, c.key[:0] // with no keys, a name is cut as any string
			case c.ended || c.depth == 0 || c.depth == 1 && c.top == '[':
				c.cuts = c.keys == nil // not in a member of the top-level object
			}
			continue
		}
		if c.ended {
			continue
		}
		switch {
		case c.scalar:
		case !c.started:
			switch b {
			case ' ', '\t', '\n', '\r':
			case '{':
				c.started, c.depth, c.expectKey, c.top = true, 1, true, '{'
			case '[':
				c.started, c.depth, c.top = true, 1, '['
			default:
				c.scalar = true
			}
		case b == '{' || b == '[':
			c.depth++
		case b == '}' || b == ']':
			c.depth--
			if c.depth == 0 {
				c.ended = true
			}
		case b == ',' && c.depth == 1 && c.top == '{':
			c.expectKey = true
		}
	}
	k.write(p[from:])
	return c.ended
}

// maxKeyBytes is how much of a top-level member's name is read: more than
// any name of Cut.Keys.
const maxKeyBytes = 64

// cutsUnder reports whether the strings of the top-level member named
// name are cut.
func (c *cutter) cutsUnder(name []byte) bool {
	if c.keys == nil {
		return true
	}
	for _, k := range c.keys {
		if string(name) == k {
			return true
		}
	}
	return false
}

// open starts a string whose bytes start at kept offset at.
func (c *cutter) open(at int) {
	c.inString, c.escaped, c.hex, c.cont = true, false, 0, 0
	c.n, c.start, c.safe, c.hiEnd = 0, at, 0, 0
}

// char reads the byte b of a string (after its opening quote), and reports
// false when b closes it.
func (c *cutter) char(b byte) bool {
	if c.hex > 0 {
		if v, ok := unhex(b); ok {
			c.n++
			c.val = c.val<<4 | v
			if c.hex--; c.hex == 0 {
				c.escapeEnd()
			}
			return true
		}
		// An escape cut short (the decoder refuses it): b is read afresh,
		// and ends the string as Read's rule says.
		c.hex = 0
		c.charEnd(false)
	}
	if c.escaped {
		c.n++
		c.escaped = false
		if b == 'u' {
			c.hex, c.val = 4, 0
		} else {
			c.charEnd(false)
		}
		return true
	}
	if c.cont > 0 {
		if b&0xC0 == 0x80 {
			c.n++
			if c.cont--; c.cont == 0 {
				c.charEnd(false)
			}
			return true
		}
		c.cont = 0
		c.charEnd(false)
	}
	switch {
	case b == '"':
		return false
	case b == '\\':
		c.escaped = true
	case b >= 0xF0 && b < 0xF8:
		c.cont = 3
	case b >= 0xE0 && b < 0xF0:
		c.cont = 2
	case b >= 0xC0 && b < 0xE0:
		c.cont = 1
	default:
		c.n++
		c.charEnd(false)
		return true
	}
	c.n++
	return true
}

// whole reports whether no character of the string is half read: a string
// past max is cut then, so that its last character is never split.
func (c *cutter) whole() bool { return c.hex == 0 && !c.escaped && c.cont == 0 }

// escapeEnd ends a \u escape: a high surrogate waits for its pair.
func (c *cutter) escapeEnd() {
	switch {
	case c.val >= 0xD800 && c.val < 0xDC00:
		if c.hiEnd > 0 {
			c.mark(c.hiEnd)
		}
		c.hiEnd = c.n
	case c.val >= 0xDC00 && c.val < 0xE000:
		c.charEnd(true)
	default:
		c.charEnd(false)
	}
}

// charEnd ends a character at c.n; low says it is an escaped low
// surrogate, which makes one character with a high one just before it.
func (c *cutter) charEnd(low bool) {
	if c.hiEnd > 0 && !low {
		c.mark(c.hiEnd)
	}
	c.hiEnd = 0
	c.mark(c.n)
}

func (c *cutter) mark(end int) {
	if end <= c.keep {
		c.safe = end
	}
}

// cut drops the string's bytes past its last safe end from k, withholding
// them and what follows up to the closing quote.
func (c *cutter) cut(k *keeper) {
	k.truncate(c.start + c.safe)
	c.cutting, c.withheld = true, int64(c.n-c.safe)
}

// closeCut ends a cut string: the marker goes where its bytes stopped.
func (c *cutter) closeCut(k *keeper) {
	q, _ := json.Marshal(c.marker(c.withheld)) // a string always encodes
	k.write(q[1 : len(q)-1])
	c.total += c.withheld
	c.cutting, c.inString, c.withheld = false, false, 0
}

// skip withholds the bytes of a cut string up to its closing quote, and
// returns the quote's index in p (len(p) when it is not there).
func (c *cutter) skip(p []byte) int {
	pos := 0
	for {
		q := bytes.IndexByte(p[pos:], '"')
		if q < 0 {
			c.escaped = oddRun(p[pos:], len(p)-pos, c.escaped)
			c.withheld += int64(len(p))
			return len(p)
		}
		q += pos
		escaped := oddRun(p[pos:], q-pos, c.escaped)
		c.escaped = false
		if !escaped {
			c.withheld += int64(q)
			return q
		}
		pos = q + 1
	}
}

// oddRun reports whether the byte at p[end] would be escaped: the
// backslashes just before it, counted back to p's start (where escaped
// says whether p[0] is escaped), are odd in number.
func oddRun(p []byte, end int, escaped bool) bool {
	run := 0
	for end-run > 0 && p[end-run-1] == '\\' {
		run++
	}
	if run == end && escaped {
		run++
	}
	return run%2 == 1
}

func unhex(b byte) (rune, bool) {
	switch {
	case '0' <= b && b <= '9':
		return rune(b - '0'), true
	case 'a' <= b && b <= 'f':
		return rune(b-'a') + 10, true
	case 'A' <= b && b <= 'F':
		return rune(b-'A') + 10, true
	}
	return 0, false
}
