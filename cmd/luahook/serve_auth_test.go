package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	aliceToken = "alice-7f3c9a1be24d80c6"
	bobToken   = "bob-51e0d2a4c9b7f318e6"
	// clientHooks deny every tool call, naming the client the policy saw.
	clientHooks = `
hook.register("PreToolUse", nil, function(input)
  return hook.deny("client=" .. tostring(input.client))
end, { name = "who" })
`
	toolCall = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`
)

// tokenFile writes a token file of the user's own (mode 0600) naming alice
// and bob, and returns its path.
func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte("# clients\nalice "+aliceToken+"\nbob "+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startServeAt runs "luahook [globals...] serve --decision-log off
// [serveArgs...]" in-process (serveArgs give --addr) and returns it with
// base set to the first address it listens on (http://, https://).
func startServeAt(t *testing.T, globals []string, serveArgs ...string) *served {
	t.Helper()
	args := append(append(append([]string{}, globals...), "serve", "--decision-log", "off"), serveArgs...)
	return launchServe(t, anyListening, args)
}

// anyListening is serve's first line on any address, its URL the submatch.
var anyListening = regexp.MustCompile(`^luahook serve: listening on (https?://\S+) `)

// ask sends a request and returns the status, the header and the body.
func ask(t *testing.T, c *http.Client, method, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, strings.TrimSpace(string(b))
}

// runRefused runs the CLI as a command that should refuse to start; one
// that starts after all is stopped within 30 s and exits 0.
func runRefused(args ...string) (int, string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb lockedBuffer
	code := run(ctx, args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func bearerOf(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

func TestServeTokensAuthenticateAndNameTheClientToLua(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t))
	c := http.DefaultClient
	for _, tc := range []struct {
		name, payload string
		header        map[string]string
		code          int
		want          string
	}{
		{"no token", toolCall, nil, 401, "no bearer token"},
		{"a wrong token", toolCall, bearerOf("alice-0000000000000000"), 401, "not one of this server's"},
		{"alice", toolCall, bearerOf(aliceToken), 200, `{"action":"deny","reason":"client=alice"}`},
		{"bob, whose payload says it is mallory", `{"event":"PreToolUse","toolName":"bash","toolInput":{},"client":"mallory"}`, bearerOf(bobToken), 200, `{"action":"deny","reason":"client=bob"}`},
	} {
		code, hd, body := ask(t, c, "POST", s.base+"/", tc.payload, tc.header)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, code, body, tc.code, tc.want)
		}
		if code == 401 && !strings.HasPrefix(hd.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q, want Bearer", tc.name, hd.Get("WWW-Authenticate"))
		}
	}
	if code, _, _ := ask(t, c, "GET", s.base+"/metrics", "", nil); code != 401 {
		t.Errorf("/metrics without a token: %d, want 401", code)
	}
	if code, _, _ := ask(t, c, "GET", s.base+"/metrics", "", bearerOf(aliceToken)); code != 200 {
		t.Errorf("/metrics with a token: %d, want 200", code)
	}
	if code, _, _ := ask(t, c, "GET", s.base+"/readyz", "", nil); code != 200 {
		t.Errorf("/readyz without a token: %d, want 200 (load balancers have none)", code)
	}
}

