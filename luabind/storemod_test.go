package luabind

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// storeRun runs code as the body of a hook over store and returns the
// failure's message ("" when the hook succeeds).
func storeRun(t *testing.T, store *Store, code string) string {
	t.Helper()
	out, err := runHook(t, code, Options{Store: store})
	if err != nil {
		f := failure(t, err)
		if f.Kind != luahook.FailError {
			t.Fatalf("failure %v, want one of kind error", f)
		}
		return f.Message
	}
	if out != nil && out.Action == luahook.ActionDeny {
		return "denied: " + out.Reason
	}
	return ""
}

// fakeClock is a store clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func fakeStore(l StoreLimits) (*Store, *fakeClock) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	s := NewStore()
	modules.SetClock(s, c.Now)
	s.SetLimits(l)
	return s, c
}

// checkStore verifies the store's bookkeeping (modules.CheckStore): its byte
// count, and that the expiry heap holds exactly the entries with a TTL, in
// heap order.
func checkStore(t *testing.T, s *Store) {
	t.Helper()
	if err := modules.CheckStore(s); err != nil {
		t.Fatal(err)
	}
}

// Each limit of the store: a write at the limit is stored, one past it is
// refused with an error naming the limit, and changes nothing.
func TestStoreRefusesWritesPastEachLimit(t *testing.T) {
	tests := []struct {
		name   string
		limits StoreLimits
		setup  string // run first; must succeed
		atCap  string // must succeed
		past   string // must fail with want
		want   string
	}{
		{"key length (default 1 KiB)", StoreLimits{}, ``,
			`store.set(("k"):rep(1024), 1) store.incr(("i"):rep(1024))`,
			`store.set(("k"):rep(1025), 1)`, "store.set: a key of 1025 bytes exceeds the 1 KiB limit on a key"},
		{"key length of a counter", StoreLimits{}, ``, `store.incr(("i"):rep(1024))`,
			`store.incr(("i"):rep(1025))`, "store.incr: a key of 1025 bytes exceeds the 1 KiB limit on a key"},
		{"string value (default 1 MiB)", StoreLimits{}, ``, `store.set("s", ("x"):rep(2^20))`,
			`store.set("s", ("x"):rep(2^20 + 1))`, `store.set: the value for "s" (1048577 bytes) exceeds the 1 MiB limit on a value`},
		{"table value as JSON (default 1 MiB)", StoreLimits{}, ``, `store.set("t", { ("x"):rep(2^20 - 4) })`,
			`store.set("t", { ("x"):rep(2^20 - 3) })`, `store.set: cannot store the table under "t": JSON text exceeds the 1 MiB limit`},
		{"table value, small limit", StoreLimits{MaxValueBytes: 100}, ``, `store.set("t", { a = ("x"):rep(92) })`,
			`store.set("t", { a = ("x"):rep(93) })`, `JSON text exceeds the 100 bytes limit`},
		{"number of keys", StoreLimits{MaxKeys: 100}, `for i = 1, 99 do store.set("k" .. i, true) end`,
			`store.incr("k100")`, `store.set("k101", 1)`, `store.set: cannot add "k101": the store holds its limit of 100 keys`},
		{"number of keys, counter", StoreLimits{MaxKeys: 100}, `for i = 1, 99 do store.set("k" .. i, true) end`,
			`store.set("k100", "v")`, `store.incr("k101")`, `store.incr: cannot add "k101": the store holds its limit of 100 keys`},
		{"total bytes", StoreLimits{MaxBytes: 1000}, `for i = 0, 8 do store.set("k" .. i, ("x"):rep(98)) end`,
			`store.set("k9", ("x"):rep(98))`, `store.set("k", "")`, `store.set: cannot store "k": the store would hold 1001 bytes, over its 1000 bytes limit`},
		{"total bytes, counter", StoreLimits{MaxBytes: 1000}, `for i = 0, 8 do store.set("k" .. i, ("x"):rep(98)) end`,
			`store.set("k9", ("x"):rep(89)) store.incr("n")`, `store.incr("m")`, `the store would hold 1009 bytes, over its 1000 bytes limit`},
		{"total bytes, a value grown in place", StoreLimits{MaxBytes: 1000}, `for i = 0, 9 do store.set("k" .. i, ("x"):rep(98)) end`,
			`store.set("k9", ("y"):rep(98)) store.set("k8", 1)`, `store.set("k9", ("y"):rep(189))`, `would hold 1001 bytes`},
		{"total bytes (default 64 MiB)", StoreLimits{}, `for i = 10, 73 do store.set("k" .. i, ("x"):rep(2^20 - 3)) end`,
			`store.set("k10", "") store.set("k10", ("x"):rep(2^20 - 3))`, `store.set("x", "")`,
			`store.set: cannot store "x": the store would hold 67108865 bytes, over its 64 MiB limit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.SetLimits(tt.limits)
			if msg := storeRun(t, s, tt.setup); msg != "" {
				t.Fatalf("setup: %s", msg)
			}
			if msg := storeRun(t, s, tt.atCap); msg != "" {
				t.Fatalf("at the limit: %s", msg)
			}
			before := s.Stats()
			msg := storeRun(t, s, tt.past)
			if !strings.Contains(msg, tt.want) {
				t.Fatalf("past the limit: %q, want %q", msg, tt.want)
			}
			if !strings.Contains(msg, "test.lua:") {
				t.Errorf("error %q carries no file:line", msg)
			}
			if after := s.Stats(); after != before {
				t.Errorf("a refused write changed the store: %+v, then %+v", before, after)
			}
			checkStore(t, s)
		})
	}
}

// The store is process-wide: many goroutines (Lua states and Go callers)
// write, count, read and delete at once while the sweeper drops entries
// and writes hit the limits. Run under -race.
func TestStoreIsSafeForConcurrentUseWhileSweeping(t *testing.T) {
	s := NewStore()
	defer s.Close()
	s.SetLimits(StoreLimits{MaxKeys: 200, MaxBytes: 200 * 64})
	f := load(t, `hook.register("Stop", nil, function()
  for i = 1, 20 do
    local k = "lua:" .. math.random(1, 300)
    pcall(store.incr, k, 1, math.random(0, 5))
    pcall(store.set, k .. "t", { n = i }, math.random(1, 5))
    store.get(k)
    if i % 7 == 0 then store.delete(k) end
  end
end)`, Options{Store: s})
	stop := time.Now().Add(300 * time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for time.Now().Before(stop) {
				if g%2 == 0 {
					if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				k := fmt.Sprint("go:", r.IntN(300))
				ttl := time.Duration(r.IntN(5)) * time.Millisecond
				var err error
				switch r.IntN(4) {
				case 0:
					err = s.Set(context.Background(), k, strings.Repeat("v", r.IntN(40)), ttl)
				case 1:
					_, err = s.Incr(context.Background(), k, 1, ttl)
				case 2:
					s.Get(context.Background(), k)
				case 3:
					s.Delete(context.Background(), k)
				}
				var le *StoreLimitError
				if err != nil && !errors.As(err, &le) && !strings.Contains(err.Error(), "not a number") {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkStore(t, s)
	if st := s.Stats(); st.Keys > 200 || st.Bytes > 200*64 {
		t.Errorf("stats %+v past the limits", st)
	}
}

// store.incr counts in finite numbers only: a delta or a result that is NaN
// or infinite is an error that leaves the counter as it was.
func TestStoreIncrRefusesNonFiniteNumbers(t *testing.T) {
	tests := []struct{ code, want string }{
		{`store.incr("n", 0/0)`, "bad argument #2 to incr (delta must be a finite number, got NaN)"},
		{`store.incr("n", 1/0)`, "delta must be a finite number, got +Inf"},
		{`store.incr("n", -1/0)`, "delta must be a finite number, got -Inf"},
		{`store.incr("n", math.huge) store.incr("n", math.huge)`, "is not a finite number"},
		{`store.incr("n", "many")`, "bad argument #2 to incr (number expected, got string)"},
		{`store.incr("n", {})`, "bad argument #2 to incr (number expected, got table)"},
		{`store.incr("n", 1e308) store.incr("n", 1e308)`, `store.incr: 1e+308 + 1e+308 under "n" is not a finite number`},
		{`store.set("n", 0/0) store.incr("n")`, `store.incr: NaN + 1 under "n" is not a finite number`},
		{`store.set("n", "5") store.incr("n")`, `store.incr: the value of "n" is a string, not a number`},
		{`store.set("n", {}) store.incr("n")`, `store.incr: the value of "n" is a table, not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			s := NewStore()
			if msg := storeRun(t, s, tt.code); !strings.Contains(msg, tt.want) {
				t.Errorf("%q, want %q", msg, tt.want)
			}
		})
	}
	s := NewStore()
	if msg := storeRun(t, s, `store.incr("n", 1e308) pcall(store.incr, "n", 1e308) assert(store.incr("n", -1e308) == 0)`); msg != "" {
		t.Errorf("a refused incr changed the counter: %s", msg)
	}
	if _, err := s.Incr(context.Background(), "n", nan(), 0); err == nil {
		t.Error("Store.Incr of NaN: no error")
	}
}

