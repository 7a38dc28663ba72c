package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// storeDown is the error of a store check while the store is away.
var storeDown = errors.New("store: dial tcp 127.0.0.1:6379: connect: connection refused")

func TestReadyzIs503UnreadyWhileTheStoreDoesNotAnswerAndHealthzStaysOK(t *testing.T) {
	var down atomic.Bool
	g := newRig(t, Options{StoreCheck: func(context.Context) error {
		if down.Load() {
			return storeDown
		}
		return nil
	}, StoreCheckEvery: time.Nanosecond}) // every probe checks
	want := func(path string, code int, body string) {
		t.Helper()
		if c, b := g.get(path); c != code || strings.TrimSpace(b) != body {
			t.Errorf("%s = %d %s, want %d %s", path, c, strings.TrimSpace(b), code, body)
		}
	}
	want("/readyz", 200, `{"status":"ok"}`)
	down.Store(true)
	want("/readyz", 503, `{"status":"unready","store":"`+storeDown.Error()+`"}`)
	want("/healthz", 200, `{"status":"ok"}`)
	down.Store(false)
	want("/readyz", 200, `{"status":"ok"}`)
}

func TestReadyzListsLoadErrorsBesideTheStoreError(t *testing.T) {
	g := newRig(t, Options{Health: func() []error { return []error{errors.New("hooks.d/10-x.lua:3: boom")} },
		StoreCheck: func(context.Context) error { return storeDown }})
	c, b := g.get("/readyz")
	if want := `{"status":"unready","errors":["hooks.d/10-x.lua:3: boom"],"store":"` + storeDown.Error() + `"}`; c != 503 || strings.TrimSpace(b) != want {
		t.Errorf("/readyz = %d %s, want 503 %s", c, b, want)
	}
}

func TestAStormOfReadinessProbesMakesOneStoreCheckPerPeriod(t *testing.T) {
	var checks atomic.Int64
	g := newRig(t, Options{StoreCheck: func(context.Context) error {
		checks.Add(1)
		return nil
	}, StoreCheckEvery: time.Hour})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			resp, err := g.srv.Client().Get(g.srv.URL + "/readyz")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("/readyz = %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if n := checks.Load(); n != 1 {
		t.Errorf("50 probes within one period made %d store checks, want 1", n)
	}
}

func TestAStoreCheckIsBoundedByItsTimeout(t *testing.T) {
	g := newRig(t, Options{StoreCheck: func(ctx context.Context) error {
		<-ctx.Done() // a store that never answers
		return ctx.Err()
	}, StoreCheckTimeout: 20 * time.Millisecond})
	c, b := g.get("/readyz")
	if c != 503 || !strings.Contains(b, `"status":"unready","store":"context deadline exceeded"`) {
		t.Errorf("/readyz with a store that never answers = %d %s, want 503 unready with the deadline", c, b)
	}
}

func TestDrainTurnsReadyzDrainingWhileHookRequestsAreStillAnswered(t *testing.T) {
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg})
	t.Cleanup(run.Close)
	var checks atomic.Int64
	h := New(run, Options{StoreCheck: func(context.Context) error { checks.Add(1); return nil }, StoreCheckEvery: time.Nanosecond})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	g := &rig{t: t, reg: reg, run: run, srv: srv}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Hook: answer(luahook.Deny("no"))})

	h.Drain()
	if !h.Draining() {
		t.Error("Draining() is false after Drain")
	}
	before := checks.Load()
	if c, b := g.get("/readyz"); c != http.StatusServiceUnavailable || strings.TrimSpace(b) != `{"status":"draining"}` {
		t.Errorf("/readyz while draining = %d %s, want 503 draining", c, b)
	}
	if checks.Load() != before {
		t.Error("a draining replica checked the store for /readyz")
	}
	if c, b := g.post("/", `{"event":"PreToolUse","toolName":"bash","toolInput":{}}`); c != 200 || strings.TrimSpace(b) != `{"action":"deny","reason":"no"}` {
		t.Errorf("a hook request while draining = %d %s, want its answer", c, b)
	}
	if c, _ := g.get("/healthz"); c != 200 {
		t.Errorf("/healthz while draining = %d, want 200 (liveness)", c)
	}
}

func TestMetricsServeTheStoreCallsAndTheInstance(t *testing.T) {
	g := newRig(t, Options{Instance: "replica-a", Store: func() []StoreOpStats {
		return []StoreOpStats{
			{Op: "incr", Results: map[string]uint64{"ok": 7, "error": 2}, Count: 9, Sum: 0.009, Buckets: map[float64]uint64{0.001: 8, 0.01: 9}},
			{Op: "get", Results: map[string]uint64{"ok": 3}, Count: 3, Sum: 0.0003, Buckets: map[float64]uint64{0.001: 3}},
		}
	}})
	m := scrape(t, g.srv.URL)
	for series, want := range map[string]float64{
		`luahook_store_calls_total{op="incr",result="ok"}`:                              7,
		`luahook_store_calls_total{op="incr",result="error"}`:                           2,
		`luahook_store_calls_total{op="get",result="ok"}`:                               3,
		`luahook_store_call_duration_seconds_count{op="incr"}`:                          9,
		`luahook_store_call_duration_seconds_bucket{op="incr",le="0.001"}`:              8,
		`luahook_store_call_duration_seconds_bucket{op="incr",le="+Inf"}`:               9,
		`luahook_instance_info{instance="replica-a",version="` + luahook.Version + `"}`: 1,
	} {
		if got, ok := m[series]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
}
