package metrics

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"
)

// Histogram counts observations in buckets fixed when it was made, and
// their sum. Observe is safe for concurrent use and does not allocate.
type Histogram struct {
	bounds []float64       // upper bounds, ascending, without +Inf
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sum    atomic.Uint64   // float64 bits
}

func (h *Histogram) init(bounds []float64) {
	h.bounds, h.counts = bounds, make([]atomic.Uint64, len(bounds)+1)
}

// Observe counts v in the first bucket whose upper bound is at least v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	if math.IsNaN(v) {
		i = len(h.bounds)
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Value returns the histogram's counts. Its Count is the sum of the
// buckets read, so the +Inf bucket always equals Count even while
// observations go on. Bounds is the histogram's own: do not modify it.
func (h *Histogram) Value() HistogramValue {
	hv := HistogramValue{Bounds: h.bounds, Counts: make([]uint64, len(h.bounds))}
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
		if i < len(h.bounds) {
			hv.Counts[i] = n
		}
	}
	hv.Count, hv.Sum = n, math.Float64frombits(h.sum.Load())
	return hv
}

// HistogramValue is a histogram as a scrape serves it.
type HistogramValue struct {
	// Bounds are the buckets' upper bounds, ascending, without +Inf.
	Bounds []float64
	// Counts are the cumulative counts: Counts[i] observations were at
	// most Bounds[i].
	Counts []uint64
	// Count is the number of observations: the +Inf bucket.
	Count uint64
	// Sum is the observations' total.
	Sum float64
}

func (hv HistogramValue) check() error {
	if len(hv.Counts) != len(hv.Bounds) {
		return errors.New("a count per bucket bound is needed")
	}
	if err := checkBounds(hv.Bounds); err != nil {
		return err
	}
	for i, c := range hv.Counts {
		if c > hv.Count || i > 0 && c < hv.Counts[i-1] {
			return errors.New("bucket counts must be cumulative and at most Count")
		}
	}
	return nil
}

func checkBounds(bounds []float64) error {
	for i, b := range bounds {
		if math.IsNaN(b) || math.IsInf(b, +1) || i > 0 && b <= bounds[i-1] {
			return errors.New("bucket bounds must be ascending, finite or -Inf, with +Inf left implied")
		}
	}
	return nil
}
