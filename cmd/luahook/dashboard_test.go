package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrapeFamilies GETs base/metrics and parses it with Prometheus's text
// parser.
func scrapeFamilies(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fs
}

// dashboardExprs returns every PromQL expression of the dashboard: the
// panels' targets and the templating queries, at any depth.
func dashboardExprs(t *testing.T, path string) (map[string]any, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "definition") {
					exprs = append(exprs, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(d)
	return d, exprs
}

// metricName is a name of luahook's or of the Go and process collectors in
// a PromQL expression.
var metricName = regexp.MustCompile(`\b(?:luahook|go|process)_[a-zA-Z0-9_]+\b`)

// TestTheGrafanaDashboardQueriesOnlyServedMetrics: every metric name the
// dashboard's PromQL uses is one serve exports (a scrape of a real serve,
// and the families only some configurations show, which
// internal/server's tests prove served), so that the dashboard cannot
// drift from the names; and it has the panels it promises.
func TestTheGrafanaDashboardQueriesOnlyServedMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	if code, body := s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	served := scrapeFamilies(t, s.base)
	exported := map[string]bool{}
	for name, f := range served {
		exported[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			exported[name+"_bucket"], exported[name+"_sum"], exported[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			exported[name+"_sum"], exported[name+"_count"] = true, true
		}
	}
	listed, err := os.ReadFile("../../internal/server/testdata/metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(listed), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && !strings.HasPrefix(line, "#") {
			exported[fields[0]] = true
			if fields[1] == "histogram" {
				exported[fields[0]+"_bucket"], exported[fields[0]+"_sum"], exported[fields[0]+"_count"] = true, true, true
			}
		}
	}
	if served["luahook_reloads_total"] == nil {
		t.Error("serve does not export luahook_reloads_total")
	}

	d, exprs := dashboardExprs(t, "../../examples/grafana/luahook-dashboard.json")
	used := map[string]bool{}
	for _, e := range exprs {
		names := metricName.FindAllString(e, -1)
		if len(names) == 0 {
			t.Errorf("the expression %q uses no luahook, go or process metric", e)
		}
		for _, n := range names {
			used[n] = true
			if !exported[n] {
				t.Errorf("the dashboard queries %s (in %q), which serve does not export", n, e)
			}
		}
	}
	all := strings.Join(exprs, "\n")
	for _, want := range []string{
		"luahook_decisions_total", "luahook_hook_denials_total", "luahook_reloads_total", "luahook_load_errors",
		"luahook_requests_refused_total", "luahook_decision_log_dropped_total", "luahook_hook_failures_total",
	} {
		if !used[want] {
			t.Errorf("no panel queries %s", want)
		}
	}
	for _, want := range []string{
		`sum by (event, decision) (rate(luahook_decisions_total`,
		`topk(10, sum by (event, hook) (rate(luahook_hook_denials_total`,
		`histogram_quantile(0.5, sum by (le) (rate(luahook_hook_duration_seconds_bucket`,
		`histogram_quantile(0.95, sum by (le) (rate(luahook_hook_duration_seconds_bucket`,
		`histogram_quantile(0.99, sum by (le) (rate(luahook_hook_duration_seconds_bucket`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no panel queries %s…", want)
		}
	}
	if v, _ := d["schemaVersion"].(float64); v < 39 {
		t.Errorf("schemaVersion %v, want at least 39", d["schemaVersion"])
	}
	vars, _ := d["templating"].(map[string]any)["list"].([]any)
	if !slices.ContainsFunc(vars, func(v any) bool {
		m, _ := v.(map[string]any)
		return m["type"] == "datasource" && m["query"] == "prometheus"
	}) {
		t.Error("the dashboard has no Prometheus datasource variable")
	}
}
