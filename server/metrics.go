package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/luahook/luahook/runner"
)

type metrics struct {
	requests        *prometheus.CounterVec
	calls           *prometheus.CounterVec
	denials         *prometheus.CounterVec
	failures        *prometheus.CounterVec
	latency         *prometheus.HistogramVec
	decisionSeconds prometheus.Histogram
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_requests_total", Help: "Hook-protocol requests by HTTP status.",
		}, []string{"code"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_calls_total", Help: "Hook calls by event and hook.",
		}, []string{"event", "hook", "kind"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_denials_total", Help: "Denials (and blocked prompts) by event and hook.",
		}, []string{"event", "hook"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_failures_total", Help: "Hook failures by event, hook and failure kind.",
		}, []string{"event", "hook", "failure"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "luahook_hook_duration_seconds", Help: "Duration of hook calls.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}, []string{"event", "hook"}),
		decisionSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "luahook_decision_duration_seconds", Help: "Time from request to outcome.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}),
	}
	reg.MustRegister(m.requests, m.calls, m.denials, m.failures, m.latency, m.decisionSeconds)
	return m
}

func (m *metrics) observe(res runner.Result) {
	ev := string(res.Event)
	for _, t := range res.Trace {
		if t.Skipped == "policy-only" {
			continue
		}
		m.calls.WithLabelValues(ev, t.Name, string(t.Kind)).Inc()
		m.latency.WithLabelValues(ev, t.Name).Observe(t.Duration.Seconds())
		if t.Failure != nil {
			m.failures.WithLabelValues(ev, t.Name, string(t.Failure.Kind)).Inc()
		}
		if t.Outcome != nil && t.Outcome.Action == "deny" {
			m.denials.WithLabelValues(ev, t.Name).Inc()
		}
	}
}
