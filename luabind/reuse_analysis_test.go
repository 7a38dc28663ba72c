package luabind

import (
	"context"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// hookFn compiles "local kept; f = function(input, rt) <body> end" with
// Compile, as every hook is compiled (`..` is a call of concatFn), and
// returns f.
func hookFn(t *testing.T, params, body string) *lua.LFunction {
	t.Helper()
	c, err := Compile("x.lua", []byte("local kept, other\nf = function("+params+")\n"+body+"\nend"))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return runHookFn(t, L(t), c.proto)
}

// nativeHookFn is hookFn compiled by gopher-lua alone (`..` is OP_CONCAT).
func nativeHookFn(t *testing.T, params, body string) *lua.LFunction {
	t.Helper()
	p, err := nativeProto(t, "x.lua", "local kept, other\nf = function("+params+")\n"+body+"\nend")
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return runHookFn(t, L(t), p)
}

// L returns a plain state closed when the test ends.
func L(t *testing.T) *lua.LState {
	L := lua.NewState()
	t.Cleanup(L.Close)
	return L
}

func runHookFn(t *testing.T, L *lua.LState, p *lua.FunctionProto) *lua.LFunction {
	t.Helper()
	L.Push(L.NewFunctionFromProto(p))
	if err := L.PCall(0, 0, nil); err != nil {
		t.Fatal(err)
	}
	return L.GetGlobal("f").(*lua.LFunction)
}

// The analysis answers yes for hooks that only read their input, and no for
// every way a hook can keep a reference to it, whether `..` is compiled as
// OP_CONCAT or as the call of concatFn.
func TestLeavesInputSeesEveryWayAHookCanKeepItsInput(t *testing.T) {
	for name, compile := range map[string]func(*testing.T, string, string) *lua.LFunction{"Compile": hookFn, "gopher-lua": nativeHookFn} {
		t.Run(name, func(t *testing.T) { testLeavesInput(t, compile) })
	}
}

func testLeavesInput(t *testing.T, hookFn func(*testing.T, string, string) *lua.LFunction) {
	lean := []string{
		`local cmd = input.toolInput.command or ""
		 if cmd:find("rm -rf", 1, true) then return hook.deny("no") end`,
		`if input.toolName == "bash" and #input.toolInput.args > 2 then return hook.deny("many") end`,
		`return hook.deny("tool " .. input.toolName .. " in " .. input.cwd .. ": " .. #input.toolInput.args)`,
		`local n = input.toolInput.n
		 if n and n > 3 and -n < 0 then return hook.deny("big") end`,
		`for i = 1, 3 do local x = input.cwd end`,
		`local s = input.toolInput.command
		 local a, b = s:match("^(%w+) (.*)$")
		 if a == "rm" then return hook.deny(b) end`,
		`local t = {}
		 t.x = 1
		 return hook.deny(t.x .. input.cwd:sub(1, 2))`,
		`return input.cwd .. "/" .. input.toolName`,
		`local s = input.toolName .. ":" .. (input.toolInput.command or "") .. 1
		 if s == "x" then return hook.deny(s .. "!") end`,
		`rt = input.cwd .. "x"`,
		`kept = input.cwd .. "x"`, // a new string, not input's`
		`local a = "x" .. (input.cwd .. input.toolName) .. #input.cwd`,
		`if (input.cwd .. "").x then end`,
		`return input.toolInput`, // to Go, which copies it before the tables go back
		`input.toolInput.command = "x"`,
		`input.toolInput.n = 1 + #input.cwd`,
		``,
	}
	for _, body := range lean {
		if !leavesInput(hookFn(t, "input, rt", body), nil) {
			t.Errorf("leavesInput = false, want true for:\n%s", body)
		}
	}
	kept := map[string]string{
		"global":                      `seen = input`,
		"upvalue":                     `kept = input.toolInput`,
		"table value":                 `local t = {} t.x = input`,
		"table key":                   `local t = {} t[input.toolInput] = true`,
		"table constructor":           `local t = {input}`,
		"call argument":               `print(input)`,
		"tail call argument":          `return hook.mutate(input.toolInput)`,
		"closure":                     `local g = function() return input end`,
		"closure, assigned later":     `local x local g = function() return x end x = input.toolInput`,
		"written, a table":            `input.toolInput.command = {}`,
		"written, unknown":            `input.toolInput.command = kept`,
		"iterated":                    `for k, v in pairs(input.toolInput) do end`,
		"method argument":             `local c = input.toolInput.command c:gsub("x", input.toolInput)`,
		"method on a table":           `local t = {f = print} t:f(input)`,
		"index key":                   `local t = kept local v = t[input.toolInput]`,
		"arithmetic with unknown":     `local v = kept + input.toolInput.n`,
		"concatenation of unknown":    `local v = kept .. input.cwd`,
		"concatenation, unknown last": `local v = input.cwd .. "x" .. kept`,
		"concatenation with a table":  `local t = setmetatable({}, {__concat = function(a, b) kept = b end}) local v = "x" .. input.cwd .. t`,
		"concatenation of a call":     `local v = input.cwd .. tostring(1)`,
		"length of unknown":           `local v = #kept .. input.cwd`,
		"after a loop":                `local v = kept for i = 1, 2 do v = input end other = v`,
		"through a branch":            `local v if kept then v = input.toolInput else v = 1 end other = v`,
		"through a logical or":        `other = kept or input.toolInput`,
		"passed to a local closure":   `local function g(x) other = x end g(input)`,
	}
	for name, body := range kept {
		if leavesInput(hookFn(t, "input, rt", body), nil) {
			t.Errorf("%s: leavesInput = true, want false for:\n%s", name, body)
		}
	}
	if leavesInput(hookFn(t, "...", `local input = ...`), nil) {
		t.Error("a vararg function that reads its input: leavesInput = true")
	}
	if !leavesInput(hookFn(t, "", `return 1`), nil) {
		t.Error("a function without parameters: leavesInput = false")
	}
	L := lua.NewState()
	defer L.Close()
	if leavesInput(L.NewFunction(func(*lua.LState) int { return 0 }), nil) {
		t.Error("a Go function: leavesInput = true")
	}
}

// The analysis keeps its buffers from one function to the next: what an
// earlier analysis left in them, however far it got, changes no answer. A
// long function that gives its input away at its end runs first each time,
// leaving facts at every instruction it reached; a long lean one runs
// before each function that keeps its input.
func TestAnalysisBuffersLeftOverChangeNoAnswer(t *testing.T) {
	long := "local a, b\n" + strings.Repeat("a = input.cwd b = input.toolInput.command\n", 150)
	keeps := hookFn(t, "input, rt", long+"other = input")
	leans := hookFn(t, "input, rt", long)
	if leavesInput(keeps, nil) || !leavesInput(leans, nil) {
		t.Fatal("the long functions: wrong answers")
	}
	for _, body := range []string{
		`if input.toolName == "bash" and #input.toolInput.args > 2 then return hook.deny("many") end`,
		`local s = input.toolInput.command
		 local a, b = s:match("^(%w+) (.*)$")
		 if a == "rm" then return hook.deny(b) end`,
		``,
	} {
		leavesInput(keeps, nil)
		if !leavesInput(hookFn(t, "input, rt", body), nil) {
			t.Errorf("after a function that keeps its input: leavesInput = false, want true for:\n%s", body)
		}
	}
	for _, body := range []string{`seen = input`, `local t = {} t.x = input`, `print(input)`} {
		leavesInput(leans, nil)
		if leavesInput(hookFn(t, "input, rt", body), nil) {
			t.Errorf("after a lean function: leavesInput = true, want false for:\n%s", body)
		}
	}
}

// A hook that keeps its input still sees that input, unchanged, in later
// calls: its tables are never refilled with another payload.
func TestKeptInputIsNeverRefilled(t *testing.T) {
	f := load(t, `local kept
hook.register("PreToolUse", "bash", function(input)
  if kept == nil then kept = input.toolInput end
  return hook.deny(kept.command)
end)`, Options{MaxStates: 1})
	for i, cmd := range []string{"first", "second", "third"} {
		out, err := call(t, f, 0, preToolUse("bash", `{"command":"`+cmd+`"}`))
		if err != nil || out == nil || out.Reason != "first" {
			t.Fatalf("call %d (%s): %v, %v; want deny \"first\"", i, cmd, out, err)
		}
	}
}

// A hook that only reads its input gets payloads built from recycled tables,
// and reads each payload exactly as sent: no key of an earlier payload is
// left over, whatever the shapes in between.
func TestLeanHookReadsEveryPayloadAsSent(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  local args = ti.args
  return hook.deny((ti.command or "-") .. "|" .. (ti.extra or "-") .. "|" .. (args and #args or "-") ..
    "|" .. (args and args[1] or "-") .. "|" .. input.toolName .. "|" .. (input.sessionId or "-"))
end)`, Options{MaxStates: 1})
	if !anyLean(f) {
		t.Fatal("the hook is not seen as leaving its input")
	}
	cases := []struct{ toolInput, want string }{
		{`{"command":"a","extra":"b","args":["x","y"]}`, "a|b|2|x|bash|s1"},
		{`{"command":"c"}`, "c|-|-|-|bash|s1"},
		{`{"extra":"d","args":[]}`, "-|d|0|-|bash|s1"},
		{`{}`, "-|-|-|-|bash|s1"},
		{`{"args":["p","q","r"],"command":"e"}`, "e|-|3|p|bash|s1"},
		{`{"command":"f","nested":{"command":"g"}}`, "f|-|-|-|bash|s1"},
	}
	for round := range 3 {
		for _, c := range cases {
			out, err := call(t, f, 0, preToolUse("bash", c.toolInput))
			if err != nil || out == nil || out.Reason != c.want {
				t.Fatalf("round %d, %s: %v, %v; want deny %q", round, c.toolInput, out, err, c.want)
			}
		}
	}
	st, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	recycled := st.Stock.Len()
	f.pool.put(st)
	if codec.DirectTables && recycled == 0 {
		t.Error("no tables in the state's stock after calls of a lean hook")
	}
}

func anyLean(f *File) bool {
	st, err := f.pool.get(context.Background(), 0)
	if err != nil {
		return false
	}
	defer f.pool.put(st)
	return len(st.lean) > 0 && st.lean[0]
}

// JSON tables' marks cannot be reached or replaced from Lua, so input's
// tables never get metamethods that Lua code wrote (leavesInput counts on it).
func TestJSONTablesCannotBeGivenMetamethods(t *testing.T) {
	load(t, `
local o, a = json.decode('{"a":[1]}'), json.array({})
assert(getmetatable(o) == "json.object" and getmetatable(o.a) == "json.array" and getmetatable(a) == "json.array")
local ok, err = pcall(setmetatable, o, {__index = function(t) kept = t end})
assert(not ok and err:find("protected metatable"), err)
assert(not pcall(setmetatable, a, {}))
assert(json.encode(o) == '{"a":[1]}')
`, Options{})
}

// A call of a lean hook allocates nothing once its state's stock holds the
// payload's tables; a hook that keeps its input gets new tables every call.
func TestLeanHookCallAllocatesNothing(t *testing.T) {
	src := `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then return hook.deny("no") end
end)
local kept
hook.register("PreToolUse", "bash", function(input) kept = input end)`
	f := load(t, src, Options{MaxStates: 1})
	in := preToolUse("bash", `{"command":"ls -la /tmp","args":["-l"]}`)
	ctx := context.Background()
	lean, keeping := f.Registrations()[0].Hook, f.Registrations()[1].Hook
	if n := testing.AllocsPerRun(100, func() { lean.Call(ctx, in) }); n != 0 && !raceEnabled && codec.DirectTables {
		t.Errorf("lean hook: %v allocations per call, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { keeping.Call(ctx, in) }); n < 4 {
		t.Errorf("hook keeping its input: %v allocations per call, want new tables (at least 4 allocations)", n)
	}
}

// re.match of a pattern compiled before, on a text its worst case lets be
// searched in one go, allocates nothing: a lean hook that calls it (the
// shell policies' quick check) stays a call without allocation.
func TestLeanHookReMatchAllocatesNothing(t *testing.T) {
	src := `local PAT = "^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?(?i:rm|sudo|python[0-9.]*)/*(?: |$)"
hook.register("PreToolUse", "bash", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" then return nil end
  if re.match("^[A-Za-z0-9 ._/=,:@+%-]*$", cmd) and not re.match(PAT, cmd) then return nil end
  return hook.deny("parse it")
end)`
	f := load(t, src, Options{MaxStates: 1})
	in := preToolUse("bash", `{"command":"go test ./... -run TestRunner -count=1"}`)
	ctx := context.Background()
	h := f.Registrations()[0].Hook
	if out, err := h.Call(ctx, in); err != nil || out != nil {
		t.Fatalf("the quick check did not let the line through: %+v %v", out, err)
	}
	if n := testing.AllocsPerRun(100, func() { h.Call(ctx, in) }); n != 0 && !raceEnabled && codec.DirectTables {
		t.Errorf("a lean hook calling re.match: %v allocations per call, want 0", n)
	}
}

// Writing string.__concat or string.__add gives strings no metamethods: the
// string module is read-only, and the string metatable is out of Lua's reach
// (leavesInput counts on "x" .. t calling no Lua code).
func TestStringLibraryFieldsAreNotStringMetamethods(t *testing.T) {
	load(t, `
assert(not pcall(function() string.__concat = function() return "concat" end end), "string.__concat written")
assert(not pcall(function() string.__add = function() return "add" end end), "string.__add written")
assert(not pcall(function() return "x" .. {} end), "string.__concat reached")
assert(not pcall(function() return "1" + {} end), "string.__add reached")
assert(("abc"):upper() == "ABC" and type(getmetatable("")) == "string")
`, Options{})
}

// leanAfterLoad loads src as a hook file and reports whether its first
// registered function was found lean once the file's globals froze.
func leanAfterLoad(t *testing.T, src string) bool {
	t.Helper()
	c, err := Compile("x.lua", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	f, err := Load(context.Background(), c, Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	defer f.Close()
	st, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.pool.put(st)
	return st.lean[0]
}

// Once the globals are frozen, a call of a sandbox function that only reads
// its argument (type, tostring, string.*, math.*, pairs and ipairs that only
// read) keeps a hook lean, and so does a value whose type(...) was compared
// equal to "string" before it is given away; a name rebound before the
// globals froze, a function that keeps its argument, and a local that may
// be rebound are not trusted.
func TestLeanTrustsOnlyFrozenReadingBuiltins(t *testing.T) {
	reg := func(body string) string {
		return "hook.register(\"PreToolUse\", nil, function(input)\n" + body + "\nend)"
	}
	lean := map[string]string{
		"type of a field": reg(`if type(input.toolInput) == "table" then return nil end`),
		"narrowed by type": reg(`local a = input.toolInput local cmd = type(a) == "table" and a.command
			if type(cmd) ~= "string" then return nil end
			local r = {} r[cmd] = true local s = string.upper(cmd) kept_by_nobody = nil`),
		"string and math": reg(`local c = input.toolInput.command
			if string.find(c, "x", 1, true) or math.max(#c, 1) > 3 then return hook.deny(tostring(c)) end`),
		"pairs that only reads": reg(`for k, v in pairs(input.toolInput) do if v == "x" then return hook.deny(k) end end`),
		"ipairs over the capabilities": reg(`local set = {}
			for _, c in ipairs(input.toolCapabilities) do set[c] = true end
			if set.shell then return hook.deny("shell") end`),
		"a plain field given away": reg(`local s = input.prompt if s then return hook.deny(string.lower(s)) end`),
		"a mutate of its own copy": reg(`local a = input.toolInput a.command = re.gsub(a.command, "x", "y")
			return hook.mutate(a)`),
		"builtins in top-level locals": "local type, pairs, find, deny = type, pairs, string.find, hook.deny\nlocal S = string\n" +
			reg(`local a = input.toolInput if type(a) ~= "table" then return nil end
			for k, v in pairs(a) do if type(v) == "string" and (find(v, "x", 1, true) or S.upper(v) == "Y") then return deny(k) end end`),
	}
	for name, src := range lean {
		if strings.Contains(name, "nobody") {
			continue
		}
		if !leanAfterLoad(t, src) {
			t.Errorf("%s: lean = false, want true for:\n%s", name, src)
		}
	}
	kept := map[string]string{
		"type rebound before freezing": "local keep = {}\ntype = function(x) keep[#keep + 1] = x return \"table\" end\n" +
			reg(`if type(input.toolInput) == "x" then return nil end`),
		"a local named type":           "local keep = {}\nlocal type = function(x) keep[1] = x return \"string\" end\n" + reg(`local c = input.toolInput if type(c) == "string" then return nil end`),
		"table.insert":                 "local keep = {}\n" + reg(`table.insert(keep, input.toolInput)`),
		"setmetatable":                 reg(`setmetatable(input.toolInput, nil)`),
		"rawset into an upvalue":       "local keep = {}\n" + reg(`rawset(keep, 1, input.toolInput)`),
		"a closure capturing":          "local keep\n" + reg(`local a = input.toolInput keep = function() return a end`),
		"narrowed to a table":          "local keep\n" + reg(`local a = input.toolInput if type(a) == "table" then keep = a end`),
		"narrowed on the other branch": "local keep\n" + reg(`local a = input.toolInput if type(a) ~= "string" then keep = a end`),
		"type of another value":        "local keep\n" + reg(`local a, b = input.toolInput, input.toolInput.x if type(b) == "string" then keep = a end`),
		"rebound after the check":      "local keep\n" + reg(`local a = input.prompt if type(a) == "string" then a = input.toolInput keep = a end`),
		"a module field rebound":       "local m = {f = string.len}\nlocal keep = {}\n" + reg(`m.f(input.toolInput)`),
		"pairs, a value kept":          "local keep = {}\n" + reg(`for k, v in pairs(input.toolInput) do keep[k] = v end`),
		"a table written into it":      reg(`input.toolInput.x = {}`),
		"next kept":                    "local keep = {}\n" + reg(`local k, v = next(input.toolInput) keep[1] = v`),
		"a local builtin a function may rebind": "local keep = {}\nlocal type = type\n" +
			"function rebind() type = function(x) keep[1] = x return \"string\" end end\n" +
			reg(`if type(input.toolInput) == "x" then return nil end`),
		"a local builtin a nested function may rebind": "local keep = {}\nlocal type = type\n" +
			"function outer() return function() type = function(x) keep[1] = x return \"string\" end end end\n" +
			reg(`if type(input.toolInput) == "x" then return nil end`),
		"a local holding another file's value": "local keep = {}\nlocal f = function(x) keep[1] = x end\nlocal g = f\n" +
			reg(`g(input.toolInput)`),
	}
	for name, src := range kept {
		if leanAfterLoad(t, src) {
			t.Errorf("%s: lean = true, want false for:\n%s", name, src)
		}
	}
}

