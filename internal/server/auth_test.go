package server

import (
	"bufio"
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// teamTokens authenticate alice and bob by name, and one client without a
// name.
func teamTokens(t *testing.T) *Tokens {
	t.Helper()
	toks, err := ParseTokens([]byte("alice "+aliceToken+"\nbob "+bobToken+"\nunnamed-token-000001\n"), "tokens")
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// clientEcho denies every PreToolUse naming the client the hook saw, and
// counts its calls.
func clientEcho(calls *atomic.Int64) luahook.Spec {
	return luahook.Spec{Event: luahook.PreToolUse, Name: "echo", Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		calls.Add(1)
		return luahook.Deny("client=" + in.Client), nil
	})}
}

// send posts body to path with the given headers and returns the answer.
func (g *rig) send(method, path, body string, header map[string]string) (*http.Response, string) {
	g.t.Helper()
	req, err := http.NewRequest(method, g.srv.URL+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := g.srv.Client().Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp, strings.TrimSpace(string(b))
}

const echoPayload = `{"event":"PreToolUse","toolName":"bash","toolInput":{},"client":"mallory"}`

func TestTokensAuthenticateAndNameTheClientTheHooksSee(t *testing.T) {
	var calls atomic.Int64
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}})
	g.add(clientEcho(&calls))
	jsonHeader := map[string]string{"Content-Type": "application/json"}
	with := func(auth string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "Authorization": auth}
	}
	for _, tc := range []struct {
		name   string
		header map[string]string
		code   int
		want   string // in the body
		www    string // WWW-Authenticate
	}{
		{"no token", jsonHeader, 401, "no bearer token", `Bearer realm="luahook"`},
		{"a wrong token", with("Bearer " + strings.Repeat("x", 22)), 401, "not one of this server's", `Bearer realm="luahook", error="invalid_token"`},
		{"another scheme", with("Basic " + aliceToken), 401, "not one Bearer TOKEN", `Bearer realm="luahook"`},
		{"alice, whatever the payload says", with("Bearer " + aliceToken), 200, `"reason":"client=alice"`, ""},
		{"bob, the scheme in lower case", with("bearer " + bobToken), 200, `"reason":"client=bob"`, ""},
		{"a token without a name", with("Bearer unnamed-token-000001"), 200, `"reason":"client="`, ""},
	} {
		resp, body := g.send("POST", "/", echoPayload, tc.header)
		if resp.StatusCode != tc.code || !strings.Contains(body, tc.want) || resp.Header.Get("WWW-Authenticate") != tc.www {
			t.Errorf("%s: %d %s (WWW-Authenticate %q); want %d with %s (%q)", tc.name, resp.StatusCode, body, resp.Header.Get("WWW-Authenticate"), tc.code, tc.want, tc.www)
		}
		if tc.code == 401 && !strings.Contains(body, `"action":"deny"`) {
			t.Errorf("%s: the refusal's body %s does not deny, for a client that reads only the body", tc.name, body)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("the hook ran %d times, want 3: only for the authenticated requests", n)
	}
}

func TestWithoutAuthenticationTheClientIsEmptyWhateverThePayloadSays(t *testing.T) {
	for name, auth := range map[string]*Auth{"no Auth": nil, "Auth without credentials": {}} {
		var calls atomic.Int64
		g := newRig(t, Options{Auth: auth})
		g.add(clientEcho(&calls))
		if code, body := g.post("/", echoPayload); code != 200 || !strings.Contains(body, `"reason":"client="`) {
			t.Errorf("%s: %d %s, want the client empty", name, code, body)
		}
		if code, body := g.post("/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`); code != 200 || !strings.Contains(body, "client=") {
			t.Errorf("%s: the agent route answered %d %s", name, code, body)
		}
	}
}

// countingBody records whether the handler read any of it.
type countingBody struct {
	reads atomic.Int64
	r     io.Reader
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.reads.Add(1)
	return b.r.Read(p)
}

