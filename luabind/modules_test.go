package luabind

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a handler.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLogReachesTheLoggerTaggedWithFileAndHook(t *testing.T) {
	var buf lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := load(t, `
log.info("loading", { n = 1 })
hook.register("Stop", nil, function(input, rt)
  log.debug("dbg")
  log.warn("careful", { z = "last", a = 2.5, ok = true, t = { 1, 2 } })
  log.error("bad")
  print("printed", 1, nil)
end, { name = "logger" })`, Options{Logger: logger})
	if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
		t.Fatal(err)
	}
	recs := buf.records(t)
	want := []map[string]any{
		{"level": "INFO", "msg": "loading", "file": testPath, "n": 1.0},
		{"level": "DEBUG", "msg": "dbg", "file": testPath, "hook": "logger"},
		{"level": "WARN", "msg": "careful", "file": testPath, "hook": "logger", "z": "last", "a": 2.5, "ok": true, "t": "[1,2]"},
		{"level": "ERROR", "msg": "bad", "file": testPath, "hook": "logger"},
		{"level": "INFO", "msg": "printed\t1\tnil", "file": testPath, "hook": "logger"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %v", len(recs), len(want), recs)
	}
	for i, r := range recs {
		delete(r, "time")
		if !jsonEqual(r, want[i]) {
			t.Errorf("record %d: %v, want %v", i, r, want[i])
		}
	}
	buf.mu.Lock()
	line := strings.Split(buf.b.String(), "\n")[2]
	buf.mu.Unlock()
	if !strings.Contains(line, `"z":"last","a":2.5,"ok":true`) {
		t.Errorf("fields not in the order they were set: %s", line)
	}
}

