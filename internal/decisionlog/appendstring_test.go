package decisionlog

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// appendStringBytewise is appendString of s rune by rune (an invalid byte
// alone): no piece is long enough for the eight-byte path, and a rune's
// escape does not depend on its neighbours, so this is what appendString
// writes for s when it reads every byte on its own.
func appendStringBytewise(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		piece := appendString(nil, s[i:i+size])
		b = append(b, piece[1:len(piece)-1]...)
		i += size
	}
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
