package server

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/internal/webui"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// scrapeFamilies GETs base/metrics (with the extra header, name and value,
// if given) and parses it with Prometheus's text parser.
func scrapeFamilies(t *testing.T, base string, header ...string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(header) == 2 {
		req.Header.Set(header[0], header[1])
	}
	resp, err := http.DefaultClient.Do(req)
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

// scrape reads base/metrics into a map from series, as series writes them
// (histograms as their _bucket{le}, _sum and _count), to value.
func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	return flatten(scrapeFamilies(t, base))
}

func flatten(fs map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for name, f := range fs {
		for _, m := range f.GetMetric() {
			var kv []string
			for _, l := range m.GetLabel() {
				kv = append(kv, l.GetName(), l.GetValue())
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[series(name, kv...)] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[series(name, kv...)] = m.GetGauge().GetValue()
			case dto.MetricType_UNTYPED:
				out[series(name, kv...)] = m.GetUntyped().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					out[withLE(series(name+"_bucket", kv...), strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64))] = float64(b.GetCumulativeCount())
				}
				out[withLE(series(name+"_bucket", kv...), "+Inf")] = float64(h.GetSampleCount())
				out[series(name+"_sum", kv...)] = h.GetSampleSum()
				out[series(name+"_count", kv...)] = float64(h.GetSampleCount())
			case dto.MetricType_SUMMARY:
				out[series(name+"_sum", kv...)] = m.GetSummary().GetSampleSum()
				out[series(name+"_count", kv...)] = float64(m.GetSummary().GetSampleCount())
			}
		}
	}
	return out
}

// withLE adds the label le, last, as the text format writes it.
func withLE(s, le string) string {
	if base, ok := strings.CutSuffix(s, "}"); ok {
		return base + `,le="` + le + `"}`
	}
	return s + `{le="` + le + `"}`
}

// listedFamily is a line of testdata/metrics.txt.
type listedFamily struct {
	name, typ, help string
	labels          []string
}

// listedFamilies reads testdata/metrics.txt: the luahook_ families /metrics
// served before client_golang.
func listedFamilies(t *testing.T) []listedFamily {
	t.Helper()
	f, err := os.Open("testdata/metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []listedFamily
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.SplitN(line, " ", 4)
		if len(fields) != 4 {
			t.Fatalf("testdata/metrics.txt: %q is not NAME TYPE LABELS HELP", line)
		}
		lf := listedFamily{name: fields[0], typ: fields[1], help: fields[3]}
		if fields[2] != "-" {
			lf.labels = strings.Split(fields[2], ",")
		}
		out = append(out, lf)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fullRig is a Handler with every option that adds metrics (authentication,
// a decision log, a store and its breaker, an instance id, a shadow set,
// the web page) and the Go and process collectors, as serve builds it,
// after a denial, a hook failure, an agent's call and refused requests.
func fullRig(t *testing.T) (*rig, string) {
	t.Helper()
	toks := teamTokens(t)
	reg := metrics.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(StoreBreakerCollector(func() StoreBreakerStats { return StoreBreakerStats{State: "closed"} }))
	ui, err := webui.New(webui.Options{Keys: toks, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ui.Close)
	shadow := runner.New(runner.Options{Registry: registry.New()})
	t.Cleanup(shadow.Close)
	hooks := registry.New()
	run := runner.New(runner.Options{Registry: hooks})
	t.Cleanup(run.Close)
	h := New(run, Options{Registry: reg, Auth: &Auth{Tokens: toks}, UI: ui, Instance: "replica-a",
		DecisionLog: func() decisionlog.Stats { return decisionlog.Stats{Written: 3} },
		Store: func() []StoreOpStats {
			return []StoreOpStats{{Op: "incr", Results: map[string]uint64{"ok": 1}, Count: 1, Sum: .001, Buckets: map[float64]uint64{.001: 1}}}
		},
		Shadow: &ShadowOptions{Firer: shadow, Name: "next", Slots: 4}})
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	g := &rig{t: t, reg: hooks, run: run, srv: srv}
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Hook: answer(luahook.Deny("no"))})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "flaky", Hook: failing(luahook.FailTimeout)})
	auth := "Bearer " + aliceToken
	for _, p := range []struct{ path, body string }{
		{"/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`},
		{"/", `{"event":"PostToolUse","toolName":"bash","toolInput":{}}`},
		{"/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","transcript_path":"/t","tool_name":"Bash","tool_input":{"command":"ls"}}`},
	} {
		if resp, body := g.send("POST", p.path, p.body, map[string]string{"Authorization": auth, "Content-Type": "application/json"}); resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %s", p.path, resp.StatusCode, body)
		}
	}
	if resp, _ := g.send("POST", "/", `{}`, map[string]string{"Content-Type": "application/json"}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without a token: %d, want 401", resp.StatusCode)
	}
	if resp, _ := g.send("GET", "/ui/", "", map[string]string{"Origin": "https://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("GET /ui/ from another origin: %d, want 403", resp.StatusCode)
	}
	return g, auth
}

func TestEveryListedMetricIsServedWithItsTypeLabelsAndHelp(t *testing.T) {
	g, auth := fullRig(t)
	fs := scrapeFamilies(t, g.srv.URL, "Authorization", auth)
	for _, lf := range listedFamilies(t) {
		f := fs[lf.name]
		if f == nil {
			t.Errorf("%s is not served", lf.name)
			continue
		}
		if typ := strings.ToLower(f.GetType().String()); typ != lf.typ {
			t.Errorf("%s is a %s, want a %s", lf.name, typ, lf.typ)
		}
		if f.GetHelp() != lf.help {
			t.Errorf("%s's help is %q, want %q", lf.name, f.GetHelp(), lf.help)
		}
		for _, m := range f.GetMetric() {
			var names []string
			for _, l := range m.GetLabel() {
				names = append(names, l.GetName())
			}
			slices.Sort(names)
			if !slices.Equal(names, lf.labels) {
				t.Errorf("%s has a series labelled %v, want %v", lf.name, names, lf.labels)
				break
			}
		}
	}
	// client_golang's Go runtime and process collectors, under their
	// standard names.
	std := []string{"go_goroutines", "go_threads", "go_info", "go_gc_duration_seconds", "go_memstats_alloc_bytes",
		"go_memstats_heap_inuse_bytes", "go_sched_gomaxprocs_threads", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes"}
	if runtime.GOOS == "linux" {
		std = append(std, "process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
			"process_open_fds", "process_max_fds", "process_start_time_seconds")
	}
	for _, name := range std {
		if fs[name] == nil {
			t.Errorf("%s is not served", name)
		}
	}
}

func TestEveryServedMetricIsDocumented(t *testing.T) {
	g, auth := fullRig(t)
	doc, err := os.ReadFile("../../docs/observing.md")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"luahook_reloads_total"} // serve's own (cmd/luahook)
	for name := range scrapeFamilies(t, g.srv.URL, "Authorization", auth) {
		if strings.HasPrefix(name, "luahook_") {
			names = append(names, name)
		}
	}
	for _, lf := range listedFamilies(t) {
		names = append(names, lf.name)
	}
	for _, name := range names {
		if !regexp.MustCompile("`" + name + `[{\x60]`).Match(doc) {
			t.Errorf("docs/observing.md does not list %s (as `%s` or `%s{...}`)", name, name, name)
		}
	}
}

