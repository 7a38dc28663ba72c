package metrics_test

import (
	"net/http/httptest"
	"os"

	"github.com/luahook/luahook/internal/metrics"
)

func ExampleRegistry() {
	reg := metrics.NewRegistry()
	requests := reg.NewCounterVec("app_requests_total", "Requests by HTTP status.", "code")
	ok := requests.WithLabelValues("200") // resolved once, counted often
	ok.Inc()
	ok.Inc()
	requests.WithLabelValues("404").Inc()
	latency := reg.NewHistogram("app_latency_seconds", "Time to answer.", []float64{.01, .1})
	latency.Observe(.05)
	reg.NewGaugeFunc("app_queue_length", "Jobs waiting.", func() float64 { return 3 })

	rec := httptest.NewRecorder() // what GET on reg (an http.Handler) serves
	reg.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	os.Stdout.Write(rec.Body.Bytes())
	// Output:
	// # HELP app_latency_seconds Time to answer.
	// # TYPE app_latency_seconds histogram
	// app_latency_seconds_bucket{le="0.01"} 0
	// app_latency_seconds_bucket{le="0.1"} 1
	// app_latency_seconds_bucket{le="+Inf"} 1
	// app_latency_seconds_sum 0.05
	// app_latency_seconds_count 1
	// # HELP app_queue_length Jobs waiting.
	// # TYPE app_queue_length gauge
	// app_queue_length 3
	// # HELP app_requests_total Requests by HTTP status.
	// # TYPE app_requests_total counter
	// app_requests_total{code="200"} 2
	// app_requests_total{code="404"} 1
}
