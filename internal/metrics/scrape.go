package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Scrape gathers the series of one exposition. Collectors add to it; the
// registry then writes its families sorted by name and each family's series
// sorted by their labels.
type Scrape struct {
	families map[string]*family
	err      error
}

type metricType uint8

const (
	counterType metricType = iota
	gaugeType
	histogramType
	summaryType
)

var typeNames = [...]string{"counter", "gauge", "histogram", "summary"}

type family struct {
	name, help string
	typ        metricType
	series     []sample
}

// sample is one series: label names and values alternating, sorted by name.
type sample struct {
	labels []string
	value  float64
	hist   HistogramValue
	quant  []quantile // summaryType
}

type quantile struct{ q, v float64 }

// Counter adds a counter series: labels are names and values alternating.
func (s *Scrape) Counter(name, help string, v float64, labels ...string) {
	s.add(name, help, counterType, labels, sample{value: v})
}

// Gauge adds a gauge series: labels are names and values alternating.
func (s *Scrape) Gauge(name, help string, v float64, labels ...string) {
	s.add(name, help, gaugeType, labels, sample{value: v})
}

// Histogram adds a histogram series: labels are names and values
// alternating.
func (s *Scrape) Histogram(name, help string, h HistogramValue, labels ...string) {
	if err := h.check(); err != nil {
		s.fail(fmt.Errorf("metrics: %s: %w", name, err))
		return
	}
	s.add(name, help, histogramType, labels, sample{hist: h})
}

// summary adds a summary series of quantiles, with their count and sum.
func (s *Scrape) summary(name, help string, qs []quantile, count uint64, sum float64) {
	s.add(name, help, summaryType, nil, sample{quant: qs, hist: HistogramValue{Count: count, Sum: sum}})
}

func (s *Scrape) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *Scrape) add(name, help string, typ metricType, labels []string, smp sample) {
	f := s.families[name]
	if f == nil {
		if err := checkFamily(name, help); err != nil {
			s.fail(err)
			return
		}
		f = &family{name: name, help: help, typ: typ}
		if s.families == nil {
			s.families = make(map[string]*family)
		}
		s.families[name] = f
	}
	if f.typ != typ || f.help != help {
		s.fail(fmt.Errorf("metrics: %s served as two different families (type or help differ)", name))
		return
	}
	if len(labels)%2 != 0 {
		s.fail(fmt.Errorf("metrics: %s: labels must be names and values alternating", name))
		return
	}
	reserved := ""
	switch typ {
	case histogramType:
		reserved = "le"
	case summaryType:
		reserved = "quantile"
	}
	for i := 0; i < len(labels); i += 2 {
		if err := checkLabelName(labels[i], reserved); err != nil {
			s.fail(fmt.Errorf("metrics: %s: %w", name, err))
			return
		}
	}
	smp.labels = sortPairs(labels)
	f.series = append(f.series, smp)
}

// sortPairs returns a copy of the name-value pairs sorted by name.
func sortPairs(kv []string) []string {
	n := len(kv) / 2
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(kv[2*a], kv[2*b]) })
	out := make([]string, 0, len(kv))
	for _, i := range idx {
		out = append(out, kv[2*i], kv[2*i+1])
	}
	return out
}

// sorted returns the families that have series, by name, each with its
// series sorted by labels; two series with the same labels fail the scrape.
func (s *Scrape) sorted() ([]*family, error) {
	if s.err != nil {
		return nil, s.err
	}
	fs := make([]*family, 0, len(s.families))
	for _, f := range s.families {
		if len(f.series) == 0 {
			continue
		}
		slices.SortStableFunc(f.series, func(a, b sample) int { return slices.Compare(a.labels, b.labels) })
		for i := 1; i < len(f.series); i++ {
			if slices.Equal(f.series[i-1].labels, f.series[i].labels) {
				return nil, fmt.Errorf("metrics: %s has two series with the labels %q", f.name, f.series[i].labels)
			}
		}
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	return fs, nil
}

func checkFamily(name, help string) error {
	if !validName(name, true) {
		return fmt.Errorf("metrics: %q is not a valid metric name", name)
	}
	if help == "" {
		return fmt.Errorf("metrics: %s has no help text", name)
	}
	return nil
}

func checkLabelName(l, reserved string) error {
	switch {
	case !validName(l, false) || strings.HasPrefix(l, "__"):
		return fmt.Errorf("%q is not a valid label name", l)
	case l == reserved:
		return fmt.Errorf("label %q is reserved for this metric type", l)
	}
	return nil
}

// validName reports whether s is a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)
// or, without colons, a label name.
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' || colon && c == ':'
		if !ok {
			return false
		}
	}
	return true
}
