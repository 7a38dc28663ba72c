package metrics_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/luahook/luahook/internal/metrics"
)

// scrape GETs h's exposition and parses it with Prometheus's text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET: %s: %s", resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format 0.0.4", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	return fs
}

func TestEveryKindAndTheRuntimeCollectorsParse(t *testing.T) {
	reg := metrics.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.NewCounter("app_events_total", "Events.").Add(3)
	reg.NewCounterVec("app_requests_total", "Requests by code.", "code").WithLabelValues("200").Inc()
	reg.NewHistogram("app_latency_seconds", "Latency.", []float64{.01, .1}).Observe(.05)
	reg.NewHistogramVec("app_call_seconds", "Calls.", []float64{1}, "op").WithLabelValues("get").Observe(2)
	reg.NewGaugeFunc("app_queue_length", "Queue.", func() float64 { return 7 })
	reg.NewCounterFunc("app_reloads_total", "Reloads.", func() float64 { return 2 })
	fs := scrape(t, reg)
	want := map[string]dto.MetricType{
		"app_events_total": dto.MetricType_COUNTER, "app_requests_total": dto.MetricType_COUNTER,
		"app_latency_seconds": dto.MetricType_HISTOGRAM, "app_call_seconds": dto.MetricType_HISTOGRAM,
		"app_queue_length": dto.MetricType_GAUGE, "app_reloads_total": dto.MetricType_COUNTER,
		"go_goroutines": dto.MetricType_GAUGE, "go_memstats_alloc_bytes": dto.MetricType_GAUGE,
		"go_gc_duration_seconds": dto.MetricType_SUMMARY, "go_info": dto.MetricType_GAUGE,
	}
	if runtime.GOOS == "linux" {
		want["process_cpu_seconds_total"] = dto.MetricType_COUNTER
		want["process_resident_memory_bytes"] = dto.MetricType_GAUGE
		want["process_open_fds"] = dto.MetricType_GAUGE
	}
	for name, typ := range want {
		f := fs[name]
		if f == nil {
			t.Errorf("%s is not served", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s is a %s, want a %s", name, f.GetType(), typ)
		}
	}
	if v := fs["app_queue_length"].GetMetric()[0].GetGauge().GetValue(); v != 7 {
		t.Errorf("app_queue_length = %v, want 7", v)
	}
	h := fs["app_latency_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 1 || h.GetBucket()[0].GetCumulativeCount() != 0 || h.GetBucket()[1].GetCumulativeCount() != 1 {
		t.Errorf("app_latency_seconds after one observation of 0.05 in buckets 0.01, 0.1: %v", h)
	}
}

// series counts the series of the family name.
func series(fs map[string]*dto.MetricFamily, name string) int { return len(fs[name].GetMetric()) }

func TestAFloodOfLabelValuesCannotGrowAVecPastMaxSeries(t *testing.T) {
	reg := metrics.NewRegistry()
	calls := reg.NewCounterVec("app_calls_total", "Calls by hook.", "event", "hook")
	latency := reg.NewHistogramVec("app_call_seconds", "Calls by hook.", []float64{1}, "hook")
	const flood = metrics.MaxSeries + 1000
	for i := range flood {
		name := fmt.Sprintf("hook-%d", i)
		calls.WithLabelValues("PreToolUse", name).Inc()
		latency.WithLabelValues(name).Observe(.5)
	}
	fs := scrape(t, reg)
	for _, name := range []string{"app_calls_total", "app_call_seconds"} {
		if n := series(fs, name); n != metrics.MaxSeries {
			t.Errorf("%s: %d series after %d distinct values, want the cap %d", name, n, flood, metrics.MaxSeries)
		}
	}
	var other float64
	for _, m := range fs["app_calls_total"].GetMetric() {
		if lp := m.GetLabel(); lp[0].GetValue() == metrics.Other && lp[1].GetValue() == metrics.Other {
			other = m.GetCounter().GetValue()
		}
	}
	if want := float64(flood - (metrics.MaxSeries - 1)); other != want {
		t.Errorf(`app_calls_total{event="other",hook="other"} = %v, want the %v calls past the cap`, other, want)
	}
	// A series made before the cap goes on counting under its own values.
	calls.WithLabelValues("PreToolUse", "hook-0").Inc()
	for _, m := range scrape(t, reg)["app_calls_total"].GetMetric() {
		if m.GetLabel()[1].GetValue() == "hook-0" && m.GetCounter().GetValue() != 2 {
			t.Errorf("hook-0 = %v, want 2", m.GetCounter().GetValue())
		}
	}
}

func TestResolvedHandlesCountWithoutAllocating(t *testing.T) {
	reg := metrics.NewRegistry()
	calls := reg.NewCounterVec("app_calls_total", "Calls.", "event", "hook")
	latency := reg.NewHistogramVec("app_call_seconds", "Calls.", []float64{.1, 1}, "event", "hook")
	ev, hook := "PreToolUse", "guard"
	calls.WithLabelValues(ev, hook).Inc()
	latency.WithLabelValues(ev, hook).Observe(.2)
	if n := testing.AllocsPerRun(1000, func() {
		calls.WithLabelValues(ev, hook).Inc()
		latency.WithLabelValues(ev, hook).Observe(.2)
	}); n != 0 {
		t.Errorf("counting through an existing series: %v allocations, want 0", n)
	}
}

func TestConcurrentFirstUsesMakeOneSeries(t *testing.T) {
	reg := metrics.NewRegistry()
	calls := reg.NewCounterVec("app_calls_total", "Calls.", "hook")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 500 {
				calls.WithLabelValues(fmt.Sprintf("h%d", i%50)).Inc()
			}
		})
	}
	wg.Wait()
	fs := scrape(t, reg)
	if n := series(fs, "app_calls_total"); n != 50 {
		t.Fatalf("%d series, want 50", n)
	}
	for _, m := range fs["app_calls_total"].GetMetric() {
		if v := m.GetCounter().GetValue(); v != 80 {
			t.Errorf("%s = %v, want 80", m.GetLabel()[0].GetValue(), v)
		}
	}
}

