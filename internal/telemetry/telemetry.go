// Package telemetry builds the OpenTelemetry tracer provider that records
// luahook's decisions as traces and exports them over OTLP (HTTP with
// protobuf bodies, or gRPC) to a collector: what the config's [telemetry]
// section and the standard OTEL_* environment variables ask for.
//
// Tracing is off by default. It is on when [telemetry] enabled = true, or
// when the file does not say and OTEL_TRACES_EXPORTER is "otlp"; never
// when OTEL_SDK_DISABLED is "true" or enabled = false. Off, Setup builds
// nothing: no exporter, no goroutine, no connection, and the runner's
// decision path pays one atomic load.
//
// The spans themselves are the runner's (runner.SetTracer): one per
// decision, a child per hook called. Propagation is W3C Trace Context:
// serve continues the trace of a request's traceparent, and HTTP hooks
// receive the hook span's.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/config"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultServiceName is the resource's service.name when neither
// [telemetry] service_name nor OTEL_SERVICE_NAME names one.
const DefaultServiceName = "luahook"

// ShutdownTimeout bounds Shutdown's flush of the spans still queued: a
// collector that does not answer costs a stopping luahook this much, no
// more.
const ShutdownTimeout = 5 * time.Second

// TracerName is the instrumentation scope of luahook's spans.
const TracerName = "github.com/luahook/luahook"

// Options are what Setup needs besides the [telemetry] section.
type Options struct {
	// Instance is the resource's service.instance.id (serve's instance
	// id); "" leaves it out.
	Instance string
	// LookupEnv reads the environment; nil means os.LookupEnv. The
	// exporters read their own OTEL_EXPORTER_OTLP_* variables from the
	// process's environment whatever it is.
	LookupEnv func(string) (string, bool)
	// Logger receives the errors of exports (a collector that does not
	// answer), at warn level. Nil discards them.
	Logger *slog.Logger
}

// Provider is tracing when it is on: the tracer the runner records spans
// with, the propagator of the trace context, and the exporter's pipeline,
// which Shutdown flushes. A nil *Provider is tracing off: Tracer and
// Propagator return nil, Shutdown does nothing.
type Provider struct {
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	protocol string
}

// Enabled reports whether cfg and the environment turn tracing on (see
// the package's documentation).
func Enabled(cfg config.Telemetry, lookupEnv func(string) (string, bool)) bool {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	if v, _ := lookupEnv("OTEL_SDK_DISABLED"); strings.EqualFold(strings.TrimSpace(v), "true") {
		return false
	}
	if cfg.Enabled != nil {
		return *cfg.Enabled
	}
	v, _ := lookupEnv("OTEL_TRACES_EXPORTER")
	for _, name := range strings.Split(v, ",") {
		if strings.TrimSpace(name) == "otlp" {
			return true
		}
	}
	return false
}

// Setup builds the tracer provider cfg asks for: a batch span processor
// feeding an OTLP exporter, the resource naming the service (service.name,
// service.version luahook.Version, service.instance.id opts.Instance). It
// returns nil and no error when tracing is off (Enabled). Keys cfg sets win
// over the OTEL_* variables; the exporter reads the variables cfg leaves
// to it. Nothing is dialled here: the exporter connects on its first
// export. Call Shutdown when the process stops.
func Setup(ctx context.Context, cfg config.Telemetry, opts Options) (*Provider, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if !Enabled(cfg, lookup) {
		return nil, nil
	}
	protocol, err := protocolOf(cfg, lookup)
	if err != nil {
		return nil, err
	}
	exp, err := newExporter(ctx, protocol, cfg)
	if err != nil {
		return nil, fmt.Errorf("[telemetry]: the OTLP exporter (%s): %w", protocol, err)
	}
	res, err := newResource(ctx, cfg, opts.Instance, lookup)
	if err != nil {
		return nil, fmt.Errorf("[telemetry]: the resource: %w", err)
	}
	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}
	if r := cfg.SampleRatio; r != nil {
		tpOpts = append(tpOpts, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*r))))
	}
	// Otherwise the SDK reads OTEL_TRACES_SAMPLER and _ARG (default:
	// parent-based, always on).
	if opts.Logger != nil {
		logger := opts.Logger
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			logger.Warn("telemetry: exporting spans failed", "err", err)
		}))
	}
	tp := sdktrace.NewTracerProvider(tpOpts...)
	return &Provider{tp: tp, tracer: tp.Tracer(TracerName, trace.WithInstrumentationVersion(luahook.Version)), protocol: protocol}, nil
}

