package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/telemetry"
	"go.opentelemetry.io/otel/propagation"
)

// startTracing turns tracing on when eng's [telemetry] and the OTEL_*
// variables ask for it (telemetry.Enabled): the runner records a span per
// decision, exported over OTLP. It returns nil, and changes nothing, when
// tracing is off. Stop it with stopTracing, which flushes the spans.
func startTracing(ctx context.Context, eng *engine.Engine, instance string, logger *slog.Logger) (*telemetry.Provider, error) {
	var cfg config.Telemetry
	if c := eng.Config(); c != nil {
		cfg = c.Telemetry
	}
	p, err := telemetry.Setup(ctx, cfg, telemetry.Options{Instance: instance, Logger: logger})
	if err != nil || p == nil {
		return nil, err
	}
	eng.Runner().SetTracer(p.Tracer())
	logger.Info("tracing decisions: spans are exported over OTLP", "protocol", p.Protocol())
	return p, nil
}

// stopTracing stops recording spans and exports those still queued,
// within telemetry.ShutdownTimeout; a nil p does nothing.
func stopTracing(eng *engine.Engine, p *telemetry.Provider, logger *slog.Logger) {
	if p == nil {
		return
	}
	eng.Runner().SetTracer(nil)
	if err := p.Shutdown(context.Background()); err != nil {
		logger.Warn("tracing: the last spans were not exported", "err", err)
	}
}

// traceFire is tracing for one fire: on as for serve, the decision's span
// a child of the span $TRACEPARENT (and $TRACESTATE) names, the way a
// caller hands its trace to a process it starts. stop flushes the spans
// (within telemetry.ShutdownTimeout: a collector that does not answer
// delays fire's exit by that much at most). Tracing that cannot be set up
// is a warning: the decision goes on untraced.
func traceFire(ctx context.Context, eng *engine.Engine, logger *slog.Logger) (context.Context, func()) {
	var cfg config.Telemetry
	if c := eng.Config(); c != nil {
		cfg = c.Telemetry
	}
	p, err := telemetry.Setup(ctx, cfg, telemetry.Options{Logger: logger})
	if err != nil {
		logger.Warn("tracing is off: " + err.Error())
	}
	if p == nil {
		return ctx, func() {}
	}
	eng.Runner().SetTracer(p.Tracer())
	carrier := propagation.MapCarrier{}
	for key, name := range map[string]string{"traceparent": "TRACEPARENT", "tracestate": "TRACESTATE"} {
		if v, ok := os.LookupEnv(name); ok {
			carrier[key] = v
		}
	}
	return p.Propagator().Extract(ctx, carrier), func() { stopTracing(eng, p, logger) }
}
