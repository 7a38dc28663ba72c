package metrics_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook/internal/metrics"
)

var buckets = []float64{.001, .01, .1, 1}

// everyKind registers one metric of each kind, with some values.
func everyKind(reg *metrics.Registry) {
	c := reg.NewCounter("t_events_total", "Events.")
	c.Add(3)
	v := reg.NewCounterVec("t_calls_total", "Calls by hook and kind.", "hook", "kind")
	v.WithLabelValues("b", "lua").Inc()
	v.WithLabelValues("a", "go").Add(2)
	h := reg.NewHistogram("t_wait_seconds", "Wait.", buckets)
	for _, x := range []float64{.0005, .001, .05, 3} {
		h.Observe(x)
	}
	hv := reg.NewHistogramVec("t_hook_seconds", "Hook time.", buckets, "event", "hook")
	hv.WithLabelValues("Stop", "z").Observe(.2)
	hv.WithLabelValues("PreToolUse", "y").Observe(.002)
	reg.NewGaugeFunc("t_load_errors", "Load errors.", func() float64 { return 2 })
	reg.NewCounterFunc("t_written_total", "Written.", func() float64 { return 7 })
	reg.Register(metrics.CollectorFunc(func(s *metrics.Scrape) {
		s.Counter("t_store_calls_total", "Store calls.", 4, "result", "ok", "op", "get")
		s.Counter("t_store_calls_total", "Store calls.", 1, "op", "get", "result", "error")
		s.Histogram("t_store_seconds", "Store time.", metrics.HistogramValue{Bounds: buckets, Counts: []uint64{1, 2, 2, 5}, Count: 6, Sum: 9.5}, "op", "get")
	}))
}

// get serves h on 127.0.0.1 and GETs it once.
func get(t *testing.T, h http.Handler) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func scrape(t *testing.T, h http.Handler) (string, http.Header) {
	t.Helper()
	resp, text := get(t, h)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s: %s", resp.Status, text)
	}
	return text, resp.Header
}

