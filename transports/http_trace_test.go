package transports

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/luahook/luahook"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// An HTTP hook called within a span sends its trace context on as
// traceparent and tracestate, over a header the hook's config names; with
// no span it sends none.
func TestHTTPHookSendsTheTraceContextOfItsSpan(t *testing.T) {
	got := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
	}))
	defer srv.Close()
	h, err := NewHTTP(HTTPSpec{URL: srv.URL, Headers: map[string]string{"Traceparent": "00-11111111111111111111111111111111-2222222222222222-01"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: []byte(`{}`)}

	if _, err := h.Call(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if hd := <-got; hd.Get("Traceparent") != "00-11111111111111111111111111111111-2222222222222222-01" || hd.Get("Tracestate") != "" {
		t.Errorf("without a span: traceparent %q, tracestate %q; want the configured header alone", hd.Get("Traceparent"), hd.Get("Tracestate"))
	}

	const want = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": want, "tracestate": "k=v"})
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("the test's span context is not valid")
	}
	if _, err := h.Call(ctx, in); err != nil {
		t.Fatal(err)
	}
	if hd := <-got; hd.Get("Traceparent") != want || hd.Get("Tracestate") != "k=v" {
		t.Errorf("within a span: traceparent %q, tracestate %q; want %q, k=v", hd.Get("Traceparent"), hd.Get("Tracestate"), want)
	}
}
