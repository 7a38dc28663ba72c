// Package metrics is luahook's thin layer over Prometheus's Go client
// (github.com/prometheus/client_golang): a Registry that serves itself on
// GET through promhttp, constructors that register as they make, vectors
// whose label values are bounded (MaxSeries, then "other"), and helpers for
// the values read at scrape time.
//
// Counting stays cheap on the request path: a vector's handle is found
// without a lock and without allocating once its series exists, and a
// counter add or a histogram observation is client_golang's own.
package metrics

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Counter is a count that only goes up (prometheus.Counter).
type Counter = prometheus.Counter

// Histogram counts observations in buckets (prometheus.Histogram).
type Histogram = prometheus.Histogram

// Observer is what a HistogramVec's handle is: one histogram's Observe.
type Observer = prometheus.Observer

// Collector adds series to each scrape (prometheus.Collector).
type Collector = prometheus.Collector

// Metric is one series of a scrape (prometheus.Metric).
type Metric = prometheus.Metric

// Desc describes a family a Collector serves (prometheus.Desc).
type Desc = prometheus.Desc

// MaxScrapesInFlight bounds the scrapes a Registry answers at once; one more
// is answered 503 at once, so that a flood of scrapes cannot pile up
// goroutines that each read the runtime's figures.
const MaxScrapesInFlight = 4

// Registry holds the metrics and the collectors that read values at scrape
// time, and serves them on GET (ServeHTTP) in the Prometheus exposition
// formats promhttp negotiates (the text format 0.0.4 by default). Its zero
// value is not usable; make one with NewRegistry.
type Registry struct {
	// Registry is client_golang's registry: Register, MustRegister,
	// Gather.
	*prometheus.Registry
	handler http.Handler
}

// NewRegistry returns an empty Registry: no Go runtime or process
// collector until the caller registers them (collectors.NewGoCollector,
// collectors.NewProcessCollector).
func NewRegistry() *Registry {
	reg := prometheus.NewRegistry()
	return &Registry{Registry: reg, handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling:       promhttp.HTTPErrorOnError,
		MaxRequestsInFlight: MaxScrapesInFlight,
		OfferedCompressions: []promhttp.Compression{promhttp.Identity, promhttp.Gzip},
	})}
}

// ServeHTTP answers a scrape (promhttp.HandlerFor): 500 when a collector
// fails, 503 past MaxScrapesInFlight.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.handler.ServeHTTP(w, req) }

// NewCounter returns a counter served as name. A bad or taken name is a
// programming error, found the first time the program builds its metrics:
// the New functions panic on it.
func (r *Registry) NewCounter(name, help string) Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	r.MustRegister(c)
	return c
}

// NewCounterVec returns a family of counters served as name, one per
// combination of values of the labels, at most MaxSeries.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.MustRegister(v)
	return &CounterVec{b: newBounded(labels, func(values []string) Counter { return v.WithLabelValues(values...) })}
}

// NewHistogram returns a histogram served as name, with the upper bounds
// buckets (ascending; +Inf is implied).
func (r *Registry) NewHistogram(name, help string, buckets []float64) Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	r.MustRegister(h)
	return h
}

// NewHistogramVec returns a family of histograms served as name, one per
// combination of values of the labels (at most MaxSeries), each with the
// upper bounds buckets.
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	r.MustRegister(v)
	return &HistogramVec{b: newBounded(labels, func(values []string) Observer { return v.WithLabelValues(values...) })}
}

// NewGaugeFunc serves f's value at each scrape as the gauge name.
func (r *Registry) NewGaugeFunc(name, help string, f func() float64) {
	r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// NewCounterFunc serves f's value at each scrape as the counter name; f
// must never go down.
func (r *Registry) NewCounterFunc(name, help string, f func() float64) {
	r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
}

// NewDesc describes a family of a scrape-time Collector: its name, help
// and label names.
func NewDesc(name, help string, labels ...string) *Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// CollectorFunc is a Collector of the families descs whose collect sends
// their series at each scrape. collect may run for several scrapes at once
// and must send a bounded number of series, each of one of descs.
func CollectorFunc(descs []*Desc, collect func(ch chan<- Metric)) Collector {
	return &funcCollector{descs: descs, collect: collect}
}

type funcCollector struct {
	descs   []*Desc
	collect func(ch chan<- Metric)
}

func (c *funcCollector) Describe(ch chan<- *Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *funcCollector) Collect(ch chan<- Metric) { c.collect(ch) }

// ConstCounter is a counter series of desc read at scrape time. Label
// values that are not UTF-8 have their bad bytes replaced (LabelValue); a
// wrong number of values makes a series that fails the scrape, naming it.
func ConstCounter(desc *Desc, v float64, labelValues ...string) Metric {
	return constMetric(desc, prometheus.CounterValue, v, labelValues)
}

// ConstGauge is a gauge series of desc read at scrape time, as
// ConstCounter.
func ConstGauge(desc *Desc, v float64, labelValues ...string) Metric {
	return constMetric(desc, prometheus.GaugeValue, v, labelValues)
}

func constMetric(desc *Desc, t prometheus.ValueType, v float64, labelValues []string) Metric {
	m, err := prometheus.NewConstMetric(desc, t, v, validValues(labelValues)...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// ConstHistogram is a histogram series of desc read at scrape time: count
// observations totalling sum, and buckets mapping each upper bound to the
// observations at most that large (cumulative; +Inf is count).
func ConstHistogram(desc *Desc, count uint64, sum float64, buckets map[float64]uint64, labelValues ...string) Metric {
	m, err := prometheus.NewConstHistogram(desc, count, sum, buckets, validValues(labelValues)...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// LabelValue returns s with the bytes that are not UTF-8 replaced by
// U+FFFD: Prometheus label values must be UTF-8.
func LabelValue(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// validValues returns values, or a copy with each made UTF-8.
func validValues(values []string) []string {
	if !slices.ContainsFunc(values, func(v string) bool { return !utf8.ValidString(v) }) {
		return values
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = LabelValue(v)
	}
	return out
}

// checkCount panics when a fixed call site passes the wrong number of
// label values: a programming error, as an index out of range would be.
func checkCount(labels, values []string) {
	if len(values) != len(labels) {
		panic(fmt.Sprintf("metrics: %d label values for the labels %q", len(values), labels))
	}
}
