package server

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// The breaker's state is a series per state, 1 for the one in force, and
// its trips a counter; a call it failed at once is a store call of result
// "unavailable".
func TestMetricsServeTheStoreBreaker(t *testing.T) {
	st := StoreBreakerStats{State: "open", Trips: 2}
	reg := metrics.NewRegistry()
	reg.MustRegister(StoreBreakerCollector(func() StoreBreakerStats { return st }))
	run := runner.New(runner.Options{Registry: registry.New()})
	t.Cleanup(run.Close)
	srv := httptest.NewServer(New(run, Options{Registry: reg, Store: func() []StoreOpStats {
		return []StoreOpStats{{Op: "get", Results: map[string]uint64{"ok": 1, "unavailable": 40}, Count: 1, Sum: 0.001, Buckets: map[float64]uint64{0.001: 1}}}
	}}))
	t.Cleanup(srv.Close)
	for _, state := range []string{"open", "half-open", "closed"} {
		st.State = state
		want := map[string]float64{
			`luahook_store_breaker_state{state="closed"}`:              0,
			`luahook_store_breaker_state{state="open"}`:                0,
			`luahook_store_breaker_state{state="half-open"}`:           0,
			`luahook_store_breaker_trips_total`:                        2,
			`luahook_store_calls_total{op="get",result="unavailable"}`: 40,
		}
		want[fmt.Sprintf(`luahook_store_breaker_state{state=%q}`, state)] = 1
		m := scrape(t, srv.URL)
		for series, w := range want {
			if got, ok := m[series]; !ok || got != w {
				t.Errorf("breaker %s: %s = %v (present %v), want %v", state, series, got, ok, w)
			}
		}
	}
}