// TestBrowsersAreRefusedBeforeTheBodyIsRead: an Origin not listed,
// Sec-Fetch-Site cross-site or same-site, and a POST not declared
// application/json are refused before a byte of the body is read, with
// Connection: close, on every route, whether or not the client
// authenticated; a listed origin is let through.
func TestBrowsersAreRefusedBeforeTheBodyIsRead(t *testing.T) {
	var calls atomic.Int64
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t), AllowOrigins: []string{"https://dash.example.com"}}})
	g.add(clientEcho(&calls))
	h := g.srv.Config.Handler
	for _, tc := range []struct {
		name   string
		path   string
		header map[string]string
		code   int
	}{
		{"an origin not listed", "/", map[string]string{"Origin": "https://evil.example"}, 403},
		{"an origin not listed, on an agent's route", "/agent/claude", map[string]string{"Origin": "http://localhost:3000"}, 403},
		{"a listed origin among others", "/", map[string]string{"Origin": "https://evil.example"}, 403},
		{"the opaque origin", "/", map[string]string{"Origin": "null"}, 403},
		{"cross-site fetch metadata", "/", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site fetch metadata", "/hook", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"text/plain", "/", map[string]string{"Content-Type": "text/plain"}, 415},
		{"a form", "/", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"no Content-Type", "/", map[string]string{"Content-Type": ""}, 415},
		{"the listed origin", "/", map[string]string{"Origin": "https://DASH.example.com"}, 200},
		{"the listed origin, cross-site", "/", map[string]string{"Origin": "https://dash.example.com", "Sec-Fetch-Site": "cross-site"}, 200},
		{"a charset parameter", "/", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
		{"fetch metadata of the user's own navigation", "/", map[string]string{"Sec-Fetch-Site": "none"}, 200},
	} {
		body := &countingBody{r: strings.NewReader(echoPayload)}
		req := httptest.NewRequest(http.MethodPost, tc.path, body)
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range tc.header {
			if v == "" {
				req.Header.Del(k)
				continue
			}
			req.Header.Set(k, v)
		}
		if tc.name == "a listed origin among others" {
			req.Header.Add("Origin", "https://dash.example.com")
		}
		before := calls.Load()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.code)
		}
		if tc.code == 200 {
			continue
		}
		if n := body.reads.Load(); n != 0 {
			t.Errorf("%s: refused after %d reads of the body, want none", tc.name, n)
		}
		if calls.Load() != before {
			t.Errorf("%s: the hook ran", tc.name)
		}
		if w.Header().Get("Connection") != "close" {
			t.Errorf("%s: no Connection: close on a refusal whose body was not read", tc.name)
		}
	}
	// GETs carry no body to declare; the fetch metadata still counts.
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, body := g.send("GET", path, "", map[string]string{"Authorization": "Bearer " + aliceToken, "Sec-Fetch-Site": "cross-site"})
		if resp.StatusCode != 403 {
			t.Errorf("GET %s cross-site: %d %s, want 403", path, resp.StatusCode, body)
		}
	}
}

// TestARefusalIsAnsweredWhileTheBodyIsStillComing sends, over a real
// connection, the headers of each kind of refused request and a part of
// its body, and never the rest: the answer can only come before the body.
func TestARefusalIsAnsweredWhileTheBodyIsStillComing(t *testing.T) {
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}, Limits: Limits{ReadTimeout: time.Minute}})
	for _, tc := range []struct {
		name, headers string
		code          int
	}{
		{"no token", "Content-Type: application/json\r\n", 401},
		{"an origin", "Content-Type: application/json\r\nAuthorization: Bearer " + aliceToken + "\r\nOrigin: https://evil.example\r\n", 403},
		{"cross-site", "Content-Type: application/json\r\nAuthorization: Bearer " + aliceToken + "\r\nSec-Fetch-Site: cross-site\r\n", 403},
		{"text/plain", "Content-Type: text/plain\r\nAuthorization: Bearer " + aliceToken + "\r\n", 415},
		{"no Content-Type", "Authorization: Bearer " + aliceToken + "\r\n", 415},
	} {
		c, err := net.Dial("tcp", g.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\n%sContent-Length: 100000\r\n\r\n{\"event\":\"PreToolUse\",", tc.headers)
		// A server waiting for the body would answer only at its read
		// timeout, a minute away, and with 400.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%s: no answer while the body was unfinished: %v", tc.name, err)
		} else if resp.StatusCode != tc.code || !resp.Close {
			t.Errorf("%s: %d (close %v), want %d and the connection closed", tc.name, resp.StatusCode, resp.Close, tc.code)
		}
		c.Close()
	}
}

