package metrics

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// MaxSeries caps the series of one CounterVec or HistogramVec. Label values
// are meant to come from bounded sets; past the cap, WithLabelValues of a new
// combination returns a handle that counts but is not served, so that a
// scrape stays bounded whatever the callers pass.
const MaxSeries = 1 << 14

// Counter is a count that only goes up. Its methods are safe for concurrent
// use and do not allocate.
type Counter struct{ n atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.n.Add(n) }

// Value returns the count.
func (c *Counter) Value() uint64 { return c.n.Load() }

// CounterVec is a family of counters told apart by label values.
type CounterVec struct{ vec *vec[Counter] }

// WithLabelValues returns the counter of the label values, in the order of
// the labels the vector was made with, making it on first use. Resolve a
// handle once where the values are known in advance; the lookup itself
// takes no lock and does not allocate once the series exists.
func (v *CounterVec) WithLabelValues(values ...string) *Counter { return v.vec.with(values) }

// HistogramVec is a family of histograms told apart by label values.
type HistogramVec struct{ vec *vec[Histogram] }

// WithLabelValues returns the histogram of the label values, as
// CounterVec.WithLabelValues does.
func (v *HistogramVec) WithLabelValues(values ...string) *Histogram { return v.vec.with(values) }

// vec maps label values to a metric. Readers load an immutable map; a new
// series copies it under mu (series are few and made once).
type vec[T any] struct {
	labels   []string
	init     func(*T)
	mu       sync.Mutex
	children atomic.Pointer[map[uint64][]*child[T]]
	n        int // series, under mu
	overflow T   // past MaxSeries: counted, not served
}

type child[T any] struct {
	values []string
	m      T
}

func newVec[T any](labels []string, init func(*T)) *vec[T] {
	v := &vec[T]{labels: slices.Clone(labels), init: init}
	init(&v.overflow)
	m := make(map[uint64][]*child[T])
	v.children.Store(&m)
	return v
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		// A fixed call site passes the wrong number of values: a
		// programming error, as an index out of range would be.
		panic(fmt.Sprintf("metrics: %d label values for the labels %q", len(values), v.labels))
	}
	h := hashValues(values)
	if c := find(*v.children.Load(), h, values); c != nil {
		return &c.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	old := *v.children.Load()
	if c := find(old, h, values); c != nil {
		return &c.m
	}
	if v.n >= MaxSeries {
		return &v.overflow
	}
	c := &child[T]{values: slices.Clone(values)}
	v.init(&c.m)
	m := make(map[uint64][]*child[T], len(old)+1)
	for k, cs := range old {
		m[k] = cs
	}
	m[h] = append(slices.Clip(old[h]), c)
	v.children.Store(&m)
	v.n++
	return &c.m
}

// each calls f with every series; f must not keep values.
func (v *vec[T]) each(f func(values []string, m *T)) {
	for _, cs := range *v.children.Load() {
		for _, c := range cs {
			f(c.values, &c.m)
		}
	}
}

func find[T any](m map[uint64][]*child[T], h uint64, values []string) *child[T] {
	for _, c := range m[h] {
		if slices.Equal(c.values, values) {
			return c
		}
	}
	return nil
}

// hashValues is FNV-1a over the values, each followed by a byte that
// UTF-8 text does not contain.
func hashValues(values []string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, s := range values {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime
		}
		h = (h ^ 0xff) * prime
	}
	return h
}
