package relay

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// What the server writes (json.Encoder without HTML escaping, as
// server.writeAnswer does, and plain json.Marshal) Decode reads back; and
// no field of Relay has a JSON option: one left out of an answer would make
// Decode refuse every answer that lacks it.
func TestDecodeReadsWhatARelayEncodesTo(t *testing.T) {
	want := Relay{ExitCode: 2, Stdout: `{"reason":"a <b> & c"}`, Stderr: "x\n"}
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(want); err != nil {
		t.Fatal(err)
	}
	marshalled, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range [][]byte{enc.Bytes(), marshalled} {
		got, err := Decode(body)
		if err != nil || got != want {
			t.Errorf("Decode(%q) = %+v, %v; want %+v", body, got, err, want)
		}
	}
	for f := range reflect.TypeFor[Relay]().Fields() {
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); opts != "" {
			t.Errorf("Relay.%s has JSON options %q", f.Name, opts)
		}
	}
}

// Decode refuses what encoding/json would read as an allow: a missing or
// repeated key, a key in another case, null, an empty object, trailing
// text, an exit status other than 0 or 2, a standard output that is not
// one JSON object, a body over Max.
func TestDecodeRefusesWhatIsNotExactlyARelay(t *testing.T) {
	for _, body := range []string{
		`null`, `{}`, `[]`, ``, `{"exitCode":0,"stdout":""}`,
		`{"exitCode":2,"stdout":"","stderr":"","exitCode":0}`,
		`{"ExitCode":0,"stdout":"","stderr":""}`,
		`{"exitCode":0,"stdout":"","stderr":""}}`,
		`{"exitCode":0,"stdout":"","stderr":""} {}`,
		`{"exitCode":1,"stdout":"","stderr":""}`,
		`{"exitCode":0.0,"stdout":"","stderr":""}`,
		`{"exitCode":0,"stdout":"hello","stderr":""}`,
		`{"exitCode":0,"stdout":"[]","stderr":""}`,
		`{"exitCode":0,"stdout":"{} {}","stderr":""}`,
		`{"exitCode":0,"stdout":"","stderr":null}`,
		`{"exitCode":0,"stdout":"","stderr":"","allow":true}`,
		`{"exitCode":0,"stdout":"","stderr":"` + strings.Repeat("x", Max) + `"}`,
	} {
		if r, err := Decode([]byte(body)); err == nil {
			t.Errorf("Decode(%.80q) = %+v, want a refusal", body, r)
		}
	}
}