func nan() float64 { zero := 0.0; return zero / zero }

// ttl_ms is a number of milliseconds from 0 (never) to MaxStoreTTL; beyond,
// a conversion to time.Duration would overflow into "never" or the past.
func TestStoreTTLMustBeInRange(t *testing.T) {
	const want = "ttl_ms must be a number of milliseconds from 0 (never expires) to 315360000000 (10 years), got "
	for _, tt := range []struct{ code, got string }{
		{`store.set("k", "v", -1)`, "-1"},
		{`store.set("k", "v", 0/0)`, "NaN"},
		{`store.set("k", "v", 1/0)`, "+Inf"},
		{`store.set("k", "v", math.huge)`, "1.7976931348623157e+308"},
		{`store.set("k", "v", 1e300)`, "1e+300"},
		{`store.set("k", "v", 315360000001)`, "3.15360000001e+11"},
		{`store.incr("k", 1, 2^63)`, "9.223372036854776e+18"},
		{`store.incr("k", 1, -1/0)`, "-Inf"},
	} {
		if msg := storeRun(t, NewStore(), tt.code); !strings.Contains(msg, want+tt.got) {
			t.Errorf("%s: %q, want %q", tt.code, msg, want+tt.got)
		}
	}
	s, clock := fakeStore(StoreLimits{})
	if msg := storeRun(t, s, `store.set("max", "v", 315360000000) store.set("never", "v", 0) store.incr("c", 1, 0.5)`); msg != "" {
		t.Fatal(msg)
	}
	clock.Advance(MaxStoreTTL - time.Millisecond)
	if _, ok, _ := s.Get(context.Background(), "max"); !ok {
		t.Error("an entry with the longest TTL expired early")
	}
	clock.Advance(time.Millisecond)
	if _, ok, _ := s.Get(context.Background(), "max"); ok {
		t.Error("an entry with the longest TTL did not expire")
	}
	if _, ok, _ := s.Get(context.Background(), "never"); !ok {
		t.Error("an entry without a TTL expired")
	}
	if err := s.Set(context.Background(), "k", "v", MaxStoreTTL+1); err == nil {
		t.Error("Store.Set past MaxStoreTTL: no error")
	}
}

