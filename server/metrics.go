package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// latencyBuckets span a fast Lua hook (tens of µs) to a slow command hook.
var latencyBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// metrics are the handler's Prometheus collectors. Every label value is
// bounded: events are checked before anything is counted, hook names and
// kinds come from the configuration and the hooks folder, failure kinds and
// decisions are fixed sets.
type metrics struct {
	requests  *prometheus.CounterVec   // code
	decisions *prometheus.CounterVec   // event, decision
	calls     *prometheus.CounterVec   // event, hook, kind
	denials   *prometheus.CounterVec   // event, hook
	failures  *prometheus.CounterVec   // event, hook, failure
	latency   *prometheus.HistogramVec // event, hook
	decision  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer, loadErrors func() int, bodyBytes func() int64) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_requests_total", Help: "Hook-protocol requests (POST / and /hook) by HTTP status; 499: the client went away.",
		}, []string{"code"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_decisions_total", Help: "Answered payloads by event and decision (allow, deny, mutate, none).",
		}, []string{"event", "decision"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_calls_total", Help: "Hook calls by event, hook name and kind.",
		}, []string{"event", "hook", "kind"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_denials_total", Help: "Denied tool calls and blocked prompts by event and the hook that denied.",
		}, []string{"event", "hook"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "luahook_hook_failures_total", Help: "Hook failures by event, hook name and failure kind.",
		}, []string{"event", "hook", "failure"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "luahook_hook_duration_seconds", Help: "Duration of hook calls by event and hook name.",
			Buckets: latencyBuckets,
		}, []string{"event", "hook"}),
		decision: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "luahook_decision_duration_seconds", Help: "Time from a request's arrival to its answer.",
			Buckets: latencyBuckets,
		}),
	}
	reg.MustRegister(m.requests, m.decisions, m.calls, m.denials, m.failures, m.latency, m.decision,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "luahook_load_errors", Help: "Hook files or configs that currently fail to load (their previous good version, if any, is live).",
		}, func() float64 { return float64(loadErrors()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "luahook_body_bytes_reserved", Help: "Request body bytes reserved by the hook requests in flight (see --max-bytes-in-flight).",
		}, func() float64 { return float64(bodyBytes()) }))
	return m
}

// observe counts what one fired payload did. Hooks that were not called
// (gated, not reached, background) count no call.
func (m *metrics) observe(res *runner.Result) {
	ev := string(res.Event)
	m.decisions.WithLabelValues(ev, decisionOf(res)).Inc()
	steering := res.Event == luahook.PreToolUse || res.Event == luahook.UserPromptSubmit
	for i := range res.Trace {
		t := &res.Trace[i]
		switch t.Skipped {
		case "", runner.SkipValidatorMutation:
		default:
			continue
		}
		m.calls.WithLabelValues(ev, t.Name, string(t.Kind)).Inc()
		m.latency.WithLabelValues(ev, t.Name).Observe(t.Duration.Seconds())
		if t.Failure != nil {
			m.failures.WithLabelValues(ev, t.Name, string(t.Failure.Kind)).Inc()
		}
		if steering && t.Outcome != nil && t.Outcome.Action == luahook.ActionDeny {
			m.denials.WithLabelValues(ev, t.Name).Inc()
		}
	}
}

func decisionOf(res *runner.Result) string {
	switch {
	case res.Denied:
		return "deny"
	case res.Input != nil:
		return "mutate"
	case res.Event == luahook.PreToolUse:
		return "allow"
	}
	return "none"
}
