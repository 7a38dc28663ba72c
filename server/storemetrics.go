package server

import "github.com/prometheus/client_golang/prometheus"

// StoreOpStats are the counts of one operation of the store behind the Lua
// store module (get, set, incr, delete) since the store opened: what
// Options.Store returns, one per operation. Op and the result names come
// from the store, a fixed set, so that the metrics' label values stay
// bounded.
type StoreOpStats struct {
	// Op names the operation: the op label.
	Op string
	// Results counts the calls by result ("ok", "error", "timeout"): the
	// result label of luahook_store_calls_total.
	Results map[string]uint64
	// Count and Sum are the number of calls and their total duration in
	// seconds; Buckets maps the upper bound of each latency bucket
	// (seconds) to the number of calls that took at most that long, as
	// prometheus.NewConstHistogram takes them.
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

var (
	storeCallsDesc = prometheus.NewDesc("luahook_store_calls_total",
		"Calls of the Lua store module's backend by operation and result.", []string{"op", "result"}, nil)
	storeDurationDesc = prometheus.NewDesc("luahook_store_call_duration_seconds",
		"Duration of the Lua store module's backend calls by operation.", []string{"op"}, nil)
)

// storeStats is a prometheus.Collector of the store's counts, read from
// the store at each scrape.
type storeStats func() []StoreOpStats

func storeCollector(f func() []StoreOpStats) prometheus.Collector { return storeStats(f) }

func (storeStats) Describe(ch chan<- *prometheus.Desc) {
	ch <- storeCallsDesc
	ch <- storeDurationDesc
}

func (f storeStats) Collect(ch chan<- prometheus.Metric) {
	for _, op := range f() {
		for result, n := range op.Results {
			ch <- prometheus.MustNewConstMetric(storeCallsDesc, prometheus.CounterValue, float64(n), op.Op, result)
		}
		ch <- prometheus.MustNewConstHistogram(storeDurationDesc, op.Count, op.Sum, op.Buckets, op.Op)
	}
}
