package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
)

// policyFile registers one fail-closed PreToolUse hook per case, matching
// the tool "case<i>", whose body is the case's code: a refused attempt is a
// denial naming the hook and the failure.
func policyFile(timeoutMs []int, codes []string) string {
	var b strings.Builder
	for i, code := range codes {
		fmt.Fprintf(&b, "hook.register('PreToolUse', 'case%d', function(input, rt)\ndo\n%s\nend\nreturn hook.deny('ESCAPED')\nend, {name = 'case%d', failure_policy = 'closed', timeout_ms = %d})\n",
			i, code, i, timeoutMs[i])
	}
	return b.String()
}

func TestSandboxEscapeAttemptsAreRefused(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	tests := []struct{ name, code, want string }{
		{"os.execute", `os.execute("touch ` + marker + `")`, "os.execute is not available"},
		{"os.exit", `os.exit(1)`, "os.exit is not available"},
		{"os.getenv", `return hook.deny(os.getenv("HOME"))`, "os.getenv is not available"},
		{"os.remove", `os.remove("` + marker + `")`, "os.remove is not available"},
		{"io.open", `io.open("/etc/passwd")`, "the io library is not available"},
		{"io.popen", `io.popen("touch ` + marker + `")`, "the io library is not available"},
		{"dofile", `dofile("/etc/passwd")`, "dofile is not available"},
		{"loadfile", `loadfile("/etc/passwd")`, "loadfile is not available"},
		{"load of bytecode", `load("\27Lua\81\0\1\4\8\4\8\0")`, "load is not available"},
		{"loadstring", `loadstring("return 1")()`, "loadstring is not available"},
		{"require outside lib", `require("../x")`, "a module name is dot-separated words"},
		{"require an absolute path", `require("/etc/passwd")`, "a module name is dot-separated words"},
		{"package.loadlib", `package.loadlib("libc.so.6", "system")`, "the package library is not available"},
		{"debug library", `debug.getinfo(1)`, "the debug library is not available"},
		{"string.dump", `string.dump(function() end)`, "string.dump is not available"},
		{"getfenv", `getfenv(0)`, "getfenv is not available"},
		{"setfenv", `setfenv(1, {})`, "setfenv is not available"},
		{"collectgarbage", `collectgarbage()`, "collectgarbage is not available"},
		{"coroutine", `coroutine.create(function() end)`, "the coroutine library is not available"},
		{"new global", `leaked = 1`, "assignment to global 'leaked'"},
		{"rawset on the globals", `rawset(_G, "hook", nil)`, "this table is read-only"},
		{"setmetatable on the globals", `setmetatable(_G, nil)`, "cannot change a protected metatable"},
		{"the string metatable", `rawset(getmetatable(""), "rep", nil)`, "table expected, got string"},
		{"raw string.rep through the metatable", `getmetatable("").__index.rep("x", 1e9)`, "exceeds the 16 MiB limit"},
		{"writing rt", `rt.name = "x"`, "rt is read-only"},
		{"env of a name not allowed", `return hook.deny("leaked " .. tostring(env.get("HOME")))`, `"HOME" is not an allowed environment variable`},
	}
	codes, timeouts := make([]string, len(tests)), make([]int, len(tests))
	for i, tt := range tests {
		codes[i], timeouts[i] = tt.code, 5000
	}
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"escape.lua": policyFile(timeouts, codes)})})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pre(e, fmt.Sprintf("case%d", i), `{}`)
			if msg := failures(res); !res.Denied() || !strings.Contains(res.Reason, "fail-closed") || !strings.Contains(msg, tt.want) {
				t.Errorf("denied %v, reason %q, failure %q; want a fail-closed denial, the failure saying %q", res.Denied(), res.Reason, msg, tt.want)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s exists: a hook ran a command", marker)
	}
	t.Logf("%d escape attempts refused", len(tests))
}