func TestMetricsNeedAuthenticationAndHealthDoesNot(t *testing.T) {
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}})
	for _, tc := range []struct {
		path, auth string
		code       int
	}{
		{"/metrics", "", 401},
		{"/metrics", "Bearer " + strings.Repeat("y", 20), 401},
		{"/metrics", "Bearer " + bobToken, 200},
		{"/healthz", "", 200},
		{"/readyz", "", 200},
	} {
		h := map[string]string{}
		if tc.auth != "" {
			h["Authorization"] = tc.auth
		}
		if resp, body := g.send("GET", tc.path, "", h); resp.StatusCode != tc.code {
			t.Errorf("GET %s with %q: %d %.80s, want %d", tc.path, tc.auth, resp.StatusCode, body, tc.code)
		}
	}
}

// TestRefusalsAreCountedAndNoTokenShows: each refusal is counted by reason,
// and neither /metrics nor the log holds a token, right or wrong.
func TestRefusalsAreCountedAndNoTokenShows(t *testing.T) {
	var log lockedLog
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}, Logger: log.logger()})
	const wrong = "wrong-token-abcdefghijkl"
	for range 3 {
		g.send("POST", "/", echoPayload, map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + wrong})
	}
	g.send("POST", "/", echoPayload, map[string]string{"Content-Type": "application/json"})
	g.send("POST", "/", echoPayload, map[string]string{"Content-Type": "text/plain", "Authorization": "Bearer " + aliceToken})
	g.send("POST", "/", echoPayload, map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + aliceToken, "Origin": "https://x.example"})
	_, metrics := g.send("GET", "/metrics", "", map[string]string{"Authorization": "Bearer " + aliceToken})
	for _, want := range []string{
		`luahook_requests_refused_total{reason="bad_token"} 3`,
		`luahook_requests_refused_total{reason="no_token"} 1`,
		`luahook_requests_refused_total{reason="content_type"} 1`,
		`luahook_requests_refused_total{reason="origin"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for what, text := range map[string]string{"/metrics": metrics, "the log": log.String()} {
		for _, token := range []string{aliceToken, wrong} {
			if strings.Contains(text, token) {
				t.Errorf("%s holds the token %q", what, token)
			}
		}
	}
	if !strings.Contains(log.String(), "reason=bad_token") {
		t.Errorf("the debug log does not name the refusals:\n%s", log.String())
	}
}

// TestAnAgentRouteAnswersAMissingTokenWithTheAgentsBlockSignal: an agent
// whose HTTP hook reads any other status as "proceed" is denied instead.
func TestAnAgentRouteAnswersAMissingTokenWithTheAgentsBlockSignal(t *testing.T) {
	var calls atomic.Int64
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}})
	g.add(clientEcho(&calls))
	resp, body := g.send("POST", "/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 200 || resp.Header.Get(ExitCodeHeader) != "2" || !strings.Contains(body, "no bearer token") || calls.Load() != 0 {
		t.Errorf("= %d exit %s %s (hook calls %d); want the block signal naming the missing token, no hook run",
			resp.StatusCode, resp.Header.Get(ExitCodeHeader), body, calls.Load())
	}
	_, metrics := g.send("GET", "/metrics", "", map[string]string{"Authorization": "Bearer " + aliceToken})
	if !strings.Contains(metrics, `luahook_agent_blocks_total{agent="claude",cause="auth"} 1`) {
		t.Error("the block is not counted under cause auth")
	}
	resp, body = g.send("POST", "/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + aliceToken})
	if resp.StatusCode != 200 || !strings.Contains(body, "client=alice") {
		t.Errorf("with the token: %d %s", resp.StatusCode, body)
	}
}

// TestEachAuthenticatedClientHasItsOwnShare: two clients behind one
// address, each with its own token, do not share the per-client request
// budget; without names they would.
func TestEachAuthenticatedClientHasItsOwnShare(t *testing.T) {
	release, holding := make(chan struct{}), make(chan struct{})
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}, Limits: Limits{MaxClientRequests: 1, ReadTimeout: 200 * time.Millisecond}})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "slow", Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		if in.ToolName == "slow" {
			close(holding)
			<-release
		}
		return nil, nil
	})})
	as := func(token string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + token}
	}
	var wg sync.WaitGroup
	wg.Go(func() { g.send("POST", "/", `{"event":"PreToolUse","toolName":"slow"}`, as(aliceToken)) })
	defer wg.Wait()
	defer close(release)
	select {
	case <-holding:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow request never reached its hook")
	}
	if resp, body := g.send("POST", "/", `{"event":"PreToolUse","toolName":"bash"}`, as(bobToken)); resp.StatusCode != 200 {
		t.Errorf("bob, while alice holds her only slot: %d %s, want 200", resp.StatusCode, body)
	}
	if resp, body := g.send("POST", "/", `{"event":"PreToolUse","toolName":"bash"}`, as(aliceToken)); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice's second request: %d %s, want 429", resp.StatusCode, body)
	}
}

// TestTheUnixSocketNeedsNoToken: the socket's file mode is its
// authentication; its client is unnamed.
func TestTheUnixSocketNeedsNoToken(t *testing.T) {
	var calls atomic.Int64
	g := newRig(t, Options{})
	g.add(clientEcho(&calls))
	h := New(g.run, Options{Auth: &Auth{Tokens: teamTokens(t)}})
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := c.Post("http://luahook/", "application/json", strings.NewReader(echoPayload))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"reason":"client="`) {
		t.Errorf("over the socket without a token: %d %s, want 200 with the client empty", resp.StatusCode, b)
	}
	resp, err = c.Post("http://luahook/", "text/plain", strings.NewReader(echoPayload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("text/plain over the socket: %d, want 415", resp.StatusCode)
	}
}

