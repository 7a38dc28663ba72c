package luabind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind/internal/lint"
)

// warnings loads src as testPath and returns its warnings as
// "line rule message" lines.
func warnings(t *testing.T, src string, opts Options) []string {
	t.Helper()
	var out []string
	for _, w := range load(t, src, opts).Warnings() {
		if w.Path != testPath {
			t.Errorf("warning on %s, want %s: %v", w.Path, testPath, w)
		}
		out = append(out, w.String())
	}
	return out
}

// wantWarnings checks that got holds exactly the warnings of want, each
// given as "line: [rule] text the message contains".
func wantWarnings(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d warnings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		line, rest, _ := strings.Cut(w, ": ")
		rule, text, _ := strings.Cut(strings.TrimPrefix(rest, "["), "] ")
		g := got[i]
		if !strings.HasPrefix(g, testPath+":"+line+": warning: ") || !strings.HasSuffix(g, "["+rule+"]") || !strings.Contains(g, text) {
			t.Errorf("warning #%d = %q, want line %s, rule %s, containing %q", i+1, g, line, rule, text)
		}
	}
}

// TestLintEachRuleNamesFileAndLine: every rule reports the line of what it
// is about (a registration's warning, the line where its call starts).
func TestLintEachRuleNamesFileAndLine(t *testing.T) {
	src := `count = 0
hook.register("PreToolUse", "bash", function(input)
  count = count + 1
  if re.mach("rm", input.toolInput.command) then
    return hooks.deny("no")
  end
  local j = jsno.encode({})
  return hook.deny(srting.format("%s", json.encde(j)))
end)
hook.register("Stop", nil, function()
  return { continue = hook.events.Stpo }
end, { stage = "validate" })
`
	wantWarnings(t, warnings(t, src, Options{}),
		"3: [global-assign] assignment to global 'count' inside a function",
		"4: [unknown-field] re.mach does not exist (did you mean 'match'?)",
		"5: [undefined-global] read of undefined global 'hooks' (did you mean 'hook'?)",
		"7: [undefined-global] read of undefined global 'jsno' (did you mean 'json'?)",
		"8: [undefined-global] read of undefined global 'srting' (did you mean 'string'?)",
		"8: [unknown-field] json.encde does not exist (did you mean 'encode'?)",
		`10: [stage-ignored] stage "validate" is ignored on Stop`,
		"11: [unknown-field] hook.events.Stpo does not exist (did you mean 'Stop'?)",
	)
}

// TestLintStageOnPreToolUseIsFine: stages apply to PreToolUse, and
// "mutate" to PostToolUse (the output's chain).
func TestLintStageOnPreToolUseIsFine(t *testing.T) {
	src := `hook.register("PreToolUse", nil, function() end, { stage = "mutate" })
hook.register("PreToolUse", nil, function() end, { stage = "validate" })
hook.register("PostToolUse", nil, function() end, { stage = "mutate" })
hook.register("PostToolUse", nil, function() end, { stage = "validate" })
`
	wantWarnings(t, warnings(t, src, Options{}), `4: [stage-ignored] stage "validate" is ignored on PostToolUse`)
}

// TestLintFindsNoFalsePositives: locals shadowing globals, upvalues,
// recursion of local functions, methods and self, loop variables, repeat's
// condition, globals set at the top level (by assignment and by function
// statements) and read anywhere, module fields that exist.
func TestLintFindsNoFalsePositives(t *testing.T) {
	src := `local string = { shout = function(s) return s end }
local json = string.shout("x")
LIMIT = 3
function helper(x) return x .. LIMIT end
local counter = 0
local function fact(n)
  if n <= 1 then return 1 end
  return n * fact(n - 1)
end
local fib = function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local obj = {}
function obj:name() return self.n end
function obj.plain(a) return a end
local t = setmetatable({}, { __index = obj })
for i = 1, 3 do counter = counter + i end
for k, v in pairs({ a = 1 }) do counter = counter + #k + v end
repeat local done = true until done
do local hook = 1 end
hook.register("PreToolUse", "bash", function(input, ctx)
  local up = counter + fact(3) + fib(5)
  local s = ("x"):upper():lower()
  local m = t:name()
  local ok = re.match("x", input.toolInput.command) and re.gsub("a", "a", "b")
  local d = os.date("%Y") .. string.shout(helper(up)) .. tostring(LIMIT)
  local e = hook.events.PreToolUse .. json .. math.floor(1.5)
  local str = string.shout("y")
  log.info("x", { a = m, b = s, c = d, e = e, str = str, _G = _G ~= nil })
  local function inner() up = up + 1; return up end
  inner()
  if store.get("k") == json.null then return hook.deny("x") end
  return hook.allow()
end)
`
	// json is a local string here, so json.null is a field of a local: the
	// linter does not know its fields.
	wantWarnings(t, warnings(t, src, Options{}))
}

