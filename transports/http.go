package transports

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HTTPSpec configures an HTTP hook. Only URL is required; the zero value of
// every other field is useful.
type HTTPSpec struct {
	// URL is the endpoint; see AdmitURL for what is admitted.
	URL string
	// Headers are sent with every request. A value may contain ${NAME}
	// references, expanded once by NewHTTP, for names listed in AllowedEnv.
	Headers map[string]string
	// AllowedEnv lists the environment variables header values may expand.
	AllowedEnv []string
	// AllowPrivateNetwork admits loopback, private and CGNAT addresses and
	// local names over https:// (for an internal policy service). Link-local,
	// metadata and reserved addresses stay refused, and http:// stays
	// loopback-only.
	AllowPrivateNetwork bool
	// LookupEnv reads the environment for header expansion; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Resolver resolves https:// host names at dial time; nil means
	// net.DefaultResolver. Every answer is checked and the connection goes
	// to a checked address.
	Resolver Resolver
	// TLSConfig is the client TLS configuration (for example a private CA
	// in RootCAs); nil means the system defaults. ServerName is always the
	// URL's host.
	TLSConfig *tls.Config
	// Logger receives debug lines about each request; nil discards them.
	Logger *slog.Logger
}

// HTTP is an HTTP hook: each call POSTs the payload JSON to one endpoint and
// reads the outcome from the response body. It keeps its connections alive
// between calls, never follows redirects and never uses a proxy (a proxy
// would resolve the host itself and bypass the address checks). It is safe
// for concurrent use; Close releases its idle connections.
//
// A 2xx response with an empty body is no objection; any other body must be
// one outcome object of at most MaxOutputBytes (luahook.ParseOutcome). Any
// other status is a FailError failure naming the status.
type HTTP struct {
	url       string
	display   string // the URL without its query, for messages
	who       string
	header    http.Header
	client    *http.Client
	transport *http.Transport
	logger    *slog.Logger
}

var (
	_ luahook.Hook         = (*HTTP)(nil)
	_ luahook.ContextBound = (*HTTP)(nil)
	_ luahook.Validating   = (*HTTP)(nil)
)

// NewHTTP checks spec and returns its hook. The URL is admitted (AdmitURL)
// and the headers expanded now, so that a bad entry is reported when the
// configuration loads; such errors are *luahook.Failure values of kind
// FailRejected.
func NewHTTP(spec HTTPSpec) (*HTTP, error) {
	u, err := admitURL(spec.URL, spec.AllowPrivateNetwork)
	if err != nil {
		return nil, err
	}
	display := displayURL(u)
	who := fmt.Sprintf("HTTP hook %q", display)
	lookup := spec.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	header, err := buildHeader(spec.Headers, spec.AllowedEnv, lookup)
	if err != nil {
		f := luahook.AsFailure(err)
		return nil, &luahook.Failure{Kind: f.Kind, Message: who + ": " + f.Message, Err: err}
	}
	resolver := spec.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	d := &pinnedDialer{
		host:         strings.ToLower(u.Hostname()),
		cleartext:    u.Scheme == "http",
		allowPrivate: spec.AllowPrivateNetwork,
		resolver:     resolver,
	}
	var tlsConfig *tls.Config
	if spec.TLSConfig != nil {
		tlsConfig = spec.TLSConfig.Clone()
		tlsConfig.ServerName = ""
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		TLSClientConfig:        tlsConfig,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: MaxOutputBytes,
	}
	logger := spec.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &HTTP{
		url:     u.String(),
		display: display,
		who:     who,
		header:  header,
		client: &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		transport: tr,
		logger:    logger,
	}, nil
}

// displayURL names a hook in messages and logs without its query, which may
// carry a token.
func displayURL(u *url.URL) string {
	s := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.RawQuery != "" {
		s += "?…"
	}
	return s
}

// String returns the endpoint, without its query.
func (h *HTTP) String() string { return h.display }

