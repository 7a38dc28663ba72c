package luabind

import (
	"context"
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
