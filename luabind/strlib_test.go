package luabind

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// TestStringFunctionsKeepLua51Semantics runs the replaced string functions
// (find, match, gmatch, gsub, rep, format, table.concat) against results of
// the reference Lua 5.1 interpreter.
func TestStringFunctionsKeepLua51Semantics(t *testing.T) {
	cases := []string{
		`assert(("hello world"):find("o w") == 5)`,
		`local s, e = ("hello"):find("l+") assert(s == 3 and e == 4)`,
		`local s, e, c = ("key=val"):find("(%w+)=") assert(s == 1 and e == 4 and c == "key")`,
		`assert(("a.b"):find(".", 1, true) == 2)`,
		`assert(("abc"):find("b", -1) == nil)`,
		`assert(("abc"):find("", 10) == 4)`,
		`assert(("abc"):find("^b") == nil and ("abc"):find("^a") == 1)`,
		`local a, b = ("abc"):find("()b()") assert(a == 2 and b == 2)`,
		`local p1, p2 = ("abc"):match("()b()") assert(p1 == 2 and p2 == 3)`,
		`assert(("  trim  "):match("^%s*(.-)%s*$") == "trim")`,
		`assert(("2024-01-05"):match("(%d+)-(%d+)-(%d+)") == "2024")`,
		`assert(select("#", ("2024-01-05"):match("(%d+)-(%d+)-(%d+)")) == 3)`,
		`assert(("f(a(b)c)d"):match("%b()") == "(a(b)c)")`,
		`assert(("THE (quick) fox"):find("%f[%a]%a+%f[%A]") == 1)`,
		`assert(("hello hello"):match("(h%a+) %1") == "hello")`,
		`assert(("[x]"):match("[]]") == "]")`,
		`assert(("a-b"):match("[a%-]+") == "a-")`,
		`assert(("x"):match("[^%s]") == "x")`,
		`assert(("abc"):match(".-$") == "abc")`,
		`assert(("a$b"):match("a$b") == "a$b")`,
		`local t = {} for w in ("one two  three"):gmatch("%a+") do t[#t+1] = w end assert(table.concat(t, ",") == "one,two,three")`,
		`local t = {} for k, v in ("a=1, b=2"):gmatch("(%w+)=(%w+)") do t[#t+1] = k .. v end assert(table.concat(t) == "a1b2")`,
		`local n = 0 for _ in ("abc"):gmatch("") do n = n + 1 end assert(n == 4)`,
		`local t = {} for w in ("^a^a"):gmatch("^a") do t[#t+1] = w end assert(#t == 2)`,
		`assert(("hello world"):gsub("o", "0") == "hell0 w0rld")`,
		`assert(select(2, ("hello world"):gsub("o", "0")) == 2)`,
		`assert(("hello"):gsub("", "-") == "-h-e-l-l-o-")`,
		`assert(("abc"):gsub("%w", "%0%0") == "aabbcc")`,
		`assert(("hello world"):gsub("(%w+) (%w+)", "%2 %1") == "world hello")`,
		`assert(("abc"):gsub("b", "%%") == "a%c")`,
		`assert(("abc"):gsub("%w", {a = "1", b = true and "2"}) == "12c")`,
		`assert(("abc"):gsub("%w", function(c) if c == "b" then return false end return c:upper() end) == "AbC")`,
		`assert(("abc"):gsub("%w", "x", 2) == "xxc")`,
		`assert(("aaa"):gsub("^a", "b") == "baa")`,
		`assert(("abc"):gsub("(b)()", "%2") == "a3c")`,
		`assert(("abc"):gsub(".", {a = 1}) == "1bc")`,
		`assert(not pcall(string.find, "abc", "("))`,
		`assert(("abc"):gsub("(", "x") == "xaxbxcx")`,
		`assert(not pcall(string.find, "abc", "[a"))`,
		`assert(not pcall(string.find, "abc", "%"))`,
		`assert(not pcall(string.gsub, "abc", "b", "%2"))`,
		`assert(not pcall(string.gsub, "abc", "b", function() return {} end))`,
		`assert(string.rep("ab", 3) == "ababab" and string.rep("x", 0) == "" and string.rep("x", -1) == "")`,
		`assert(string.format("%d %s %5.1f %-3s|", 42, "x", 3.14159, "y") == "42 x   3.1 y  |")`,
		`assert(table.concat({1, 2, 3}, "-") == "1-2-3" and table.concat({1, 2, 3}, "", 2) == "23" and table.concat({}) == "")`,
		`assert(not pcall(table.concat, {1, {}, 3}))`,
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("do " + c + " end\n")
	}
	if _, err := runHook(t, b.String(), Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestPatternMatchingStopsAtTheDeadline: gopher-lua's matcher would run such a
// search for minutes inside one Go call, out of the context's reach.
func TestPatternMatchingStopsAtTheDeadline(t *testing.T) {
	for _, code := range []string{
		`local s = ("a"):rep(2^12) return s:find(".-.-.-b")`,
		`local s = ("a"):rep(2^12) return s:match("(.-)(.-)(.-)b")`,
		`local s = ("a"):rep(2^12) return s:gsub(".-.-.-b", "")`,
		`local s = ("a"):rep(2^12) for x in s:gmatch(".-.-.-b") do end`,
	} {
		f := load(t, "hook.register('Stop', nil, function()\n"+code+"\nend)", Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
		cancel()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: returned after %v, want within 2 s of a 100 ms deadline", code, d)
		}
		if fl := failure(t, err); fl.Kind != luahook.FailTimeout {
			t.Errorf("%s: failure %v, want FailTimeout", code, fl)
		}
	}
}

func TestPatternTooComplexIsAnError(t *testing.T) {
	_, err := runHook(t, `return ("a"):rep(300):match(("a?"):rep(300))`, Options{})
	if fl := failure(t, err); !strings.Contains(fl.Message, "pattern too complex") {
		t.Errorf("failure %v", fl)
	}
}

func TestStringFormatRefusesWhatLua51Refuses(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{`return string.format(("%[1]s"):rep(100), ("x"):rep(2^16))`, "invalid option '%[' to 'format'"},
		{`return string.format("%v", {})`, "invalid option '%v' to 'format'"},
		{`return string.format("%#v", {})`, "invalid option '%v' to 'format'"},
		{`return string.format("%*d", 5, 1)`, "invalid option '%*' to 'format'"},
		{`return string.format("%T", 1)`, "invalid option '%T' to 'format'"},
		{`return string.format("abc%")`, "invalid option '%' to 'format'"},
		{`return string.format("%------s", "x")`, "invalid format (repeated flags)"},
		{`return string.format("%100d", 1)`, "invalid format (width or precision too long)"},
		{`return string.format("%s %s", "x")`, "bad argument #3 to format (no value)"},
	} {
		_, err := runHook(t, tt.code, Options{MaxStringBytes: 1 << 20})
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.code, tt.want)
			continue
		}
		if fl := failure(t, err); !strings.Contains(fl.Message, tt.want) {
			t.Errorf("%s: %q, want %q", tt.code, fl.Message, tt.want)
		}
	}
}

