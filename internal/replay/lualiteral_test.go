package replay

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind"
)

// evalJSON evaluates a Lua expression in a luahook session (the sandbox and
// modules of a test file) and returns it encoded by the json module.
func evalJSON(t testing.TB, s *luabind.Session, expr string) ([]byte, error) {
	t.Helper()
	return s.EvalJSON(context.Background(), "literal", expr)
}

func newSession(t testing.TB) *luabind.Session {
	t.Helper()
	s, err := luabind.NewSession(luabind.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func sameValue(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

var literalSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e+300`, `-2.25E-7`, `123456789012`,
	`"plain"`, `"quote \" backslash \\ and ]] and ]=] and [[ too"`,
	`"new\nline\r\ttab \u0000 nul \u0007 bell \u007f del \u2028 sep \u202e bidi"`,
	`"émoji 🎉 and 3 digits after an escape: \u00011"`,
	`{"end":1,"not an ident":2,"":3,"_ok":4,"9x":5,"goto":6,"a.b":[1,2],"x]]":"y"}`,
	`{"toolName":"bash","toolInput":{"command":"rm -rf /","env":{"A":null},"args":[[],{},[null],{"k":[]}]}}`,
	`[1,"two",null,{"three":[3]},[],{}]`,
	`{"long":"` + strings.Repeat("x", 200) + `","nested":{"a":{"b":{"c":{"d":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28]}}}}}`,
}

// TestLuaLiteralEvaluatesToTheSameJSONValue: for every seed, the literal,
// evaluated in Lua and encoded by the json module, is the same JSON value.
func TestLuaLiteralEvaluatesToTheSameJSONValue(t *testing.T) {
	s := newSession(t)
	for _, seed := range literalSeeds {
		lit, err := LuaLiteral([]byte(seed), "")
		if err != nil {
			t.Fatalf("%s: %v", seed, err)
		}
		got, err := evalJSON(t, s, lit)
		if err != nil {
			t.Fatalf("%s: literal %s: %v", seed, lit, err)
		}
		if !sameValue(t, []byte(seed), got) {
			t.Errorf("%s: literal %s evaluates to %s", seed, lit, got)
		}
	}
}

// TestLuaStringReadsBackEveryByte: every byte string, including invalid
// UTF-8 and control bytes, reads back from its literal byte for byte.
func TestLuaStringReadsBackEveryByte(t *testing.T) {
	s := newSession(t)
	var all []byte
	for i := range 256 {
		all = append(all, byte(i))
	}
	for _, str := range []string{string(all), "\xff\xfe1", "]]", "a\\", "\"", "\r\n", "\x001"} {
		lit := AppendLuaString(nil, str)
		// string.byte lists the bytes: compare them, not a re-encoding.
		got, err := evalJSON(t, s, "{string.byte("+string(lit)+", 1, -1)}")
		if err != nil {
			t.Fatalf("%q: literal %s: %v", str, lit, err)
		}
		var bytes []int
		if err := json.Unmarshal(got, &bytes); err != nil && len(str) > 0 {
			t.Fatalf("%q: %s: %v", str, got, err)
		}
		if len(bytes) != len(str) {
			t.Fatalf("%q: literal %s reads back %d bytes", str, lit, len(bytes))
		}
		for i, b := range bytes {
			if byte(b) != str[i] {
				t.Fatalf("%q: literal %s: byte %d is %d", str, lit, i, b)
			}
		}
		if strings.ContainsAny(string(lit[1:len(lit)-1]), "\n\r\x00") {
			t.Errorf("%q: literal %s has a raw line break or NUL", str, lit)
		}
	}
}

// TestLuaLiteralQuotesKeysThatAreNotNames: reserved words and non-identifier
// keys are written ["key"], identifiers as they are.
func TestLuaLiteralQuotesKeysThatAreNotNames(t *testing.T) {
	lit, err := LuaLiteral([]byte(`{"end":1,"a b":2,"ok":3,"":4}`), "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{ ["end"] = 1, ["a b"] = 2, ok = 3, [""] = 4 }`
	if lit != want {
		t.Errorf("got %s, want %s", lit, want)
	}
}

// TestLuaLiteralRefusesWhatLuaCannotHold: a number out of float64's range
// and nesting past the bound are errors, not a literal that fails later.
func TestLuaLiteralRefusesWhatLuaCannotHold(t *testing.T) {
	for _, in := range []string{`{"n":1e400}`, strings.Repeat("[", maxLiteralDepth+2) + strings.Repeat("]", maxLiteralDepth+2)} {
		if lit, err := LuaLiteral([]byte(in), ""); err == nil {
			t.Errorf("%.40s: got literal %.60s, want an error", in, lit)
		}
	}
}

// FuzzLuaLiteral: any JSON value's literal evaluates back to the same value.
func FuzzLuaLiteral(f *testing.F) {
	for _, seed := range literalSeeds {
		f.Add([]byte(seed))
	}
	s := newSession(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		lit, err := LuaLiteral(data, "  ")
		if err != nil {
			return // out of range or too deep: refused, never a wrong literal
		}
		got, err := evalJSON(t, s, lit)
		if err != nil {
			t.Fatalf("%s: literal %s: %v", data, lit, err)
		}
		if !sameValue(t, data, got) {
			t.Fatalf("%s: literal %s evaluates to %s", data, lit, got)
		}
	})
}
