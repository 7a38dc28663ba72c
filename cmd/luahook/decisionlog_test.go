package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/decisionlog"
)

func TestServeLogsEachDecisionToStandardOutputByDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir}, "--decision-log=") // the default
	const key = "AKIAIOSFODNN7EXAMPLE"
	if code, body := s.post(`{"event":"UserPromptSubmit","prompt":"my key is ` + key + `"}`); code != http.StatusOK || !strings.Contains(body, "no keys") {
		t.Fatalf("POST = %d %s", code, body)
	}
	var line string
	select {
	case line = <-s.lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no decision record on standard output; stderr:\n%s", s.stderr)
	}
	var rec decisionlog.Record
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("standard output line %q is not a record: %v", line, err)
	}
	if rec.Event != "UserPromptSubmit" || rec.Decision.Action != "deny" || len(rec.Hooks) != 1 || rec.Hooks[0].Name != "prompt" {
		t.Errorf("record %s", line)
	}
	if strings.Contains(line, key) {
		t.Errorf("the record holds the prompt's secret: %s", line)
	}
	// The sink counts the record once its write returned.
	eventually(t, "/metrics counts the record written, none dropped", func() bool {
		_, metrics := get(t, s.base+"/metrics")
		return strings.Contains(metrics, "luahook_decision_log_written_total 1") && strings.Contains(metrics, "luahook_decision_log_dropped_total 0")
	})
}
