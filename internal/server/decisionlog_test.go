package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

func TestMetricsCountDecisionRecordsWrittenAndDropped(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	taken := make(chan struct{}, 1)
	log, err := decisionlog.New(decisionlog.Options{Queue: 1, CloseTimeout: time.Millisecond,
		Sink: decisionlog.Func(func(decisionlog.Record) {
			select {
			case taken <- struct{}{}:
			default:
			}
			<-block // a sink that never returns
		})})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg, OnDecision: log.Observe})
	defer run.Close()
	srv := httptest.NewServer(New(run, Options{DecisionLog: log.Stats}))
	defer srv.Close()
	g := &rig{t: t, reg: reg, run: run, srv: srv}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: answer(luahook.Deny("no"))})
	const n = 20
	for range n {
		if code, body := g.post("/", `{"event":"PreToolUse","toolName":"bash","toolInput":{}}`); code != 200 || !strings.Contains(body, "deny") {
			t.Fatalf("POST = %d %s", code, body)
		}
	}
	<-taken
	m := scrape(t, srv.URL)
	// One record is stuck in the sink, at most one waits: the rest dropped.
	if d := m["luahook_decision_log_dropped_total"]; d < n-2 || d != float64(log.Dropped()) {
		t.Errorf("luahook_decision_log_dropped_total = %v, want %d (at least %d)", d, log.Dropped(), n-2)
	}
	if _, ok := m["luahook_decision_log_written_total"]; !ok {
		t.Error("no luahook_decision_log_written_total")
	}
}
