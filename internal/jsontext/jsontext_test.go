package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is s as encoding/json writes it with HTML escaping off.
func encodingJSON(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var quotingCases = []string{
	"", "plain", `quote " backslash \ slash /`, "\b\f\n\r\t\x00\x01\x1f\x7f",
	"html <a href='x'>&amp;</a>", "é € 😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate",
}

// TestAppendStringAgreesWithEncodingJSON guards the rule the package is
// named for: every string quotes as encoding/json quotes it, and QuotedLen
// is the length of that quoting.
func TestAppendStringAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range quotingCases {
		want := encodingJSON(t, s)
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
		if n := QuotedLen(s); n != len(want) {
			t.Errorf("QuotedLen(%q) = %d, want %d", s, n, len(want))
		}
	}
}

func FuzzAppendStringAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range quotingCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := encodingJSON(t, s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
		if n := QuotedLen(s); n != len(want) {
			t.Errorf("QuotedLen(%q) = %d, want %d", s, n, len(want))
		}
	})
}
