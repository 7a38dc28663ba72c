package luabind

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// heapBound is the most heap a bomb may leave in use once its state is gone
// and the garbage collected (measured: a few MiB).
const heapBound = 64 << 20

func TestResourceBombsStopWithinTheirDeadline(t *testing.T) {
	const deadline = 200 * time.Millisecond
	tests := []struct {
		name, code string
		kind       luahook.FailureKind // "" = defused: the call completes
		want       string
		capBytes   int // Options.MaxStringBytes; 0 = the default 16 MiB
	}{
		{"endless loop", `while true do end`, luahook.FailTimeout, "deadline", 0},
		{"pcall cannot swallow the deadline", `while true do pcall(function() while true do end end) end`, luahook.FailTimeout, "deadline", 0},
		{"deep recursion", `local function f() return 1 + f() end return f()`, luahook.FailError, "stack overflow (Lua calls nest at most 200 deep)", 0},
		{"string.rep", `local s = string.rep("x", 1e9)`, luahook.FailError, "string.rep: result of 1000000000 bytes exceeds the 16 MiB limit", 0},
		{"rep method", `local s = ("x"):rep(1e9)`, luahook.FailError, "string.rep: result of 1000000000 bytes exceeds the 16 MiB limit", 0},
		{"rep with a long string", `local s = ("x"):rep(2^20):rep(2^20)`, luahook.FailError, "exceeds the 16 MiB limit", 0},
		{"table grown to 2^26 entries", `local t = {} for i = 1, 2^26 do t[#t + 1] = i end`, luahook.FailTimeout, "deadline", 0},
		{"sparse index 2^26", `local t = {} t[2^26] = 1 t[2^26 - 1] = 1 t[2^25] = 1`, "", "", 0},
		{"concat loop", `local s = "x" while true do s = s .. s end`, luahook.FailError, "..: result of 33554432 bytes exceeds the 16 MiB limit", 0},
		{"table.concat", `local t, s = {}, ("x"):rep(2^20) for i = 1, 100 do t[i] = s end return table.concat(t)`, luahook.FailError, "table.concat: result of", 0},
		{"string.format width", `return string.format("%099999999d", 1)`, luahook.FailError, "invalid format (width or precision too long)", 0},
		{"string.format of big strings", `local s = ("x"):rep(2^23) return string.format("%s%s%s", s, s, s)`, luahook.FailError, "string.format: result of up to", 0},
		{"gsub growth", `local s = ("x"):rep(2^16) s = s:gsub("", "yyyy")`, luahook.FailError, "string.gsub: result of", 1 << 18},
		{"gsub replacement loop", `local s = ("x"):rep(2^20) while true do s = s:gsub("x", "x") end`, luahook.FailTimeout, "deadline", 0},
		{"gmatch over a big string", `local n = 0 for c in (("ab"):rep(2^22)):gmatch(".") do n = n + 1 end while true do end`, luahook.FailTimeout, "deadline", 0},
		{"unpack of a huge range", `return unpack({}, 1, 1e8)`, luahook.FailError, "registry overflow", 0},
		{"json.encode growth", `local t, s = {}, ("x"):rep(2^16) for i = 1, 100 do t[i] = s end return json.encode(t)`, luahook.FailError, "exceeds the 1 MiB limit", 1 << 20},
		{"re.gsub growth", `local s = ("x"):rep(2^12) return re.gsub(s, "x", ("y"):rep(100))`, luahook.FailError, "re.gsub: result of", 1 << 18},
		{"store of a huge table", `local t = {} for i = 1, 2^10 do t[i] = ("x"):rep(2^10) end store.set("k", t)`, luahook.FailError, "exceeds the 1 MiB limit", 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, "hook.register('Stop', nil, function()\n"+tt.code+"\nend)\nhook.register('Stop', nil, function() return hook.deny('alive') end)",
				Options{MaxStringBytes: tt.capBytes})
			// Bombs stopped by a cap must fail on the cap, not on the clock, so
			// they get a long deadline (slow under -race) and must still be quick.
			d := deadline
			if tt.kind != luahook.FailTimeout {
				d = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			start := time.Now()
			_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
			elapsed := time.Since(start)
			if elapsed > deadline+2*time.Second {
				t.Errorf("returned after %v, want within 2 s of the %v deadline", elapsed, deadline)
			}
			if tt.kind == "" {
				if err != nil {
					t.Errorf("error %v, want the bomb defused", err)
				}
			} else if fl := failure(t, err); fl.Kind != tt.kind || !strings.Contains(fl.Message, tt.want) {
				t.Errorf("failure %q (%s), want %s containing %q", fl.Message, fl.Kind, tt.kind, tt.want)
			}
			if tt.kind != "" && tt.kind != luahook.FailInvalidOutput {
				if s := f.Stats(); s.Discarded != 1 {
					t.Errorf("stats %+v, want the bombed state discarded", s)
				}
			}
			out, err := call(t, f, 1, &luahook.Input{Event: luahook.Stop})
			if err != nil || out.Reason != "alive" {
				t.Errorf("the next call on the file: %v, %v", out, err)
			}
			f.Close()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > heapBound {
				t.Errorf("heap in use after the bomb: %d MiB, want under %d MiB", ms.HeapInuse>>20, heapBound>>20)
			}
			t.Logf("%v, heap in use after: %d MiB, obtained from the OS so far: %d MiB", elapsed.Round(time.Millisecond), ms.HeapInuse>>20, ms.HeapSys>>20)
		})
	}
}
