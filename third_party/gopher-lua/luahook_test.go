package lua

// Tests of the changes luahook made to this copy (README.md): each fast
// path must give what the call it replaces gives, and the context must
// still stop a running chunk.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// runFast runs src in a fresh state whose globals hold slowType (type as a Go
// function without a fast form) and fastType (the same with a Fast form),
// and returns what the chunk returned, printed.
func runFast(t *testing.T, src string) string {
	t.Helper()
	L := NewState()
	defer L.Close()
	L.SetContext(context.Background())
	gtype := func(L *LState) int {
		L.Push(LString(L.CheckAny(1).Type().String()))
		return 1
	}
	L.SetGlobal("slowType", L.NewFunction(gtype))
	fast := L.NewFunction(gtype)
	fast.Fast = &FastForms{Call: func(_ *LFunction, args, results []LValue) int {
		if len(args) != 1 || args[0].Type() == LTTable {
			return -1 // the usual call answers tables
		}
		results[0] = LString(args[0].Type().String())
		return 1
	}}
	L.SetGlobal("fastType", fast)
	if err := L.DoString(src); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	var out []string
	for i := 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i).String())
	}
	return strings.Join(out, ",")
}

// TestFastGivesWhatTheCallGives runs the same chunks through a Go function
// with a Fast form and one without: a fixed number of arguments for one
// result takes the fast form (which declines tables and other counts than
// one), every other shape the call, and each answers alike (results, what
// is left in the registers around them, errors).
func TestFastGivesWhatTheCallGives(t *testing.T) {
	for _, body := range []string{
		`local a = F(1) return a`,
		`local a, b, c = 1, F("x"), 3 return a, b, c`,
		`return F(nil), F(true), F({}), F(F)`,
		`local t = {} t[1] = F(2) t[2] = F(t) return t[1], t[2]`,
		`return select('#', F(1))`,
		`return F(1, 2)`,
		`local a, b = F(1) return a, b`,
		`local x = 1 local y = F(x) .. F(x) return x, y`,
		`local function f(...) return F(...) end return f(1), f({})`,
		`local n = 0 for i = 1, 100 do if F(i) == "number" then n = n + 1 end end return n`,
		`local s = "" for i = 1, 3 do local a, b = i, F(i) s = s .. a .. b end return s`,
		`local ok, err = pcall(function() return F() end) return ok, (string.gsub(err, ".*:", ""))`,
	} {
		slow := runFast(t, strings.ReplaceAll(body, "F(", "slowType("))
		fast := runFast(t, strings.ReplaceAll(body, "F(", "fastType("))
		slow = strings.ReplaceAll(slow, "slowType", "F")
		fast = strings.ReplaceAll(fast, "fastType", "F")
		if slow != fast {
			t.Errorf("%s: with the fast form %q, without %q", body, fast, slow)
		}
	}
}

