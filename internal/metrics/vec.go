package metrics

import (
	"slices"
	"sync"
	"sync/atomic"
)

// MaxSeries caps the series of one CounterVec or HistogramVec. Label values
// are meant to come from bounded sets (events, the configured hooks' names,
// fixed kinds); past the cap, WithLabelValues of a new combination returns
// the series whose every label is Other, so that a scrape stays bounded
// whatever the callers pass: a vector serves at most MaxSeries series, the
// Other one included.
const MaxSeries = 1 << 14

// Other is the label value of the series that counts the combinations
// past MaxSeries.
const Other = "other"

// CounterVec is a family of counters told apart by label values, at most
// MaxSeries of them.
type CounterVec struct{ b *bounded[Counter] }

// WithLabelValues returns the counter of the label values, in the order of
// the labels the vector was made with, making it on first use (or the
// Other series, past MaxSeries). Resolve a handle once where the values are
// known in advance; the lookup itself takes no lock and does not allocate
// once the series exists.
func (v *CounterVec) WithLabelValues(values ...string) Counter { return v.b.with(values) }

// HistogramVec is a family of histograms told apart by label values, at
// most MaxSeries of them.
type HistogramVec struct{ b *bounded[Observer] }

// WithLabelValues returns the histogram of the label values, as
// CounterVec.WithLabelValues does.
func (v *HistogramVec) WithLabelValues(values ...string) Observer { return v.b.with(values) }

// bounded maps label values to client_golang's child of a vector, made on
// first use through newChild: an open-addressing table that readers probe
// without a lock. A new series is written under mu into a free slot (the
// series is complete before its slot is set), or into a table of twice the
// size that then replaces the old one, so that the table stays at most half
// full. client_golang's own lookup (WithLabelValues) hashes the values and
// takes a read lock on every call; this one is the request path's.
type bounded[T any] struct {
	labels   []string
	newChild func(values []string) T
	mu       sync.Mutex
	table    atomic.Pointer[table[T]]
	n        int // series in the table, under mu
	other    T   // the Other series, made when first needed, under mu
	folded   bool
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

func newBounded[T any](labels []string, newChild func(values []string) T) *bounded[T] {
	b := &bounded[T]{labels: slices.Clone(labels), newChild: newChild}
	b.table.Store(newTable[T](8))
	return b
}

func newTable[T any](size int) *table[T] {
	return &table[T]{slots: make([]atomic.Pointer[child[T]], size), mask: uint64(size - 1)}
}

func (b *bounded[T]) with(values []string) T {
	checkCount(b.labels, values)
	h := hashValues(values)
	if c := b.table.Load().find(h, values); c != nil {
		return c.m
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.table.Load()
	if c := t.find(h, values); c != nil {
		return c.m
	}
	if b.n >= MaxSeries-1 {
		// The last series of the cap is Other's.
		if !b.folded {
			others := make([]string, len(b.labels))
			for i := range others {
				others[i] = Other
			}
			b.other, b.folded = b.newChild(others), true
		}
		return b.other
	}
	// The clone, not values, goes to client_golang, so that values does
	// not escape and the lookup above stays free of allocations.
	c := &child[T]{hash: h, values: slices.Clone(values)}
	c.m = b.newChild(validValues(c.values))
	if 2*(b.n+1) > len(t.slots) {
		bigger := newTable[T](2 * len(t.slots))
		for i := range t.slots {
			if old := t.slots[i].Load(); old != nil {
				bigger.insert(old)
			}
		}
		bigger.insert(c)
		b.table.Store(bigger)
	} else {
		t.insert(c)
	}
	b.n++
	return c.m
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
