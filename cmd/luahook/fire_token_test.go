package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/otheruser"
	"github.com/luahook/luahook/internal/relay"
)

// rmPayload is Claude Code asking to run rm -rf ~: what a client that gets
// no decision must block.
var rmPayload = agentPayload{agent: agent.Claude, name: "rm", data: []byte(
	`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`)}

// serverAllow is the relay of a server that allows: what fire relays when
// the server took its credentials.
var serverAllow = relay.Relay{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`}

// tokenServer is a luahook serve stand-in on 127.0.0.1 that records the
// Authorization header of each call and answers status with body (where
// "{auth}" stands for the header it got), or, for 200, serverAllow.
type tokenServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newTokenServer(t *testing.T, status int, body string) *tokenServer {
	t.Helper()
	ts := &tokenServer{}
	ts.Server = httptest.NewServer(ts.handler(status, body))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) handler(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		ts.mu.Lock()
		ts.auth = append(ts.auth, r.Header.Get("Authorization"))
		ts.mu.Unlock()
		answer := strings.ReplaceAll(body, "{auth}", r.Header.Get("Authorization"))
		if status == http.StatusOK {
			b, _ := json.Marshal(serverAllow)
			answer = string(b)
		}
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}
}

// calls returns the Authorization header of every call so far.
func (ts *tokenServer) calls() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.auth...)
}

// writePrivate writes content to dir/name with mode perm (applied past the
// umask) and returns its path.
func writePrivate(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
	return p
}

// allowed reports whether fire relayed the server's allow.
func allowed(a agent.Answer) bool {
	return a.ExitCode == 0 && string(a.Stdout) == serverAllow.Stdout
}

// blocked reports whether fire answered Claude Code's block naming why.
func blocked(a agent.Answer, why string) bool {
	return a.ExitCode == 2 && strings.Contains(string(a.Stdout), `"permissionDecision":"deny"`) && strings.Contains(a.Stderr, why)
}

// fire --http sends the token as "Authorization: Bearer TOKEN": from
// --token-file (its first token line, or the line --token-name names,
// past blank lines and comments), else from $LUAHOOK_TOKEN; with neither,
// no Authorization header at all.
func TestFireHTTPSendsTheToken(t *testing.T) {
	dir := t.TempDir()
	file := writePrivate(t, dir, "token", "# luahook serve's tokens\n\n  laptop   tok-laptop-1\r\nci tok-ci-2\nbare-token-3\n", 0o600)
	for _, c := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{name: "first token line", args: []string{"--token-file", file}, want: "Bearer tok-laptop-1"},
		{name: "named line", args: []string{"--token-file", file, "--token-name", "ci"}, want: "Bearer tok-ci-2"},
		{name: "the file over the environment", env: "tok-env", args: []string{"--token-file", file}, want: "Bearer tok-laptop-1"},
		{name: "the environment", env: "tok-env", want: "Bearer tok-env"},
		{name: "none", want: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(tokenEnv, c.env)
			ts := newTokenServer(t, http.StatusOK, "")
			got := fireAgent(t, nil, rmPayload, append([]string{"--http", ts.URL}, c.args...)...)
			if !allowed(got) {
				t.Errorf("fire answered %q %q %d; want the server's allow relayed", got.Stdout, got.Stderr, got.ExitCode)
			}
			if calls := ts.calls(); len(calls) != 1 || calls[0] != c.want {
				t.Errorf("the server saw Authorization %q; want one call with %q", calls, c.want)
			}
		})
	}
}

// A token file must be the user's alone: one its group or others can open,
// another user's, a folder, a missing file or one with no usable token line
// blocks the call without asking the server, naming the file (and the line)
// and what is wrong, and never quoting the token.
func TestFireHTTPRefusesATokenFileThatIsNotPrivate(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cret-token-value"
	notMine := filepath.Join(dir, "not-mine")
	if os.Geteuid() == 0 {
		writePrivate(t, dir, "not-mine", secret+"\n", 0o600)
		if err := os.Chown(notMine, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
	} else {
		// A file of root's that anyone may read: its owner is refused first.
		notMine = "/etc/passwd"
	}
	for _, c := range []struct {
		name, path, tokenName, why string
	}{
		{"group can read", writePrivate(t, dir, "g", secret+"\n", 0o640), "", "open to its group or others (mode 0640)"},
		{"others can read", writePrivate(t, dir, "o", secret+"\n", 0o604), "", "open to its group or others (mode 0604)"},
		{"group can write", writePrivate(t, dir, "gw", secret+"\n", 0o620), "", "(mode 0620)"},
		{"another user's", notMine, "", "not by this user"},
		{"a folder", dir, "", "not a regular file"},
		{"a symbolic link", symlink(t, writePrivate(t, dir, "target", secret+"\n", 0o600), filepath.Join(dir, "link")), "", "a symbolic link; name the file itself"},
		{"missing", filepath.Join(dir, "none"), "", "no such file"},
		{"three words", writePrivate(t, dir, "w3", "# c\nname "+secret+" extra\n", 0o600), "", ":2: 3 words: want TOKEN or NAME TOKEN"},
		{"a control character", writePrivate(t, dir, "ctl", "name "+secret+"\x01\n", 0o600), "", ":1: the token's byte 19 is not printable ASCII"},
		{"beyond ASCII", writePrivate(t, dir, "utf", secret+"é\n", 0o600), "", ":1: the token's byte 19 is not printable ASCII"},
		{"no token", writePrivate(t, dir, "empty", "# none yet\n\n", 0o600), "", "no token in it"},
		{"no such name", writePrivate(t, dir, "named", "laptop "+secret+"\n", 0o600), "ci", "no line ci TOKEN"},
		{"too long", writePrivate(t, dir, "long", strings.Repeat("x", maxToken+1)+"\n", 0o600), "", "a token of 4097 bytes: at most 4096"},
		{"too large", writePrivate(t, dir, "large", secret+"\n"+strings.Repeat("#", maxTokenFile), 0o600), "", "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(tokenEnv, "tok-env")
			ts := newTokenServer(t, http.StatusOK, "")
			args := []string{"--http", ts.URL, "--token-file", c.path, "--on-load-error", "skip"}
			if c.tokenName != "" {
				args = append(args, "--token-name", c.tokenName)
			}
			got := fireAgent(t, nil, rmPayload, args...)
			if !blocked(got, c.why) || !strings.Contains(got.Stderr, c.path) {
				t.Errorf("fire answered %q %q %d; want a block naming %s and %q", got.Stdout, got.Stderr, got.ExitCode, c.path, c.why)
			}
			if n := len(ts.calls()); n != 0 {
				t.Errorf("the server was asked %d times; want none", n)
			}
			if strings.Contains(got.Stderr+string(got.Stdout), secret) {
				t.Errorf("the answer quotes the token: %q %q", got.Stdout, got.Stderr)
			}
		})
	}
}

// symlink makes a symbolic link at link to target and returns link.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// $LUAHOOK_TOKEN is checked as a file's token is: one a header cannot carry
// blocks the call, without quoting it.
func TestFireHTTPRefusesABadTokenInTheEnvironment(t *testing.T) {
	t.Setenv(tokenEnv, "two words")
	ts := newTokenServer(t, http.StatusOK, "")
	got := fireAgent(t, nil, rmPayload, "--http", ts.URL)
	if !blocked(got, "$LUAHOOK_TOKEN: the token's byte 4 is not printable ASCII") || len(ts.calls()) != 0 {
		t.Errorf("fire answered %q %q %d after %d calls; want a block naming $LUAHOOK_TOKEN, the server unasked", got.Stdout, got.Stderr, got.ExitCode, len(ts.calls()))
	}
	if strings.Contains(got.Stderr+string(got.Stdout), "two words") {
		t.Errorf("the answer quotes the token: %q", got.Stderr)
	}
}

// A server that refuses the call (401, 403, 415) blocks it with a reason
// naming the refusal and what the token was, even under --on-load-error
// skip, which lets through only what the server could not be asked about;
// what the server said is quoted without the token, should it echo it.
func TestFireHTTPBlocksWhenServeRefuses(t *testing.T) {
	const tok = "tok-refused-77"
	file := writePrivate(t, t.TempDir(), "token", tok+"\n", 0o600)
	for _, c := range []struct {
		name   string
		status int
		args   []string
		why    string
		said   string
	}{
		{"401 without a token", http.StatusUnauthorized, nil, "refused the call: 401 Unauthorized: no token was sent: give fire --token-file FILE, or set LUAHOOK_TOKEN",
			"the server said: bad credentials:\""},
		{"401 with a token", http.StatusUnauthorized, []string{"--token-file", file}, "401 Unauthorized: the token of --token-file " + file + " was not accepted",
			"the server said: bad credentials: Bearer [token]"},
		{"403", http.StatusForbidden, []string{"--token-file", file}, "403 Forbidden: the token of --token-file " + file + " is not allowed this call",
			"the server said: bad credentials: Bearer [token]"},
		{"415", http.StatusUnsupportedMediaType, []string{"--token-file", file}, "415 Unsupported Media Type: it did not take the payload as JSON",
			"the server said: bad credentials: Bearer [token]"},
	} {
		for _, mode := range []string{"deny", "skip"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				t.Setenv(tokenEnv, "")
				ts := newTokenServer(t, c.status, "bad credentials: {auth}")
				got := fireAgent(t, nil, rmPayload, append([]string{"--http", ts.URL, "--on-load-error", mode}, c.args...)...)
				if !blocked(got, c.why) || !strings.Contains(string(got.Stdout), c.said) {
					t.Errorf("fire answered %q %q %d; want a block naming %q and %q", got.Stdout, got.Stderr, got.ExitCode, c.why, c.said)
				}
				if strings.Contains(got.Stderr+string(got.Stdout), tok) {
					t.Errorf("the answer quotes the token: %q", got.Stderr)
				}
			})
		}
	}
}

// The token crosses the network only encrypted: an http URL takes it to a
// loopback address alone.
func TestFireHTTPSendsNoTokenInClearToAnotherMachine(t *testing.T) {
	t.Setenv(tokenEnv, "tok-clear")
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8787/agent/claude", true},
		{"http://127.8.9.10:8787/agent/claude", true},
		{"http://[::1]:8787/agent/claude", true},
		{"http://LocalHost:8787/agent/claude", true},
		{"https://10.0.0.5:8443/agent/claude", true},
		{"http://10.0.0.5:8787/agent/claude", false},
		{"http://localhost.example.com/agent/claude", false},
		{"http://hooks.internal/agent/claude", false},
	} {
		o := &fireOptions{http: c.url}
		cred, err := o.credentials(c.url)
		switch {
		case c.ok && (err != nil || cred.token != "tok-clear"):
			t.Errorf("%s: %v, token %q; want the token sent", c.url, err, cred.token)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "is not sent to") || strings.Contains(err.Error(), "tok-clear")):
			t.Errorf("%s: %v; want the token refused, unquoted", c.url, err)
		}
	}
	got := fireAgent(t, nil, rmPayload, "--http", "http://192.0.2.1:9")
	if !blocked(got, "the token of $LUAHOOK_TOKEN is not sent to 192.0.2.1:9 in clear: use https") {
		t.Errorf("fire answered %q %q %d; want a block", got.Stdout, got.Stderr, got.ExitCode)
	}
}

// testPKI is a CA-signed server certificate for 127.0.0.1 and a client
// certificate, in PEM files.
type testPKI struct {
	caFile, clientCert, clientKey string
	serverTLS                     *tls.Config
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	serial := int64(1)
	issue := func(tmpl *x509.Certificate, key *ecdsa.PrivateKey, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) *x509.Certificate {
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	certPEM := func(c *x509.Certificate) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	keyPEM := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	}
	caKey, serverKey, clientKey := newKey(), newKey(), newKey()
	ca := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "luahook test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}, caKey, nil, nil)
	server := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, serverKey, ca, caKey)
	client := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "luahook fire"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, clientKey, ca, caKey)
	pair, err := tls.X509KeyPair(certPEM(server), keyPEM(serverKey))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testPKI{
		caFile:     writePrivate(t, dir, "ca.pem", string(certPEM(ca)), 0o644),
		clientCert: writePrivate(t, dir, "client.pem", string(certPEM(client)), 0o644),
		clientKey:  writePrivate(t, dir, "client-key.pem", string(keyPEM(clientKey)), 0o600),
		serverTLS: &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
	}
}

// For an https URL, --ca trusts a private CA and --tls-cert with --tls-key
// give the client certificate a server that wants one checks: with both,
// the answer is relayed; without either, or with a key others can read,
// the call is blocked.
func TestFireHTTPSWithAPrivateCAAndAClientCertificate(t *testing.T) {
	t.Setenv(tokenEnv, "")
	pki := newTestPKI(t)
	ts := &tokenServer{}
	ts.Server = httptest.NewUnstartedServer(ts.handler(http.StatusOK, ""))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused below
	ts.TLS = pki.serverTLS
	ts.StartTLS()
	t.Cleanup(ts.Close)
	looseKey := writePrivate(t, t.TempDir(), "key.pem", readTestFile(t, pki.clientKey), 0o644)

	got := fireAgent(t, nil, rmPayload, "--http", ts.URL, "--ca", pki.caFile, "--tls-cert", pki.clientCert, "--tls-key", pki.clientKey)
	if !allowed(got) {
		t.Errorf("with the CA and the client certificate: %q %q %d; want the server's allow", got.Stdout, got.Stderr, got.ExitCode)
	}
	for _, c := range []struct {
		name string
		args []string
		why  string
	}{
		{"no CA", []string{"--tls-cert", pki.clientCert, "--tls-key", pki.clientKey}, "certificate signed by unknown authority"},
		{"no client certificate", []string{"--ca", pki.caFile}, "could not decide"},
		{"a key others can read", []string{"--ca", pki.caFile, "--tls-cert", pki.clientCert, "--tls-key", looseKey}, "--tls-key " + looseKey + ": open to its group or others (mode 0644)"},
		{"a CA file without a certificate", []string{"--ca", pki.clientKey, "--tls-cert", pki.clientCert, "--tls-key", pki.clientKey}, "no PEM certificate in it"},
		{"a key of another certificate", []string{"--ca", pki.caFile, "--tls-cert", pki.caFile, "--tls-key", pki.clientKey}, "private key does not match public key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fireAgent(t, nil, rmPayload, append([]string{"--http", ts.URL}, c.args...)...)
			if !blocked(got, c.why) {
				t.Errorf("fire answered %q %q %d; want a block naming %q", got.Stdout, got.Stderr, got.ExitCode, c.why)
			}
		})
	}
	if n := len(ts.calls()); n != 1 {
		t.Errorf("the server answered %d calls; want only the one with every credential", n)
	}
}

// Credentials flags that cannot apply are usage errors, before any payload
// is read.
func TestFireCredentialsFlagsThatCannotApply(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--token-file", "t"}, "--token-file is for --http URL"},
		{[]string{"--socket", "/s", "--ca", "ca.pem"}, "--ca is for --http URL (over --socket, the server's user is the check)"},
		{[]string{"--http", "http://127.0.0.1:1", "--token-name", "ci"}, "--token-name picks a line of --token-file"},
		{[]string{"--http", "https://127.0.0.1:1", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--http", "http://127.0.0.1:1", "--ca", "ca.pem"}, "--ca, --tls-cert and --tls-key are for an https URL"},
	} {
		got := fireAgent(t, nil, rmPayload, c.args...)
		if got.ExitCode != 1 || !strings.Contains(got.Stderr, c.msg) {
			t.Errorf("fire %q: exit %d, stderr %q; want 1 and %q", c.args, got.ExitCode, got.Stderr, c.msg)
		}
	}
}

// End to end with luahook serve --token-file: fire --http with a token of
// that file (the line --token-name picks) gets the policies' answer; with
// none, or another, serve refuses (on an agent's route, with the agent's
// block) and fire blocks, naming the refusal, even under --on-load-error
// skip.
func TestFireHTTPShowsServeItsToken(t *testing.T) {
	t.Setenv(tokenEnv, "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-policy.lua": agentPolicy})
	tokens := writePrivate(t, t.TempDir(), "tokens", "# clients\nalice alice-7f3c9a1be24d80c6\nbob bob-51e0d2a4c9b7f318e6\n", 0o600)
	other := writePrivate(t, t.TempDir(), "other", "mallory-0123456789abcdef\n", 0o600)
	s := startServe(t, []string{"--dir", dir}, "--token-file", tokens)
	push := agentPayload{agent: agent.Claude, name: "push", data: []byte(
		`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}`)}
	want := fireAgent(t, []string{"--dir", dir}, push)
	if !strings.Contains(string(want.Stdout), "force-push is not allowed") {
		t.Fatalf("fire in process answered %q; want the policy's denial", want.Stdout)
	}
	got := fireAgent(t, nil, push, "--http", s.base, "--token-file", tokens, "--token-name", "bob")
	if string(got.Stdout) != string(want.Stdout) || got.ExitCode != want.ExitCode {
		t.Errorf("with bob's token: %q %q %d; want the policies' answer %q", got.Stdout, got.Stderr, got.ExitCode, want.Stdout)
	}
	for _, c := range []struct {
		name string
		args []string
		why  string
	}{
		{"no token", nil, "refused"},
		{"another token", []string{"--token-file", other}, "refused"},
	} {
		got := fireAgent(t, nil, push, append([]string{"--http", s.base, "--on-load-error", "skip"}, c.args...)...)
		if got.ExitCode != 2 || !strings.Contains(got.Stderr, c.why) || strings.Contains(string(got.Stdout), "force-push is not allowed") {
			t.Errorf("%s: %q %q %d; want a block naming the refusal, not the policies' answer", c.name, got.Stdout, got.Stderr, got.ExitCode)
		}
		if strings.Contains(got.Stderr, "mallory-0123456789abcdef") {
			t.Errorf("%s: the answer quotes the token: %q", c.name, got.Stderr)
		}
	}
}