func TestADecisionMovesItsCountersAndTheHookLatency(t *testing.T) {
	g, auth := fullRig(t)
	before := flatten(scrapeFamilies(t, g.srv.URL, "Authorization", auth))
	for range 3 {
		g.send("POST", "/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`,
			map[string]string{"Authorization": auth, "Content-Type": "application/json"})
	}
	after := flatten(scrapeFamilies(t, g.srv.URL, "Authorization", auth))
	for s, want := range map[string]float64{
		series("luahook_decisions_total", "event", "PreToolUse", "decision", "deny"):                           3,
		series("luahook_hook_denials_total", "event", "PreToolUse", "hook", "guard"):                           3,
		series("luahook_hook_calls_total", "event", "PreToolUse", "hook", "guard", "kind", "go"):               3,
		series("luahook_hook_duration_seconds_count", "event", "PreToolUse", "hook", "guard"):                  3,
		withLE(series("luahook_hook_duration_seconds_bucket", "event", "PreToolUse", "hook", "guard"), "+Inf"): 3,
		series("luahook_decision_duration_seconds_count"):                                                      3,
		series("luahook_requests_total", "code", "200"):                                                        3,
	} {
		if got := after[s] - before[s]; got != want {
			t.Errorf("%s moved by %v, want %v", s, got, want)
		}
	}
	// The latency histogram's buckets are cumulative and end at the count.
	last := -1.0
	for _, le := range latencyBuckets {
		v := after[withLE(series("luahook_hook_duration_seconds_bucket", "event", "PreToolUse", "hook", "guard"), strconv.FormatFloat(le, 'g', -1, 64))]
		if v < last {
			t.Errorf("bucket le=%v holds %v, less than the bucket before (%v)", le, v, last)
		}
		last = v
	}
	if c := after[series("luahook_hook_duration_seconds_count", "event", "PreToolUse", "hook", "guard")]; last > c {
		t.Errorf("the last bucket holds %v, more than the count %v", last, c)
	}
}

// TestHookNamesPastMaxSeriesFoldIntoOther: hook names come from the
// configuration, but however many there are, the per-hook vectors serve at
// most metrics.MaxSeries series.
func TestHookNamesPastMaxSeriesFoldIntoOther(t *testing.T) {
	m := newMetrics(metrics.NewRegistry(), func() int { return 0 }, func() int64 { return 0 })
	res := decidedResult()
	for i := range metrics.MaxSeries + 100 {
		res.Trace[0].Name = fmt.Sprintf("hook-%d", i)
		m.observe(res)
	}
	other := m.denials.WithLabelValues("never-seen", "never-seen")
	before := testutilValue(other)
	m.denials.WithLabelValues("another-one", "x").Inc()
	if testutilValue(other) != before+1 {
		t.Error("a new combination past the cap was not counted under other")
	}
}

// testutilValue reads a counter's value.
func testutilValue(c metrics.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// BenchmarkScrape measures one GET /metrics of a handler that answered
// payloads of 20 hooks on 2 events, with the Go runtime and process
// collectors, as serve registers them: gather, encode, write.
func BenchmarkScrape(b *testing.B) {
	reg := metrics.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	hooks := registry.New()
	run := runner.New(runner.Options{Registry: hooks})
	defer run.Close()
	for i := range 20 {
		hooks.Register(luahook.Spec{Event: luahook.PreToolUse, Kind: luahook.KindGo, Name: fmt.Sprintf("hook-%d", i),
			Hook: answer(nil)})
		hooks.Register(luahook.Spec{Event: luahook.PostToolUse, Kind: luahook.KindGo, Name: fmt.Sprintf("hook-%d", i),
			Hook: answer(nil)})
	}
	h := New(run, Options{Registry: reg, Instance: "bench"})
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"event":"`+ev+`","toolName":"bash","toolInput":{}}`))
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
