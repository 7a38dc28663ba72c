package redisstore_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// counter is a hook file whose one bash hook counts the session's calls in
// the store, with the given failure policy and timeout.
func counter(name, policy string, timeoutMs int) string {
	return fmt.Sprintf(`hook.register("PreToolUse", "bash", function(input, rt)
  store.incr("calls:" .. rt.session_id, 1, 60000)
end, { name = %q, failure_policy = %q, timeout_ms = %d })
`, name, policy, timeoutMs)
}

func redisConfig(addr string, extra string) string {
	return "[store]\nbackend = \"redis\"\naddress = \"" + addr + "\"\n" + extra
}

// settledGoroutines waits, up to a bound, for the number of goroutines to
// come back to at most want, and returns the number it saw last.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// When Redis goes away mid-run, a fail-closed hook that uses the store
// denies with the store's error, a fail-open one is skipped, nothing leaks,
// and both work again once Redis is back on the same port.
func TestRedisStoppedMidRun(t *testing.T) {
	srv := redistest.Start(t)
	before := runtime.NumGoroutine()
	closed := openEngine(t, redisConfig(srv.Addr(), ""), map[string]string{"50-count.lua": counter("count-closed", "closed", 2000)})
	open := openEngine(t, redisConfig(srv.Addr(), ""), map[string]string{"50-count.lua": counter("count-open", "open", 2000)})
	ctx := context.Background()
	for _, e := range []*engine.Engine{closed, open} {
		if res := bash(e, ctx, "s1", "ls"); res.Denied() || failure(res) != nil {
			t.Fatalf("with Redis up: denied %v, failure %v", res.Denied(), failure(res))
		}
	}
	if err := closed.StoreCheck(ctx); err != nil {
		t.Fatalf("StoreCheck with Redis up: %v", err)
	}

	srv.Stop()
	prefix := "store.incr: redis at " + srv.Addr() + ": "
	var last string
	for i := range 3 { // the first call may find a pooled connection closed; later ones dial
		res := bash(closed, ctx, "s1", "ls")
		f := failure(res)
		if !res.Denied() || f == nil || f.Kind != luahook.FailError || !strings.Contains(f.Message, prefix) {
			t.Fatalf("fail-closed hook, Redis stopped, call %d: denied %v, failure %+v; want a deny with an error of kind error naming %q", i, res.Denied(), f, prefix)
		}
		if !strings.Contains(res.Reason, prefix) {
			t.Errorf("the deny's reason does not carry the store's error: %q", res.Reason)
		}
		last = f.Message
	}
	if !strings.HasSuffix(last, prefix+"connect: connection refused") {
		t.Errorf("with nothing listening, the error is %q, want it to end %q", last, prefix+"connect: connection refused")
	}
	res := bash(open, ctx, "s1", "ls")
	if f := failure(res); res.Denied() || f == nil || f.Kind != luahook.FailError || !strings.Contains(f.Message, prefix) {
		t.Fatalf("fail-open hook, Redis stopped: denied %v, failure %+v; want it skipped with the store's error", res.Denied(), f)
	}
	if err := closed.StoreCheck(ctx); err == nil || !strings.Contains(err.Error(), "redis at "+srv.Addr()) {
		t.Errorf("StoreCheck with Redis stopped: %v", err)
	}
	if m, ok := closed.StoreMetrics(); !ok || m.Ops[2].Op != "incr" || m.Ops[2].OK != 1 || m.Ops[2].Errors != 3 {
		t.Errorf("incr metrics after 1 good call and 3 refused: %+v", m)
	}

	srv.Restart()
	for _, e := range []*engine.Engine{closed, open} {
		if res := bash(e, ctx, "s1", "ls"); res.Denied() || failure(res) != nil {
			t.Fatalf("with Redis back: denied %v, failure %v", res.Denied(), failure(res))
		}
	}
	closed.Close()
	open.Close()
	if n := settledGoroutines(before); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the engines closed, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// A Redis that does not answer holds no hook past its deadline: the call is
// a timeout (the hook's deadline) or an error naming the store's timeout_ms
// (when that comes first).
func TestSlowRedisHoldsNoHookPastItsDeadline(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	hookDeadline := openEngine(t, redisConfig(srv.Addr(), "timeout_ms = 600000\n"),
		map[string]string{"50-count.lua": counter("count", "closed", 200)})
	storeDeadline := openEngine(t, redisConfig(srv.Addr(), "timeout_ms = 100\n"),
		map[string]string{"50-count.lua": counter("count", "closed", 600000)})
	for _, e := range []*engine.Engine{hookDeadline, storeDeadline} { // connections made before the pause
		if res := bash(e, ctx, "s1", "ls"); failure(res) != nil {
			t.Fatalf("with Redis up: %v", failure(res))
		}
	}
	srv.Pause(time.Minute) // far longer than any deadline here; the test unpauses it
	t.Cleanup(srv.Unpause)

	res := bash(hookDeadline, ctx, "s1", "ls")
	if f := failure(res); !res.Denied() || f == nil || f.Kind != luahook.FailTimeout {
		t.Errorf("hook timeout_ms 200 over a paused Redis: denied %v, failure %+v; want a timeout", res.Denied(), f)
	}
	res = bash(storeDeadline, ctx, "s1", "ls")
	want := "store.incr: redis at " + srv.Addr() + ": no answer within the call's timeout of 100ms"
	if f := failure(res); !res.Denied() || f == nil || f.Kind != luahook.FailError || !strings.Contains(f.Message, want) {
		t.Errorf("store timeout_ms 100 over a paused Redis: denied %v, failure %+v; want an error %q", res.Denied(), f, want)
	}
	if m, _ := storeDeadline.StoreMetrics(); m.Ops[2].Timeouts != 1 {
		t.Errorf("incr metrics after one call past timeout_ms: %+v", m.Ops[2])
	}
}

// With every connection of the pool held by a call the server does not
// answer, the other calls fail at their own deadline: nothing waits past it,
// and once the server answers again the store works.
func TestExhaustedPoolFailsCallsAtTheirDeadline(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	before := runtime.NumGoroutine()
	e := openEngine(t, redisConfig(srv.Addr(), "pool_size = 1\ntimeout_ms = 600000\n"),
		map[string]string{"50-count.lua": counter("count", "closed", 300)})
	if res := bash(e, ctx, "s1", "ls"); failure(res) != nil {
		t.Fatalf("with Redis up: %v", failure(res))
	}
	srv.Pause(time.Minute)
	const callers = 4 // no more than the file's Lua states, so that each waits on the store's pool
	var wg sync.WaitGroup
	kinds := make([]luahook.FailureKind, callers)
	for i := range callers {
		wg.Go(func() {
			if f := failure(bash(e, ctx, fmt.Sprint("s", i), "ls")); f != nil {
				kinds[i] = f.Kind
			}
		})
	}
	wg.Wait() // returns only if every call ended at its deadline
	for i, k := range kinds {
		if k != luahook.FailTimeout {
			t.Errorf("caller %d over a pool of 1 held by a paused server: failure %q, want a timeout", i, k)
		}
	}
	srv.Unpause()
	if res := bash(e, ctx, "s1", "ls"); failure(res) != nil {
		t.Fatalf("after the pause: %v", failure(res))
	}
	e.Close()
	if n := settledGoroutines(before); n > before {
		t.Errorf("%d goroutines after the engine closed, %d before", n, before)
	}
}
