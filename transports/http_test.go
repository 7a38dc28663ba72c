package transports

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func newHTTP(t testing.TB, spec HTTPSpec) *HTTP {
	t.Helper()
	h, err := NewHTTP(spec)
	if err != nil {
		t.Fatalf("NewHTTP(%q): %v", spec.URL, err)
	}
	t.Cleanup(h.Close)
	return h
}

func httpPayload() *luahook.Input {
	return &luahook.Input{
		Event:     luahook.PreToolUse,
		ToolName:  "bash",
		ToolInput: json.RawMessage(`{"command":"rm -rf /"}`),
		Cwd:       "/work/repo",
		SessionID: "s-1",
	}
}

func failureKind(t testing.TB, err error, kind luahook.FailureKind) *luahook.Failure {
	t.Helper()
	var f *luahook.Failure
	if !errors.As(err, &f) {
		t.Fatalf("error %v (%T) is not a *luahook.Failure", err, err)
	}
	if f.Kind != kind {
		t.Fatalf("failure kind = %q (%s), want %q", f.Kind, f.Message, kind)
	}
	return f
}

func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPPostsThePayloadWithHeadersAndExpandedEnv(t *testing.T) {
	type seen struct {
		method, contentType, auth, team string
		body                            []byte
	}
	got := make(chan seen, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Team"), body}
		io.WriteString(w, `{"action":"deny","reason":"not on a Friday"}`)
	})
	env := map[string]string{"POLICY_TOKEN": "s3cret", "OTHER": "x"}
	h := newHTTP(t, HTTPSpec{
		URL:        srv.URL + "/hook",
		Headers:    map[string]string{"Authorization": "Bearer ${POLICY_TOKEN}", "X-Team": "core-$HOME-${POLICY_TOKEN}!"},
		AllowedEnv: []string{"POLICY_TOKEN"},
		LookupEnv:  func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	in := httpPayload()
	o, err := h.Call(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if o == nil || o.Action != luahook.ActionDeny || o.Reason != "not on a Friday" {
		t.Fatalf("outcome = %+v", o)
	}
	s := <-got
	want, _ := json.Marshal(in)
	if s.method != http.MethodPost || s.contentType != "application/json" || !bytes.Equal(s.body, want) {
		t.Fatalf("request %s %q body %s; want POST application/json %s", s.method, s.contentType, s.body, want)
	}
	if s.auth != "Bearer s3cret" || s.team != "core-$HOME-s3cret!" {
		t.Fatalf("headers Authorization=%q X-Team=%q", s.auth, s.team)
	}
}

func TestNewHTTPRefusesHeadersItCannotExpandSafely(t *testing.T) {
	env := map[string]string{"POLICY_TOKEN": "s3cret", "MULTI": "a\r\nX-Evil: 1", "HIDDEN": "hidden-value"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		headers map[string]string
		allowed []string
		want    string
	}{
		{"unlisted variable", map[string]string{"Authorization": "Bearer ${HIDDEN}"}, []string{"POLICY_TOKEN"},
			`header "Authorization": ${HIDDEN} is not listed in allowed_env`},
		{"listed but unset", map[string]string{"X-Key": "${MISSING}"}, []string{"MISSING"},
			`header "X-Key": ${MISSING} is not set in the environment`},
		{"unterminated reference", map[string]string{"X-Key": "${POLICY_TOKEN"}, []string{"POLICY_TOKEN"},
			`header "X-Key": unterminated ${`},
		{"bad variable name", map[string]string{"X-Key": "${1X}"}, nil, `header "X-Key": ${1X} is not a valid variable name`},
		{"line break from the environment", map[string]string{"X-Multi": "${MULTI}"}, []string{"MULTI"},
			`header "X-Multi": the value contains a line break`},
		{"bad header name", map[string]string{"X Bad": "1"}, nil, `header "X Bad": not a valid header name`},
		{"content type is the transport's", map[string]string{"content-type": "text/plain"}, nil, `header "content-type": set by the transport`},
		{"host is the transport's", map[string]string{"Host": "evil"}, nil, `header "Host": set by the transport`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHTTP(HTTPSpec{URL: "https://policy.example.com/hook?key=abc", Headers: tt.headers, AllowedEnv: tt.allowed, LookupEnv: lookup})
			f := failureKind(t, err, luahook.FailRejected)
			if !strings.Contains(f.Message, tt.want) || !strings.Contains(f.Message, `HTTP hook "https://policy.example.com/hook?…"`) {
				t.Fatalf("message %q, want it to name the hook and say %q", f.Message, tt.want)
			}
			for _, secret := range []string{"hidden-value", "s3cret", "X-Evil", "key=abc"} {
				if strings.Contains(f.Message, secret) {
					t.Fatalf("message %q leaks %q", f.Message, secret)
				}
			}
		})
	}
}

func TestHTTPResponseDecidesTheOutcome(t *testing.T) {
	big := `{"additionalContext":"` + strings.Repeat("a", MaxOutputBytes) + `"}`
	exact := `{"additionalContext":"` + strings.Repeat("a", MaxOutputBytes-24) + `"}`
	tests := []struct {
		name     string
		status   int
		body     string
		chunked  bool
		wantKind luahook.FailureKind
		wantMsg  string
		check    func(*luahook.Outcome) bool
	}{
		{name: "empty body is no objection", status: 200, check: func(o *luahook.Outcome) bool { return o == nil }},
		{name: "white space is no objection", status: 200, body: " \n\t", check: func(o *luahook.Outcome) bool { return o == nil }},
		{name: "204 is no objection", status: 204, check: func(o *luahook.Outcome) bool { return o == nil }},
		{name: "mutate", status: 200, body: `{"action":"mutate","input":{"command":"ls"}}`,
			check: func(o *luahook.Outcome) bool {
				return o.Action == luahook.ActionMutate && string(o.Input) == `{"command":"ls"}`
			}},
		{name: "legacy block", status: 200, body: `{"decision":"block","reason":"no"}`,
			check: func(o *luahook.Outcome) bool { return o.Action == luahook.ActionDeny && o.Reason == "no" }},
		{name: "exactly 64 KiB is accepted", status: 200, body: exact,
			check: func(o *luahook.Outcome) bool { return len(o.AdditionalContext) == MaxOutputBytes-24 }},
		{name: "over 64 KiB is invalid output", status: 200, body: big,
			wantKind: luahook.FailInvalidOutput, wantMsg: "response exceeded 64 KiB"},
		{name: "over 64 KiB chunked is invalid output", status: 200, body: big, chunked: true,
			wantKind: luahook.FailInvalidOutput, wantMsg: "response exceeded 64 KiB"},
		{name: "invalid JSON is invalid output", status: 200, body: `{"action":`,
			wantKind: luahook.FailInvalidOutput, wantMsg: "not valid outcome JSON"},
		{name: "not an object is invalid output", status: 200, body: `["deny"]`,
			wantKind: luahook.FailInvalidOutput, wantMsg: "not a JSON object"},
		{name: "unknown action is invalid output", status: 200, body: `{"action":"block"}`,
			wantKind: luahook.FailInvalidOutput, wantMsg: `unknown hook action "block"`},
		{name: "500 is an error naming the status", status: 500, body: "database down",
			wantKind: luahook.FailError, wantMsg: "returned 500 Internal Server Error: database down"},
		{name: "403 is an error, not a denial", status: 403, body: `{"action":"deny","reason":"x"}`,
			wantKind: luahook.FailError, wantMsg: "returned 403 Forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tt.chunked {
					w.WriteHeader(tt.status)
					for i := 0; i < len(tt.body); i += 4096 {
						io.WriteString(w, tt.body[i:min(i+4096, len(tt.body))])
						w.(http.Flusher).Flush()
					}
					return
				}
				w.Header().Set("Content-Length", fmt.Sprint(len(tt.body)))
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			h := newHTTP(t, HTTPSpec{URL: srv.URL + "/hook?token=query-secret"})
			o, err := h.Call(context.Background(), httpPayload())
			if tt.wantKind != "" {
				f := failureKind(t, err, tt.wantKind)
				if !strings.Contains(f.Message, tt.wantMsg) || !strings.Contains(f.Message, srv.URL+"/hook?…") {
					t.Fatalf("message %q, want it to name the hook and say %q", f.Message, tt.wantMsg)
				}
				if strings.Contains(f.Message, "query-secret") {
					t.Fatalf("message %q leaks the query", f.Message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Fatalf("outcome = %+v", o)
			}
		})
	}
}

func TestHTTPDoesNotFollowRedirects(t *testing.T) {
	var followed atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed.Add(1)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	h := newHTTP(t, HTTPSpec{URL: srv.URL + "/hook"})
	_, err := h.Call(context.Background(), httpPayload())
	f := failureKind(t, err, luahook.FailError)
	if !strings.Contains(f.Message, "returned 302 Found; redirects are not followed") || !strings.Contains(f.Message, "/elsewhere") {
		t.Fatalf("message %q", f.Message)
	}
	if n := followed.Load(); n != 0 {
		t.Fatalf("redirect target requested %d times", n)
	}
}

// blockingServer answers each request only when the request is cancelled,
// and reports each arrival.
func blockingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	arrived := make(chan struct{}, 16)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, arrived
}

