package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/install"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/relay"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/internal/unixsock"
)

// defaultHTTPTimeout is how long fire --http waits for the server: well
// below the agents' own hook timeouts (30 s and more), so that luahook's
// block reaches the agent before the agent gives up on the hook.
const defaultHTTPTimeout = 5 * time.Second

// fireForward is fire --agent NAME --http URL: the payload is decoded here
// (to know its event, and to refuse a broken one without asking), sent to
// the luahook serve at URL/agent/NAME[/EVENT] with the credentials of
// --token-file (else $LUAHOOK_TOKEN), --ca, --tls-cert and --tls-key, and
// its answer relayed. When the server cannot decide for it (unreachable,
// too slow, anything but a well-formed 2xx answer), fire cannot either:
// undecided answers. When fire cannot show its credentials, or the server
// refuses them, the call is blocked even under --on-load-error skip: a
// client the server does not know never gets a call through. Every answer
// fire gives without the server goes to log, with its cause; the server
// logs its own.
func fireForward(ctx context.Context, s *streams, o *fireOptions, c *pipeline.Call, event string, log *forwardLog) error {
	g := pipeline.Gate{Mode: (*engine.Engine)(nil).OnLoadError(o.onLoadError)}
	switch {
	case c.Err() != nil:
		// A payload that did not decode: answered here, without asking.
		var res engine.Result
		rep := c.Answer(ctx, nil, log.gate(g), &res, nil)
		return writeForwarded(s, c, rep)
	case c.Input() == nil:
		// An event luahook has no equivalent of: no objection, as fire
		// answers it without --http, and no record either.
		var res engine.Result
		rep := c.Answer(ctx, nil, g, &res, nil)
		return writeForwarded(s, c, rep)
	}
	a := c.Agent()
	client := &http.Client{
		// A redirect is not an answer: a server that moved must be named.
		// Nor does the token follow one to another address.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var target, where string
	var cred credentials
	if o.socket != "" {
		// The socket's check of the server's user is the authentication
		// both ways: no token is sent there.
		target, _ = agentURL("http://luahook", a.Name(), event)
		where, cred.socket = "unix:"+o.socket, true
		client.Transport = socketTransport(o.socket)
	} else {
		var err error
		if target, err = agentURL(o.http, a.Name(), event); err != nil {
			return fmt.Errorf("--http: %w", err)
		}
		where = target
		if cred, err = o.credentials(target); err != nil {
			rep := c.Undecided(log.gate(authGate(g)), fmt.Sprintf("luahook fire could not ask luahook serve at %s: %v", where, err), pipeline.CauseServer, nil)
			return writeForwarded(s, c, rep)
		}
		client.Transport = cred.transport()
	}
	ans, err := askServer(ctx, client, target, c.Native(), c.Cut(), cred.token, o.httpTimeout)
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		rep := c.Undecided(log.gate(authGate(g)), fmt.Sprintf("luahook serve at %s refused the call: %s", where, refused.explain(cred)), pipeline.CauseServer, nil)
		return writeForwarded(s, c, rep)
	case err != nil:
		rep := c.Undecided(log.gate(g), fmt.Sprintf("luahook serve at %s could not decide: %v", where, err), pipeline.CauseServer, nil)
		return writeForwarded(s, c, rep)
	}
	return writeAnswer(s, ans, nil)
}

// forwardLog is the decision log of the answers fire --http gives without
// the server: the log fire writes without --http (--decision-log, else the
// config's [decision_log] when it names a file), opened only when such an
// answer is given, so that a call the server answers pays nothing for it.
type forwardLog struct {
	// open opens the engine whose decision log that is; nil: no log.
	open   func() *engine.Engine
	eng    *engine.Engine
	opened bool
}

// gate returns g with the log's Record, when a log is in force.
func (l *forwardLog) gate(g pipeline.Gate) pipeline.Gate {
	if !l.opened {
		l.eng, l.opened = l.open(), true
	}
	if l.eng == nil {
		return g
	}
	own := l.eng.Gate("", nil)
	g.Record, g.Recording = own.Record, own.Recording
	return g
}

// close writes the records still queued and closes the engine.
func (l *forwardLog) close() {
	if l.eng != nil {
		l.eng.Close()
	}
}

