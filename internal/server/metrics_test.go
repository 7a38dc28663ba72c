package server

import (
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/runner"
)

func TestCountingADecisionAllocatesNothingOnceItsSeriesExist(t *testing.T) {
	m := newMetrics(metrics.NewRegistry(), func() int { return 0 }, func() int64 { return 0 })
	res := decidedResult()
	m.observe(res)
	if n := testing.AllocsPerRun(1000, func() { m.observe(res); m.answered.Inc(); m.decision.Observe(.0003) }); n != 0 {
		t.Errorf("counting a decision: %v allocations, want 0", n)
	}
}

// BenchmarkCountDecision measures what counting one decided payload costs
// serve: a decision, two hook calls with their durations, a denial and a
// failure, through the label lookups the handler makes per request.
func BenchmarkCountDecision(b *testing.B) {
	m := newMetrics(metrics.NewRegistry(), func() int { return 0 }, func() int64 { return 0 })
	res := decidedResult()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.observe(res)
			m.answered.Inc()
			m.decision.Observe(.0003)
		}
	})
}

func decidedResult() *runner.Result {
	return &runner.Result{Event: luahook.PreToolUse, Verdict: luahook.VerdictDeny, Trace: []runner.HookTrace{
		{Name: "guard", Kind: luahook.KindLua, Duration: 40 * time.Microsecond,
			Outcome: &luahook.Outcome{Action: luahook.ActionDeny}},
		{Name: "flaky", Kind: luahook.KindCommand, Duration: time.Millisecond,
			Failure: &luahook.Failure{Kind: luahook.FailTimeout}},
	}}
}