func TestHTTPTimeoutStopsTheRequest(t *testing.T) {
	srv, _ := blockingServer(t)
	h := newHTTP(t, HTTPSpec{URL: srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.Call(ctx, httpPayload())
	f := failureKind(t, err, luahook.FailTimeout)
	// The message names the time the call had: the context's 200 ms, less
	// what passed before the call read its deadline (a few ms on a loaded
	// machine).
	_, after, ok := strings.Cut(f.Message, "timed out after ")
	if d, err := time.ParseDuration(after); !ok || err != nil || d > 200*time.Millisecond || d < 100*time.Millisecond {
		t.Fatalf("message %q, want one naming the call's time, up to 200ms", f.Message)
	}
	if took := time.Since(start); took > 2200*time.Millisecond {
		t.Fatalf("Call returned after %v with a 200 ms deadline", took)
	}
}

func TestHTTPCallerCancelAbortsTheRequest(t *testing.T) {
	srv, arrived := blockingServer(t)
	h := newHTTP(t, HTTPSpec{URL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, httpPayload())
		done <- err
	}()
	<-arrived
	cancelled := time.Now()
	cancel()
	err := <-done
	if took := time.Since(cancelled); took > 2*time.Second {
		t.Fatalf("Call returned %v after cancel", took)
	}
	failureKind(t, err, luahook.FailAborted)
}

func TestHTTPReusesOneKeepAliveConnection(t *testing.T) {
	var conns atomic.Int32
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch calls.Add(1) % 3 {
		case 0:
			w.WriteHeader(500)
			io.WriteString(w, "try later")
		case 1:
			io.WriteString(w, `{"additionalContext":"ok"}`)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	h := newHTTP(t, HTTPSpec{URL: srv.URL})
	for range 30 {
		h.Call(context.Background(), httpPayload())
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("30 sequential calls opened %d connections, want 1", n)
	}
	h.Close()
	h.Close()                                                              // idempotent
	if _, err := h.Call(context.Background(), httpPayload()); err != nil { // call 31: a 200
		t.Fatal(err)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("after Close a call opened %d connections in all, want 2", n)
	}
}

func TestHTTPConnectionRefusedIsAnError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	h := newHTTP(t, HTTPSpec{URL: "http://" + addr + "/hook"})
	_, err = h.Call(context.Background(), httpPayload())
	f := failureKind(t, err, luahook.FailError)
	if !strings.Contains(f.Message, "refused") {
		t.Fatalf("message %q", f.Message)
	}
}

// fakeResolver answers every lookup with fixed addresses and records the names asked.
type fakeResolver struct {
	mu    sync.Mutex
	asked []string
	ips   []string
	err   error
}

func (r *fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	if r.err != nil {
		return nil, r.err
	}
	var out []net.IPAddr
	for _, s := range r.ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	return out, nil
}

func tlsServer(t *testing.T) (*httptest.Server, string, *tls.Config, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"additionalContext":"via `+r.Host+`"}`)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return srv, u.Port(), srv.Client().Transport.(*http.Transport).TLSClientConfig, &hits
}

func TestHTTPSDialsTheCheckedAddressAndVerifiesTheName(t *testing.T) {
	_, port, tlsConfig, hits := tlsServer(t)
	res := &fakeResolver{ips: []string{"127.0.0.1"}}
	// httptest's certificate is valid for example.com; the resolver sends it to the test server.
	h := newHTTP(t, HTTPSpec{URL: "https://example.com:" + port + "/hook", AllowPrivateNetwork: true, Resolver: res, TLSConfig: tlsConfig})
	o, err := h.Call(context.Background(), httpPayload())
	if err != nil {
		t.Fatal(err)
	}
	if o == nil || o.AdditionalContext != "via example.com:"+port || hits.Load() != 1 {
		t.Fatalf("outcome %+v, hits %d", o, hits.Load())
	}
	if len(res.asked) != 1 || res.asked[0] != "example.com" {
		t.Fatalf("resolver asked %q, want example.com once", res.asked)
	}

	// The same address under a name the certificate does not cover fails verification.
	other := newHTTP(t, HTTPSpec{URL: "https://policy.test:" + port + "/hook", AllowPrivateNetwork: true, Resolver: res, TLSConfig: tlsConfig})
	_, err = other.Call(context.Background(), httpPayload())
	f := failureKind(t, err, luahook.FailError)
	if !strings.Contains(f.Message, "certificate") {
		t.Fatalf("message %q, want a certificate error", f.Message)
	}
}

func TestHTTPSRefusesAHostWhoseDNSAnswersArePrivate(t *testing.T) {
	_, port, tlsConfig, hits := tlsServer(t)
	tests := []struct {
		name    string
		ips     []string
		private bool
		want    string
	}{
		{"private answer", []string{"10.0.0.1"}, false, "resolves to a refused address: address 10.0.0.1 is private"},
		{"loopback answer", []string{"127.0.0.1"}, false, "address 127.0.0.1 is loopback"},
		{"any refused answer among public ones", []string{"93.184.216.34", "192.168.1.10"}, false, "address 192.168.1.10 is private"},
		{"mapped private answer", []string{"::ffff:10.1.1.1"}, false, "address 10.1.1.1 is private"},
		{"metadata answer even with private allowed", []string{"169.254.169.254"}, true, "cloud metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &fakeResolver{ips: tt.ips}
			h := newHTTP(t, HTTPSpec{URL: "https://example.com:" + port + "/", Resolver: res, AllowPrivateNetwork: tt.private, TLSConfig: tlsConfig})
			_, err := h.Call(context.Background(), httpPayload())
			f := failureKind(t, err, luahook.FailRejected)
			if !strings.Contains(f.Message, tt.want) || !strings.Contains(f.Message, `"example.com"`) {
				t.Fatalf("message %q, want it to name the host and say %q", f.Message, tt.want)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server was reached %d times through a refused answer", n)
	}
}

func TestHTTPSResolverFailureIsAnErrorNamingTheHost(t *testing.T) {
	res := &fakeResolver{err: errors.New("no such host")}
	h := newHTTP(t, HTTPSpec{URL: "https://policy.example.com/hook", Resolver: res})
	_, err := h.Call(context.Background(), httpPayload())
	f := failureKind(t, err, luahook.FailError)
	if !strings.Contains(f.Message, `resolving "policy.example.com": no such host`) {
		t.Fatalf("message %q", f.Message)
	}
}

func TestHTTPLocalhostIsDialledWithoutDNS(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"additionalContext":"hi"}`) })
	u, _ := url.Parse(srv.URL)
	res := &fakeResolver{ips: []string{"10.0.0.1"}}
	h := newHTTP(t, HTTPSpec{URL: "http://localhost:" + u.Port() + "/", Resolver: res})
	o, err := h.Call(context.Background(), httpPayload())
	if err != nil || o == nil || o.AdditionalContext != "hi" {
		t.Fatalf("Call = %+v, %v", o, err)
	}
	if len(res.asked) != 0 {
		t.Fatalf("resolver asked %q for a loopback URL", res.asked)
	}
}