// TestIndexingAsUpstream reads fields the ways the inlined GETTABLE and
// GETTABLEKS take (a table's own field, a missing one, through __index
// tables and functions, of strings, of what cannot be indexed).
func TestIndexingAsUpstream(t *testing.T) {
	got := runFast(t, `
local plain = {a = 1, [2] = "two", [true] = "yes"}
local base = {b = "from base"}
local viaTable = setmetatable({}, {__index = base})
local viaFunc = setmetatable({x = false}, {__index = function(t, k) return "f:" .. tostring(k) end})
local k, two = "a", 2
local ok, err = pcall(function() local n = 5 return n.field end)
local ok2, err2 = pcall(function() local n, key = nil, "k" return n[key] end)
return plain.a, plain[k], plain[two], plain[true], plain.missing, plain[3],
  viaTable.b, viaTable[("b")], viaTable.c, viaFunc.y, viaFunc[7], viaFunc.x,
  ("abc").len, #(("abc"):rep(2)), ok, (string.gsub(err, ".*: ", "")), ok2, (string.gsub(err2, ".*: ", ""))`)
	want := "1,1,two,yes,nil,nil,from base,from base,nil,f:y,f:7,false," +
		"function: builtin,6,false,attempt to index a non-table object(number) with key 'field'," +
		"false,attempt to index a non-table object(nil) with key 'k'"
	if g := strings.Split(got, ","); len(g) > 12 && strings.HasPrefix(g[12], "function: ") {
		g[12] = "function: builtin"
		got = strings.Join(g, ",")
	}
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestFastIsTaken holds that the fast form is what answers a call of fixed
// arguments for one result, and the function every other call or when the
// form declines: a Fast answering differently from its function shows.
func TestFastIsTaken(t *testing.T) {
	L := NewState()
	defer L.Close()
	f := L.NewFunction(func(L *LState) int { L.Push(LString("call")); return 1 })
	f.Fast = &FastForms{Call: func(_ *LFunction, args, results []LValue) int {
		if len(args) == 2 {
			return -1
		}
		results[0] = LString(fmt.Sprintf("fast%d%d", len(args), len(results)))
		return 1
	}}
	L.SetGlobal("f", f)
	if err := L.DoString(`a = f(1) b = f(1, 2) c = f() d = f(1, 2, 3) e = f(unpack({1, 2, 3})) local x, y = f(1) g = y h = x`); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a": "fast11", "b": "call", "c": "fast01", "d": "fast31", "e": "call", "g": "nil", "h": "fast12"} {
		if got := L.GetGlobal(name).String(); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// iterBuild builds a table t with an array part and keys of every kind in
// its hash part, one of them removed.
const iterBuild = `
local t = {}
for i = 1, 5 do t[i] = i * 10 end
t.a, t.b, t.c, t[2.5], t[100], t[true] = "A", "B", "C", "half", "hundred", "yes"
t.b = nil
t.d = "D"
`

// TestIterWalksAsTheCallDoes walks tables with pairs, next and ipairs (whose
// steps have an Iter form) and with a plain Go copy of next (none): the
// same keys and values in the same order, also when the loop clears the
// field it stands on, when loops nest over one table or two, and when the
// loop asks for more than two values.
func TestIterWalksAsTheCallDoes(t *testing.T) {
	walks := []string{
		`for k, v in ITER do out[#out+1] = tostring(k) .. "=" .. tostring(v) end`,
		`for k in ITER do out[#out+1] = tostring(k) end`,
		`for k, v, x in ITER do out[#out+1] = tostring(k) .. tostring(v) .. tostring(x) end`,
		`for k, v in ITER do t[k] = nil out[#out+1] = tostring(k) end for k in ITER do out[#out+1] = "left " .. tostring(k) end`,
		`for k in ITER do for k2 in ITER do out[#out+1] = tostring(k) .. tostring(k2) end end`,
		`local u = {x = 1, y = 2, 9} for k in ITER do for k2 in pairs(u) do out[#out+1] = tostring(k) .. tostring(k2) end end`,
		`for k, v in ITER do if k == "c" then break end out[#out+1] = tostring(k) end`,
	}
	for _, walk := range walks {
		for _, iter := range []string{"pairs(t)", "next, t", "ipairs(t)"} {
			var got [2]string
			for i, it := range []string{iter, strings.NewReplacer("pairs(t)", "slowpairs(t)", "ipairs(t)", "slowipairs(t)", "next, t", "slownext, t").Replace(iter)} {
				L := NewState()
				L.SetGlobal("slownext", L.NewFunction(func(L *LState) int {
					k, v := L.CheckTable(1).Next(L.Get(2))
					if k == LNil {
						L.Push(LNil)
						return 1
					}
					L.Push(k)
					L.Push(v)
					return 2
				}))
				L.SetGlobal("slowipairsaux", L.NewFunction(ipairsaux))
				src := iterBuild + `
function slowpairs(t) return slownext, t, nil end
function slowipairs(t) return slowipairsaux, t, 0 end
out = {}
` + strings.ReplaceAll(walk, "ITER", it) + `
return table.concat(out, ";")`
				if err := L.DoString(src); err != nil {
					t.Fatalf("%s with %s: %v", walk, it, err)
				}
				got[i] = L.Get(-1).String()
				L.Close()
			}
			if got[0] != got[1] {
				t.Errorf("%s with %s:\n fast %s\n call %s", walk, iter, got[0], got[1])
			}
			if got[0] == "" {
				t.Errorf("%s with %s walked nothing", walk, iter)
			}
		}
	}
}

// TestIterErrorsAsTheCallDoes: pairs' step on what is not a table raises
// the error its call raises.
func TestIterErrorsAsTheCallDoes(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`local f = pairs({}) for k in f, 42 do end`)
	if err == nil || !strings.Contains(err.Error(), "table expected") {
		t.Fatalf("pairs' step on a number: %v, want the table-expected error", err)
	}
	err = L.DoString(`local f = ipairs({}) for k in f, {}, "x" do end`)
	if err == nil || !strings.Contains(err.Error(), "number expected") {
		t.Fatalf("ipairs' step from a string: %v, want the number-expected error", err)
	}
}

// TestNextFromAgreesWithNext steps through tables with nextFrom from every
// place and every hint, and holds that it answers as Next.
func TestNextFromAgreesWithNext(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(iterBuild + `T = t`); err != nil {
		t.Fatal(err)
	}
	tb := L.GetGlobal("T").(*LTable)
	keys := []LValue{LNil}
	for k, _ := tb.Next(LNil); k != LNil; k, _ = tb.Next(k) {
		keys = append(keys, k)
	}
	for _, k := range keys {
		wantK, wantV := tb.Next(k)
		for hint := -2; hint <= len(tb.keys)+1; hint++ {
			at := hint
			gotK, gotV := tb.nextFrom(k, &at)
			if gotK != wantK || gotV != wantV {
				t.Fatalf("nextFrom(%v) with hint %d = %v, %v; Next gives %v, %v", k, hint, gotK, gotV, wantK, wantV)
			}
			if at >= 0 && tb.keys[at] != gotK {
				t.Fatalf("nextFrom(%v) left the hint at %d, which holds %v, not %v", k, at, tb.keys[at], gotK)
			}
		}
	}
}

// TestContextStopsATightLoop: a loop of cheap instructions is stopped once
// its context ends (within ctxCheckEvery instructions).
func TestContextStopsATightLoop(t *testing.T) {
	for _, src := range []string{
		`while true do end`,
		`local i = 0 while true do i = i + 1 end`,
		`local t = {} while true do for k, v in pairs(t) do end end`,
		`while true do local a = type(1) end`,
		`while true do pcall(function() while true do end end) end`,
		`local function g() return pcall(function() while true do end end) end while true do g() end`,
		`local function g() return pcall(function() local i = 0 while true do i = i + 1 end end) end
		 while true do for i = 1, 3 do g() end end`,
		`while true do pcall(pcall, function() while true do end end) end`,
		`local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end) co()`,
	} {
		L := NewState()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		L.SetContext(ctx)
		done := make(chan error, 1)
		go func() { done <- L.DoString(src) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
				t.Errorf("%s: %v, want the deadline's error", src, err)
			}
			L.Close()
		case <-time.After(5 * time.Second):
			// the state is left running: closing it under the chunk would race
			t.Errorf("%s still runs 5 s after a 50 ms deadline", src)
		}
		cancel()
	}
}

