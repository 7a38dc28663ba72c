package luabind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// jsonGen generates random JSON documents as two texts with one meaning: the
// canonical compact text (keys in generation order, numbers and strings as
// encoding/json writes them) and a noisy text (white space, \u escapes,
// surrogate pairs, exponents, numbers float64 cannot hold exactly) that must
// decode to the same value.
type jsonGen struct {
	r     *rand.Rand
	canon bytes.Buffer
	noisy bytes.Buffer
}

var genRunes = []rune{'a', 'Z', '0', ' ', '"', '\\', '/', '<', '>', '&', '\x00', '\x01', '\b', '\f', '\n', '\r', '\t', '\x1f', '\x7f',
	'é', 'ß', '中', '😀', '𝄞', '\u2028', '\u2029', '\ufffd', '\u00a0'}

func (g *jsonGen) ws() {
	if g.r.IntN(3) == 0 {
		g.noisy.WriteString([]string{" ", "\n", "\t ", "\r\n  "}[g.r.IntN(4)])
	}
}

func (g *jsonGen) str() {
	n := g.r.IntN(8)
	runes := make([]rune, n)
	for i := range runes {
		runes[i] = genRunes[g.r.IntN(len(genRunes))]
	}
	s := string(runes)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	g.canon.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	g.noisy.WriteByte('"')
	for _, r := range runes {
		switch {
		case r == '/' && g.r.IntN(2) == 0:
			g.noisy.WriteString(`\/`)
		case r < 0x20 || r == '"' || r == '\\' || (r > 0x7e && g.r.IntN(2) == 0):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&g.noisy, `\u%04x\u%04X`, r1, r2)
			} else {
				fmt.Fprintf(&g.noisy, `\u%04x`, r)
			}
		default:
			g.noisy.WriteRune(r)
		}
	}
	g.noisy.WriteByte('"')
}

func (g *jsonGen) number() {
	var f float64
	switch g.r.IntN(6) {
	case 0:
		f = float64(g.r.IntN(2000) - 1000)
	case 1:
		f = float64(g.r.Int64N(1<<54) - 1<<53) // integers up to 2^53 in magnitude
	case 2:
		f = []float64{1 << 53, -(1 << 53), 0, math.Copysign(0, -1), 1e20, 1e21, 1e-6, 1e-7, 0.1, 5e-324, math.MaxFloat64}[g.r.IntN(11)]
	case 3:
		f = g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(40)-20))
	default:
		f = math.Float64frombits(g.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1.5
		}
	}
	text := ""
	if g.r.IntN(4) == 0 {
		// A text float64 cannot hold: a long integer or fraction.
		text = g.digits(1 + g.r.IntN(30))
		if g.r.IntN(2) == 0 {
			text = "0." + g.digits(1+g.r.IntN(25))
		}
		if g.r.IntN(2) == 0 {
			text = "-" + text
		}
		f, _ = strconv.ParseFloat(text, 64)
	}
	b, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	g.canon.Write(b)
	switch {
	case text != "":
		g.noisy.WriteString(text)
	case g.r.IntN(2) == 0:
		g.noisy.WriteString(strconv.FormatFloat(f, 'E', -1, 64))
	default:
		g.noisy.Write(b)
	}
}

// digits returns n random decimal digits, the first not 0 unless n is 1.
func (g *jsonGen) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	if n > 1 && b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}

func (g *jsonGen) value(depth int) {
	k := g.r.IntN(10)
	if depth > 4 {
		k = 4 + g.r.IntN(6)
	}
	switch {
	case k < 2:
		g.object(depth + 1)
	case k < 4:
		g.array(depth + 1)
	case k < 6:
		g.str()
	case k < 8:
		g.number()
	default:
		lit := []string{"true", "false", "null"}[g.r.IntN(3)]
		g.canon.WriteString(lit)
		g.noisy.WriteString(lit)
	}
}

func (g *jsonGen) object(depth int) {
	g.canon.WriteByte('{')
	g.noisy.WriteByte('{')
	n := g.r.IntN(6)
	seen := map[string]bool{}
	first := true
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", g.r.IntN(20))
		if g.r.IntN(4) == 0 {
			key = string(genRunes[g.r.IntN(len(genRunes))]) + key
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		if !first {
			g.canon.WriteByte(',')
			g.noisy.WriteByte(',')
		}
		first = false
		g.ws()
		b, _ := json.Marshal(key)
		var kb bytes.Buffer
		enc := json.NewEncoder(&kb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(key)
		b = bytes.TrimSuffix(kb.Bytes(), []byte("\n"))
		g.canon.Write(b)
		g.noisy.Write(b)
		g.ws()
		g.canon.WriteByte(':')
		g.noisy.WriteByte(':')
		g.ws()
		g.value(depth)
		g.ws()
	}
	g.canon.WriteByte('}')
	g.noisy.WriteByte('}')
}

func (g *jsonGen) array(depth int) {
	g.canon.WriteByte('[')
	g.noisy.WriteByte('[')
	n := g.r.IntN(6)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.canon.WriteByte(',')
			g.noisy.WriteByte(',')
		}
		g.ws()
		g.value(depth)
		g.ws()
	}
	g.canon.WriteByte(']')
	g.noisy.WriteByte(']')
}

