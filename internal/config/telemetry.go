package config

import (
	"net/url"
	"strings"
)

// The protocols of [telemetry] protocol: OTLP over HTTP with protobuf
// bodies, or over gRPC.
const (
	TelemetryHTTP = "http/protobuf"
	TelemetryGRPC = "grpc"
)

// Telemetry is the [telemetry] section: traces of the decisions, exported
// over OTLP (internal/telemetry). Each key the file leaves out is left to
// the standard OTEL_* environment variables, then to the defaults; a key
// the file sets wins over the variable. Changes apply when luahook
// restarts.
type Telemetry struct {
	// Enabled (enabled) turns tracing on or off; nil when the file does
	// not say: then tracing is on only when OTEL_TRACES_EXPORTER is "otlp".
	// OTEL_SDK_DISABLED=true turns it off whatever the file says.
	Enabled *bool
	// Protocol (protocol) is TelemetryHTTP or TelemetryGRPC; "" leaves it
	// to OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, default http/protobuf.
	Protocol string
	// Endpoint (endpoint) is the collector's URL, http:// (plaintext) or
	// https://; for http/protobuf a URL without a path is sent to
	// /v1/traces. "" leaves it to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT,
	// default localhost:4318 (HTTP) or localhost:4317 (gRPC).
	Endpoint string
	// Headers (headers) are sent with every export (an API key); nil leaves
	// them to OTEL_EXPORTER_OTLP_(TRACES_)HEADERS.
	Headers map[string]string
	// Insecure (insecure) sends in plaintext, without TLS; nil leaves it to
	// the endpoint's scheme and OTEL_EXPORTER_OTLP_(TRACES_)INSECURE.
	Insecure *bool
	// SampleRatio (sample_ratio, 0 to 1) is the share of decisions traced
	// when no caller's span decided (parent-based); nil leaves it to
	// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, default every one.
	SampleRatio *float64
	// ServiceName (service_name) is the resource's service.name; ""
	// leaves it to OTEL_SERVICE_NAME, default "luahook".
	ServiceName string
	// TimeoutMs (timeout_ms, 1 to 600000) bounds one export; 0 leaves it
	// to OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT, default 10 s.
	TimeoutMs int
}

func (d *decoder) telemetry(n *node, t *Telemetry) {
	known := []string{"enabled", "protocol", "endpoint", "headers", "insecure", "sample_ratio", "service_name", "timeout_ms"}
	d.table(n, known, func(key string, v *node) {
		switch key {
		case "enabled":
			if b, ok := d.boolean(v); ok {
				t.Enabled = &b
			}
		case "protocol":
			if s, ok := d.str(v); ok {
				if s != TelemetryHTTP && s != TelemetryGRPC {
					d.errorf(v.line, v.path(), "must be %q or %q, not %q", TelemetryHTTP, TelemetryGRPC, s)
				} else {
					t.Protocol = s
				}
			}
		case "endpoint":
			if s, ok := d.str(v); ok {
				if msg := checkEndpoint(s); msg != "" {
					d.errorf(v.line, v.path(), "%s", msg)
				} else {
					t.Endpoint = s
				}
			}
		case "headers":
			if h := d.headers(v); h != nil {
				good := true
				for _, k := range v.keys {
					if msg := checkExportHeader(k, h[k]); msg != "" {
						d.errorf(v.fields[k].line, v.fields[k].path(), "%s", msg)
						good = false
					}
				}
				if good {
					t.Headers = h
				}
			}
		case "insecure":
			if b, ok := d.boolean(v); ok {
				t.Insecure = &b
			}
		case "sample_ratio":
			if f, ok := d.ratio(v); ok {
				t.SampleRatio = &f
			}
		case "service_name":
			if s, ok := d.str(v); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(v.line, v.path(), "must not be empty")
				} else {
					t.ServiceName = s
				}
			}
		case "timeout_ms":
			if i, ok := d.integer(v, 1, MaxTimeoutMs); ok {
				t.TimeoutMs = i
			}
		}
	})
}

// ratio reads a number from 0 to 1, an integer or a float.
func (d *decoder) ratio(n *node) (float64, bool) {
	var f float64
	switch n.kind {
	case kindInt:
		f = float64(n.num)
	case kindFloat:
		f = n.flt
	default:
		d.wrongType(n, "a number from 0 to 1")
		return 0, false
	}
	if !(f >= 0 && f <= 1) { // NaN too
		d.errorf(n.line, n.path(), "must be from 0 to 1, not %v", f)
		return 0, false
	}
	return f, true
}

// checkEndpoint judges a collector's URL.
func checkEndpoint(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URL: " + err.Error()
	case u.Scheme != "http" && u.Scheme != "https":
		return `must be a URL starting with http:// or https:// (the collector's, e.g. "http://localhost:4318")`
	case u.Host == "":
		return "the URL names no host"
	case u.User != nil:
		return "the URL must not hold credentials: give them in headers"
	case u.RawQuery != "" || u.Fragment != "":
		return "the URL must not have a query or a fragment"
	}
	return ""
}

// checkExportHeader judges a header of [telemetry] headers: a token for a
// name, a value without line breaks.
func checkExportHeader(name, value string) string {
	if name == "" {
		return "a header name must not be empty"
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return "not a valid header name: " + name
		}
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return "the value must not hold a line break or NUL"
	}
	return ""
}
