package decisionlog

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// appendStringBytewise is appendString as it was before it read eight bytes
// at a time: the reference it must agree with.
func appendStringBytewise(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, `\ufffd`...)
			}
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// FuzzAppendStringAgreesBytewise checks the eight-bytes-at-a-time string
// writer against the byte-by-byte one, and that what it writes is a JSON
// string that reads back as the text (invalid UTF-8 as U+FFFD).
func FuzzAppendStringAgreesBytewise(f *testing.F) {
	for _, s := range []string{"", "plain/path/to/file.lua", "12345678\"", "1234567\\8", "a\x00bcdefgh",
		"abcdefg\x1f", "abcdefgh\x7fijklmnop", "éèàùçôûî", "abcdefg\xff", "abcdefgh\xe2\x82", "sha256:0203ed924dfe32a7b57202d851d551c1b46565cd55fd",
		"\u2028 line sep", "tab\there, new\nline and \r and \"quotes\" and \\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := appendString([]byte("x"), s), appendStringBytewise([]byte("x"), s)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, byte by byte %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got[1:], &back); err != nil {
			t.Fatalf("appendString(%q) = %s: not a JSON string: %v", s, got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendString(%q) reads back as %q", s, back)
		}
	})
}