// Keys are strings; a number is one in Lua's way (12 is "12"), anything else
// is an argument error.
func TestStoreKeysAreStrings(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{`store.set({}, 1)`, "bad argument #1 to set (string expected, got table)"},
		{`store.set(nil, 1)`, "bad argument #1 to set (string expected, got nil)"},
		{`store.incr(true)`, "bad argument #1 to incr (string expected, got boolean)"},
		{`store.get(print)`, "bad argument #1 to get (string expected, got function)"},
		{`store.delete()`, "bad argument #1 to delete (string expected, got nil)"},
		{`store.set("f", print)`, "bad argument #2 to set (string, number, boolean, table or nil expected, got function)"},
	} {
		if msg := storeRun(t, NewStore(), tt.code); !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %q, want %q", tt.code, msg, tt.want)
		}
	}
	if msg := storeRun(t, NewStore(), `store.set(12, "v") assert(store.get("12") == "v")`); msg != "" {
		t.Error(msg)
	}
}

// TestStoreNumbersKeepTheirSign: the numbers boxed once (small integers)
// stand in only for themselves: a stored -0 reads back as -0.
func TestStoreNumbersKeepTheirSign(t *testing.T) {
	// (One chunk must not also hold a literal 0: gopher-lua's constant
	// table takes 0 and -0 for the same constant.)
	out, err := runHook(t, `store.set("z", -0.0)
return hook.deny(tostring(1 / store.get("z")) .. " " .. tostring(store.incr("d", 3)))`, Options{Store: NewStore()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "-Inf 3"; out == nil || out.Reason != want {
		t.Fatalf("got %+v, want %q", out, want)
	}
}
