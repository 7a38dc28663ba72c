package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// With a propagator, the trace context of a request reaches the hooks,
// on the hook route and an agent's route; without one it is not read.
func TestTheRequestsTraceContextReachesTheHooksWithAPropagator(t *testing.T) {
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, withProp := range []bool{true, false} {
		var mu sync.Mutex
		var seen []string
		reg := registry.New()
		if _, err := reg.Register(luahook.Spec{Event: luahook.PreToolUse, Hook: luahook.HookFunc(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
			mu.Lock()
			defer mu.Unlock()
			sc := trace.SpanContextFromContext(ctx)
			seen = append(seen, sc.TraceID().String()+"/"+sc.SpanID().String()+"/"+sc.TraceState().String())
			return nil, nil
		})}); err != nil {
			t.Fatal(err)
		}
		run := runner.New(runner.Options{Registry: reg})
		defer run.Close()
		opts := Options{}
		if withProp {
			opts.Propagator = propagation.TraceContext{}
		}
		srv := httptest.NewServer(New(run, opts))
		defer srv.Close()
		for _, p := range []struct{ path, body string }{
			{"/", `{"event":"PreToolUse","toolName":"bash","toolInput":{}}`},
			{"/agent/claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"cwd":"/w","session_id":"s"}`},
		} {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+p.path, strings.NewReader(p.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Traceparent", "00-"+traceID+"-"+spanID+"-01")
			req.Header.Set("Tracestate", "vendor=x")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("POST %s: %s", p.path, resp.Status)
			}
		}
		want := traceID + "/" + spanID + "/vendor=x"
		if !withProp {
			want = "00000000000000000000000000000000/0000000000000000/"
		}
		if len(seen) != 2 || seen[0] != want || seen[1] != want {
			t.Errorf("propagator %v: the hooks saw %q, want %q twice", withProp, seen, want)
		}
	}
}