// authGate is the gate of a call the server was not asked with the
// credentials it wants: skip (proceed with a warning) does not apply, for
// that would let a client the server refuses proceed; fail still ends
// without an answer.
func authGate(g pipeline.Gate) pipeline.Gate {
	if g.Mode == pipeline.ModeSkip {
		g.Mode = pipeline.ModeDeny
	}
	return g
}

// writeForwarded writes an answer fire --http gave without the server.
func writeForwarded(s *streams, c *pipeline.Call, rep pipeline.Reply) error {
	if rep.Err != nil {
		return rep.Err
	}
	var diag bytes.Buffer
	for _, w := range rep.Warn {
		fmt.Fprintln(&diag, "luahook: warning:", termtext.Block(w.Error()))
	}
	return writeReply(s, c, rep, &diag)
}

// agentURL is the server's path for the agent: base/agent/NAME, and
// /EVENT when the command line names the event (Copilot's camelCase
// payloads do not).
func agentURL(base string, name agent.Name, event string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	p := strings.TrimRight(u.Path, "/") + "/agent/" + string(name)
	if event != "" {
		p += "/" + url.PathEscape(event)
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// askServer posts the native payload to target, asking for the whole
// answer (server.RelayHeader), with token as its bearer token when there
// is one, and returns the answer once it is well formed (relay.Decode): a
// 2xx status, one server.Relay object of at most relay.Max with its three
// keys each once, exit status 0 or 2, and standard output empty or one
// JSON object. A refusal of the call itself (401, 403, 415) is a
// *refusedError. What the server said is quoted in errors with the token
// taken out, should the server have echoed it.
func askServer(ctx context.Context, client *http.Client, target string, payload []byte, cut int64, token string, timeout time.Duration) (agent.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return agent.Answer{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set(server.RelayHeader, "1")
	if cut > 0 {
		hr.Header.Set(relay.CutHeader, strconv.FormatInt(cut, 10))
	}
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(hr)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return agent.Answer{}, fmt.Errorf("no answer within --http-timeout %v", timeout)
		}
		return agent.Answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, relay.Max+1))
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return agent.Answer{}, fmt.Errorf("no whole answer within --http-timeout %v", timeout)
	case err != nil:
		return agent.Answer{}, fmt.Errorf("reading the answer: %w", err)
	case refusal(resp.StatusCode):
		return agent.Answer{}, &refusedError{status: resp.Status, code: resp.StatusCode, said: quoted(body, token)}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return agent.Answer{}, fmt.Errorf("answered %s: %s", resp.Status, quoted(body, token))
	case len(body) > relay.Max:
		return agent.Answer{}, fmt.Errorf("answer larger than %s", byteSize(relay.Max))
	}
	rel, err := relay.Decode(body)
	if err != nil {
		return agent.Answer{}, fmt.Errorf("not a luahook answer (%v): %s", err, quoted(body, token))
	}
	ans := agent.Answer{Stderr: rel.Stderr, ExitCode: rel.ExitCode}
	if rel.Stdout != "" {
		ans.Stdout = []byte(rel.Stdout)
	}
	return ans, nil
}

// quoted is what of a server's body an error quotes: its first 200
// characters, without the token.
func quoted(body []byte, token string) string {
	text := string(body)
	if token != "" {
		text = strings.ReplaceAll(text, token, "[token]")
	}
	return luahook.TruncateChars(strings.TrimSpace(text), 200)
}

// socketTransport dials the Unix socket at path for every request, and
// uses a connection only when the process at its other end runs as this
// user or root (unixsock.Dial).
func socketTransport(path string) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return unixsock.Dial(ctx, path)
		},
		DisableKeepAlives: true,
	}
}

// refusal reports whether status is serve refusing the call itself rather
// than answering it: no or a wrong token (401), a client it does not let
// in (403), a payload it does not take as JSON (415).
func refusal(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusUnsupportedMediaType
}

// refusedError is serve's refusal of the call: not a decision, and not a
// server that is down.
type refusedError struct {
	status string // "401 Unauthorized"
	code   int
	said   string // the body, quoted
}

func (e *refusedError) Error() string { return "answered " + e.status + ": " + e.said }