func TestExpositionParsesStrictlyWithEveryKindAndTheRuntimeCollectors(t *testing.T) {
	reg := metrics.NewRegistry()
	everyKind(reg)
	reg.Register(metrics.NewGoCollector())
	reg.Register(metrics.NewProcessCollector())
	text, hdr := scrape(t, reg)
	if ct := hdr.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	fs, err := parseExposition(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	got := map[string]family{}
	for _, f := range fs {
		got[f.name] = f
	}
	for name, typ := range map[string]string{
		"t_events_total": "counter", "t_calls_total": "counter", "t_wait_seconds": "histogram",
		"t_hook_seconds": "histogram", "t_load_errors": "gauge", "t_written_total": "counter",
		"t_store_calls_total": "counter", "t_store_seconds": "histogram",
		"go_goroutines": "gauge", "go_threads": "gauge", "go_info": "gauge",
		"go_memstats_alloc_bytes": "gauge", "go_memstats_heap_inuse_bytes": "gauge", "go_memstats_sys_bytes": "gauge",
		"go_gc_duration_seconds": "summary", "process_cpu_seconds_total": "counter",
		"process_resident_memory_bytes": "gauge", "process_virtual_memory_bytes": "gauge",
		"process_open_fds": "gauge", "process_max_fds": "gauge", "process_start_time_seconds": "gauge",
	} {
		if got[name].typ != typ {
			t.Errorf("%s: type %q, want %q", name, got[name].typ, typ)
		}
	}
	for _, want := range []string{
		"t_events_total 3\n",
		`t_calls_total{hook="a",kind="go"} 2` + "\n" + `t_calls_total{hook="b",kind="lua"} 1` + "\n",
		`t_wait_seconds_bucket{le="0.001"} 2` + "\n" + `t_wait_seconds_bucket{le="0.01"} 2` + "\n" +
			`t_wait_seconds_bucket{le="0.1"} 3` + "\n" + `t_wait_seconds_bucket{le="1"} 3` + "\n" +
			`t_wait_seconds_bucket{le="+Inf"} 4` + "\n" + "t_wait_seconds_sum 3.0515\n" + "t_wait_seconds_count 4\n",
		`t_hook_seconds_count{event="PreToolUse",hook="y"} 1`,
		`t_store_calls_total{op="get",result="error"} 1` + "\n" + `t_store_calls_total{op="get",result="ok"} 4` + "\n",
		`t_store_seconds_bucket{op="get",le="+Inf"} 6`,
		"t_load_errors 2\n", "t_written_total 7\n",
		fmt.Sprintf(`go_info{version=%q} 1`, runtimeVersion(text)),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
	if g := got["process_start_time_seconds"]; len(g.samples) == 1 && g.samples[0].value < 1e9 {
		t.Errorf("process_start_time_seconds %v is not a Unix time", g.samples[0].value)
	}
}

func runtimeVersion(text string) string {
	_, rest, _ := strings.Cut(text, `go_info{version="`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

func TestScrapesOfUnchangedMetricsAreByteForByteEqual(t *testing.T) {
	reg := metrics.NewRegistry()
	everyKind(reg)
	var a, b bytes.Buffer
	if err := reg.WriteText(&a); err != nil {
		t.Fatal(err)
	}
	if err := reg.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two scrapes differ:\n%s\n---\n%s", a.String(), b.String())
	}
}

func TestLabelValuesAndHelpAreEscaped(t *testing.T) {
	reg := metrics.NewRegistry()
	odd := "say \"hi\"\\ then\nbye"
	reg.NewCounterVec("t_odd_total", "Help with a \\ backslash,\na newline and \"quotes\".", "hook").WithLabelValues(odd).Inc()
	reg.NewCounterVec("t_bad_utf8_total", "Bad UTF-8.", "hook").WithLabelValues("a\xffb").Inc()
	text, _ := scrape(t, reg)
	for _, want := range []string{
		`# HELP t_odd_total Help with a \\ backslash,\na newline and "quotes".` + "\n",
		`t_odd_total{hook="say \"hi\"\\ then\nbye"} 1` + "\n",
		"t_bad_utf8_total{hook=\"a\uFFFDb\"} 1\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %q:\n%s", want, text)
		}
	}
	fs, err := parseExposition(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, f := range fs {
		if f.name == "t_odd_total" {
			if v, _ := f.samples[0].label("hook"); v != odd {
				t.Errorf("label value read back as %q, want %q", v, odd)
			}
			if f.help != "Help with a \\ backslash,\na newline and \"quotes\"." {
				t.Errorf("help read back as %q", f.help)
			}
		}
	}
}

func TestResolvedHandlesCountWithoutAllocating(t *testing.T) {
	reg := metrics.NewRegistry()
	c := reg.NewCounterVec("t_total", "T.", "event", "hook").WithLabelValues("PreToolUse", "guard")
	h := reg.NewHistogramVec("t_seconds", "T.", buckets, "event", "hook").WithLabelValues("PreToolUse", "guard")
	cv := reg.NewCounterVec("t_lookup_total", "T.", "event", "hook")
	cv.WithLabelValues("PreToolUse", "guard")
	ev, hook := "PreToolUse", "guard"
	for name, f := range map[string]func(){
		"Counter.Inc":                         func() { c.Inc() },
		"Histogram.Observe":                   func() { h.Observe(.003) },
		"CounterVec.WithLabelValues(...).Inc": func() { cv.WithLabelValues(ev, hook).Inc() },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

func TestHistogramCountsAValueInTheFirstBucketThatHoldsIt(t *testing.T) {
	reg := metrics.NewRegistry()
	h := reg.NewHistogram("t_seconds", "T.", buckets)
	for _, x := range []float64{-1, .001, .0010001, 1, 1.5, math.Inf(+1), math.NaN()} {
		h.Observe(x)
	}
	v := h.Value()
	// -1 and .001 in le=.001; .0010001 in .01; 1 in 1; the rest only in +Inf.
	if want := []uint64{2, 3, 3, 4}; fmt.Sprint(v.Counts) != fmt.Sprint(want) || v.Count != 7 {
		t.Errorf("cumulative counts %v count %d, want %v and 7", v.Counts, v.Count, want)
	}
}

func TestConcurrentObservationsAllCount(t *testing.T) {
	reg := metrics.NewRegistry()
	hv := reg.NewHistogramVec("t_seconds", "T.", buckets, "hook")
	cv := reg.NewCounterVec("t_total", "T.", "hook")
	const workers, each = 8, 1000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				hook := fmt.Sprint("h", (w+i)%20)
				hv.WithLabelValues(hook).Observe(.5)
				cv.WithLabelValues(hook).Inc()
			}
		})
	}
	var text bytes.Buffer
	for range 5 { // scrapes while the series are made and counted
		text.Reset()
		if err := reg.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if _, err := parseExposition(text.String()); text.Len() > 0 && err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	var count, calls uint64
	for i := range 20 {
		count += hv.WithLabelValues(fmt.Sprint("h", i)).Value().Count
		calls += cv.WithLabelValues(fmt.Sprint("h", i)).Value()
	}
	if count != workers*each || calls != workers*each {
		t.Errorf("observed %d and counted %d, want %d each", count, calls, workers*each)
	}
}

func TestAVecServesAtMostMaxSeries(t *testing.T) {
	reg := metrics.NewRegistry()
	cv := reg.NewCounterVec("t_total", "T.", "hook")
	for i := range metrics.MaxSeries + 10 {
		cv.WithLabelValues(fmt.Sprint(i)).Inc()
	}
	var text bytes.Buffer
	if err := reg.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "\nt_total{"); n != metrics.MaxSeries {
		t.Errorf("%d series served, want MaxSeries (%d)", n, metrics.MaxSeries)
	}
	if v := cv.WithLabelValues("0").Value(); v != 1 {
		t.Errorf("an early series counts %d, want 1", v)
	}
}