// TestContextIsReadAfterEveryGoCall: in a loop whose every step is a slow
// Go function, the chunk stops right after the call during which the
// context ended, not ctxCheckEvery instructions later, however the Go
// function is reached: called, tail-called, as a for's iterator without a
// fast form, as an __index, __eq or __call metamethod.
func TestContextIsReadAfterEveryGoCall(t *testing.T) {
	for _, src := range []string{
		`while true do step() end`,
		`local function f() return step() end while true do f() end`,
		`local function f(x) return step(x) end while true do for k in step do end end`,
		`local t = setmetatable({}, {__index = step}) while true do local v = t.field end`,
		`local t, k = setmetatable({}, {__index = step}), 1 while true do local v = t[k] end`,
		`local mt = {__eq = step} local a, b = setmetatable({}, mt), setmetatable({}, mt) while true do local e = a == b end`,
		`local c = setmetatable({}, {__call = step}) while true do c() end`,
	} {
		L := NewState()
		ctx, cancel := context.WithCancel(context.Background())
		var calls, after atomic.Int64
		L.SetGlobal("step", L.NewFunction(func(L *LState) int {
			if ctx.Err() != nil {
				after.Add(1)
			}
			if calls.Add(1) == 5 {
				cancel()
			}
			return 0
		}))
		L.SetContext(ctx)
		err := L.DoString(src)
		L.Close()
		cancel()
		if err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("%s: %v, want the cancellation's error", src, err)
			continue
		}
		if calls.Load() != 5 || after.Load() != 0 {
			t.Errorf("%s: %d calls, %d of them after the context ended; want 5 and 0", src, calls.Load(), after.Load())
		}
	}
}