// TestLintGlobalsComeFromTheRealSandbox: a library granted by allow_libs is
// a global; the same read without the grant names why it is missing.
func TestLintGlobalsComeFromTheRealSandbox(t *testing.T) {
	src := `hook.register("Stop", nil, function()
  io.write("x")
  os.execute("true")
end)
`
	wantWarnings(t, warnings(t, src, Options{AllowLibs: []string{"io", "os"}}))
	wantWarnings(t, warnings(t, src, Options{}),
		"2: [undefined-global] the io library is not available in the luahook sandbox",
		"3: [unknown-field] os.execute does not exist (known: clock, date, difftime, time)",
	)
}

// TestLintGlobalAssignment: inside a function, every form of assignment to
// a global warns (plain, multiple, function statement, through _G); at the
// top level none does.
func TestLintGlobalAssignment(t *testing.T) {
	src := `A, B = 1, 2
function top() end
_G.C = 3
local function f()
  A, local_ok = 3, 4
  function nested() end
  _G.D = 5
  _G["E"] = 6
  local x
  x = 1
end
`
	wantWarnings(t, warnings(t, src, Options{}),
		"5: [global-assign] 'A'",
		"5: [global-assign] 'local_ok'",
		"6: [global-assign] 'nested'",
		"7: [global-assign] 'D'",
		"8: [global-assign] 'E'",
	)
}