// TestStringFormatSizeBoundCoversEveryConversion: the size checked before
// formatting is an upper bound of what Go's fmt writes for each conversion.
func TestStringFormatSizeBoundCoversEveryConversion(t *testing.T) {
	const capBytes = 1 << 20
	for _, tt := range []struct {
		code string
		ok   bool
	}{
		{`return string.format("%s", ("x"):rep(2^20))`, true},   // at the cap
		{`return string.format("%s.", ("x"):rep(2^20))`, false}, // one past
		{`return string.format("%99s", ("x"):rep(2^20 - 99))`, true},
		{`return string.format("% #x", ("x"):rep(300000))`, false}, // "0x78 " per byte
		{`return string.format("%X", ("x"):rep(2^19))`, true},
		{`return string.format("%q", ("\255"):rep(300000))`, false}, // "\xff" per byte
		{`return string.format("%c", ("x"):rep(2^20))`, false},      // %!c(string=...)
		{`return string.format("%d", ("1"):rep(2^20))`, true},
		{`return string.format("%99.99f %e %g", 1e308, -1e-300, 2^63)`, true},
		{`return string.format("%5s|%-5d|%x|%o|%u|%i", {}, true, 255, 8, 1, 2)`, true},
	} {
		out, err := runHook(t, `local ok, r = pcall(function() `+tt.code+` end)
if not ok then error(r, 0) end
if #r > `+strconv.Itoa(capBytes)+` then error("result of " .. #r .. " bytes passed the cap", 0) end`, Options{MaxStringBytes: capBytes})
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v, want it formatted", tt.code, err)
		case !tt.ok && err == nil:
			t.Errorf("%s: formatted %v, want the cap error", tt.code, out)
		case !tt.ok && !strings.Contains(failure(t, err).Message, "exceeds the 1 MiB limit"):
			t.Errorf("%s: %v, want the cap error", tt.code, err)
		}
	}
}

