package luabind

import (
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// runHook loads a file with one Stop hook whose body is code, calls it and
// returns the call's error.
func runHook(t *testing.T, code string, opts Options) (*luahook.Outcome, error) {
	t.Helper()
	f := load(t, "hook.register('Stop', nil, function(input, rt)\n"+code+"\nend)", opts)
	return call(t, f, 0, &luahook.Input{Event: luahook.Stop})
}

func TestSandboxEscapesFail(t *testing.T) {
	libDir := t.TempDir()
	tests := []struct {
		name, code, want string
	}{
		{"os.execute", `os.execute("echo pwned")`, "os.execute is not available"},
		{"os.exit", `os.exit(1)`, "os.exit is not available"},
		{"os.getenv", `return hook.deny(os.getenv("HOME"))`, "os.getenv is not available"},
		{"os.remove", `os.remove("/tmp/x")`, "os.remove is not available"},
		{"io.open", `io.open("/etc/passwd")`, "the io library is not available"},
		{"io.popen", `io.popen("id")`, "the io library is not available"},
		{"dofile", `dofile("/etc/passwd")`, "dofile is not available"},
		{"loadfile", `loadfile("/etc/passwd")`, "loadfile is not available"},
		{"load of a binary chunk", `load("\27Lua\81\0\1\4\8\4\8\0")`, "load is not available"},
		{"loadstring", `loadstring("return 1")()`, "loadstring is not available"},
		{"require parent directory", `require("../x")`, `require "../x": a module name is dot-separated words`},
		{"require absolute path", `require("/etc/passwd")`, `require "/etc/passwd": a module name is dot-separated words`},
		{"require a standard library", `require("os")`, `require "os": module not found`},
		{"require dotted escape", `require("..etc")`, "a module name is dot-separated words"},
		{"package.loadlib", `package.loadlib("libc.so.6", "system")`, "the package library is not available"},
		{"debug.getinfo", `debug.getinfo(1)`, "the debug library is not available"},
		{"debug.sethook", `debug.sethook()`, "the debug library is not available"},
		{"collectgarbage", `collectgarbage()`, "collectgarbage is not available"},
		{"_printregs", `_printregs()`, "_printregs is not available"},
		{"getfenv", `local env = getfenv(0)`, "getfenv is not available"},
		{"setfenv", `setfenv(1, {})`, "setfenv is not available"},
		{"newproxy", `newproxy(true)`, "newproxy is not available"},
		{"module", `module("x")`, "module is not available"},
		{"string.dump", `string.dump(function() end)`, "string.dump is not available"},
		{"coroutine", `coroutine.create(function() end)`, "the coroutine library is not available"},
		{"channel", `channel.make()`, "the channel library is not available"},
		{"setmetatable on the string metatable", `setmetatable("", {})`, "bad argument #1 to setmetatable (table expected, got string)"},
		{"setmetatable on numbers", `setmetatable(1, {__index = function() return 1 end})`, "bad argument #1 to setmetatable (table expected, got number)"},
		{"getmetatable of a string is hidden", `local mt = getmetatable("") rawset(mt, "rep", nil)`, "bad argument #1 to rawset (table expected, got string)"},
		{"raw rep through the metatable", `getmetatable("").__index.rep("x", 1e9)`, "string.rep: result of 1000000000 bytes exceeds the 16 MiB limit"},
		{"rep as a method", `local s = ("x"):rep(1e9)`, "string.rep: result of 1000000000 bytes exceeds the 16 MiB limit"},
		{"new global", `leaked = 1`, "assignment to global 'leaked' inside a hook call"},
		{"overwrite a global", `hook = nil`, "assignment to global 'hook' inside a hook call"},
		{"rawset on the globals", `rawset(_G, "leaked", 1)`, "rawset: this table is read-only"},
		{"setmetatable on the globals", `setmetatable(_G, nil)`, "cannot change a protected metatable"},
		{"write rt", `rt.name = "x"`, "rt is read-only"},
		{"rawset rt", `rawset(rt, "name", "x")`, "rawset: this table is read-only"},
		{"setmetatable on rt", `setmetatable(rt, nil)`, "cannot change a protected metatable"},
		{"change json.null", `setmetatable(json.null, {})`, "bad argument #1 to setmetatable (table expected, got userdata)"},
		{"env not allowed", `env.get("HOME")`, `env.get: "HOME" is not an allowed environment variable`},
		{"pcall cannot hide a missing library", `local ok = pcall(function() return io end) if not ok then error("io stayed hidden") end`, "io stayed hidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runHook(t, tt.code, Options{LibDir: libDir})
			if err == nil {
				t.Fatalf("the escape worked: outcome %+v", out)
			}
			fl := failure(t, err)
			if fl.Kind != luahook.FailError || !strings.Contains(fl.Message, tt.want) {
				t.Errorf("failure %q (%s), want FailError containing %q", fl.Message, fl.Kind, tt.want)
			}
			if !strings.HasPrefix(fl.Message, testPath+":") {
				t.Errorf("failure %q does not name the file and line", fl.Message)
			}
		})
	}
}

