package runner

import (
	"reflect"
	"testing"
)

// decodedSame is sameJSON without its shortcuts: both texts decoded and
// compared.
func decodedSame(a, b []byte) bool {
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

// jsonPairs are texts that differ as bytes: some decode to equal values,
// some do not, some are not JSON.
var jsonPairs = [][2]string{
	{`{"command":"ls","timeout":1}`, `{"command":"echo ls","timeout":1}`},
	{`{"a":1,"b":[1,2]}`, `{"a":1,"b":[1,2,3]}`},
	{`{"a":1,"b":[1,2,3]}`, `{"a":1,"b":[1,2]}`},
	{`{"a":1}`, `{"a":1,"b":2}`},
	{`{"a":1,"b":2}`, `{"b":2,"a":1}`},
	{`{"a":1,"b":2}`, `{"b":2,"a":3}`},
	{`{"a":1,"a":2}`, `{"a":3,"a":2}`},
	{`{"a":{"k":1},"a":{"k":2}}`, `{"a":{"k":3},"a":{"k":2}}`},
	{`{"a":1,"a":2}`, `{"a":1}`},
	{`{"a":"x"}`, `{"a":"\u0078"}`},
	{`{"a":"x/"}`, `{"a":"x\/"}`},
	{"{\"a\":\"\xff\"}", "{\"a\":\"\xfe\"}"},
	{"{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1,\"\xfe\":3}"},
	{`{"\u0061":1,"a":2}`, `{"\u0061":3,"a":2}`},
	{`{"a":1.0}`, `{"a":1}`},
	{`{"a":1e2}`, `{"a":100}`},
	{`{"a":true}`, `{"a":false}`},
	{`{"a":null}`, `{"a":"null"}`},
	{`{"a":[]}`, `{"a":{}}`},
	{`{"a":1}`, `{ "a" : 1 }`},
	{`{"a":1} trailing`, `{"a":1}`},
	{`{"a":1} x`, `{"a":2} y`},
	{`{"a":1`, `{"a":2`},
	{`{"a":tru}`, `{"a":true}`},
	{`[1,2]`, `[1,3]`},
	{`"x"`, `"y"`},
	{``, `{}`},
	{`00`, `0000000`},
	{`1 2`, `1 3`},
	{`{"a":[{"b":"c"}]}`, `{"a":[{"b":"d"}]}`},
}

// provablyDifferent answers true only for texts whose decoded values
// differ (or that are not JSON), and it answers true for a rewritten
// command, the comparison it is there for.
func TestProvablyDifferentOnlyWhenDecodedValuesDiffer(t *testing.T) {
	for _, p := range jsonPairs {
		for _, ab := range [2][2]string{p, {p[1], p[0]}} {
			a, b := []byte(ab[0]), []byte(ab[1])
			if provablyDifferent(a, b) && decodedSame(a, b) {
				t.Errorf("%s vs %s: provably different, but they decode alike", a, b)
			}
			if got, want := sameJSON(a, b), decodedSame(a, b); got != want {
				t.Errorf("%s vs %s: sameJSON %v, decoded %v", a, b, got, want)
			}
		}
	}
	if !provablyDifferent([]byte(jsonPairs[0][0]), []byte(jsonPairs[0][1])) {
		t.Error("a rewritten command was not proved different")
	}
}

// sameJSON compares a rewritten input with the payload's without
// allocating.
func TestSameJSONOfARewriteAllocatesNothing(t *testing.T) {
	a := []byte(`{"command":"rm -rf /tmp/build","timeout":120000,"description":"Clean the build"}`)
	b := []byte(`{"command":"echo rm -rf /tmp/build","timeout":120000,"description":"Clean the build"}`)
	if n := testing.AllocsPerRun(100, func() {
		if sameJSON(a, b) {
			t.Fatal("same")
		}
	}); n != 0 && !raceEnabled {
		t.Errorf("%v allocations per comparison, want 0", n)
	}
}

// FuzzProvablyDifferentAgreesWithDecoding: a proof of difference is never
// given for texts that decode to equal values.
func FuzzProvablyDifferentAgreesWithDecoding(f *testing.F) {
	for _, p := range jsonPairs {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if provablyDifferent([]byte(a), []byte(b)) && decodedSame([]byte(a), []byte(b)) {
			t.Fatalf("%q vs %q: provably different, but they decode alike", a, b)
		}
	})
}
