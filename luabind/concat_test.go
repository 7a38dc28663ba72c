package luabind

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// stopHook loads code as the body of a Stop hook under opts and calls it.
func stopHook(t *testing.T, code string, opts Options) error {
	t.Helper()
	f := load(t, "hook.register('Stop', nil, function()\n"+code+"\nend)", opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	return err
}

// Every `..` is checked against Options.MaxStringBytes before its result is
// allocated: at the cap it is allowed, one byte past it is an error naming
// the size and the limit, with the file and line of the concatenation.
func TestConcatIsCappedBeforeAllocating(t *testing.T) {
	const capBytes = 1 << 20
	opts := Options{MaxStringBytes: capBytes}
	if err := stopHook(t, `local s = ("x"):rep(2^19) local t = s .. s assert(#t == 2^20)`, opts); err != nil {
		t.Fatalf("a result of exactly the cap: %v", err)
	}
	tests := []struct{ name, code, want string }{
		{"one past the cap", `local s = ("x"):rep(2^19)
local t = s .. s .. "y"`, testPath + ":3: ..: result of 1048577 bytes exceeds the 1 MiB limit"},
		{"a hundred operands", `local s = ("x"):rep(2^20)
return s` + strings.Repeat(" .. s", 99), testPath + ":3: ..: result of 104857600 bytes exceeds the 1 MiB limit"},
		{"doubling in a loop", `local s = "x"
while true do s = s .. s end`, testPath + ":3: ..: result of 2097152 bytes exceeds the 1 MiB limit"},
		{"a number operand", `local s = ("x"):rep(2^20)
return s .. 1`, testPath + ":3: ..: result of 1048577 bytes exceeds the 1 MiB limit"},
		{"after a __concat", `local s = ("x"):rep(2^20)
local t = setmetatable({}, {__concat = function(a, b) return "z" end})
return s .. (t .. "a")`, testPath + ":4: ..: result of 1048577 bytes exceeds the 1 MiB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := stopHook(t, tt.code, opts)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if f := failure(t, err); f.Kind != luahook.FailError || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v (%s), want %q", err, f.Kind, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// concatCases are expressions whose value or error must be what gopher-lua's
// own OP_CONCAT gives.
var concatCases = []string{
	`"a" .. "b"`,
	`"a" .. "b" .. "c" .. "d"`,
	`1 .. 2`,
	`1.5 .. "|" .. -0.25 .. "|" .. 1e100 .. "|" .. 2^53 .. "|" .. -0`,
	`"" .. ""`,
	`"x" .. nil`,
	`nil .. "x"`,
	`"x" .. true`,
	`"x" .. {}`,
	`{} .. "x"`,
	`"a" .. "b" .. {} .. "c"`,
	`"a" .. print`,
	`("a" .. "b") .. ("c" .. "d")`,
	`(function() return "a", "b" end)() .. "c"`,
	`"c" .. (function() return "a", "b" end)()`,
	`select("#", "c" .. (function() return "a", "b" end)())`,
	`(function(...) return ... .. "z" end)("a", "b")`,
	`(function(...) return "z" .. ... end)("a", "b")`,
	`select("#", (function(...) return "z" .. ... end)("a", "b"))`,
	`setmetatable({}, {__concat = function(a, b) return "L" end}) .. "x" .. "y"`,
	`"x" .. "y" .. setmetatable({}, {__concat = function(a, b) return type(a) .. ":" .. tostring(b):sub(1, 5) end})`,
	`"a" .. setmetatable({}, {__concat = function(a, b) return 7 end}) .. "b"`,
	`setmetatable({}, {__concat = function(a, b) return {} end}) .. "b"`,
	`"p" .. setmetatable({}, {__concat = function(a, b) return (type(a) == "table" and "T" or a) .. "|" .. (type(b) == "table" and "T" or b) end}) .. "q" .. 5`,
	`setmetatable({}, {__concat = function(a, b) error("from meta") end}) .. "x"`,
	`setmetatable({}, {__concat = 5}) .. "x"`,
	`#("a" .. "bc")`,
	`("a" .. "b"):upper()`,
	`(function() local t = {} t["k" .. 1] = "v" .. 2 return t.k1 end)()`,
	`(function() local a, b = "1", 2 return a .. b == "12" end)()`,
}

// runConcat runs "return <expr>" compiled by proto in a plain gopher-lua state
// and renders its results or error.
func runConcat(t *testing.T, proto *lua.FunctionProto) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\nstack traceback"); i >= 0 {
			msg = msg[:i]
		}
		return "error: " + msg
	}
	var out []string
	for i := 1; i <= L.GetTop(); i++ {
		out = append(out, runConcatValue(L.Get(i)))
	}
	return strings.Join(out, ", ")
}

// nativeProto compiles src with gopher-lua alone, without the rewrite.
func nativeProto(t testing.TB, path, src string) (*lua.FunctionProto, error) {
	L := lua.NewState()
	defer L.Close()
	fn, err := L.Load(strings.NewReader(src), path)
	if err != nil {
		return nil, err
	}
	return fn.Proto, nil
}

// The rewritten `..` gives what gopher-lua's OP_CONCAT gives: the same
// values, conversions, metamethod calls, argument truncation and errors, at
// the same line.
func TestConcatMatchesGopherLua(t *testing.T) {
	for _, expr := range concatCases {
		src := "local _ = 1\nreturn " + expr
		native, err := nativeProto(t, "x.lua", src)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		c, err := Compile("x.lua", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		want, got := runConcat(t, native), runConcat(t, c.proto)
		if got != want {
			t.Errorf("%s\n got: %s\nwant: %s", expr, got, want)
		}
	}
}

// A string literal equal to the rewrite's marker cannot become the concat
// function.
func TestConcatMarkerIsNotAStringLiteral(t *testing.T) {
	src := `local s = "\0luahook.concat" return s .. 'x'`
	if concatMarker != "\x00luahook.concat" {
		t.Fatal("the marker changed: update this test")
	}
	_, err := Compile("x.lua", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("Compile = %v, want the literal refused", err)
	}
}

// BenchmarkConcat is a lean hook that builds strings with `..` from its input.
func BenchmarkConcat(b *testing.B) {
	f := load(b, `hook.register("PreToolUse", "bash", function(input)
  local key = input.toolName .. ":" .. (input.toolInput.command or "") .. "@" .. input.cwd
  local n = 0
  for i = 1, 10 do
    local line = "[" .. i .. "] " .. key
    n = n + #line
  end
  if n < 0 then return hook.deny(key) end
end)`, Options{})
	benchHook(b, f.Registrations()[0].Hook, preToolUse("bash", `{"command":"ls -la /tmp"}`))
}

// A hook that builds strings with `..` from its input is still proved to
// keep none of it, so its payload tables are recycled: a call allocates its
// strings (one each, and the value that holds it), and no table.
func TestConcatHookStaysLean(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", "bash", function(input)
  local key = input.toolName .. ":" .. (input.toolInput.command or "") .. "@" .. input.cwd
  if key == "x" then return hook.deny(key) end
end)`, Options{MaxStates: 1})
	if !anyLean(f) {
		t.Fatal("the hook is not lean")
	}
	in := preToolUse("bash", `{"command":"ls -la /tmp","args":["-l"]}`)
	h := f.Registrations()[0].Hook
	if n := testing.AllocsPerRun(100, func() { h.Call(context.Background(), in) }); n > 2 && !raceEnabled && codec.DirectTables {
		t.Errorf("%v allocations per call, want at most 2 (the string and its value)", n)
	}
}

// concatOperand renders operand b of a fuzzed concatenation: its kind and size.
func concatOperand(b byte) string {
	n := int(b>>3) * 13
	switch b & 7 {
	case 0, 1:
		return fmt.Sprintf("(%q):rep(%d)", string(rune('a'+n%26)), n)
	case 2:
		return fmt.Sprint(n)
	case 3:
		return fmt.Sprintf("%d.5", -n)
	case 4:
		return "setmetatable({}, mt)"
	case 5:
		return "nil"
	case 6:
		return "true"
	}
	return "{}"
}

// FuzzConcat concatenates operands of random types and sizes, some tables
// with a __concat, under a random cap, twice in one state: the result never
// passes the cap, the host never panics, and a result or an error other
// than the cap's is what gopher-lua's own OP_CONCAT gives.
func FuzzConcat(f *testing.F) {
	for _, s := range []string{"\x00\x08\x08", "\x10\xf8\xf8\xf8", "\x03\x04\x50\x0a\x0b", "\x01\x05\x00",
		"\x20\x04\xf8\xf8\x04", "\xff\x02\x03\x02\x03\x00\x08\x10", "\x00\x06\x00", "\x00\x00\x07"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		capBytes := 16 * (int(data[0]) + 1)
		ops := data[1:min(len(data), 60)]
		var src strings.Builder
		src.WriteString("local mt = {__concat = function(a, b) return '<' .. type(a) .. '|' .. type(b) .. '>' end}\nlocal v = {}\n")
		var expr []string
		for i, b := range ops {
			fmt.Fprintf(&src, "v[%d] = %s\n", i+1, concatOperand(b))
			expr = append(expr, fmt.Sprintf("v[%d]", i+1))
		}
		src.WriteString("return " + strings.Join(expr, " .. "))
		native, err := nativeProto(t, "x.lua", src.String())
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile("x.lua", []byte(src.String()))
		if err != nil {
			t.Fatal(err)
		}
		want := runConcat(t, native)
		L := lua.NewState()
		defer L.Close()
		setConcatCap(L, capBytes)
		// Twice in the same state: the second run may take its joins from
		// the state's memo.
		for range 2 {
			L.SetTop(0)
			L.Push(L.NewFunctionFromProto(c.proto))
			err = L.PCall(0, 1, nil)
			if err != nil {
				if strings.Contains(err.Error(), "exceeds the") {
					if strings.HasPrefix(want, "string ") && len(want)-len("string ") <= capBytes && !hasKind(ops, 4) {
						t.Fatalf("cap error %v, but gopher-lua gives %d bytes, under the cap of %d", err, len(want)-7, capBytes)
					}
					continue
				}
				got := "error: " + strings.SplitN(err.Error(), "\nstack traceback", 2)[0]
				if got != want {
					t.Fatalf("\n got: %s\nwant: %s", got, want)
				}
				continue
			}
			if s, ok := L.Get(-1).(lua.LString); ok && len(s) > capBytes {
				t.Fatalf("a result of %d bytes passed the cap of %d", len(s), capBytes)
			}
			if got := runConcatValue(L.Get(-1)); got != want {
				t.Fatalf("\n got: %s\nwant: %s", got, want)
			}
		}
	})
}

func hasKind(ops []byte, kind byte) bool {
	for _, b := range ops {
		if b&7 == kind {
			return true
		}
	}
	return false
}

func runConcatValue(v lua.LValue) string {
	return v.Type().String() + " " + strings.Split(v.String(), ": 0x")[0]
}

// A join of strings that a state made before is given back, not made
// again: a hook that builds the same key on every call allocates nothing
// for it. Every join, memoised or not, is the text gopher-lua's own `..`
// gives, whatever the operands' split, past the memo's size and with
// numbers (-0 is "-0", never the memoised "0").
func TestConcatMemoGivesTheSameTextWithoutAllocating(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", "bash", function(input)
  local key = "bash-calls:" .. (input.sessionId or "")
  if key == "bash-calls:x" then return hook.deny(key) end
end)`, Options{MaxStates: 1})
	in := preToolUse("bash", `{"command":"ls"}`)
	in.SessionID = "s-1234"
	h := f.Registrations()[0].Hook
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { h.Call(ctx, in) }); n != 0 && !raceEnabled && codec.DirectTables {
		t.Errorf("a hook joining the same key each call: %v allocations per call, want 0", n)
	}

	const src = `return function(a, b, c) return a .. b, b .. a .. c, a .. b .. c .. a end`
	native, err := nativeProto(t, "x.lua", src)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile("x.lua", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	nL, L := lua.NewState(), lua.NewState()
	defer nL.Close()
	defer L.Close()
	setConcatCap(L, DefaultMaxStringBytes)
	fnOf := func(L *lua.LState, p *lua.FunctionProto) lua.LValue {
		L.Push(L.NewFunctionFromProto(p))
		if err := L.PCall(0, 1, nil); err != nil {
			t.Fatal(err)
		}
		return L.Get(-1)
	}
	nf, cf := fnOf(nL, native), fnOf(L, c.proto)
	results := func(L *lua.LState, fn lua.LValue, args ...lua.LValue) string {
		top := L.GetTop()
		L.Push(fn)
		for _, a := range args {
			L.Push(a)
		}
		if err := L.PCall(len(args), 3, nil); err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprintf("%q %q %q", L.Get(-3).String(), L.Get(-2).String(), L.Get(-1).String())
		L.SetTop(top)
		return out
	}
	big := lua.LString(strings.Repeat("z", concatMemoBytes))
	s := func(v string) lua.LValue { return lua.LString(v) }
	for i, args := range [][]lua.LValue{
		{s("ab"), s("c"), s("d")}, {s("a"), s("bc"), s("d")}, {s("ab"), s("c"), s("d")},
		{s("s1"), s(""), s("")}, {s("s2"), s(""), s("")}, {s("s3"), s(""), s("")}, {s("s4"), s(""), s("")},
		{s("s5"), s("x"), s("")}, {s("s1"), s(""), s("")}, {s("ab"), s("c"), s("d")},
		{s("x"), lua.LNumber(0), s("")}, {s("x"), lua.LNumber(math.Copysign(0, -1)), s("")},
		{s("x"), lua.LNumber(0), s("")}, {big, s("y"), s("")}, {big, s("y"), s("")},
		{s("é"), s("\xff"), s("\x00")}, {s("é\xff"), s("\x00"), s("")},
	} {
		if got, want := results(L, cf, args...), results(nL, nf, args...); got != want {
			t.Errorf("call %d: %s, want %s", i, got, want)
		}
	}
}
