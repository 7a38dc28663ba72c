package runner

import (
	"strings"
	"unicode/utf8"
)

// provablyDifferent reports whether the first JSON values of a and b
// decode (encoding/json, numbers as json.Number) to values that
// reflect.DeepEqual tells apart, proved without decoding them: the two texts
// are walked side by side, with the same keys in the same order, until a
// pair of values that differ (kinds, string contents without escapes,
// number or literal texts) or an array or object that ends in one text and
// not the other; and no object of either holds a key twice (a later
// duplicate would replace the value found different). False means not
// proved: sameJSON decodes. A text that is not JSON cannot be proved equal,
// so any answer of true is sameJSON's.
//
// A rewrite (a mutate hook's input, encoded alongside the payload's text)
// keeps the payload's keys in their order, so this answers the usual
// comparison of a changed input without allocating.
func provablyDifferent(a, b []byte) bool {
	x, y := jsonCursor{s: a}, jsonCursor{s: b}
	if differs(&x, &y, 0) != different {
		return false
	}
	x.i, y.i = 0, 0
	return x.uniqueKeys(0) && y.uniqueKeys(0)
}

// Bounds of the walk: deeper values, longer objects and keys that are not
// plain text are left to the decoder.
const (
	maxDiffDepth = 32
	maxDiffKeys  = 32
)

// jsonCursor reads JSON text s from offset i.
type jsonCursor struct {
	s []byte
	i int
}

func (c *jsonCursor) space() {
	for c.i < len(c.s) && (c.s[c.i] == ' ' || c.s[c.i] == '\t' || c.s[c.i] == '\n' || c.s[c.i] == '\r') {
		c.i++
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (c *jsonCursor) peek() byte {
	c.space()
	if c.i >= len(c.s) {
		return 0
	}
	return c.s[c.i]
}

// str reads a string at c.i (its opening quote) and returns its contents;
// plain reports that they are valid UTF-8 without escapes, the text the
// decoder makes of them.
func (c *jsonCursor) str() (text []byte, plain, ok bool) {
	start := c.i + 1
	plain = true
	for c.i = start; c.i < len(c.s); c.i++ {
		switch c.s[c.i] {
		case '\\':
			plain = false
			c.i++
		case '"':
			text = c.s[start:c.i]
			c.i++
			return text, plain && utf8.Valid(text), true
		}
	}
	return nil, false, false
}

// scalar reads a number or a literal and returns its text.
func (c *jsonCursor) scalar() []byte {
	start := c.i
	for c.i < len(c.s) {
		switch c.s[c.i] {
		case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
			return c.s[start:c.i]
		}
		c.i++
	}
	return c.s[start:c.i]
}

// verdict is what differs found of two values.
type verdict uint8

const (
	same      verdict = iota // equal as far as read: the walk goes on
	different                // proved different (given unique keys)
	unknown                  // the walk cannot tell: it stops
)

// differs walks the values at x and y side by side (see
// provablyDifferent), leaving both cursors past them when they are the same.
func differs(x, y *jsonCursor, depth int) verdict {
	if depth > maxDiffDepth {
		return unknown
	}
	cx, cy := x.peek(), y.peek()
	if kind(cx) == 0 || kind(cy) == 0 {
		return unknown
	}
	if kind(cx) != kind(cy) {
		return different
	}
	switch cx {
	case '"':
		tx, px, okx := x.str()
		ty, py, oky := y.str()
		switch {
		case !okx || !oky:
			return unknown
		case string(tx) == string(ty):
			return same
		case px && py:
			return different
		}
		return unknown // escapes: other bytes may decode alike
	case '[', '{':
		end := byte(']')
		if cx == '{' {
			end = '}'
		}
		x.i++
		y.i++
		for n := 0; ; n++ {
			ex, ey := x.peek() == end, y.peek() == end
			if ex && ey {
				x.i++
				y.i++
				return same
			}
			if ex || ey {
				return different // one has more items, or more keys (none twice)
			}
			if n > 0 && !(x.comma() && y.comma()) {
				return unknown
			}
			if cx == '{' && !sameKey(x, y) {
				return unknown // another key here: the objects may still be equal
			}
			if v := differs(x, y, depth+1); v != same {
				return v
			}
		}
	}
	if depth == 0 {
		return unknown // a top-level number ends where the decoder stops reading: "00" is 0
	}
	if string(x.scalar()) != string(y.scalar()) {
		return different // numbers compare by their text, as json.Number does
	}
	return same
}

// sameKey reads an object key and its colon at x and y and reports whether
// both read and the keys are the same text.
func sameKey(x, y *jsonCursor) bool {
	if x.peek() != '"' || y.peek() != '"' {
		return false
	}
	kx, _, okx := x.str()
	ky, _, oky := y.str()
	if !okx || !oky || string(kx) != string(ky) || x.peek() != ':' || y.peek() != ':' {
		return false
	}
	x.i++
	y.i++
	return true
}

// comma consumes a comma between two items.
func (c *jsonCursor) comma() bool {
	if c.peek() != ',' {
		return false
	}
	c.i++
	return true
}

// kind classes the first byte of a value: '0' for a number, the byte
// itself for an object, array, string or literal, 0 for none of these.
func kind(b byte) byte {
	if b == '-' || b >= '0' && b <= '9' {
		return '0'
	}
	if strings.IndexByte(`{["tfn`, b) >= 0 {
		return b
	}
	return 0
}

// uniqueKeys reads the value at c and reports whether no object in it holds
// a key twice, every key being plain ASCII text (so that equal keys are
// equal bytes); false too when it cannot tell (a key with an escape or a
// byte over 0x7f, an object of more than maxDiffKeys keys, a value nested
// deeper than maxDiffDepth, text that is not JSON).
func (c *jsonCursor) uniqueKeys(depth int) bool {
	if depth > maxDiffDepth {
		return false
	}
	switch c.peek() {
	case '"':
		_, _, ok := c.str()
		return ok
	case '[':
		c.i++
		for n := 0; c.peek() != ']'; n++ {
			if n > 0 && !c.comma() || !c.uniqueKeys(depth+1) {
				return false
			}
		}
		c.i++
		return true
	case '{':
		c.i++
		var keys [maxDiffKeys][2]int
		n := 0
		for ; c.peek() != '}'; n++ {
			if n > 0 && !c.comma() || n == maxDiffKeys || c.peek() != '"' {
				return false
			}
			start := c.i + 1
			k, _, ok := c.str()
			if !ok || c.peek() != ':' {
				return false
			}
			for _, b := range k {
				if b == '\\' || b >= utf8.RuneSelf {
					return false
				}
			}
			for _, o := range keys[:n] {
				if string(c.s[o[0]:o[1]]) == string(k) {
					return false
				}
			}
			keys[n] = [2]int{start, start + len(k)}
			c.i++
			if !c.uniqueKeys(depth + 1) {
				return false
			}
		}
		c.i++
		return true
	case 0:
		return false
	}
	return len(c.scalar()) > 0
}