func jsonEqual(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestReModule(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function()
  assert(re.match("^a+b$", "aaab"))
  assert(not re.match("^a+b$", "aaabc"))
  local m, y, mo = re.find("(\\d{4})-(\\d{2})", "on 2024-05-01")
  assert(m == "2024-05" and y == "2024" and mo == "05")
  assert(re.find("x", "abc") == nil)
  local m2, opt = re.find("a(z)?", "a")
  assert(m2 == "a" and opt == nil)
  local all = re.find_all("\\w+", "one two three")
  assert(#all == 3 and all[3] == "three" and json.encode(all) == '["one","two","three"]')
  assert(#re.find_all("\\w+", "one two three", 2) == 2)
  assert(json.encode(re.find_all("z", "abc")) == "[]")
  local s, n = re.gsub("a1b22c333", "\\d+", "#")
  assert(s == "a#b#c#" and n == 3)
  assert(re.gsub("john smith", "(\\w+) (\\w+)", "$2 $1") == "smith john")
  assert(re.gsub("k=v", "(?P<key>\\w+)=(?P<val>\\w+)", "${val}=${key}") == "v=k")
  assert(re.gsub("abc", "\\w", function(c) if c == "b" then return nil end return c:upper() end) == "AbC")
  assert(re.gsub("aaa", "a", "b", 2) == "bba")
  assert(json.encode(re.split(",\\s*", "a, b,c")) == '["a","b","c"]')
  assert(json.encode(re.split(",", "a,b,c", 2)) == '["a","b,c"]')
  assert(re.match(re.quote("a.b*"), "a.b*") and not re.match("^" .. re.quote("a.b") .. "$", "axb"))
  local ok, err = pcall(re.gsub, ("x"):rep(2^17), "", "")
  assert(not ok and err:find("re.gsub: more than 65536 matches", 1, true), err)
end)
hook.register("Stop", nil, function() return re.match("(", "x") end)
hook.register("Stop", nil, function()
  for i = 1, 50 do assert(re.match("^cached-\\d+$", "cached-" .. i)) end
end)`, Options{})
	if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, f, 1, &luahook.Input{Event: luahook.Stop})
	if fl := failure(t, err); !strings.Contains(fl.Message, `re.match: bad pattern "(": error parsing regexp: missing closing )`) ||
		!strings.HasPrefix(fl.Message, testPath+":") {
		t.Errorf("failure %v", fl)
	}
	before := f.sh.re.Compiles()
	for i := 0; i < 3; i++ {
		if _, err := call(t, f, 2, &luahook.Input{Event: luahook.Stop}); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.sh.re.Compiles() - before; n != 1 {
		t.Errorf("a pattern used 150 times was compiled %d times, want once", n)
	}
}

func TestStoreTTLExpiresEntries(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	store := NewStore()
	modules.SetClock(store, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := load(t, `
hook.register("Stop", nil, function()
  store.set("short", "v", 100)
  store.set("long", 42)
  store.set("flag", true)
  store.set("doc", { a = { 1, 2 }, b = json.null, e = {} })
  assert(store.incr("window", 1, 100) == 1)
end)
hook.register("Stop", nil, function()
  return hook.deny(json.encode({
    short = store.get("short"), long = store.get("long"), flag = store.get("flag"),
    doc = store.get("doc"), window = store.incr("window", 1, 100) }))
end)
hook.register("Stop", nil, function()
  store.delete("long")
  store.set("flag", nil)
  assert(store.get("long") == nil and store.get("flag") == nil)
  local ok, err = pcall(store.incr, "doc")
  assert(not ok and err:find("not a number", 1, true), err)
  assert(not pcall(store.set, "f", print))
end)`, Options{Store: store})
	stop := &luahook.Input{Event: luahook.Stop}
	if _, err := call(t, f, 0, stop); err != nil {
		t.Fatal(err)
	}
	advance(50 * time.Millisecond)
	out, err := call(t, f, 1, stop)
	if err != nil || out.Reason != `{"short":"v","long":42,"flag":true,"doc":{"a":[1,2],"b":null,"e":{}},"window":2}` {
		t.Errorf("before expiry: %v, %v", out, err)
	}
	advance(60 * time.Millisecond)
	out, err = call(t, f, 1, stop)
	if err != nil || out.Reason != `{"long":42,"flag":true,"doc":{"a":[1,2],"b":null,"e":{}},"window":1}` {
		t.Errorf("after expiry: %v, %v", out, err)
	}
	if _, err := call(t, f, 2, stop); err != nil {
		t.Error(err)
	}
}

func TestStoreIncrIsAtomicAcrossStatesAndFiles(t *testing.T) {
	store := NewStore()
	src := `hook.register("Stop", nil, function() store.incr("hits") store.incr("hits", 2) end)`
	files := []*File{load(t, src, Options{Store: store}), load(t, src, Options{Store: store})}
	const goroutines, calls = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := 0; c < calls; c++ {
				if _, err := files[(g+c)%2].Registrations()[0].Hook.Call(context.Background(), &luahook.Input{Event: luahook.Stop}); err != nil {
					t.Error(err)
					return
				}
				if _, err := store.Incr(context.Background(), "hits", 1, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if v, _, _ := store.Get(context.Background(), "hits"); v != float64(goroutines*calls*4) {
		t.Errorf("hits = %v, want %d", v, goroutines*calls*4)
	}
}

func TestEnvReadsAllowedNamesOnly(t *testing.T) {
	env := map[string]string{"TEAM": "infra", "SECRET_TOKEN": "s3cr3t"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	_, err := runHook(t, `
assert(env.get("TEAM") == "infra")
assert(env.get("UNSET") == nil)
local ok, err = pcall(env.get, "SECRET_TOKEN")
assert(not ok and err:find('"SECRET_TOKEN" is not an allowed environment variable', 1, true), err)
`, Options{AllowEnv: []string{"TEAM", "UNSET"}, LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRequireLoadsFromTheLibDirOnly(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	write := func(name, src string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/util.lua", `store.incr("util runs") local M = {} function M.twice(s) return s .. s end return M`)
	write("lib/text/case.lua", `local util = require("util") return { shout = function(s) return util.twice(s):upper() end }`)
	write("lib/flag.lua", `store.incr("flag runs")`)
	write("lib/cycle_a.lua", `return require("cycle_b")`)
	write("lib/cycle_b.lua", `return require("cycle_a")`)
	write("secret.lua", `return "outside"`)
	if err := os.Symlink(filepath.Join(dir, "secret.lua"), filepath.Join(lib, "link.lua")); err != nil {
		t.Fatal(err)
	}
	store := NewStore()
	f := load(t, `
local case = require("text.case")
hook.register("Stop", nil, function()
  local util = require("util")
  assert(require("util") == util)
  assert(require("flag") == true)
  return hook.deny(case.shout("ab") .. " " .. util.twice("x"))
end)
hook.register("Stop", nil, function(input) return require(input.prompt) end)
`, Options{LibDir: lib, Store: store})
	stop := &luahook.Input{Event: luahook.Stop}
	for i := 0; i < 3; i++ {
		out, err := call(t, f, 0, stop)
		if err != nil || out.Reason != "ABAB xx" {
			t.Fatalf("call %d: %v, %v", i, out, err)
		}
	}
	if v, _, _ := store.Get(context.Background(), "util runs"); v != 1.0 {
		t.Errorf("util ran %v times in one state, want once (modules are cached per state)", v)
	}
	if got := f.Requires(); !slices.Equal(got, []string{"text.case", "util", "flag"}) {
		t.Errorf("Requires() = %v", got)
	}
	for name, want := range map[string]string{
		"../secret":    "a module name is dot-separated words",
		"/etc/passwd":  "a module name is dot-separated words",
		"os":           `require "os": module not found in ` + lib,
		"link":         `require "link": openat ` + filepath.Join(lib, "link.lua") + `: path escapes from parent`,
		"cycle_a":      `require "cycle_a": cycle (cycle_a -> cycle_b -> cycle_a)`,
		"missing.deep": "looked for missing/deep.lua",
	} {
		_, err := call(t, f, 1, &luahook.Input{Event: luahook.Stop, Prompt: name})
		if fl := failure(t, err); !strings.Contains(fl.Message, want) {
			t.Errorf("require %q: %v, want %q", name, fl, want)
		}
	}
	_, err := runHook(t, `require("util")`, Options{})
	if fl := failure(t, err); !strings.Contains(fl.Message, "no lib directory is configured") {
		t.Errorf("require without LibDir: %v", fl)
	}
}