// explain says what the refusal means for the credentials fire showed.
func (e *refusedError) explain(c credentials) string {
	var why string
	switch {
	case e.code == http.StatusUnauthorized && c.socket:
		why = "over its socket, no token is sent: the server's user is the check"
	case e.code == http.StatusUnauthorized && c.from == "":
		why = "no token was sent: give fire --token-file FILE, or set " + tokenEnv
	case e.code == http.StatusUnauthorized:
		why = "the token of " + c.from + " was not accepted"
	case e.code == http.StatusForbidden && c.from != "":
		why = "the token of " + c.from + " is not allowed this call"
	case e.code == http.StatusForbidden:
		why = "this client is not allowed this call"
	default:
		why = "it did not take the payload as JSON"
	}
	if e.said != "" {
		why += "; the server said: " + e.said
	}
	return e.status + ": " + why
}

// tokenEnv names the variable fire --http takes serve's token from when
// --token-file does not name a file: the one Claude Code's HTTP hooks
// that install writes send.
const tokenEnv = install.TokenEnv

const (
	// maxTokenFile bounds a token file: a few lines of a few dozen bytes.
	maxTokenFile = 64 << 10
	// maxToken bounds a token: it is one header line of every call.
	maxToken = 4096
	// maxPEMFile bounds --ca, --tls-cert and --tls-key: a certificate
	// chain or a key is a few KiB.
	maxPEMFile = 1 << 20
)

// credentials are what fire --http shows luahook serve: the bearer token
// and, for an https URL, the TLS settings.
type credentials struct {
	token string
	// from says where the token came from ("--token-file PATH",
	// "$LUAHOOK_TOKEN"), "" when there is none. Errors name it, never
	// the token.
	from string
	tls  *tls.Config // nil: Go's defaults (the system's roots, no client certificate)
	// socket: the server was asked over its Unix socket, with no token.
	socket bool
}

// checkForwardFlags refuses credentials flags that cannot apply: they are
// for --http (over --socket the server's user is checked instead), a
// --token-name picks a line of --token-file, a client certificate needs its
// key, and TLS settings need an https URL.
func (o *fireOptions) checkForwardFlags() error {
	if o.http == "" {
		for _, f := range []struct{ name, val string }{{"--token-file", o.tokenFile}, {"--token-name", o.tokenName},
			{"--ca", o.ca}, {"--tls-cert", o.tlsCert}, {"--tls-key", o.tlsKey}} {
			if f.val != "" {
				return fmt.Errorf("%s is for --http URL (over --socket, the server's user is the check)", f.name)
			}
		}
		return nil
	}
	switch {
	case o.tokenName != "" && o.tokenFile == "":
		return errors.New("--token-name picks a line of --token-file: give the file")
	case (o.tlsCert == "") != (o.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together: the client certificate and its key")
	case (o.ca != "" || o.tlsCert != "") && !strings.HasPrefix(strings.ToLower(o.http), "https://"):
		return fmt.Errorf("--ca, --tls-cert and --tls-key are for an https URL, not --http %s", o.http)
	}
	return nil
}

// credentials reads what fire shows the server at target: the token of
// --token-file (its first token line, or the one --token-name names), else
// of $LUAHOOK_TOKEN when set, and the TLS files. A token is refused for an
// http URL that is not this machine's loopback address: it would cross the
// network in clear.
func (o *fireOptions) credentials(target string) (credentials, error) {
	var c credentials
	switch {
	case o.tokenFile != "":
		tok, err := readTokenFile(o.tokenFile, o.tokenName)
		if err != nil {
			return c, err
		}
		c.token, c.from = tok, "--token-file "+o.tokenFile
	default:
		if tok, ok := os.LookupEnv(install.TokenEnv); ok && tok != "" {
			if err := checkToken(tok); err != nil {
				return c, fmt.Errorf("$%s: %w", tokenEnv, err)
			}
			c.token, c.from = tok, "$"+tokenEnv
		}
	}
	u, err := url.Parse(target)
	if err != nil {
		return c, err
	}
	if c.token != "" && install.TokenInClear(u) {
		return c, fmt.Errorf("the token of %s is not sent to %s in clear: use https, or a loopback address", c.from, u.Host)
	}
	c.tls, err = o.tlsConfig()
	return c, err
}

// transport is the client's connection to the server: the TLS settings,
// one connection per call (fire asks once), and a proxy of the environment
// for https only, where the proxy sees nothing but the encrypted stream; an
// http URL is dialled directly.
func (c credentials) transport() *http.Transport {
	return &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			if r.URL.Scheme != "https" {
				return nil, nil
			}
			return http.ProxyFromEnvironment(r)
		},
		TLSClientConfig:   c.tls,
		ForceAttemptHTTP2: true,
		DisableKeepAlives: true,
	}
}

