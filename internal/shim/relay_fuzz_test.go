package shim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/luahook/luahook/server"
)

// DecodeRelay takes only what encoding/json would read as the same relay,
// and everything server.Relay encodes to: a body it accepts decodes, with
// encoding/json, to the values DecodeRelay gave, and re-encoding those
// values is accepted back.
func FuzzDecodeRelayAgreesWithEncodingJSON(f *testing.F) {
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
		code, stdout, stderr, err := DecodeRelay(body)
		if err != nil {
			return
		}
		var r server.Relay
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("DecodeRelay took %q, encoding/json refuses it: %v", body, err)
		}
		if r.ExitCode != code || r.Stdout != stdout || r.Stderr != stderr {
			t.Fatalf("%q: DecodeRelay read %d %q %q, encoding/json %+v", body, code, stdout, stderr, r)
		}
		if code != 0 && code != 2 {
			t.Fatalf("%q: exit status %d", body, code)
		}
		if stdout != "" && (!strings.HasPrefix(strings.TrimLeft(stdout, " \t\r\n"), "{") || !json.Valid([]byte(stdout))) {
			t.Fatalf("%q: standard output %q is not one JSON object", body, stdout)
		}
		again, err := json.Marshal(server.Relay{ExitCode: code, Stdout: stdout, Stderr: stderr})
		if err != nil {
			t.Fatal(err)
		}
		if c2, o2, e2, err := DecodeRelay(again); err != nil || c2 != code || o2 != stdout || e2 != stderr {
			t.Fatalf("%q re-encoded as %q: %d %q %q %v", body, again, c2, o2, e2, err)
		}
	})
}
