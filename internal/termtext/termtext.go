// Package termtext makes text that came from a hook or a payload safe to
// write to a terminal or a line-oriented log: control characters, escape
// sequences (ANSI CSI, OSC such as OSC 52 clipboard writes), C1 controls,
// Unicode direction overrides and invalid UTF-8 are written as visible Go-style
// escapes (\x1b, \r, \u202e), so that a deny reason cannot erase the screen,
// write the clipboard, move the cursor or forge a line of luahook's own
// output. JSON outputs do not go through it: they stay exact.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line returns s as one line: every character that could change what a
// terminal shows other than printing itself, newlines and tabs included, is
// escaped. It returns s itself, without allocating, when nothing needs it.
func Line(s string) string { return escape(s, false) }

// Block returns s with the same escapes as Line, except that newlines and
// tabs are kept; every line after the first is indented by two spaces, so
// that no line of s can pass for a line of its own in the output around it.
func Block(s string) string { return escape(s, true) }

func escape(s string, block bool) string {
	i := firstUnsafe(s, block)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case block && r == '\n':
			b.WriteString("\n  ")
		case block && r == '\t':
			b.WriteByte('\t')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s that escape must
// rewrite, or -1.
func firstUnsafe(s string, block bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !(block && c == '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports the non-ASCII runes a terminal may act on: the C1
// controls (U+0080-U+009F, among them the one-character CSI and OSC), the
// bidirectional embeddings, overrides and isolates that reorder what is
// shown, the line and paragraph separators, and the byte order mark.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return false
}