func TestHTTPIsBoundByContext(t *testing.T) {
	var h luahook.Hook = newHTTP(t, HTTPSpec{URL: "http://127.0.0.1:1/"})
	if b, ok := h.(luahook.ContextBound); !ok || !b.BoundByContext() {
		t.Fatal("an HTTP hook must report BoundByContext() == true")
	}
}

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"action":"allow"}`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkHTTPHook(b *testing.B) {
	srv := benchServer(b)
	h := newHTTP(b, HTTPSpec{URL: srv.URL + "/hook"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawPOST(b *testing.B) {
	post := rawPOST(b, benchServer(b).URL+"/hook")
	b.ReportAllocs()
	for b.Loop() {
		post()
	}
}

// rawPOST posts the payload to url with a plain client, as a host would
// without luahook.
func rawPOST(b *testing.B, url string) func() {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	body, _ := json.Marshal(benchPayload)
	return func() {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkHTTPHookInterleaved is the HTTP hook beside a raw POST to the
// same server, in turns of 32 calls (about 2 ms each): "hook/raw".
func BenchmarkHTTPHookInterleaved(b *testing.B) {
	srv := benchServer(b)
	h := newHTTP(b, HTTPSpec{URL: srv.URL + "/hook"})
	ctx := context.Background()
	interleave(b, "hook/raw", 32, func() {
		if _, err := h.Call(ctx, benchPayload); err != nil {
			b.Fatal(err)
		}
	}, rawPOST(b, srv.URL+"/hook"))
}

func TestHTTPLogsEachRequestAtDebugLevel(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.WriteHeader(502)
		}
	})
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	newHTTP(t, HTTPSpec{URL: srv.URL + "/ok", Logger: logger}).Call(context.Background(), httpPayload())
	newHTTP(t, HTTPSpec{URL: srv.URL + "/bad", Logger: logger}).Call(context.Background(), httpPayload())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], `"failure"`) || !strings.Contains(lines[1], `returned 502 Bad Gateway`) {
		t.Fatalf("log lines:\n%s", buf.String())
	}
}
