package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/internal/store"
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
// and both work again once Redis is back on the same port (after the
// breaker's cool-down, for the store whose calls tripped it).
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
		if res := untilAnswered(t, e, "s1"); res.Denied() {
			t.Fatalf("with Redis back: denied: %s", res.Reason)
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
// and once the server answers again the store works (once the breaker
// those timeouts opened lets a call through).
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
	untilAnswered(t, e, "s1")
	e.Close()
	if n := settledGoroutines(before); n > before {
		t.Errorf("%d goroutines after the engine closed, %d before", n, before)
	}
}

// While the breaker is open, calls fail at once and nothing reaches the
// server; after the cool-down one call tries it, and when it answers the
// breaker closes. A refused reply counts as a failed call.
func TestAnOpenBreakerSendsNothingToTheServer(t *testing.T) {
	f := lyingServer(t, lies[0]) // store.get answered with a 1 TiB string; PING answered
	s, err := redisstore.New(redisstore.Options{Address: f.addr(), BreakerCooldown: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for range redisstore.DefaultBreakerFailures {
		if _, _, err := s.Get(ctx, "k"); err == nil || errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("a lie before the breaker opened: %v", err)
		}
	}
	sent := f.cmds.Load()
	for range 100 {
		if _, _, err := s.Get(ctx, "k"); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("a call on the open breaker: %v, want store.ErrUnavailable", err)
		}
	}
	if n := f.cmds.Load() - sent; n != 0 {
		t.Errorf("100 calls on the open breaker sent %d commands to the server", n)
	}
	m := s.Metrics()
	if m.Breaker != "open" || m.BreakerTrips != 1 || m.Ops[0].Unavailable != 100 || m.Ops[0].Errors != 3 || m.Ops[0].Count != 3 {
		t.Errorf("metrics: breaker %q, %d trips, get %+v; want open, 1, 100 unavailable and 3 errors", m.Breaker, m.BreakerTrips, m.Ops[0])
	}
	tries := 0
	for deadline := time.Now().Add(10 * time.Second); s.Ping(ctx) != nil; tries++ {
		if time.Now().After(deadline) {
			t.Fatal("the breaker let no call try the server within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if m := s.Metrics(); m.Breaker != "closed" || m.Ops[4].OK != 1 || m.Ops[4].Unavailable != uint64(tries) {
		t.Errorf("after the server answered a try: breaker %q, ping %+v (%d pings refused)", m.Breaker, m.Ops[4], tries)
	}
}

// A store that hangs (redis-server stopped with SIGSTOP for 5 s, as in the
// fleet's outage) does not stall the replica: once the breaker opens, each
// decision of the shipped rate limit fails closed at once and gives its Lua
// state back, so decisions keep flowing, counted here, and none waits for a
// state ("no Lua state became free"). Without the breaker, each of the 4
// states waited out the store's 1 s timeout: about 20 decisions in the
// pause. After SIGCONT the store answers again.
func TestAHungStoreTripsTheBreakerAndDecisionsKeepFlowing(t *testing.T) {
	srv := redistest.Start(t)
	e := openEngine(t, redisConfig(srv.Addr(), ""), map[string]string{"50-rate-limit.lua": rateLimit(t)})
	untilAnswered(t, e, "warm")

	const pause, workers, want = 5 * time.Second, 16, 500
	srv.Suspend()
	t.Cleanup(srv.Resume)
	// resumed closes before SIGCONT: a call the server answers once it runs
	// again ends after it, and is not counted in the pause.
	resumed, running := make(chan struct{}), make(chan struct{})
	time.AfterFunc(pause, func() { close(resumed); srv.Resume(); close(running) })
	var mu sync.Mutex
	decided, fast := 0, 0
	var wrong []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				res := bash(e, context.Background(), fmt.Sprintf("w%d-%d", w, i), "ls")
				select {
				case <-resumed:
					return // decided after the pause: not counted
				default:
				}
				f := failure(res)
				mu.Lock()
				decided++
				switch {
				case !res.Denied() || f == nil:
					wrong = append(wrong, fmt.Sprintf("not denied: %+v", res.Trace))
				case strings.Contains(f.Message, "no Lua state became free"):
					wrong = append(wrong, f.Message)
				case strings.Contains(f.Message, "store.get: redis at "+srv.Addr()+": unavailable: the breaker is ") &&
					strings.HasSuffix(f.Message, ", after 3 failed calls in a row (the last: no answer within the call's timeout of 1s)"):
					fast++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	<-running
	for i, w := range wrong {
		if i == 5 {
			t.Errorf("... and %d more", len(wrong)-5)
			break
		}
		t.Error(w)
	}
	if fast < want {
		t.Errorf("%d decisions in the %v pause (%d failed at once by the breaker), want at least %d failed at once", decided, pause, fast, want)
	}
	m, _ := e.StoreMetrics()
	if m.BreakerTrips < 1 || m.Ops[0].Unavailable < uint64(fast) {
		t.Errorf("metrics after the pause: %d trips, get %+v", m.BreakerTrips, m.Ops[0])
	}
	untilAnswered(t, e, "after")
	if m, _ := e.StoreMetrics(); m.Breaker != "closed" {
		t.Errorf("the store answers again but the breaker is %s", m.Breaker)
	}
	t.Logf("%d decisions in the %v pause, %d failed at once by the breaker; %d trips", decided, pause, fast, m.BreakerTrips)
}