func TestResourceBombsAreStoppedWithTheHeapBounded(t *testing.T) {
	const deadline = 300 * time.Millisecond
	tests := []struct{ name, code, want string }{
		{"endless loop", `while true do end`, "timed out"},
		{"pcall cannot swallow the deadline", `while true do pcall(function() while true do end end) end`, "timed out"},
		{"deep recursion", `local function f() return 1 + f() end return f()`, "stack overflow"},
		{"string.rep", `local s = string.rep("x", 1e9)`, "exceeds the 16 MiB limit"},
		{"rep of rep", `local s = ("x"):rep(2^20):rep(2^20)`, "exceeds the 16 MiB limit"},
		{"doubling concatenation", `local s = "x" while true do s = s .. s end`, "..: result of 33554432 bytes exceeds the 16 MiB limit"},
		{"one concatenation of many big strings", `local s = ("x"):rep(2^23) return s .. s .. s .. s .. s .. s .. s .. s`, "..: result of 67108864 bytes exceeds the 16 MiB limit"},
		{"endless table", `local t = {} for i = 1, 2^40 do t[#t + 1] = i end`, "timed out"},
		{"table.concat", `local t, s = {}, ("x"):rep(2^20) for i = 1, 100 do t[i] = s end return table.concat(t)`, "table.concat: result of"},
		{"string.format width", `return string.format("%099999999d", 1)`, "invalid format"},
		{"gsub growth", `local s = ("x"):rep(2^21) s = s:gsub("", "yyyyyyyy")`, "string.gsub: result of"},
		{"unpack of a huge range", `return unpack({}, 1, 1e8)`, "registry overflow"},
		{"json.encode growth", `local t, s = {}, ("x"):rep(2^20) for i = 1, 100 do t[i] = s end return json.encode(t)`, "exceeds the 16 MiB limit"},
		{"json.decode depth", `return json.decode(("["):rep(200000))`, "json.decode"},
		{"re.gsub growth", `local s = ("x"):rep(2^20) return re.gsub(s, "x", ("y"):rep(100))`, "re.gsub"},
		{"store of a huge value", `local t = {} for i = 1, 2^5 do t[i] = ("x"):rep(2^20) end store.set("k", t)`, "exceeds"},
	}
	// Bombs stopped by a cap must fail on the cap, not on the clock, so they
	// get a long deadline (slow under -race) and must still be quick.
	codes, timeouts := make([]string, len(tests)), make([]int, len(tests))
	for i, tt := range tests {
		codes[i], timeouts[i] = tt.code, 10_000
		if tt.want == "timed out" {
			timeouts[i] = int(deadline / time.Millisecond)
		}
	}
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"bombs.lua": policyFile(timeouts, codes)})})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	var peak uint64
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			p, growth := heapPeak(func() {
				res := pre(e, fmt.Sprintf("case%d", i), `{}`)
				if msg := failures(res); !res.Denied() || !strings.Contains(res.Reason, "fail-closed") || !strings.Contains(msg, tt.want) {
					t.Errorf("denied %v, reason %q, failure %q; want a fail-closed denial, the failure saying %q", res.Denied(), res.Reason, msg, tt.want)
				}
			})
			if took := time.Since(start); took > deadline+5*time.Second {
				t.Errorf("stopped after %v, want within 5 s of the %v deadline", took, deadline)
			}
			// The string cap is 16 MiB; a bomb may hold a few such strings
			// and their copies at once, never the gigabytes it asks for.
			if growth > 512<<20 {
				t.Errorf("heap grew by %d MiB during the bomb, want under 512 MiB", growth>>20)
			}
			peak = max(peak, p)
		})
	}
	if res := pre(e, "case0", `{}`); !res.Denied() {
		t.Errorf("the engine stopped answering after the bombs: %+v", res)
	}
	t.Logf("%d bombs stopped; live heap high-water mark %d MiB", len(tests), peak>>20)
}
