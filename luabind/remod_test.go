package luabind

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/luabind/internal/modules"
)

// TestRegexpMatchingIsBounded: Go's regexp costs up to the program's size
// times the text's length in one uninterruptible call.
func TestRegexpMatchingIsBounded(t *testing.T) {
	pat := `("(?:a?)"):rep(500) .. "b"`
	text := `("ab"):rep(20000)`
	for _, fn := range []string{
		`re.match(` + pat + `, ` + text + `)`,
		`re.find(` + pat + `, ` + text + `)`,
		`re.find_all(` + pat + `, ` + text + `)`,
		`re.split(` + pat + `, ` + text + `)`,
		`re.gsub(` + text + `, ` + pat + `, "")`,
	} {
		r := runBounded(t, "return "+fn, Options{}, 100*time.Millisecond)
		if r.elapsed > time.Second {
			t.Errorf("%.30s: returned after %v, want within 1 s of a 100 ms deadline", fn, r.elapsed)
		}
		if r.err == nil {
			t.Errorf("%.30s: no error, want a timeout", fn)
		}
	}
}

func TestRegexpPatternSizeIsCapped(t *testing.T) {
	at := `re.match(("a"):rep(` + strconv.Itoa(modules.MaxRegexpBytes) + `), "")`
	if _, err := runHook(t, "assert(not "+at+")", Options{}); err != nil {
		t.Errorf("a pattern at the cap: %v", err)
	}
	past := `re.match(("a"):rep(` + strconv.Itoa(modules.MaxRegexpBytes+1) + `), "")`
	_, err := runHook(t, past, Options{})
	want := "re.match: pattern of " + strconv.Itoa(modules.MaxRegexpBytes+1) + " bytes exceeds the " + strconv.Itoa(modules.MaxRegexpBytes) + "-byte limit"
	if err == nil || !strings.Contains(failure(t, err).Message, want) {
		t.Errorf("a pattern one past the cap: %v, want %q", err, want)
	}
}