// TestServeRefusesATokenFileOthersCouldReadOrSwap: serve does not start,
// and says which file and what is wrong with it.
func TestServeRefusesATokenFileOthersCouldReadOrSwap(t *testing.T) {
	t.Parallel()
	good := tokenFile(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	readable := filepath.Join(dir, "readable")
	if err := os.WriteFile(readable, []byte("alice "+aliceToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(readable, 0o640); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("alice "+aliceToken+"\nbob tooshort\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{link, link + ": a symbolic link"},
		{readable, readable + ": mode 0640: its group can read it"},
		{filepath.Join(dir, "missing"), filepath.Join(dir, "missing") + ": no such file"},
		{short, short + ":2: the token is 8 bytes, shorter than 16"},
	} {
		code, out, errb := runRefused("--dir", t.TempDir(), "serve", "--addr", "127.0.0.1:0", "--decision-log", "off", "--token-file", tc.path)
		if code == 0 || !strings.Contains(errb, "--token-file: "+tc.want) || strings.Contains(out, "listening") {
			t.Errorf("--token-file %s: exit %d, stdout %q, stderr %q; want a refusal to start naming %q", filepath.Base(tc.path), code, out, errb, tc.want)
		}
		if strings.Contains(errb, aliceToken) {
			t.Errorf("the refusal quotes a token: %s", errb)
		}
	}
}

func TestServeBeyondLoopbackNeedsAuthentication(t *testing.T) {
	t.Parallel()
	code, out, errb := runRefused("--dir", t.TempDir(), "serve", "--addr", "0.0.0.0:0", "--decision-log", "off")
	for _, flag := range []string{"--addr 0.0.0.0:0", "beyond loopback without authentication", "--token-file", "--token-env", "--tls-cert", "--tls-key", "--client-ca"} {
		if code == 0 || !strings.Contains(errb, flag) {
			t.Errorf("without authentication: exit %d, stderr %q; want a refusal naming %s", code, errb, flag)
		}
	}
	if strings.Contains(out, "listening") {
		t.Errorf("it listened: %s", out)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "0.0.0.0:0", "--token-file", tokenFile(t))
	_, port, err := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, body := ask(t, http.DefaultClient, "POST", "http://127.0.0.1:"+port+"/", toolCall, bearerOf(aliceToken)); code != 200 || !strings.Contains(body, "client=alice") {
		t.Errorf("with a token file: %d %s", code, body)
	}
	if !strings.Contains(s.stderr.String(), "bearer tokens over plain HTTP beyond loopback") {
		t.Errorf("no warning that the tokens travel in clear text; stderr:\n%s", s.stderr)
	}
	// On loopback, serve starts without authentication, and says so.
	open := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0")
	if w := open.stderr.String(); !strings.Contains(w, "serving without authentication") || !strings.Contains(w, "--token-file") || !strings.Contains(w, "--client-ca") {
		t.Errorf("on loopback without authentication, stderr:\n%s\nwant a warning naming the flags", w)
	}
	if code, _, body := ask(t, http.DefaultClient, "POST", open.base+"/", toolCall, nil); code != 200 || !strings.Contains(body, "client=nil") {
		t.Errorf("on loopback without authentication: %d %s", code, body)
	}
}

// pki is a certificate authority made for a test.
type pki struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newPKI(t *testing.T, name string) *pki {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &pki{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue signs a certificate for tmpl and returns its PEM and its key's.
func (p *pki) issue(t *testing.T, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func tlsClient(t *testing.T, roots *pki, certPEM, keyPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(roots.cert)
	cfg := &tls.Config{RootCAs: pool}
	if certPEM != nil {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CAs the server names: a Go client would keep a
		// foreign certificate to itself.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
}

// TestServeAuthenticatesByMutualTLS: a client certificate signed by
// --client-ca names the client (its common name); a client without one is
// refused, one signed by another CA fails the handshake, and the health
// routes need none.
func TestServeAuthenticatesByMutualTLS(t *testing.T) {
	t.Parallel()
	ca, other := newPKI(t, "team CA"), newPKI(t, "someone else's CA")
	serverCert, serverKey := ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "luahook"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	clientCert, clientKey := ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "ci-runner"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	dnsCert, dnsKey := ca.issue(t, &x509.Certificate{DNSNames: []string{"build-7.example"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	foreignCert, foreignKey := other.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "ci-runner"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	files := t.TempDir()
	for name, data := range map[string][]byte{"server.pem": serverCert, "server.key": serverKey, "ca.pem": ca.pem} {
		if err := os.WriteFile(filepath.Join(files, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0",
		"--tls-cert", filepath.Join(files, "server.pem"), "--tls-key", filepath.Join(files, "server.key"), "--client-ca", filepath.Join(files, "ca.pem"))
	if !strings.HasPrefix(s.base, "https://127.0.0.1:") {
		t.Fatalf("listening on %s, want https://", s.base)
	}
	for _, tc := range []struct {
		name      string
		cert, key []byte
		code      int
		want      string
	}{
		{"the team's client", clientCert, clientKey, 200, `"reason":"client=ci-runner"`},
		{"a certificate named by its DNS name", dnsCert, dnsKey, 200, `"reason":"client=build-7.example"`},
		{"no certificate", nil, nil, 401, "no client certificate"},
	} {
		code, _, body := ask(t, tlsClient(t, ca, tc.cert, tc.key), "POST", s.base+"/", toolCall, nil)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, code, body, tc.code, tc.want)
		}
	}
	req, _ := http.NewRequest("POST", s.base+"/", strings.NewReader(toolCall))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := tlsClient(t, ca, foreignCert, foreignKey).Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a certificate of another CA: %d, want the handshake refused", resp.StatusCode)
	}
	if code, _, _ := ask(t, tlsClient(t, ca, nil, nil), "GET", s.base+"/healthz", "", nil); code != 200 {
		t.Errorf("/healthz without a certificate: %d, want 200", code)
	}
}

// TestServeRefusesBrowsersBeforeReadingTheBody: each kind of request a
// web page can send is refused while its body is still on its way, which
// it never finishes: the answer can only come before the body is read.
func TestServeRefusesBrowsersBeforeReadingTheBody(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t),
		"--allow-origin", "https://dash.example.com")
	addr := strings.TrimPrefix(s.base, "http://")
	auth := "Authorization: Bearer " + aliceToken + "\r\n"
	for _, tc := range []struct {
		name, headers string
		code          int
	}{
		{"an origin not listed", auth + "Content-Type: application/json\r\nOrigin: https://evil.example\r\n", 403},
		{"a page on another port of loopback", auth + "Content-Type: application/json\r\nOrigin: http://127.0.0.1:3000\r\n", 403},
		{"cross-site fetch metadata", auth + "Content-Type: application/json\r\nSec-Fetch-Site: cross-site\r\n", 403},
		{"text/plain, the no-cors post", auth + "Content-Type: text/plain\r\n", 415},
		{"no Content-Type", auth, 415},
		{"no token", "Content-Type: application/json\r\n", 401},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 4096\r\n\r\n{\"event\":\"PreToolUse\",", addr, tc.headers)
		// Waiting for the body, serve would answer at its 30 s read
		// timeout, and 400.
		c.SetReadDeadline(time.Now().Add(25 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		switch {
		case err != nil:
			t.Errorf("%s: no answer while the body was unfinished: %v", tc.name, err)
		case resp.StatusCode != tc.code:
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.code)
		}
		c.Close()
	}
	listed := map[string]string{"Authorization": "Bearer " + aliceToken, "Origin": "https://dash.example.com"}
	if code, _, body := ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, listed); code != 200 || !strings.Contains(body, "client=alice") {
		t.Errorf("the listed origin: %d %s, want 200", code, body)
	}
}

// TestServeFloodOfRefusedRequestsLeavesTheStoreUntouched: hundreds of
// unauthenticated and browser requests at a policy that counts every call
// in the store never reach it: the first authenticated call counts 1.
func TestServeFloodOfRefusedRequestsLeavesTheStoreUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-count.lua": `
hook.register("PreToolUse", nil, function(input)
  return hook.deny("calls=" .. store.incr("calls", 1, 600000))
end, { name = "count" })
`})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t))
	agentCall := `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`
	kinds := []struct {
		path   string
		header map[string]string
		code   int
	}{
		{"/", nil, 401},
		{"/", bearerOf("bob-0000000000000000000"), 401},
		{"/", map[string]string{"Authorization": "Bearer " + aliceToken, "Content-Type": "text/plain"}, 415},
		{"/hook", map[string]string{"Authorization": "Bearer " + aliceToken, "Origin": "https://evil.example"}, 403},
		{"/", map[string]string{"Authorization": "Bearer " + aliceToken, "Sec-Fetch-Site": "cross-site"}, 403},
		{"/agent/claude", nil, 200}, // the agent's block signal
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wrong := map[string]int{}
	for w := range 24 {
		wg.Go(func() {
			for i := range 25 {
				k := kinds[(w+i)%len(kinds)]
				body := toolCall
				if strings.HasPrefix(k.path, "/agent/") {
					body = agentCall
				}
				code, hd, got := ask(t, c, "POST", s.base+k.path, body, k.header)
				if code != k.code || (k.code == 200 && hd.Get("Luahook-Exit-Code") != "2") {
					mu.Lock()
					wrong[fmt.Sprintf("%s %v: %d %.80s", k.path, k.header, code, got)]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for w, n := range wrong {
		t.Errorf("%d× %s", n, w)
	}
	if code, _, body := ask(t, c, "POST", s.base+"/", toolCall, bearerOf(aliceToken)); code != 200 || body != `{"action":"deny","reason":"calls=1"}` {
		t.Errorf("the first authenticated call after 600 refused ones: %d %s, want calls=1", code, body)
	}
	m := scrapeMetricsAs(t, s.base, aliceToken)
	if got := m[`luahook_requests_refused_total{reason="no_token"}`] + m[`luahook_requests_refused_total{reason="bad_token"}`] +
		m[`luahook_requests_refused_total{reason="content_type"}`] + m[`luahook_requests_refused_total{reason="origin"}`] +
		m[`luahook_requests_refused_total{reason="fetch_site"}`]; got != 600 {
		t.Errorf("luahook_requests_refused_total adds up to %v, want 600", got)
	}
}

// scrapeMetricsAs reads base/metrics with a token.
func scrapeMetricsAs(t *testing.T, base, token string) map[string]float64 {
	t.Helper()
	code, _, body := ask(t, http.DefaultClient, "GET", base+"/metrics", "", bearerOf(token))
	if code != 200 {
		t.Fatalf("GET /metrics: %d", code)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		var v float64
		fmt.Sscan(line[i+1:], &v)
		out[line[:i]] = v
	}
	return out
}

// TestServeNeverShowsTheToken seeds known tokens and looks for them, and
// for a wrong one a client sent, in everything serve writes: standard
// output and error at debug level, the decision log and /metrics.
func TestServeNeverShowsTheToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	logFile := filepath.Join(t.TempDir(), "decisions.jsonl")
	s := startServeAt(t, []string{"--dir", dir, "--log-level", "debug"}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--decision-log", logFile)
	const wrong = "alice-1111111111111111"
	ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, bearerOf(aliceToken))
	ask(t, http.DefaultClient, "POST", s.base+"/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`, bearerOf(bobToken))
	ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, bearerOf(wrong))
	ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, map[string]string{"Authorization": "Basic " + aliceToken})
	_, _, metrics := ask(t, http.DefaultClient, "GET", s.base+"/metrics", "", bearerOf(aliceToken))
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr)
	}
	var stdout strings.Builder
	for l := range s.lines {
		stdout.WriteString(l + "\n")
	}
	decisions, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"standard error": s.stderr.String(), "standard output": stdout.String(),
		"the decision log": string(decisions), "/metrics": metrics} {
		for _, token := range []string{aliceToken, bobToken, wrong} {
			if strings.Contains(text, token) {
				t.Errorf("%s holds the token %s", what, token)
			}
		}
	}
	for _, want := range []string{`"client":"alice"`, `"client":"bob"`} {
		if !strings.Contains(string(decisions), want) {
			t.Errorf("the decision log has no record with %s:\n%s", want, decisions)
		}
	}
	if !strings.Contains(s.stderr.String(), "reason=bad_token") {
		t.Errorf("the debug log does not name the refusal; stderr:\n%s", s.stderr)
	}
}

