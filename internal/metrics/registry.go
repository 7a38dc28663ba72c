// Package metrics keeps a process's counters and histograms and serves them,
// with the values that are read at scrape time, in the Prometheus text
// exposition format (version 0.0.4).
//
// It is small on purpose: a counter add is one atomic add and a histogram
// observation two, through a handle whose label values were resolved once;
// nothing runs at package init, so a program that links it but never makes
// a Registry (a one-shot `luahook fire`) pays nothing for it.
package metrics

import (
	"fmt"
	"sync"
)

// Registry holds metrics and the collectors that read values at scrape
// time, and serves them all on GET (ServeHTTP). Its zero value is not
// usable; make one with NewRegistry.
type Registry struct {
	mu         sync.Mutex
	names      map[string]bool // families owned by the registry's own metrics
	collectors []Collector
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{names: make(map[string]bool)} }

// Collector adds series to a scrape. Collect is called once per scrape,
// possibly by several scrapes at once, and must add a bounded number of
// series.
type Collector interface {
	Collect(s *Scrape)
}

// CollectorFunc is a function that is a Collector.
type CollectorFunc func(s *Scrape)

// Collect calls f(s).
func (f CollectorFunc) Collect(s *Scrape) { f(s) }

// Register adds c to every later scrape.
func (r *Registry) Register(c Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, c)
}

// own claims the family name for one of the registry's own metrics. A bad
// or taken name is a programming error, found the first time the program
// builds its metrics: own panics.
func (r *Registry) own(name, help string, labels []string, reserved string) {
	if err := checkFamily(name, help); err != nil {
		panic(err)
	}
	for _, l := range labels {
		if err := checkLabelName(l, reserved); err != nil {
			panic(fmt.Errorf("metrics: %s: %w", name, err))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[name] {
		panic(fmt.Errorf("metrics: %s registered twice", name))
	}
	r.names[name] = true
}

// NewCounter returns a counter served as name.
func (r *Registry) NewCounter(name, help string) *Counter {
	r.own(name, help, nil, "")
	c := new(Counter)
	r.Register(CollectorFunc(func(s *Scrape) { s.Counter(name, help, float64(c.Value())) }))
	return c
}

// NewCounterVec returns a family of counters served as name, one per
// combination of values of the labels.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	r.own(name, help, labels, "")
	v := &CounterVec{vec: newVec[Counter](labels, func(*Counter) {})}
	r.Register(CollectorFunc(func(s *Scrape) {
		v.vec.each(func(values []string, c *Counter) {
			s.add(name, help, counterType, labelPairs(v.vec.labels, values), sample{value: float64(c.Value())})
		})
	}))
	return v
}

// NewHistogram returns a histogram served as name, with the upper bounds
// buckets (ascending; +Inf is implied).
func (r *Registry) NewHistogram(name, help string, buckets []float64) *Histogram {
	r.own(name, help, nil, "le")
	bounds := checkBuckets(name, buckets)
	h := new(Histogram)
	h.init(bounds)
	r.Register(CollectorFunc(func(s *Scrape) { s.Histogram(name, help, h.Value()) }))
	return h
}

// NewHistogramVec returns a family of histograms served as name, one per
// combination of values of the labels, each with the upper bounds buckets.
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	r.own(name, help, labels, "le")
	bounds := checkBuckets(name, buckets)
	v := &HistogramVec{vec: newVec[Histogram](labels, func(h *Histogram) { h.init(bounds) })}
	r.Register(CollectorFunc(func(s *Scrape) {
		v.vec.each(func(values []string, h *Histogram) {
			s.add(name, help, histogramType, labelPairs(v.vec.labels, values), sample{hist: h.Value()})
		})
	}))
	return v
}

// NewGaugeFunc serves f's value at each scrape as the gauge name.
func (r *Registry) NewGaugeFunc(name, help string, f func() float64) {
	r.own(name, help, nil, "")
	r.Register(CollectorFunc(func(s *Scrape) { s.Gauge(name, help, f()) }))
}

// NewCounterFunc serves f's value at each scrape as the counter name; f
// must never go down.
func (r *Registry) NewCounterFunc(name, help string, f func() float64) {
	r.own(name, help, nil, "")
	r.Register(CollectorFunc(func(s *Scrape) { s.Counter(name, help, f()) }))
}

func checkBuckets(name string, buckets []float64) []float64 {
	if err := checkBounds(buckets); err != nil {
		panic(fmt.Errorf("metrics: %s: %w", name, err))
	}
	return append([]float64(nil), buckets...)
}

func labelPairs(names, values []string) []string {
	kv := make([]string, 0, 2*len(names))
	for i, n := range names {
		kv = append(kv, n, values[i])
	}
	return kv
}
