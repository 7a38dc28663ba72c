package luabind

import (
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// TestTableSortWatchesTheDeadline: substrings share their memory, so 500
// strings of 15 MiB cost nothing to make, and every comparison reads 15 MiB.
func TestTableSortWatchesTheDeadline(t *testing.T) {
	for _, code := range []string{
		`local s = ("x"):rep(2^24 - 2^20) local t = {} for i = 1, 500 do t[i] = s:sub(i) end table.sort(t)`,
	} {
		r := runBounded(t, code, Options{}, 100*time.Millisecond)
		if r.elapsed > 2*time.Second {
			t.Errorf("%.80s: returned after %v, want within 2 s of a 100 ms deadline", code, r.elapsed)
		}
		if fl := failure(t, r.err); fl.Kind != luahook.FailTimeout {
			t.Errorf("%.80s: failure %v, want FailTimeout", code, fl)
		}
	}
}

// TestTableSortKeepsLua51Semantics checks table.sort against the results
// of the reference Lua 5.1 interpreter.
func TestTableSortKeepsLua51Semantics(t *testing.T) {
	cases := []string{
		`local t = {5, 2, 8, 1, 9, 3} table.sort(t) assert(table.concat(t, ",") == "1,2,3,5,8,9")`,
		`local t = {5, 2, 8, 1, 9, 3} table.sort(t, function(a, b) return a > b end) assert(table.concat(t, ",") == "9,8,5,3,2,1")`,
		`local t = {"b", "a", "c", "ab"} table.sort(t) assert(table.concat(t, ",") == "a,ab,b,c")`,
		`local t = {} table.sort(t) assert(#t == 0)`,
		`local t = {1} table.sort(t) assert(t[1] == 1)`,
		`local t = {2, 1} table.sort(t) assert(t[1] == 1 and t[2] == 2)`,
		`local t = {3, 1, 2} table.sort(t) assert(table.concat(t) == "123")`,
		`local t = {} for i = 1, 1000 do t[i] = (i * 7919) % 1000 end table.sort(t) for i = 2, 1000 do assert(t[i-1] <= t[i]) end`,
		`local t = {} for i = 1, 1000 do t[i] = 1 end table.sort(t) assert(#t == 1000)`,
		`local t = {3, 1, 2, n = "x"} table.sort(t) assert(table.concat(t) == "123" and t.n == "x")`,
		`local mt = {__lt = function(a, b) return a.v < b.v end}
		 local t = {} for i = 1, 10 do t[i] = setmetatable({v = 11 - i}, mt) end
		 table.sort(t) for i = 1, 10 do assert(t[i].v == i) end`,
		`local ok, err = pcall(table.sort, {1, "x", 2}) assert(not ok and err:find("attempt to compare"))`,
		`local t = {} for i = 1, 100 do t[i] = i end
		 local ok, err = pcall(table.sort, t, function(a, b) return true end)
		 assert(not ok and err:find("invalid order function for sorting"), err)`,
		`local ok, err = pcall(table.sort, {3, 2, 1}, function() error("boom") end) assert(not ok and err:find("boom"))`,
		`assert(not pcall(table.sort, {3, 2, 1}, 5))`,
		`assert(not pcall(table.sort))`,
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("do " + c + " end\n")
	}
	if _, err := runHook(t, b.String(), Options{}); err != nil {
		t.Fatal(err)
	}
}