// tlsConfig is the TLS of --ca (the CA the server's certificate must chain
// to, in place of the system's) and --tls-cert and --tls-key (the client
// certificate); nil when none is given.
func (o *fireOptions) tlsConfig() (*tls.Config, error) {
	if o.ca == "" && o.tlsCert == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.ca != "" {
		pem, err := readCredentialFile(o.ca, "--ca", maxPEMFile, false)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca %s: no PEM certificate in it", o.ca)
		}
		cfg.RootCAs = pool
	}
	if o.tlsCert != "" {
		certPEM, err := readCredentialFile(o.tlsCert, "--tls-cert", maxPEMFile, false)
		if err != nil {
			return nil, err
		}
		keyPEM, err := readCredentialFile(o.tlsKey, "--tls-key", maxPEMFile, true)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s with --tls-key %s: %w", o.tlsCert, o.tlsKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// readTokenFile returns the token a token file gives: that of its first
// line TOKEN or NAME TOKEN, or with name, of its first line NAME TOKEN.
// Blank lines and lines starting with # are skipped. The file must be the
// user's alone (readFile). No error quotes a line: it may hold a token.
func readTokenFile(path, name string) (string, error) {
	data, err := readCredentialFile(path, "--token-file", maxTokenFile, true)
	if err != nil {
		return "", err
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var lineName, tok string
		switch f := strings.Fields(line); len(f) {
		case 1:
			tok = f[0]
		case 2:
			lineName, tok = f[0], f[1]
		default:
			return "", fmt.Errorf("--token-file %s:%d: %d words: want TOKEN or NAME TOKEN", path, i+1, len(f))
		}
		if err := checkToken(tok); err != nil {
			return "", fmt.Errorf("--token-file %s:%d: %w", path, i+1, err)
		}
		if name == "" || lineName == name {
			return tok, nil
		}
	}
	if name != "" {
		return "", fmt.Errorf("--token-file %s: no line %s TOKEN (--token-name %s)", path, name, name)
	}
	return "", fmt.Errorf("--token-file %s: no token in it (want a line TOKEN or NAME TOKEN)", path)
}

// checkToken refuses a token that a header line cannot carry as it is:
// anything but printable ASCII without spaces, or more than maxToken
// bytes. The error does not quote it.
func checkToken(tok string) error {
	if len(tok) > maxToken {
		return fmt.Errorf("a token of %d bytes: at most %d", len(tok), maxToken)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("the token's byte %d is not printable ASCII (a space, a control character or beyond ASCII)", i+1)
		}
	}
	return nil
}

// readCredentialFile reads the file at path, given by flag, without
// blocking on anything but a regular file and refusing one over limit
// bytes. private (a token, a key) also wants it the user's own and closed
// to group and others, and named itself, not through a symbolic link (as
// serve holds its own token file): a secret others can read, or replace,
// is no secret.
func readCredentialFile(path, flag string, limit int64, private bool) ([]byte, error) {
	open := os.O_RDONLY
	if private {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s %s: a symbolic link; name the file itself (a link can be pointed at another file)", flag, path)
		}
		open |= syscall.O_NOFOLLOW // nor one put in its place since
	}
	f, fi, err := regfile.OpenFile(path, open, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	defer f.Close()
	if private {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return nil, fmt.Errorf("%s %s: owned by uid %d, not by this user (uid %d): it must be your own", flag, path, st.Uid, os.Geteuid())
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			return nil, fmt.Errorf("%s %s: open to its group or others (mode %04o): it must be yours alone (chmod 600 %s)", flag, path, perm, path)
		}
	}
	data, err := regfile.ReadAll(f, fi, path, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return data, nil
}
