package server

import (
	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/runner"
)

// latencyBuckets span a fast Lua hook (tens of µs) to a slow command hook.
var latencyBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// handlerMetrics are the handler's Prometheus series. Every label value is
// bounded: events are checked before anything is counted, hook names and
// kinds come from the configuration and the hooks folder, failure kinds and
// decisions are fixed sets; past metrics.MaxSeries combinations of a
// vector, a new one is counted under "other".
type handlerMetrics struct {
	requests  *metrics.CounterVec   // code
	answered  metrics.Counter       // requests{code="200"}, resolved once
	gone      metrics.Counter       // requests{code="499"}, resolved once
	decisions *metrics.CounterVec   // event, decision
	calls     *metrics.CounterVec   // event, hook, kind
	denials   *metrics.CounterVec   // event, hook
	failures  *metrics.CounterVec   // event, hook, failure
	latency   *metrics.HistogramVec // event, hook
	decision  metrics.Histogram
	agents    agentCollectors
}

func newMetrics(reg *metrics.Registry, loadErrors func() int, bodyBytes func() int64) *handlerMetrics {
	m := &handlerMetrics{
		requests: reg.NewCounterVec("luahook_requests_total",
			"Hook-protocol requests (POST / and /hook) by HTTP status; 499: the client went away.", "code"),
		decisions: reg.NewCounterVec("luahook_decisions_total",
			"Answered payloads by event and decision (deny, ask, mutate, allow: an explicit allow, continue, none: no objection).", "event", "decision"),
		calls: reg.NewCounterVec("luahook_hook_calls_total",
			"Hook calls by event, hook name and kind.", "event", "hook", "kind"),
		denials: reg.NewCounterVec("luahook_hook_denials_total",
			"Denied tool calls and blocked prompts by event and the hook that denied.", "event", "hook"),
		failures: reg.NewCounterVec("luahook_hook_failures_total",
			"Hook failures by event, hook name and failure kind.", "event", "hook", "failure"),
		latency: reg.NewHistogramVec("luahook_hook_duration_seconds",
			"Duration of hook calls by event and hook name.", latencyBuckets, "event", "hook"),
		decision: reg.NewHistogram("luahook_decision_duration_seconds",
			"Time from a request's arrival to its answer.", latencyBuckets),
	}
	m.answered, m.gone = m.requests.WithLabelValues("200"), m.requests.WithLabelValues("499")
	reg.NewGaugeFunc("luahook_load_errors",
		"Hook files or configs that currently fail to load (their previous good version, if any, is live).",
		func() float64 { return float64(loadErrors()) })
	reg.NewGaugeFunc("luahook_body_bytes_reserved",
		"Request body bytes reserved by the hook requests in flight (see --max-bytes-in-flight).",
		func() float64 { return float64(bodyBytes()) })
	m.agents = newAgentCollectors(reg)
	return m
}

// observe counts what one fired payload did. Hooks that were not called
// (gated, not reached, background) count no call.
func (m *handlerMetrics) observe(res *runner.Result) {
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

// decisionOf is the decision label of a result: its action, or "none" for
// no objection (never "allow": that is a hook's explicit allow).
func decisionOf(res *runner.Result) string { return actionName(res.Action()) }

// blockCause is why an agent's request was answered with its block signal.
type blockCause int

const (
	blockDecode     blockCause = iota // the payload could not be decoded
	blockBody                         // the body was too large or could not be read
	blockOverloaded                   // the request waited in vain for its turn
	blockLoad                         // a policy file or the config has no version in force (fail closed)
	blockAuth                         // the client did not authenticate (Options.Auth)
	numBlockCauses
)

var blockCauseNames = [numBlockCauses]string{"decode", "body", "overloaded", "load", "auth"}

// verdictLabels are the verdict label values of luahook_agent_answers_total:
// agent.Verdict's names, and "mutate" for a rewrite without a verdict.
var verdictLabels = [...]string{"none", "allow", "deny", "ask", "continue", "mutate"}

const mutateLabel = len(verdictLabels) - 1

// agentMetrics are one agent's collectors, resolved once so that an answer
// counts without looking labels up.
type agentMetrics struct {
	answers        [len(verdictLabels)]metrics.Counter
	decodeFailures metrics.Counter
	blocks         [numBlockCauses]metrics.Counter
}

// agentCollectors are the per-agent metrics of the /agent/ paths. Label
// values are bounded: agents are agent.Names, verdicts and causes fixed sets.
type agentCollectors struct {
	byName map[agent.Name]*agentMetrics
}

func newAgentCollectors(reg *metrics.Registry) agentCollectors {
	answers := reg.NewCounterVec("luahook_agent_answers_total",
		"Payloads answered on /agent/NAME by agent and verdict (none, allow, deny, ask, continue, mutate).", "agent", "verdict")
	decode := reg.NewCounterVec("luahook_agent_decode_failures_total",
		"Agent payloads that could not be decoded (each answered with the agent's block signal).", "agent")
	blocks := reg.NewCounterVec("luahook_agent_blocks_total",
		"Agent requests answered with the agent's block signal because serve could not decide, by agent and cause (decode, body, overloaded, load, auth).", "agent", "cause")
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
func (m *handlerMetrics) agent(name agent.Name) *agentMetrics { return m.agents.byName[name] }

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

// Families read at scrape time, described once.
var (
	logWrittenDesc = metrics.NewDesc("luahook_decision_log_written_total", "Decision records the log's sink took.")
	logDroppedDesc = metrics.NewDesc("luahook_decision_log_dropped_total", "Decision records dropped because the log's queue was full (the decisions themselves never wait for the log).")
	logFailedDesc  = metrics.NewDesc("luahook_decision_log_failed_total", "Decision records the log's sink failed to write.")
	instanceDesc   = metrics.NewDesc("luahook_instance_info", "This replica: its instance id (--instance-id) and luahook version. Always 1.", "instance", "version")
)

// registerDecisionLog serves the decision log's counts.
func registerDecisionLog(reg *metrics.Registry, stats func() decisionlog.Stats) {
	reg.MustRegister(metrics.CollectorFunc([]*metrics.Desc{logWrittenDesc, logDroppedDesc, logFailedDesc}, func(ch chan<- metrics.Metric) {
		st := stats()
		ch <- metrics.ConstCounter(logWrittenDesc, float64(st.Written))
		ch <- metrics.ConstCounter(logDroppedDesc, float64(st.Dropped))
		ch <- metrics.ConstCounter(logFailedDesc, float64(st.Failed))
	}))
}

// registerInstance serves luahook_instance_info{instance,version} 1, so
// that a fleet's dashboards can tell the replicas and their versions apart.
func registerInstance(reg *metrics.Registry, instance string) {
	info := metrics.ConstGauge(instanceDesc, 1, instance, luahook.Version)
	reg.MustRegister(metrics.CollectorFunc([]*metrics.Desc{instanceDesc}, func(ch chan<- metrics.Metric) { ch <- info }))
}