// TestReplacementSizeIsCheckedBeforeAppending: gsub and re.gsub refuse a
// replacement that would pass the cap before they build it.
func TestReplacementSizeIsCheckedBeforeAppending(t *testing.T) {
	const capBytes = 1 << 20
	for _, tt := range []struct{ code, want string }{
		{`local s = ("x"):rep(2^16) return s:gsub(".+", ("%0"):rep(1000))`, "string.gsub: result of 65536000 bytes exceeds the 1 MiB limit"},
		{`local s = ("x"):rep(2^16) return s:gsub("(.+)", ("%1"):rep(1000))`, "string.gsub: result of 65536000 bytes exceeds the 1 MiB limit"},
		{`local s = ("x"):rep(2^16) return re.gsub(s, ".+", ("$0"):rep(1000))`, "re.gsub: result of 65536000 bytes exceeds the 1 MiB limit"},
		{`local s = ("x"):rep(2^16) return re.gsub(s, "(?P<a>.+)", ("${a}"):rep(1000))`, "re.gsub: result of 65536000 bytes exceeds the 1 MiB limit"},
		{`local s = ("x"):rep(2^16) return (("x"):rep(100)):gsub("x", function() return s end)`, "string.gsub: result of 1114112 bytes exceeds the 1 MiB limit"},
		{`local s = ("x"):rep(2^16) return re.gsub(("x"):rep(100), "x", function() return s end)`, "re.gsub: result of 1114112 bytes exceeds the 1 MiB limit"},
	} {
		r := runBounded(t, tt.code, Options{MaxStringBytes: capBytes}, 10*time.Second)
		if r.err == nil {
			t.Errorf("%s: no error, want %q", tt.code, tt.want)
			continue
		}
		if fl := failure(t, r.err); !strings.Contains(fl.Message, tt.want) {
			t.Errorf("%s: %q, want %q", tt.code, fl.Message, tt.want)
		}
		if r.alloc > 8*capBytes {
			t.Errorf("%s: allocated %d MiB before refusing, want at most a few times the 1 MiB cap", tt.code, r.alloc>>20)
		}
	}
	for _, code := range []string{
		`assert(#(("x"):rep(2^10):gsub("x", ("y"):rep(2^10))) == 2^20)`,
		`assert(#re.gsub(("x"):rep(2^10), "x", ("y"):rep(2^10)) == 2^20)`,
		`assert(not pcall(string.gsub, ("x"):rep(2^10), "x", ("y"):rep(2^10) .. "z"))`,
		`assert(not pcall(re.gsub, ("x"):rep(2^10), "x", ("y"):rep(2^10) .. "z"))`,
		`assert(not pcall(string.gsub, ("x"):rep(2^19) .. "zw", "z", ("y"):rep(2^19)))`,
	} {
		if _, err := runHook(t, code, Options{MaxStringBytes: capBytes}); err != nil {
			t.Errorf("%s: %v", code, err)
		}
	}
}

// TestPatternWorkInsideAClassIsCounted: a bracket class is walked for every
// character tried; the deadline must be checked by that work, not by steps.
func TestPatternWorkInsideAClassIsCounted(t *testing.T) {
	for _, code := range []string{
		`local cl = "[" .. ("b"):rep(2^20) .. "]" return (("a"):rep(2^12)):find(cl)`,
		`local cl = "[" .. ("b"):rep(2^20) .. "]" return (("a"):rep(2^12)):gsub(cl .. "*", "")`,
		`local cl = "%f[" .. ("b"):rep(2^20) .. "]" return (("a"):rep(2^12)):find(cl)`,
	} {
		r := runBounded(t, code, Options{}, 100*time.Millisecond)
		if r.elapsed > 2*time.Second {
			t.Errorf("%.40s: returned after %v, want within 2 s of a 100 ms deadline", code, r.elapsed)
		}
		if fl := failure(t, r.err); fl.Kind != luahook.FailTimeout {
			t.Errorf("%.40s: failure %v, want FailTimeout", code, fl)
		}
	}
}

// Reading a replacement template is long Go-side work too: a 16 MiB template
// holds 8 million references, and the call must still end at its deadline.
func TestLongTemplatesAreReadWithinTheDeadline(t *testing.T) {
	const deadline = 50 * time.Millisecond
	for _, c := range []struct{ tmpl, code string }{
		{`("%0"):rep(2^23 - 8)`, `return ("x"):gsub("x", tmpl)`},
		{`("$1"):rep(2^23 - 8)`, `return re.gsub("x", "(x)", tmpl)`},
		{`("${a}"):rep(2^22 - 8)`, `return re.gsub("x", "(?P<a>x)", tmpl)`},
	} {
		// The file builds the template as it loads, so that the call's time
		// is the template's reading: building 16 MiB is one step no deadline
		// can interrupt, and under the race detector, on a busy machine, it
		// has taken 300 ms.
		f := load(t, "local tmpl = "+c.tmpl+"\nhook.register('Stop', nil, function()\n"+c.code+"\nend)", Options{})
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
		elapsed := time.Since(start)
		cancel()
		if err == nil || failure(t, err).Kind != luahook.FailTimeout {
			t.Errorf("%s: %v, want a timeout", c.code, err)
		}
		// A template's reading looks at the context every 2^14 pieces: far
		// less than the slack, which leaves room for a machine busy with
		// other work. Reading a whole template takes 0.4-0.9 s (3.5-6 s
		// under the race detector): a reading that did not look at the
		// context would pass the bound.
		slack := 250 * time.Millisecond
		if raceEnabled {
			slack = 750 * time.Millisecond
		}
		if elapsed > deadline+slack {
			t.Errorf("%s: returned after %v, past its %v deadline", c.code, elapsed, deadline)
		}
		t.Logf("%s: returned after %v", c.code, elapsed)
	}
}