// BenchmarkFastPaths measures a hook-like body with the fast paths (type
// with a Fast form, pairs' Iter) against the same body through calls.
func BenchmarkFastPaths(b *testing.B) {
	for _, c := range []struct{ name, typ, pairs string }{
		{"fast", "fastType", "pairs"},
		{"call", "slowType", "slowpairs"},
	} {
		b.Run(c.name, func(b *testing.B) {
			L := NewState()
			defer L.Close()
			L.SetContext(context.Background())
			gtype := func(L *LState) int {
				L.Push(LString(L.CheckAny(1).Type().String()))
				return 1
			}
			names := [LTChannel + 1]LValue{}
			for i := range names {
				names[i] = LString(LValueType(i).String())
			}
			fast := L.NewFunction(gtype)
			fast.Fast = &FastForms{Call: func(_ *LFunction, args, results []LValue) int {
				if len(args) != 1 {
					return -1
				}
				results[0] = names[args[0].Type()]
				return 1
			}}
			L.SetGlobal("fastType", fast)
			L.SetGlobal("slowType", L.NewFunction(gtype))
			L.SetGlobal("slownext", L.NewFunction(func(L *LState) int {
				k, v := L.CheckTable(1).Next(L.Get(2))
				L.Push(k)
				L.Push(v)
				return 2
			}))
			src := fmt.Sprintf(`
local type, pairs = %s, %s
return function(t)
  local n = 0
  for k, v in pairs(t) do
    if type(v) == "string" then n = n + 1 end
  end
  return n
end`, c.typ, c.pairs)
			if err := L.DoString(`function slowpairs(t) return slownext, t, nil end`); err != nil {
				b.Fatal(err)
			}
			if err := L.DoString(src); err != nil {
				b.Fatal(err)
			}
			fn := L.Get(-1)
			L.Pop(1)
			t := L.NewTable()
			t.RawSetString("command", LString("go test ./..."))
			t.RawSetString("timeout", LNumber(120000))
			t.RawSetString("description", LString("Run the tests"))
			for i := 0; i < b.N; i++ {
				L.Push(fn)
				L.Push(t)
				L.Call(1, 1)
				L.Pop(1)
			}
		})
	}
}

// TestPairsFastFormGivesWhatTheCallGives: pairs and ipairs called for a
// fixed number of results (their Fast form) give what their call gives for
// all results (C = 0, which takes the call), and raise its error on what is
// not a table.
func TestPairsFastFormGivesWhatTheCallGives(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`
local t = {1, 2, a = 3}
for _, start in ipairs({pairs, ipairs}) do
  local all = {start(t)}
  local f1, s1, c1 = start(t)
  local f2, s2, c2, d2 = start(t)
  local f3 = start(t)
  local f4, s4 = start(t, "extra")
  assert(#all == 3 or (all[3] == nil and #all == 2), #all)
  assert(f1 == all[1] and s1 == all[2] and c1 == all[3], "three results")
  assert(f2 == all[1] and s2 == all[2] and c2 == all[3] and d2 == nil, "four results")
  assert(f3 == all[1], "one result")
  assert(f4 == all[1] and s4 == t, "an extra argument")
  local ok, err = pcall(function() local f, s, c = start(1) return f end)
  assert(not ok and err:find("table expected"), tostring(err))
  ok, err = pcall(function() local f, s, c = start() return f end)
  assert(not ok and err:find("table expected"), tostring(err))
end`)
	if err != nil {
		t.Fatal(err)
	}
}
