package runner

import (
	"context"
	"testing"

	"github.com/luahook/luahook"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// discardExporter takes every batch of spans and keeps nothing.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// benchTraced is BenchmarkPreToolUseOneBoundHook through FireInto, with
// tracing on (a batch span processor, as telemetry.Setup builds, feeding an
// exporter that keeps nothing) or off.
func benchTraced(b *testing.B, traced bool) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Stage: luahook.StageValidate, Hook: bound(rmGuard)})
	if traced {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardExporter{}))
		b.Cleanup(func() { tp.Shutdown(context.Background()) })
		r.SetTracer(tp.Tracer("bench"))
	}
	ctx := context.Background()
	var res Result
	b.ReportAllocs()
	for b.Loop() {
		if r.FireInto(ctx, benchBash, &res); res.Denied() {
			b.Fatal(res.Reason)
		}
	}
}

func BenchmarkFireIntoTracingOff(b *testing.B) { benchTraced(b, false) }
func BenchmarkFireIntoTracingOn(b *testing.B)  { benchTraced(b, true) }