// BoundByContext reports true: Call returns promptly once ctx is done.
func (h *HTTP) BoundByContext() bool { return true }

// ValidatesOutcomes reports true: the body goes through luahook.ParseOutcome.
func (h *HTTP) ValidatesOutcomes() bool { return true }

// Close closes the hook's idle connections. It may be called more than once;
// a later Call opens a new connection.
func (h *HTTP) Close() { h.transport.CloseIdleConnections() }

// Call POSTs in to the endpoint once. Failures are *luahook.Failure values
// whose messages name the endpoint.
func (h *HTTP) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	start := time.Now()
	body, err := encodePayload(ctx, in, h.who, start)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: h.who + ": " + err.Error(), Err: err}
	}
	req.Header = h.header.Clone()
	injectTrace(ctx, req.Header)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, h.transportFailure(ctx, start, err)
	}
	out, f := h.read(ctx, start, resp)
	if h.logger.Enabled(ctx, slog.LevelDebug) {
		h.logger.LogAttrs(ctx, slog.LevelDebug, "HTTP hook finished",
			slog.String("url", h.String()), slog.Int("status", resp.StatusCode),
			slog.Duration("took", time.Since(start)), failureAttr(f))
	}
	if f != nil {
		return nil, f
	}
	return out, nil
}

// read turns a response into the hook's answer and closes its body, leaving
// the connection reusable whenever the body was read to its end.
func (h *HTTP) read(ctx context.Context, start time.Time, resp *http.Response) (*luahook.Outcome, *luahook.Failure) {
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, MaxOutputBytes))
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return nil, h.fail(luahook.FailError, "returned %s; redirects are not followed (Location: %q)",
				resp.Status, resp.Header.Get("Location"))
		}
		msg := "returned " + resp.Status
		if text := strings.ToValidUTF8(luahook.TruncateChars(strings.TrimSpace(string(data)), 200), "\uFFFD"); text != "" {
			msg += ": " + text
		}
		return nil, h.fail(luahook.FailError, "%s", msg)
	}
	if resp.ContentLength > MaxOutputBytes {
		return nil, h.fail(luahook.FailInvalidOutput, "response exceeded %d KiB (Content-Length %d)", MaxOutputBytes>>10, resp.ContentLength)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxOutputBytes+1))
	if err != nil {
		return nil, h.transportFailure(ctx, start, err)
	}
	if len(data) > MaxOutputBytes {
		return nil, h.fail(luahook.FailInvalidOutput, "response exceeded %d KiB", MaxOutputBytes>>10)
	}
	out, err := luahook.ParseOutcome(data)
	if err != nil {
		f := luahook.AsFailure(err)
		return nil, &luahook.Failure{Kind: f.Kind, Message: h.who + ": " + f.Message, Err: err}
	}
	return out, nil
}

// transportFailure classifies an error from sending the request or reading
// the response.
func (h *HTTP) transportFailure(ctx context.Context, start time.Time, err error) *luahook.Failure {
	if ctx.Err() != nil {
		return contextFailure(ctx, h.who, start)
	}
	var f *luahook.Failure
	if errors.As(err, &f) { // refused by the dialer, or DNS failed
		return &luahook.Failure{Kind: f.Kind, Message: h.who + ": " + f.Message, Err: err}
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // its text repeats the whole URL, query included
	}
	return &luahook.Failure{Kind: luahook.FailError, Message: h.who + ": " + cause.Error(), Err: err}
}

func (h *HTTP) fail(kind luahook.FailureKind, format string, args ...any) *luahook.Failure {
	return &luahook.Failure{Kind: kind, Message: h.who + ": " + fmt.Sprintf(format, args...)}
}

// injectTrace sends the trace context of ctx's span (the hook's, when
// luahook traces its decisions: runner.SetTracer) as the W3C traceparent
// and tracestate headers, over any the hook's headers name; nothing when
// ctx carries no span.
func injectTrace(ctx context.Context, h http.Header) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
	}
}