func TestACertificateNamesItsClientByCommonNameElseDNSName(t *testing.T) {
	for _, tc := range []struct {
		cert *x509.Certificate
		want string
		err  string
	}{
		{&x509.Certificate{Subject: pkix.Name{CommonName: "ci-runner"}, DNSNames: []string{"ci.example"}}, "ci-runner", ""},
		{&x509.Certificate{DNSNames: []string{"build-7.example", "other"}}, "build-7.example", ""},
		{&x509.Certificate{SerialNumber: big.NewInt(42)}, "", "names no client"},
		{&x509.Certificate{Subject: pkix.Name{CommonName: strings.Repeat("c", 257)}}, "", "over the limit of 256"},
		{&x509.Certificate{Subject: pkix.Name{CommonName: "a\x00b"}}, "", "not printable"},
	} {
		got, err := certClient(tc.cert)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("certClient(%+v) = %q, %v; want %q, %q", tc.cert.Subject, got, err, tc.want, tc.err)
		}
	}
}

func TestParseOriginTakesSchemeHostAndPortAlone(t *testing.T) {
	for in, want := range map[string]string{
		"https://Dash.Example.com":  "https://dash.example.com",
		"http://127.0.0.1:3000":     "http://127.0.0.1:3000",
		"https://dash.example.com/": "https://dash.example.com",
		"null":                      "error",
		"dash.example.com":          "error",
		"ftp://x":                   "error",
		"https://x/path":            "error",
		"https://u@x":               "error",
	} {
		got, err := ParseOrigin(in)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("ParseOrigin(%q) = %q (%v), want %q", in, got, err, want)
		}
	}
}

// lockedLog is a text log safe for the handler's goroutines and the test.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logger logs everything, debug lines included, to l.
func (l *lockedLog) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestRefusalsDoNotHoldTheConnectionSlots: a refused request's connection
// is closed soon after its answer, whatever its client does: here each
// client sends its headers and a part of a body it never finishes, reads
// the answer and keeps its connection open. net/http would read on for the
// body until the read timeout (a minute here), so that with 2 connection
// slots the third client would not even be let in.
func TestRefusalsDoNotHoldTheConnectionSlots(t *testing.T) {
	var calls atomic.Int64
	g := newRig(t, Options{})
	g.add(clientEcho(&calls))
	lim := Limits{MaxConns: 2, ReadTimeout: time.Minute}
	s := lim.NewServer(New(g.run, Options{Auth: &Auth{Tokens: teamTokens(t)}, Limits: lim}), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln, nil)
	defer s.Close()
	for i := range 10 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		origin := ""
		if i%2 == 1 {
			origin = "Origin: https://evil.example\r\n"
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%sContent-Length: 100000\r\n\r\n{\"event\":", origin)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("refused client %d, with %d before it holding their connections open: no answer: %v", i, i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 && resp.StatusCode != 403 {
			t.Fatalf("refused client %d: %d", i, resp.StatusCode)
		}
	}
	cl := &http.Client{Timeout: 20 * time.Second}
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/", strings.NewReader(echoPayload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatalf("an authenticated client after the refused ones: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || calls.Load() != 1 {
		t.Errorf("an authenticated client after the refused ones: %d, %d hook calls", resp.StatusCode, calls.Load())
	}
}
