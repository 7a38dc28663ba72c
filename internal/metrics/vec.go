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

// vec maps label values to a metric: an open-addressing table that readers
// probe without a lock. A new series is written under mu into a free slot
// (the series is complete before its slot is set), or into a table of twice
// the size that then replaces the old one, so that the table stays at most
// half full.
type vec[T any] struct {
	labels   []string
	init     func(*T)
	mu       sync.Mutex
	table    atomic.Pointer[table[T]]
	n        int // series, under mu
	overflow T   // past MaxSeries: counted, not served
}

type table[T any] struct {
	slots []atomic.Pointer[child[T]]
	mask  uint64
}

type child[T any] struct {
	hash   uint64
	values []string
	m      T
}

func newVec[T any](labels []string, init func(*T)) *vec[T] {
	v := &vec[T]{labels: slices.Clone(labels), init: init}
	init(&v.overflow)
	v.table.Store(newTable[T](8))
	return v
}

func newTable[T any](size int) *table[T] {
	return &table[T]{slots: make([]atomic.Pointer[child[T]], size), mask: uint64(size - 1)}
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		// A fixed call site passes the wrong number of values: a
		// programming error, as an index out of range would be.
		panic(fmt.Sprintf("metrics: %d label values for the labels %q", len(values), v.labels))
	}
	h := hashValues(values)
	if c := v.table.Load().find(h, values); c != nil {
		return &c.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	t := v.table.Load()
	if c := t.find(h, values); c != nil {
		return &c.m
	}
	if v.n >= MaxSeries {
		return &v.overflow
	}
	c := &child[T]{hash: h, values: slices.Clone(values)}
	v.init(&c.m)
	if 2*(v.n+1) > len(t.slots) {
		bigger := newTable[T](2 * len(t.slots))
		for i := range t.slots {
			if old := t.slots[i].Load(); old != nil {
				bigger.insert(old)
			}
		}
		bigger.insert(c)
		v.table.Store(bigger)
	} else {
		t.insert(c)
	}
	v.n++
	return &c.m
}

// each calls f with every series; f must not keep values.
func (v *vec[T]) each(f func(values []string, m *T)) {
	t := v.table.Load()
	for i := range t.slots {
		if c := t.slots[i].Load(); c != nil {
			f(c.values, &c.m)
		}
	}
}

func (t *table[T]) find(h uint64, values []string) *child[T] {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		c := t.slots[i].Load()
		if c == nil {
			return nil
		}
		if c.hash == h && slices.Equal(c.values, values) {
			return c
		}
	}
}

// insert puts c in the first free slot from its hash on; the table has one.
func (t *table[T]) insert(c *child[T]) {
	for i := c.hash & t.mask; ; i = (i + 1) & t.mask {
		if t.slots[i].Load() == nil {
			t.slots[i].Store(c)
			return
		}
	}
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