// re.match_any reads the table it is given and keeps none of it: a lean
// hook that hands it the tool input stays lean and allocates nothing.
func TestLeanHookReMatchAnyAllocatesNothing(t *testing.T) {
	src := `local SKIP = { command = true, description = true }
local match_any = re.match_any
hook.register("PreToolUse", "bash", function(input)
  if match_any("(?i)\\.env\\b", input.toolInput, SKIP) then return hook.deny("a path names .env") end
end)`
	f := load(t, src, Options{MaxStates: 1})
	in := preToolUse("bash", `{"command":"cat .env","timeout":1200,"description":"read .env","paths":["a","b"]}`)
	ctx := context.Background()
	h := f.Registrations()[0].Hook
	if out, err := h.Call(ctx, in); err != nil || out != nil {
		t.Fatalf("only skipped strings name .env: %+v %v", out, err)
	}
	if out, _ := h.Call(ctx, preToolUse("bash", `{"command":"ls","paths":["a",".env"]}`)); out == nil || out.Action != "deny" {
		t.Fatalf("a path in a list names .env: %+v", out)
	}
	if n := testing.AllocsPerRun(100, func() { h.Call(ctx, in) }); n != 0 && !raceEnabled && codec.DirectTables {
		t.Errorf("a lean hook calling re.match_any: %v allocations per call, want 0", n)
	}
}
