package luabind

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// callOK calls registration 0 of f and fails the test on any failure or
// denial, naming what the Lua side found wrong.
func callOK(t *testing.T, f *File) {
	t.Helper()
	out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if err != nil {
		t.Fatal(failure(t, err).Message)
	}
	if out != nil && out.Action == luahook.ActionDeny {
		t.Fatal(out.Reason)
	}
}

// TestMemoComputesOnceAndHandsOutCopies: the second call with the same
// function and arguments does not run the function and returns the same
// values in new tables; a caller's change to its copy reaches neither the
// cache nor the next caller; other arguments are another entry.
func TestMemoComputesOnceAndHandsOutCopies(t *testing.T) {
	f := load(t, `
local runs = 0
local function f(s, k) runs = runs + 1; return { s = s, list = { 1, 2, { x = k } } }, "second" end
hook.register("Stop", nil, function()
  local before = runs
  local a = memo.call(f, "x", 1)
  local c, d = memo.call(f, "x", 1)
  if runs - before > 1 then return hook.deny("computed twice for the same arguments") end
  if a == c or a.list == c.list then return hook.deny("the same table handed out twice") end
  if d ~= "second" or c.s ~= "x" or c.list[3].x ~= 1 or #c.list ~= 3 then return hook.deny("the copy differs") end
  c.list[3].x = 99
  c.s = nil
  local e = memo.call(f, "x", 1)
  if e.list[3].x ~= 1 or e.s ~= "x" then return hook.deny("a caller's change reached the cache") end
  local g = memo.call(f, "x", 2)
  if g.list[3].x ~= 2 then return hook.deny("the arguments are not in the key") end
  local h = memo.call(f, "x", "1")
  if h.list[3].x ~= "1" then return hook.deny("1 and '1' share an entry") end
end)`, Options{})
	hits, misses := modules.MemoStats()
	callOK(t, f)
	callOK(t, f)
	h2, m2 := modules.MemoStats()
	// first call: misses for (x,1), (x,2), (x,"1") and hits for the two
	// repeats; second call: five hits
	if h2-hits < 7 || m2-misses > 3 {
		t.Errorf("hits %d, misses %d over two calls; want at least 7 hits and at most 3 misses", h2-hits, m2-misses)
	}
}

// TestMemoKeepsSharedTablesShared: a table reachable twice in a result,
// and one that holds itself, are one table in each copy, as in the
// original; pairs sees the keys in the original's order.
func TestMemoKeepsSharedTablesShared(t *testing.T) {
	f := load(t, `
local function f()
  local w = { text = "a" }
  local t = { first = w, list = { w, w } }
  t.self = t
  local o = {}
  for _, k in ipairs({ "zeta", "alpha", "mid", "beta" }) do o[k] = true end
  t.order = o
  return t
end
hook.register("Stop", nil, function()
  memo.call(f)
  local t = memo.call(f)
  if t.first ~= t.list[1] or t.list[1] ~= t.list[2] then return hook.deny("a shared table was copied apart") end
  if t.self ~= t then return hook.deny("a table holding itself lost itself") end
  local keys = {}
  for k in pairs(t.order) do keys[#keys + 1] = k end
  local want = {}
  for k in pairs(f().order) do want[#want + 1] = k end
  if table.concat(keys, ",") ~= table.concat(want, ",") then
    return hook.deny("pairs order " .. table.concat(keys, ",") .. ", want " .. table.concat(want, ","))
  end
end)`, Options{})
	callOK(t, f)
}

// TestMemoDoesNotKeepWhatIsNotData: a result holding a function or a table
// with a metatable is returned as computed and computed again next time;
// a function of Go is called but never kept.
func TestMemoDoesNotKeepWhatIsNotData(t *testing.T) {
	f := load(t, `
local runs = 0
local function with_fn() runs = runs + 1; return { f = function() end } end
local function with_mt() runs = runs + 1; return setmetatable({}, { __index = {} }) end
hook.register("Stop", nil, function()
  runs = 0
  local a = memo.call(with_fn); local b = memo.call(with_fn)
  if runs ~= 2 or type(b.f) ~= "function" then return hook.deny("a result holding a function was kept") end
  local c = memo.call(with_mt); local d = memo.call(with_mt)
  if runs ~= 4 or getmetatable(d) == nil then return hook.deny("a table with a metatable was kept") end
  if memo.call(string.upper, "ab") ~= "AB" then return hook.deny("a Go function was not called") end
end)`, Options{})
	callOK(t, f)
}

// TestMemoRefusesArgumentsItCannotKeyOn: a table argument is an error
// naming the argument, and so are too many arguments.
func TestMemoRefusesArgumentsItCannotKeyOn(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, "memo.call keys on strings, numbers, booleans and nil, not table"},
		{strings.Repeat("1, ", 16) + "1", "17 arguments, more than the 16"},
	} {
		f := load(t, `
local function f(...) return 1 end
hook.register("Stop", nil, function() memo.call(f, `+c.args+`) end)`, Options{})
		_, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
		if err == nil || !strings.Contains(failure(t, err).Message, c.want) {
			t.Errorf("memo.call(f, %s): %v, want an error holding %q", c.args, err, c.want)
		}
	}
}

// TestMemoSharesAcrossFilesOfOneLibSourceOnly: two files that require the
// same lib source with one ChunkCache share its entries (the second file's
// call finds the first one's result); a file whose lib source differs
// computes its own, so two versions of a lib never share results.
func TestMemoSharesAcrossFilesOfOneLibSourceOnly(t *testing.T) {
	lib := func(version string) string {
		dir := t.TempDir()
		src := `local function f(s) return { s = s, v = "` + version + `" } end
return { get = function(s) return memo.call(f, s) end }`
		if err := os.WriteFile(filepath.Join(dir, "m.lua"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	file := func(dir, name, want string, cache *ChunkCache) *File {
		c, err := Compile(name, []byte(`local m = require("m")
hook.register("Stop", nil, function()
  local r = m.get("line")
  if r.v ~= "`+want+`" then return hook.deny("got version " .. r.v .. ", want `+want+`") end
end)`))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Load(context.Background(), c, Options{LibDir: dir, Chunks: cache})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		return f
	}
	v1 := lib("one")
	cache := &ChunkCache{}
	a, b := file(v1, "a.lua", "one", cache), file(v1, "b.lua", "one", cache)
	callOK(t, a)
	hits, _ := modules.MemoStats()
	callOK(t, b)
	if h, _ := modules.MemoStats(); h != hits+1 {
		t.Errorf("the second file of the load computed again (hits %d -> %d)", hits, h)
	}
	other := file(lib("two"), "c.lua", "two", &ChunkCache{})
	callOK(t, other)
}

// TestMemoDoesNotKeyOnArgumentsPastItsBound: arguments longer than a kept
// result may be are not copied into a key (a 3 MiB line would cost 3 MiB
// for nothing: no such entry is kept): fn runs each time, and the call
// allocates far less than the argument.
func TestMemoDoesNotKeyOnArgumentsPastItsBound(t *testing.T) {
	f := load(t, `
local runs = 0
local function f(s) runs = runs + 1; return #s end
local big = string.rep("x", 3 * 1024 * 1024)
hook.register("Stop", nil, function()
  runs = 0
  if memo.call(f, big) ~= #big or memo.call(f, big) ~= #big or runs ~= 2 then
    return hook.deny("wrong result or runs: " .. runs)
  end
end)`, Options{MaxStringBytes: 8 << 20})
	callOK(t, f)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	callOK(t, f)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("a call with a 3 MiB argument allocated %d bytes", got)
	}
}