func TestLabelValuesThatAreNotUTF8AreRepaired(t *testing.T) {
	reg := metrics.NewRegistry()
	reg.NewCounterVec("app_calls_total", "Calls.", "hook").WithLabelValues("bad\xffname").Inc()
	d := metrics.NewDesc("app_read_total", "Read at scrape time.", "hook")
	reg.MustRegister(metrics.CollectorFunc([]*metrics.Desc{d}, func(ch chan<- metrics.Metric) {
		ch <- metrics.ConstCounter(d, 1, "also\xfe")
	}))
	fs := scrape(t, reg)
	if v := fs["app_calls_total"].GetMetric()[0].GetLabel()[0].GetValue(); v != "bad\uFFFDname" {
		t.Errorf("label value %q, want the bad byte replaced", v)
	}
	if v := fs["app_read_total"].GetMetric()[0].GetLabel()[0].GetValue(); v != "also\uFFFD" {
		t.Errorf("label value %q, want the bad byte replaced", v)
	}
}

func TestACollectorThatSendsABadSeriesFailsTheScrape(t *testing.T) {
	reg := metrics.NewRegistry()
	d := metrics.NewDesc("app_read_total", "Read at scrape time.", "hook")
	reg.MustRegister(metrics.CollectorFunc([]*metrics.Desc{d}, func(ch chan<- metrics.Metric) {
		ch <- metrics.ConstCounter(d, 1) // no value for hook
	}))
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "app_read_total") {
		t.Errorf("a bad series: %d %q, want 500 naming the family", rec.Code, rec.Body.String())
	}
}

func TestScrapesPastMaxScrapesInFlightAreAnswered503(t *testing.T) {
	reg := metrics.NewRegistry()
	d := metrics.NewDesc("app_slow", "A slow read.")
	entered, release := make(chan struct{}), make(chan struct{})
	reg.MustRegister(metrics.CollectorFunc([]*metrics.Desc{d}, func(ch chan<- metrics.Metric) {
		entered <- struct{}{}
		<-release
		ch <- metrics.ConstGauge(d, 1)
	}))
	srv := httptest.NewServer(reg)
	defer srv.Close()
	codes := make(chan int, metrics.MaxScrapesInFlight)
	for range metrics.MaxScrapesInFlight {
		go func() {
			resp, err := http.Get(srv.URL)
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
		<-entered
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	close(release)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a scrape past %d in flight: %s, want 503", metrics.MaxScrapesInFlight, resp.Status)
	}
	for range metrics.MaxScrapesInFlight {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("a scrape in flight: %d, want 200", c)
		}
	}
}

func TestGzipIsServedToClientsThatAcceptIt(t *testing.T) {
	reg := metrics.NewRegistry()
	reg.NewCounter("app_events_total", "Events.").Inc()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip", rec.Header().Get("Content-Encoding"))
	}
}
