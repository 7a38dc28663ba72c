package server

import (
	"github.com/luahook/luahook/internal/metrics"
)

// StoreOpStats are the counts of one operation of the store behind the Lua
// store module (get, set, incr, delete) since the store opened: what
// Options.Store returns, one per operation. Op and the result names come
// from the store, a fixed set, so that the metrics' label values stay
// bounded.
type StoreOpStats struct {
	// Op names the operation: the op label.
	Op string
	// Results counts the calls by result ("ok", "error", "timeout", and
	// "unavailable" for the calls the store's breaker failed at once): the
	// result label of luahook_store_calls_total.
	Results map[string]uint64
	// Count and Sum are the number of calls and their total duration in
	// seconds; Buckets maps the upper bound of each latency bucket
	// (seconds) to the number of calls that took at most that long
	// (cumulative, as Prometheus's le buckets).
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

var (
	storeCallsDesc    = metrics.NewDesc("luahook_store_calls_total", "Calls of the Lua store module's backend by operation and result.", "op", "result")
	storeDurationDesc = metrics.NewDesc("luahook_store_call_duration_seconds", "Duration of the Lua store module's backend calls by operation.", "op")
)

// storeCollector serves the store's counts, read from the store at each
// scrape.
func storeCollector(f func() []StoreOpStats) metrics.Collector {
	return metrics.CollectorFunc([]*metrics.Desc{storeCallsDesc, storeDurationDesc}, func(ch chan<- metrics.Metric) {
		for _, op := range f() {
			for result, n := range op.Results {
				ch <- metrics.ConstCounter(storeCallsDesc, float64(n), op.Op, result)
			}
			ch <- metrics.ConstHistogram(storeDurationDesc, op.Count, op.Sum, op.Buckets, op.Op)
		}
	})
}

// StoreBreakerStats are the state of the store's breaker, which fails the
// store's calls at once after calls in a row failed, until the server
// answers again.
type StoreBreakerStats struct {
	// State is "closed" (calls go to the server), "open" (they fail at
	// once) or "half-open" (one call tries the server, the others fail at
	// once).
	State string
	// Trips counts the times the breaker opened.
	Trips uint64
}

// breakerStates are the values of luahook_store_breaker_state's state
// label, each served every scrape (1 for the state in force, 0 for the
// others), so that an alert on open == 1 has a series to read.
var breakerStates = [...]string{"closed", "open", "half-open"}

// StoreBreakerCollector serves the store breaker's state as
// luahook_store_breaker_state{state} and the times it opened as
// luahook_store_breaker_trips_total, read from f at each scrape. Register
// it in the handler's registry (Options.Registry) when the store has a
// breaker.
func StoreBreakerCollector(f func() StoreBreakerStats) metrics.Collector {
	return metrics.CollectorFunc([]*metrics.Desc{breakerStateDesc, breakerTripsDesc}, func(ch chan<- metrics.Metric) {
		st := f()
		for _, name := range breakerStates {
			v := 0.0
			if name == st.State {
				v = 1
			}
			ch <- metrics.ConstGauge(breakerStateDesc, v, name)
		}
		ch <- metrics.ConstCounter(breakerTripsDesc, float64(st.Trips))
	})
}

var (
	breakerStateDesc = metrics.NewDesc("luahook_store_breaker_state", "The store's breaker: 1 for its state (closed: calls go to the store; open: they fail at once; half-open: one call tries the store).", "state")
	breakerTripsDesc = metrics.NewDesc("luahook_store_breaker_trips_total", "Times the store's breaker opened after calls in a row failed.")
)