func TestAScrapeThatCannotBeWrittenFailsWhole(t *testing.T) {
	for name, c := range map[string]metrics.CollectorFunc{
		"two series with one label set": func(s *metrics.Scrape) {
			s.Counter("t_total", "T.", 1, "hook", "a")
			s.Counter("t_total", "T.", 2, "hook", "a")
		},
		"one name, two types": func(s *metrics.Scrape) {
			s.Counter("t_total", "T.", 1)
			s.Gauge("t_total", "T.", 1)
		},
		"a bad label name":  func(s *metrics.Scrape) { s.Gauge("t_g", "T.", 1, "bad-name", "x") },
		"le on a histogram": func(s *metrics.Scrape) { s.Histogram("t_h", "T.", metrics.HistogramValue{}, "le", "1") },
		"buckets not cumulative": func(s *metrics.Scrape) {
			s.Histogram("t_h", "T.", metrics.HistogramValue{Bounds: []float64{1, 2}, Counts: []uint64{2, 1}, Count: 2})
		},
		"a bad metric name":       func(s *metrics.Scrape) { s.Gauge("1bad", "T.", 1) },
		"an odd number of labels": func(s *metrics.Scrape) { s.Gauge("t_g", "T.", 1, "hook") },
	} {
		t.Run(name, func(t *testing.T) {
			reg := metrics.NewRegistry()
			reg.NewCounter("t_fine_total", "Fine.").Inc()
			reg.Register(c)
			resp, b := get(t, reg)
			if resp.StatusCode != http.StatusInternalServerError || strings.Contains(b, "t_fine_total") {
				t.Errorf("got %s with %q, want 500 and no partial exposition", resp.Status, b)
			}
		})
	}
}

func TestGzipIsServedToClientsThatAcceptIt(t *testing.T) {
	reg := metrics.NewRegistry()
	everyKind(reg)
	// The default transport asks for gzip and unpacks it, reporting
	// Uncompressed.
	resp, b := get(t, reg)
	if !resp.Uncompressed {
		t.Error("the response was not gzipped for a client that accepts gzip")
	}
	if _, err := parseExposition(b); err != nil {
		t.Error(err)
	}
}
