// Package otlptest runs real OTLP trace receivers in the test's process:
// an HTTP endpoint and a gRPC server on 127.0.0.1 that decode the OTLP
// protobuf payloads (ExportTraceServiceRequest) an exporter sends, and keep
// the spans, flattened, for the test to read.
package otlptest

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// MaxBody bounds one export request the HTTP receiver reads (16 MiB).
const MaxBody = 16 << 20

// Span is one span as it arrived, flattened.
type Span struct {
	Name     string
	TraceID  string // 32 hex digits
	SpanID   string // 16 hex digits
	ParentID string // "" for a root span
	Kind     tracepb.Span_SpanKind
	Start    time.Time
	End      time.Time
	// Attrs holds the span's attributes: string, int64, float64 or bool
	// values (others as their protobuf text).
	Attrs map[string]any
	// Error is set when the span's status is Error, with its message.
	Error         bool
	StatusMessage string
	// Resource holds the attributes of the span's resource, Scope the
	// name of its instrumentation scope.
	Resource map[string]any
	Scope    string
}

// Duration is how long the span lasted.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// Receiver is an OTLP trace receiver listening on 127.0.0.1.
type Receiver struct {
	// Endpoint is the receiver's URL: http://127.0.0.1:PORT, for the HTTP
	// receiver the base its exporter appends /v1/traces to.
	Endpoint string

	mu       sync.Mutex
	spans    []Span
	requests int
	headers  []map[string]string // of each export request, names in lower case
	changed  chan struct{}       // closed and replaced on each export
	conns    atomic.Int64        // connections accepted
}

func newReceiver() *Receiver { return &Receiver{changed: make(chan struct{})} }

// NewHTTP starts an OTLP/HTTP receiver (POST /v1/traces, protobuf bodies)
// that stops when t's test ends.
func NewHTTP(t testing.TB) *Receiver {
	t.Helper()
	r := newReceiver()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveHTTP)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(countingListener{ln, &r.conns})
	t.Cleanup(func() { srv.Close() })
	r.Endpoint = "http://" + ln.Addr().String()
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "Content-Type must be application/x-protobuf, not "+ct, http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectorpb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, "not an ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
		return
	}
	h := make(map[string]string, len(req.Header))
	for k, v := range req.Header {
		h[strings.ToLower(k)] = strings.Join(v, ",")
	}
	r.add(&msg, h)
	out, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// NewGRPC starts an OTLP/gRPC receiver (the TraceService) that stops when
// t's test ends; Endpoint is http://127.0.0.1:PORT (plaintext).
func NewGRPC(t testing.TB) *Receiver {
	t.Helper()
	r := newReceiver()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(MaxBody))
	collectorpb.RegisterTraceServiceServer(srv, traceService{r: r})
	go srv.Serve(countingListener{ln, &r.conns})
	t.Cleanup(srv.Stop)
	r.Endpoint = "http://" + ln.Addr().String()
	return r
}

type traceService struct {
	collectorpb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(ctx context.Context, msg *collectorpb.ExportTraceServiceRequest) (*collectorpb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(map[string]string, len(md))
	for k, v := range md {
		h[k] = strings.Join(v, ",")
	}
	s.r.add(msg, h)
	return &collectorpb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) add(msg *collectorpb.ExportTraceServiceRequest, headers map[string]string) {
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					Kind:  s.GetKind(),
					Start: time.Unix(0, int64(s.GetStartTimeUnixNano())), End: time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Attrs: attrMap(s.GetAttributes()), Resource: res, Scope: ss.GetScope().GetName(),
					Error:         s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
					StatusMessage: s.GetStatus().GetMessage(),
				}
				if p := s.GetParentSpanId(); len(p) > 0 {
					sp.ParentID = hex.EncodeToString(p)
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.requests++
	r.headers = append(r.headers, headers)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = x.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = x.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = x.BoolValue
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}

// Spans returns the spans received so far, in the order they arrived.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests is how many export requests arrived.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Connections is how many connections the receiver accepted, whether or
// not they sent anything.
func (r *Receiver) Connections() int64 { return r.conns.Load() }

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Headers returns the headers (gRPC: metadata) of each export request,
// names in lower case.
func (r *Receiver) Headers() []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]string(nil), r.headers...)
}

// Wait returns the spans once at least n arrived, failing t when they do
// not within timeout.
func (r *Receiver) Wait(t testing.TB, n int, timeout time.Duration) []Span {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, changed := len(r.spans), r.changed
		r.mu.Unlock()
		if got >= n {
			return r.Spans()
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%d span(s) arrived within %s, want %d: %v", got, timeout, n, names(r.Spans()))
		}
	}
}

func names(spans []Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

// Tree renders the spans as a tree, a child below its parent, each line
// "name  (duration)", the way a collector's trace view shows them; spans
// of other traces than the first root's are left out.
func Tree(spans []Span) string {
	children := map[string][]Span{}
	var root *Span
	for i := range spans {
		s := spans[i]
		children[s.ParentID] = append(children[s.ParentID], s)
	}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanID] = true
	}
	for i := range spans {
		if !ids[spans[i].ParentID] {
			root = &spans[i]
			break
		}
	}
	if root == nil {
		return ""
	}
	var b strings.Builder
	var walk func(s Span, indent string)
	walk = func(s Span, indent string) {
		b.WriteString(indent + s.Name + "  (" + s.Duration().Round(time.Microsecond).String() + ")\n")
		kids := children[s.SpanID]
		sortByStart(kids)
		for _, k := range kids {
			walk(k, indent+"  ")
		}
	}
	walk(*root, "")
	return b.String()
}

func sortByStart(s []Span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Start.Before(s[j-1].Start); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