// TestToolInputRoundTripsExactly: a toolInput returned unchanged by a mutate
// hook comes back as its own text, compacted, byte for byte: its escapes and
// the text of its numbers as they came, whether it arrived canonical or noisy.
func TestToolInputRoundTripsExactly(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input) return hook.mutate(input.toolInput) end)`, Options{})
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	g := &jsonGen{r: rand.New(rand.NewPCG(seed, 1))}
	for i := 0; i < 2000; i++ {
		g.canon.Reset()
		g.noisy.Reset()
		g.object(0)
		canon, noisy := g.canon.String(), g.noisy.String()
		if !json.Valid([]byte(canon)) || !json.Valid([]byte(noisy)) {
			t.Fatalf("the generator wrote invalid JSON:\n%s\n%s", canon, noisy)
		}
		for _, text := range []string{canon, noisy} {
			out, err := call(t, f, 0, preToolUse("any", text))
			if err != nil {
				t.Fatalf("input %s: %v", text, err)
			}
			if want := compact(t, text); string(out.Input) != want {
				t.Fatalf("input %s\n  came back %s\n want %s", text, out.Input, want)
			}
			var a, b any
			if err := decodeNumbers(out.Input, &a); err != nil {
				t.Fatal(err)
			}
			if err := decodeNumbers([]byte(text), &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("input %s came back with another meaning: %s", text, out.Input)
			}
		}
	}
}

// TestInputTableHasThePayloadsShape: json.encode(input) in Lua writes what
// encoding/json writes for the payload, every field set.
func TestInputTableHasThePayloadsShape(t *testing.T) {
	yes, no := true, false
	before, after, dur := 1000, 200, int64(1500)
	inputs := []*luahook.Input{
		{Event: luahook.Stop},
		{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls -la","args":[1,{},[]],"n":null}`),
			ToolCapabilities: []string{"exec", "network"}, ToolMutating: &yes, Cwd: "/work", SessionID: "s1"},
		{Event: luahook.PostToolUse, ToolName: "edit", ToolInput: json.RawMessage(`{}`), ToolCapabilities: []string{},
			ToolMutating: &no, ToolResult: &luahook.ToolResult{Content: "done\n", IsError: true}, Cwd: "/"},
		{Event: luahook.UserPromptSubmit, Prompt: "héllo \"world\" \u2028 \x01", Cwd: "/w", SessionID: "s"},
		{Event: luahook.PreCompact, Compaction: &luahook.Compaction{Trigger: "auto", Aggressive: true, TokensBefore: &before, TokensAfter: &after}},
		{Event: luahook.SubagentStop, Subagent: &luahook.Subagent{Target: "t", Task: "k", SubagentID: "a", DelegationID: "d",
			Mode: "wait", OK: &yes, Status: "s", Summary: "m", DurationMs: &dur}},
		{Event: luahook.SubagentStart, Subagent: &luahook.Subagent{Target: "t", Task: "k"}},
		{Event: luahook.Notification, Notification: &luahook.NotificationInfo{Kind: "permission", Message: "may I", ToolName: "bash"}},
	}
	f := load(t, `hook.register("Stop", nil, function(input) return hook.deny(json.encode(input)) end)`, Options{})
	for _, in := range inputs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(b.String(), "\n")
		out, err := call(t, f, 0, in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != want {
			t.Errorf("json.encode(input)\n  %s\nwant\n  %s", out.Reason, want)
		}
	}
}