// Tracer is the tracer of luahook's spans (runner.SetTracer); nil when
// tracing is off.
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return nil
	}
	return p.tracer
}

// Propagator is the W3C Trace Context propagator (traceparent,
// tracestate); nil when tracing is off, so that nothing is read from a
// request nor sent on.
func (p *Provider) Propagator() propagation.TextMapPropagator {
	if p == nil {
		return nil
	}
	return propagation.TraceContext{}
}

// Protocol is the OTLP protocol spans are exported with: "http/protobuf"
// or "grpc"; "" when tracing is off.
func (p *Provider) Protocol() string {
	if p == nil {
		return ""
	}
	return p.protocol
}

// Shutdown exports the spans still queued and stops the exporter, within
// ShutdownTimeout of its call whatever ctx allows. Spans ended afterwards
// are dropped. A nil Provider does nothing.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if err := p.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("telemetry: flushing the spans: %w", err)
	}
	return nil
}

// protocolOf is [telemetry] protocol, else OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
// else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf.
func protocolOf(cfg config.Telemetry, lookup func(string) (string, bool)) (string, error) {
	if cfg.Protocol != "" {
		return cfg.Protocol, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		v, ok := lookup(name)
		if v = strings.TrimSpace(v); !ok || v == "" {
			continue
		}
		switch v {
		case config.TelemetryHTTP, config.TelemetryGRPC:
			return v, nil
		}
		return "", fmt.Errorf("%s=%q: luahook exports traces over %q or %q", name, v, config.TelemetryHTTP, config.TelemetryGRPC)
	}
	return config.TelemetryHTTP, nil
}

func newExporter(ctx context.Context, protocol string, cfg config.Telemetry) (*otlptrace.Exporter, error) {
	timeout := time.Duration(cfg.TimeoutMs) * time.Millisecond
	if protocol == config.TelemetryGRPC {
		var opts []otlptracegrpc.Option
		if cfg.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(cfg.Endpoint))
		}
		if cfg.Insecure != nil && *cfg.Insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		if cfg.Headers != nil {
			opts = append(opts, otlptracegrpc.WithHeaders(cfg.Headers))
		}
		if timeout > 0 {
			opts = append(opts, otlptracegrpc.WithTimeout(timeout))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil {
			return nil, errors.New("endpoint: " + err.Error())
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces" // as for OTEL_EXPORTER_OTLP_ENDPOINT
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	if cfg.Insecure != nil && *cfg.Insecure {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	if cfg.Headers != nil {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	if timeout > 0 {
		opts = append(opts, otlptracehttp.WithTimeout(timeout))
	}
	return otlptracehttp.New(ctx, opts...)
}

// newResource names the service: service.name from [telemetry]
// service_name, else OTEL_SERVICE_NAME, else DefaultServiceName; the
// attributes of OTEL_RESOURCE_ATTRIBUTES; the SDK's own.
func newResource(ctx context.Context, cfg config.Telemetry, instance string, lookup func(string) (string, bool)) (*resource.Resource, error) {
	name := cfg.ServiceName
	if name == "" {
		if v, _ := lookup("OTEL_SERVICE_NAME"); strings.TrimSpace(v) != "" {
			name = v
		} else {
			name = DefaultServiceName
		}
	}
	attrs := []attribute.KeyValue{
		attribute.String("service.name", name),
		attribute.String("service.version", luahook.Version),
	}
	if instance != "" {
		attrs = append(attrs, attribute.String("service.instance.id", instance))
	}
	return resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithAttributes(attrs...))
}