// TestRegexpSemanticsHoldAcrossTheInterruptiblePath runs the re functions
// over texts long enough to take the path that checks the deadline, with
// patterns whose matches depend on the text before them.
func TestRegexpSemanticsHoldAcrossTheInterruptiblePath(t *testing.T) {
	code := `
local pad = ("-"):rep(2^16)
local s = pad .. "ab abc ab" .. pad
local function big(p) return p .. ("(?:z?)"):rep(200) end
assert(re.match(big("abc"), s))
assert(not re.match(big("^abc"), s))
local m, c = re.find(big("\\b(ab)c"), s) assert(m == "abc" and c == "ab")
local all = re.find_all(big("\\bab\\b"), s) assert(#all == 2, #all)
all = re.find_all(big("b|"), "abc") assert(#all == 3, #all)
all = re.find_all(big("^-"), s) assert(#all == 1, #all)
all = re.find_all(big("(?m)^x"), "x\nx\nax") assert(#all == 2, #all)
local parts = re.split(big(" "), s) assert(#parts == 3 and parts[2] == "abc")
local r, n = re.gsub(s, big("\\bab\\b"), "X") assert(n == 2 and #r == #s - 2, n)
r, n = re.gsub("abc", big(""), "-") assert(r == "-a-b-c-" and n == 4, r)
r, n = re.gsub("aaa", big("a*"), "-") assert(r == "-" and n == 1, r)
`
	if _, err := runHook(t, code, Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestReQuoteIsCapped(t *testing.T) {
	const capBytes = 1 << 20
	if _, err := runHook(t, `assert(#re.quote(("."):rep(2^19)) == 2^20)`, Options{MaxStringBytes: capBytes}); err != nil {
		t.Errorf("re.quote at the cap: %v", err)
	}
	_, err := runHook(t, `return re.quote(("."):rep(2^19 + 1))`, Options{MaxStringBytes: capBytes})
	if fl := failure(t, err); !strings.Contains(fl.Message, "re.quote: result of 1048578 bytes exceeds the 1 MiB limit") {
		t.Errorf("re.quote one past the cap: %v", fl)
	}
}

// TestRegexpArgumentErrorsNameTheSignature: an argument of the wrong type is
// an error naming the function's signature, so that re.gsub's order (the
// subject first, as string.gsub) and the others' (the pattern first) show.
func TestRegexpArgumentErrorsNameTheSignature(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{`re.match({}, "x")`, "re.match: bad argument #1 (pattern): string expected, got table; usage: re.match(pattern, s)"},
		{`re.find("x")`, "re.find: bad argument #2 (s): string expected, got nil; usage: re.find(pattern, s)"},
		{`re.find_all("x", "y", "z")`, "re.find_all: bad argument #3 (n): number expected, got string; usage: re.find_all(pattern, s[, n])"},
		{`re.gsub("x", {}, "y")`, "re.gsub: bad argument #2 (pattern): string expected, got table; usage: re.gsub(s, pattern, repl[, n])"},
		{`re.gsub("x", "y", 3)`, "re.gsub: bad argument #3 (repl): string or function expected, got number; usage: re.gsub(s, pattern, repl[, n])"},
		{`re.split(nil, "x")`, "re.split: bad argument #1 (pattern): string expected, got nil; usage: re.split(pattern, s[, n])"},
		{`re.quote({})`, "re.quote: bad argument #1 (s): string expected, got table; usage: re.quote(s)"},
	} {
		_, err := runHook(t, c.code, Options{})
		if err == nil || !strings.HasSuffix(failure(t, err).Message, c.want) {
			t.Errorf("%s: %v, want %q", c.code, err, c.want)
		}
	}
	if _, err := runHook(t, `assert(re.gsub(12, 2, "x") == "1x") assert(re.match(1, 1))`, Options{}); err != nil {
		t.Errorf("numbers where strings are expected: %v", err)
	}
}

// TestReCallsInsideAGsubReplacementGetTheirOwnSearcher: a re.gsub
// replacement function that calls re again, and a re call that fails,
// leave every call its own searcher: the state's shared one is lent to one
// call at a time and given back on an error.
func TestReCallsInsideAGsubReplacementGetTheirOwnSearcher(t *testing.T) {
	out, err := runHook(t, `
local out = re.gsub("a1b22c333", "[0-9]+", function(d)
  local inner = re.gsub(d, "[0-9]", "x")
  return "<" .. inner .. (re.match("^3+$", d) and "!" or "") .. ">"
end)
local ok = pcall(re.match, "(", "x")
local after = re.gsub("keep", "z", "y")
return hook.deny(out .. "|" .. tostring(ok) .. "|" .. after .. "|" .. select(2, re.gsub("abc", "b", "B")))`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a<x>b<xx>c<xxx!>|false|keep|1"; out == nil || out.Reason != want {
		t.Fatalf("got %+v, want the reason %q", out, want)
	}
}

// TestReMatchAnyLooksAtEveryStringButTheSkippedOnes: re.match_any matches
// a string anywhere in a table, nested tables included, and none whose key
// (or, in a list, the key above the list) skip names; keys, numbers and
// booleans are not looked at.
func TestReMatchAnyLooksAtEveryStringButTheSkippedOnes(t *testing.T) {
	code := `
local skip = { command = true, text = true, off = false }
local function any(v, s) return re.match_any("env", v, s) end
assert(any(".env") and not any("x") and not any(nil) and not any(12) and not any(true))
assert(any({ path = ".env" }, skip))
assert(not any({ command = ".env", text = ".env" }, skip))
assert(any({ command = ".env" }), "no skip: every string")
assert(any({ off = ".env" }, skip), "a key skip maps to false is looked at")
assert(not any({ command = { ".env", { ".env" } } }, skip), "a list's elements are under the list's key")
assert(any({ command = { { path = ".env" } } }, skip), "a table's own string keys are its strings' keys")
assert(any({ a = { b = { c = { "x", "y", ".env" } } } }, skip), "nested")
assert(not any({ [".env"] = "x", env = 1, x = true }, skip), "keys, numbers and booleans")
assert(any({ "x", ".env" }), "a list at the top has no key")
assert(not any({}, skip))
-- every part of a table: its list, a hole in it, what follows the hole,
-- numbers far past the list, string keys
local function holey(at)
  local t = { "a", "b", nil, "d", [70] = "e", [1.5] = "f", x = "g" }
  t[at] = ".env"
  return t
end
for _, at in ipairs({ 1, 2, 3, 4, 5, 64, 65, 70, 100, 1.5, "x", "y" }) do
  assert(any(holey(at)), "a string at " .. at)
end
local long = {} for i = 1, 200 do long[i] = "x" end long.k = ".env"
assert(any(long), "a string key after a list of 200")
long.k = nil long[150] = ".env"
assert(any(long), "in a list of 200")
`
	if _, err := runHook(t, code, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestReMatchAnyAnswersYesWhereItCannotLook: a table nested deeper than
// the walk goes (a cycle reaches that depth) counts as a match, so that a
// guard that uses re.match_any to skip work never skips a string it did not
// see; a wrong argument is an error naming the signature.
func TestReMatchAnyAnswersYesWhereItCannotLook(t *testing.T) {
	depth := strconv.Itoa(modules.MatchAnyDepth)
	code := `
local function nest(n) local t = {} for i = 1, n do t = { t } end return t end
assert(not re.match_any("x", nest(` + depth + ` - 1)), "within the depth: no string, no match")
assert(re.match_any("x", nest(` + depth + ` + 1)), "past the depth: a match")
local c = {} c.self = c
assert(re.match_any("x", c), "a cycle: a match")
`
	if _, err := runHook(t, code, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ code, want string }{
		{`re.match_any({}, {})`, "re.match_any: bad argument #1 (pattern): string expected, got table; usage: re.match_any(pattern, value[, skip])"},
		{`re.match_any("x", {}, "command")`, "re.match_any: bad argument #3 (skip): table expected, got string; usage: re.match_any(pattern, value[, skip])"},
		{`re.match_any("(", {})`, `re.match_any: bad pattern "("`},
	} {
		_, err := runHook(t, c.code, Options{})
		if err == nil || !strings.Contains(failure(t, err).Message, c.want) {
			t.Errorf("%s: %v, want %q", c.code, err, c.want)
		}
	}
}