// TestLintGlobalAssignAdvice: the global-assign warning sends a value
// shared by calls to the store or the session ledger, never to a local of
// the top level, which each pooled state has its own of.
func TestLintGlobalAssignAdvice(t *testing.T) {
	ws := load(t, "hook.register('Stop', nil, function() total = 1 end)\n", Options{}).Warnings()
	if len(ws) != 1 || ws[0].Rule != "global-assign" {
		t.Fatalf("warnings %v, want one global-assign", ws)
	}
	msg := ws[0].Message
	for _, want := range []string{"store.incr", "session.count", "a local of the file's top level is not shared, each pooled Lua state has its own"} {
		if !strings.Contains(msg, want) {
			t.Errorf("advice %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "at the top level for a value shared by calls") {
		t.Errorf("advice %q still sends a shared value to a top-level local", msg)
	}
}

// TestLintUpvalueAssign: a hook given to hook.register that assigns a local
// of the file's top level warns (upvalue-assign), and so does a function of
// the file it calls by name (a local function, a global one, in turn), a
// closure it defines, a function it is given by a local's name; the local
// may be declared in a top-level block. The message names the store and the
// session ledger.
func TestLintUpvalueAssign(t *testing.T) {
	src := `local count = 0
local last, seen
do local inblock = 0
  local function deeper() inblock = inblock + 1 end
  local function helper() deeper() end
  function gbump() seen = true end
  hook.register("PreToolUse", "bash", function(input)
    count = count + 1
    helper()
    gbump()
    table.sort({}, function() last = input end)
  end)
end
local other = 0
local function named() other = 1 end
hook.register("Stop", nil, named)
`
	wantWarnings(t, warnings(t, src, Options{}),
		"4: [upvalue-assign] assignment to 'inblock', a local of the file's top level, in code a hook runs: each pooled Lua state has its own 'inblock'",
		"6: [upvalue-assign] 'seen'",
		"8: [upvalue-assign] 'count'",
		"11: [upvalue-assign] 'last'",
		"15: [upvalue-assign] 'other'",
	)
	ws := load(t, src, Options{}).Warnings()
	for _, want := range []string{"store.incr", "session.count"} {
		if !strings.Contains(ws[0].Message, want) {
			t.Errorf("message %q does not name %s", ws[0].Message, want)
		}
	}
}

// TestLintUpvalueAssignLeavesStateAlone: what is not a value kept across
// hook calls in one state does not warn: a hook's own locals (and its
// closures' upvalues of them), a field of a top-level table (a per-state
// cache), an assignment at the top level, a function run at load (a setup,
// a forward declaration wired by a setter), a function the file never
// gives to hook.register (a lib module's lazy cache), a register of a
// local named hook; an ignore comment silences one.
func TestLintUpvalueAssignLeavesStateAlone(t *testing.T) {
	src := `local cache, limit, plain = {}, 0, nil
local parse -- forward
local function bind(f) parse = f end
bind(function() end)
local function setup() limit = 10 end
setup()
limit = limit + 1
local M = {}
function M.get() if not plain then plain = {} end return plain end
hook.register("PreToolUse", "bash", function(input)
  local n = 0
  local function inc() n = n + 1 end
  inc()
  cache[input.toolInput.command] = n
  cache.hits = (cache.hits or 0) + 1
  limit = 5 -- luahook: ignore upvalue-assign
end)
do
  local hook = { register = function() end }
  local x = 0
  hook.register("PreToolUse", "bash", function() x = 1 end)
end
`
	wantWarnings(t, warnings(t, src, Options{}))
}

// TestLintIgnoreComments: an ignore comment silences the rules it names on
// the line it ends, or alone on its line on the next one, every rule when
// it names none; an unknown rule in it is a warning.
func TestLintIgnoreComments(t *testing.T) {
	src := `local a = nosuch1 -- luahook: ignore undefined-global
-- luahook: ignore undefined-global, unknown-field
local b = { nosuch2, re.mach }
local c = nosuch3 -- luahook: ignore unknown-field
local d = nosuch4 -- luahook: ignore
local e = nosuch5 -- luahook: ignore undefined-globl
local f = nosuch6
-- luahook: ignore undefined-global

local g = nosuch7
`
	wantWarnings(t, warnings(t, src, Options{}),
		"4: [undefined-global] 'nosuch3'",
		`6: [bad-ignore] unknown rule "undefined-globl" (did you mean 'undefined-global'?)`,
		"6: [undefined-global] 'nosuch5'",
		"7: [undefined-global] 'nosuch6'",
		"10: [undefined-global] 'nosuch7'",
	)
}

// TestLintCoversLibModulesRequiredAtLoad: a lib module required while the
// file loads is linted too, under its own path.
func TestLintCoversLibModulesRequiredAtLoad(t *testing.T) {
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "util.lua"), []byte("local M = {}\nfunction M.f() leak = 1 end\nreturn M\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := load(t, `local util = require("util")`, Options{LibDir: lib})
	ws := f.Warnings()
	if len(ws) != 1 || ws[0].Path != filepath.Join(lib, "util.lua") || ws[0].Line != 2 || ws[0].Rule != "global-assign" {
		t.Errorf("warnings %v, want one global-assign at %s:2", ws, filepath.Join(lib, "util.lua"))
	}
}

// TestLintShippedHooksHaveNoWarnings: the repository's hooks.d and its lib
// are clean.
func TestLintShippedHooksHaveNoWarnings(t *testing.T) {
	dir := filepath.Join("..", "hooks.d")
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	libs, err := filepath.Glob(filepath.Join(dir, "lib", "*", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.Glob(filepath.Join(dir, "lib", "*.lua"))
	n := 0
	for _, path := range append(append(files, top...), libs...) {
		if strings.HasSuffix(path, "_test.lua") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loadSrc(path, string(src), Options{LibDir: filepath.Join(dir, "lib")})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, w := range f.Warnings() {
			t.Errorf("%v", w)
		}
		f.Close()
		n++
	}
	if n < 8 {
		t.Errorf("linted %d files, want the shipped hooks and lib modules", n)
	}
}

// TestLintIsBoundedOnABigFile: a source at the size limit, and one nested
// to the nesting limit, are linted without a crash; what the file's facts
// keep is bounded (lint.MaxRefs), and the warnings found up to there are
// right.
func TestLintIsBoundedOnABigFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("local x = 0\n")
	line := "x = x + (undefined_name or 1) * math.floor(1.5)\n"
	for b.Len()+len(line) < DefaultMaxSourceBytes {
		b.WriteString(line)
	}
	ws := load(t, b.String(), Options{}).Warnings()
	// Two references a line: undefined_name and math.
	if len(ws) != lint.MaxRefs/2 || ws[0].Line != 2 || ws[len(ws)-1].Line != lint.MaxRefs/2+1 {
		t.Errorf("%d warnings, from %v to %v; want %d, one a line from line 2", len(ws), ws[0], ws[len(ws)-1], lint.MaxRefs/2)
	}
	deep := strings.Repeat("do ", maxNesting-2) + "local y = nosuch " + strings.Repeat("end ", maxNesting-2)
	ws = load(t, deep, Options{}).Warnings()
	if len(ws) != 1 || ws[0].Rule != "undefined-global" {
		t.Errorf("deep file: warnings %v, want one undefined-global", ws)
	}
}
