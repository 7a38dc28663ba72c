package relay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Decode takes only what encoding/json would read as the same relay, and
// everything a Relay encodes to: a body it accepts decodes, with
// encoding/json, to the values Decode gave, and re-encoding those values is
// accepted back.
func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"exitCode":0,"stdout":"","stderr":""}`,
		`{"exitCode":2,"stdout":"{\"decision\":\"block\"}","stderr":"no\n"}`,
		` {"stderr":"x","stdout":" {}","exitCode":0} `,
		`{"exitCode":0,"stdout":"","stderr":"","exitCode":2}`,
		`{"ExitCode":0,"stdout":"","stderr":""}`,
		`{"exitCode":0,"stdout":"","stderr":""}}`,
		`{"exitCode":0e0,"stdout":"","stderr":""}`,
		`{"exitCode":0,"stdout":"\u007b}","stderr":"\ud800"}`,
		`null`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := Decode(body)
		if err != nil {
			return
		}
		var r Relay
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("Decode took %q, encoding/json refuses it: %v", body, err)
		}
		if r != got {
			t.Fatalf("%q: Decode read %+v, encoding/json %+v", body, got, r)
		}
		if got.ExitCode != 0 && got.ExitCode != 2 {
			t.Fatalf("%q: exit status %d", body, got.ExitCode)
		}
		if got.Stdout != "" && (!strings.HasPrefix(strings.TrimLeft(got.Stdout, " \t\r\n"), "{") || !json.Valid([]byte(got.Stdout))) {
			t.Fatalf("%q: standard output %q is not one JSON object", body, got.Stdout)
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := Decode(again); err != nil || back != got {
			t.Fatalf("%q re-encoded as %q: %+v %v", body, again, back, err)
		}
	})
}