// TestServeTakesATokenFromTheEnvironmentAndDropsIt: the variable named by
// --token-env authenticates an unnamed client, and is gone from serve's
// environment once read (no hook inherits it).
func TestServeTakesATokenFromTheEnvironmentAndDropsIt(t *testing.T) {
	const variable = "LUAHOOK_TEST_SERVE_TOKEN"
	t.Setenv(variable, "env-token-0123456789abcdef")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-env", variable)
	if code, _, body := ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, bearerOf("env-token-0123456789abcdef")); code != 200 || !strings.Contains(body, "client=nil") {
		t.Errorf("with the variable's token: %d %s, want 200 and no client name", code, body)
	}
	if code, _, _ := ask(t, http.DefaultClient, "POST", s.base+"/", toolCall, nil); code != 401 {
		t.Errorf("without: %d, want 401", code)
	}
	if _, ok := os.LookupEnv(variable); ok {
		t.Errorf("$%s is still in serve's environment", variable)
	}
	code, _, errb := runRefused("--dir", dir, "serve", "--addr", "127.0.0.1:0", "--decision-log", "off", "--token-env", "LUAHOOK_TEST_NOT_SET")
	if code == 0 || !strings.Contains(errb, "--token-env LUAHOOK_TEST_NOT_SET: the environment variable is not set or empty") {
		t.Errorf("an unset variable: exit %d, stderr %q", code, errb)
	}
}

// TestServeSocketNeedsNoToken: the Unix socket keeps its same-user rule
// (mode 0600 in a folder of the user's own); its clients are unnamed.
func TestServeSocketNeedsNoToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-who.lua": clientHooks})
	sock := filepath.Join(t.TempDir(), "run", "luahook.sock")
	startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--socket", sock, "--token-file", tokenFile(t))
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	eventually(t, "the socket answers", func() bool {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
	if code, _, body := ask(t, c, "POST", "http://luahook/", toolCall, nil); code != 200 || !strings.Contains(body, "client=nil") {
		t.Errorf("over the socket without a token: %d %s, want 200 and no client name", code, body)
	}
}

func TestServeTLSFlagsGoTogether(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--tls-cert", "c.pem"},
		{"--client-ca", "ca.pem"},
		{"--allow-origin", "null"},
		{"--allow-origin", "https://x.example/path"},
	} {
		code, _, errb := runRefused(append([]string{"--dir", t.TempDir(), "serve", "--addr", "127.0.0.1:0", "--decision-log", "off"}, args...)...)
		if code == 0 || !strings.Contains(errb, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming %s", args, code, errb, args[0])
		}
	}
}