func TestJSONDecodeErrorsAndLimits(t *testing.T) {
	deep := strings.Repeat("[", codec.MaxDepth) + strings.Repeat("]", codec.MaxDepth)
	tests := []struct {
		text, want string // want "" = valid
	}{
		{`{"a":1}`, ""},
		{` [1, 2.5, -0, 1e2, "x", true, false, null] `, ""},
		{deep, ""},
		{"[" + deep + "]", "nested deeper than 1000 levels"},
		{`{"a":1`, "unexpected end of JSON input at offset 6"},
		{`{"a" 1}`, "invalid character '1' after an object key"},
		{`{a:1}`, "looking for an object key"},
		{`[1,]`, "looking for a value"},
		{`[1 2]`, "after an array item"},
		{`"abc`, "unexpected end of JSON input in a string"},
		{"\"a\x01\"", `invalid control character '\x01' in a string`},
		{`"\x"`, "invalid character 'x' in a string escape"},
		{`"\u12"`, `invalid \u escape`},
		{`01`, "after the JSON value"},
		{`-x`, "invalid character 'x' in a number"},
		{`1.x`, "invalid character 'x' after a decimal point"},
		{`1e+`, "unexpected end of JSON input at offset 3"},
		{`[1ex]`, "invalid character 'x' in an exponent"},
		{`1e400`, "out of the float64 range"},
		{`tru`, "invalid literal"},
		{`nul`, "invalid literal"},
		{`{} {}`, "after the JSON value"},
		{``, "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		name := tt.text
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			_, err := runHook(t, `return hook.deny(json.encode(json.decode(`+luaQuote(tt.text)+`)))`, Options{})
			if tt.want == "" {
				if err != nil {
					t.Errorf("error %v, want the text decoded", err)
				}
				return
			}
			fl := failure(t, err)
			if !strings.Contains(fl.Message, "json.decode: "+tt.want) && !strings.Contains(fl.Message, tt.want) {
				t.Errorf("failure %q, want %q", fl.Message, tt.want)
			}
		})
	}
}

func TestJSONEncodeErrorsNameThePath(t *testing.T) {
	tests := []struct {
		value, want string
	}{
		{`{f = print}`, "cannot encode a function at $.f"},
		{`(function() local t = {a = {}} t.a.self = t return t end)()`, "cannot encode a table that contains itself (cycle) at $.a.self"},
		{`{1, nil, 3}`, "cannot encode a sparse array: item 2 is nil (use json.null for holes) at $[2]"},
		{`{1, 2, x = 3}`, "cannot encode a table with both array items and string keys at $.x"},
		{`{[true] = 1}`, "cannot encode a table key of type boolean (JSON object keys are strings) at $[true]"},
		{`{[1.5] = 1}`, "cannot encode a table key of type number (JSON object keys are strings) at $[1.5]"},
		{`{n = 0/0}`, "cannot encode the number NaN at $.n"},
		{`{n = 1/0}`, "cannot encode the number +Inf at $.n"},
		{`{a = {b = {1, 2, {c = print}}}}`, "cannot encode a function at $.a.b[3].c"},
		{`{["my key"] = print}`, `cannot encode a function at $["my key"]`},
		{`json.array({a = 1})`, "cannot encode a table with both array items and string keys at $.a"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			out, err := runHook(t, `local ok, err = pcall(json.encode, `+tt.value+`) return hook.deny(tostring(err))`, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out.Reason, tt.want) {
				t.Errorf("error %q, want it to end with %q", out.Reason, tt.want)
			}
		})
	}
}

func TestJSONMarkersRoundTrip(t *testing.T) {
	_, err := runHook(t, `
local doc = '{"a":[],"b":{},"c":null,"d":[{},[]],"e":{"x":[null]}}'
assert(json.encode(json.decode(doc)) == doc)
assert(json.decode("null") == json.null)
assert(tostring(json.null) == "null")
assert(json.encode(nil) == "null")
assert(json.encode({}) == "{}")
assert(json.encode(json.array()) == "[]")
assert(json.encode(json.array({})) == "[]")
assert(json.encode(json.object()) == "{}")
assert(json.encode({1, 2, 3}) == "[1,2,3]")
assert(json.encode({a = json.null}) == '{"a":null}')
assert(json.encode({1, json.null, 3}) == "[1,null,3]")
assert(json.encode(9007199254740992) == "9007199254740992")
assert(json.encode(1e21) == "1e+21" and json.encode(0.1) == "0.1" and json.encode(-0.0) == "-0")
local t = json.decode('{"z":1,"a":2,"m":3}')
t.b = 4
assert(json.encode(t) == '{"z":1,"a":2,"m":3,"b":4}')
t.a = nil
assert(json.encode(t) == '{"z":1,"m":3,"b":4}')
local arr = json.decode("[1,2]")
arr[#arr + 1] = 3
assert(json.encode(arr) == "[1,2,3]")
table.remove(arr, 1)
assert(json.encode(arr) == "[2,3]")
assert(json.type(json.decode("[]")) == "array" and json.type(json.decode("{}")) == "object")
assert(json.type({1}) == "array" and json.type({}) == "object" and json.type(json.null) == "null")
assert(json.type("x") == "string" and json.type(1) == "number")
assert(not pcall(json.array, setmetatable({}, {})))
local ok, err = pcall(json.decode, "{")
assert(not ok and err:find("json.decode: unexpected end of JSON input at offset 1", 1, true))
local s = json.decode('"\\ud83d\\ude00 \\u00e9"')
assert(s == "😀 é")
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
}

// luaQuote writes s as a Lua string literal, escaping every byte that is not
// printable ASCII as \ddd.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\%03d", c)
		} else {
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