func TestSandboxKeepsTheSafeParts(t *testing.T) {
	_, err := runHook(t, `
assert(type(os.time()) == "number")
assert(type(os.clock()) == "number")
assert(os.date("!%Y", 0) == "1970")
assert(os.difftime(10, 4) == 6)
assert(math.floor(2.5) == 2)
assert(table.concat({"a", "b"}, ",") == "a,b")
assert(("abc"):upper() == "ABC")
assert(string.format("%5.2f|%q", 1.5, "x") == " 1.50|\"x\"")
assert(select("#", 1, 2) == 2)
assert(pcall(error, "x") == false)
assert(type(getmetatable("")) == "string")
local t = setmetatable({}, {__index = function() return 7 end})
assert(t.anything == 7)
assert(rawget(t, "anything") == nil)
assert(rawset({}, "k", 1).k == 1)
local s = 0
for _, v in ipairs({1, 2, 3}) do s = s + v end
assert(s == 6)
assert(tostring(nil) == "nil" and tonumber("12") == 12)
assert(unpack({1, 2}) == 1)
print("printing goes to the logger")
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAllowLibsGrantsOSAndIO(t *testing.T) {
	t.Setenv("LUAHOOK_TEST_VAR", "granted")
	_, err := runHook(t, `
assert(os.getenv("LUAHOOK_TEST_VAR") == "granted")
assert(type(io.open) == "function")
`, Options{AllowLibs: []string{"os", "io"}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGlobalsAreWritableWhileLoadingOnly(t *testing.T) {
	f := load(t, `
counter = 0
function helper() return "helped" end
hook.register("Stop", nil, function()
  return hook.deny(helper() .. " " .. counter)
end)
hook.register("Stop", nil, function()
  counter = counter + 1
end)`, Options{})
	out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if err != nil || out.Reason != "helped 0" {
		t.Fatalf("reading globals set while loading: %v, %v", out, err)
	}
	_, err = call(t, f, 1, &luahook.Input{Event: luahook.Stop})
	if fl := failure(t, err); !strings.Contains(fl.Message, "assignment to global 'counter'") {
		t.Errorf("failure %v", fl)
	}
}

// TestTypeNamesEveryKindOfValueAsLuaDoes: the sandbox's type (answering
// from interned names) names every kind of value as Lua 5.1's does, and
// type() without an argument still raises.
func TestTypeNamesEveryKindOfValueAsLuaDoes(t *testing.T) {
	code := `
local want = {"boolean", "boolean", "number", "number", "string", "string", "table", "function", "function"}
for i, v in ipairs({false, true, 0, 1.5, "", "s", {}, print, function() end}) do
  assert(type(v) == want[i], tostring(v) .. ": " .. type(v))
end
assert(type(nil) == "nil")
local ok, err = pcall(function() return type() end)
assert(not ok and err:find("value expected"), tostring(err))
`
	if _, err := runHook(t, code, Options{}); err != nil {
		t.Fatal(err)
	}
}
