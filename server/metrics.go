package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/decisionlog"
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
	answered  prometheus.Counter       // requests{code="200"}, resolved once
	gone      prometheus.Counter       // requests{code="499"}, resolved once
	decisions *prometheus.CounterVec   // event, decision
	calls     *prometheus.CounterVec   // event, hook, kind
	denials   *prometheus.CounterVec   // event, hook
	failures  *prometheus.CounterVec   // event, hook, failure
	latency   *prometheus.HistogramVec // event, hook
	decision  prometheus.Histogram
	agents    agentCollectors
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
	m.answered, m.gone = m.requests.WithLabelValues("200"), m.requests.WithLabelValues("499")
	reg.MustRegister(m.requests, m.decisions, m.calls, m.denials, m.failures, m.latency, m.decision,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "luahook_load_errors", Help: "Hook files or configs that currently fail to load (their previous good version, if any, is live).",
		}, func() float64 { return float64(loadErrors()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "luahook_body_bytes_reserved", Help: "Request body bytes reserved by the hook requests in flight (see --max-bytes-in-flight).",
		}, func() float64 { return float64(bodyBytes()) }))
	m.agents = newAgentCollectors(reg)
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
		if steering && t.Outcome != nil && t.Outcome.Action == luahook.ActionDeny && t.Mode != luahook.ModeShadow {
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

// blockCause is why an agent's request was answered with its block signal.
type blockCause int

const (
	blockDecode     blockCause = iota // the payload could not be decoded
	blockBody                         // the body was too large or could not be read
	blockOverloaded                   // the request waited in vain for its turn
	numBlockCauses
)

var blockCauseNames = [numBlockCauses]string{"decode", "body", "overloaded"}

// verdictLabels are the verdict label values of luahook_agent_answers_total:
// agent.Verdict's names, and "mutate" for a rewrite without a verdict.
var verdictLabels = [...]string{"none", "allow", "deny", "ask", "continue", "mutate"}

const mutateLabel = len(verdictLabels) - 1

// agentMetrics are one agent's collectors, resolved once so that an answer
// counts without looking labels up.
type agentMetrics struct {
	answers        [len(verdictLabels)]prometheus.Counter
	decodeFailures prometheus.Counter
	blocks         [numBlockCauses]prometheus.Counter
}

// agentCollectors are the per-agent metrics of the /agent/ paths. Label
// values are bounded: agents are agent.Names, verdicts and causes fixed sets.
type agentCollectors struct {
	byName map[agent.Name]*agentMetrics
}

func newAgentCollectors(reg prometheus.Registerer) agentCollectors {
	answers := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "luahook_agent_answers_total", Help: "Payloads answered on /agent/NAME by agent and verdict (none, allow, deny, ask, continue, mutate).",
	}, []string{"agent", "verdict"})
	decode := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "luahook_agent_decode_failures_total", Help: "Agent payloads that could not be decoded (each answered with the agent's block signal).",
	}, []string{"agent"})
	blocks := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "luahook_agent_blocks_total", Help: "Agent requests answered with the agent's block signal because serve could not decide, by agent and cause (decode, body, overloaded).",
	}, []string{"agent", "cause"})
	reg.MustRegister(answers, decode, blocks)
	c := agentCollectors{byName: make(map[agent.Name]*agentMetrics)}
	for _, name := range agent.Names() {
		am := &agentMetrics{decodeFailures: decode.WithLabelValues(string(name))}
		for i, v := range verdictLabels {
			am.answers[i] = answers.WithLabelValues(string(name), v)
		}
		for i, cause := range blockCauseNames {
			am.blocks[i] = blocks.WithLabelValues(string(name), cause)
		}
		c.byName[name] = am
	}
	return c
}

// agent returns the collectors of the agent named name.
func (m *metrics) agent(name agent.Name) *agentMetrics { return m.agents.byName[name] }

// count counts one answered decision.
func (am *agentMetrics) count(d agent.Decision) { am.answers[verdictIndex(d)].Inc() }

func verdictIndex(d agent.Decision) int {
	if d.Verdict == agent.NoObjection && d.Input != nil {
		return mutateLabel
	}
	if int(d.Verdict) < mutateLabel {
		return int(d.Verdict)
	}
	return 0
}

func verdictLabel(d agent.Decision) string { return verdictLabels[verdictIndex(d)] }

// registerDecisionLog serves the decision log's counts.
func registerDecisionLog(reg prometheus.Registerer, stats func() decisionlog.Stats) {
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "luahook_decision_log_written_total", Help: "Decision records the log's sink took.",
		}, func() float64 { return float64(stats().Written) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "luahook_decision_log_dropped_total", Help: "Decision records dropped because the log's queue was full (the decisions themselves never wait for the log).",
		}, func() float64 { return float64(stats().Dropped) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "luahook_decision_log_failed_total", Help: "Decision records the log's sink failed to write.",
		}, func() float64 { return float64(stats().Failed) }))
}

// registerInstance serves luahook_instance_info{instance,version} 1, so
// that a fleet's dashboards can tell the replicas and their versions apart.
func registerInstance(reg prometheus.Registerer, instance string) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "luahook_instance_info", Help: "This replica: its instance id (--instance-id) and luahook version. Always 1.",
	}, []string{"instance", "version"})
	g.WithLabelValues(instance, luahook.Version).Set(1)
	reg.MustRegister(g)
}
