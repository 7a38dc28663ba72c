package server

import (
	"maps"
	"slices"

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
	// Results counts the calls by result ("ok", "error", "timeout"): the
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

// storeCollector serves the store's counts, read from the store at each
// scrape.
func storeCollector(f func() []StoreOpStats) metrics.Collector {
	return metrics.CollectorFunc(func(s *metrics.Scrape) {
		for _, op := range f() {
			for result, n := range op.Results {
				s.Counter("luahook_store_calls_total", "Calls of the Lua store module's backend by operation and result.",
					float64(n), "op", op.Op, "result", result)
			}
			bounds := slices.Sorted(maps.Keys(op.Buckets))
			counts := make([]uint64, len(bounds))
			for i, b := range bounds {
				counts[i] = op.Buckets[b]
			}
			s.Histogram("luahook_store_call_duration_seconds", "Duration of the Lua store module's backend calls by operation.",
				metrics.HistogramValue{Bounds: bounds, Counts: counts, Count: op.Count, Sum: op.Sum}, "op", op.Op)
		}
	})
}
