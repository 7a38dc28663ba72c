package server

import (
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/metrics"
)

// Auth is who may ask a Handler (Options.Auth). Every request is first
// checked for a browser's marks, on every route and every listener: one
// carrying an Origin header that AllowOrigins does not list, or
// Sec-Fetch-Site cross-site or same-site, is refused 403, and a POST whose
// Content-Type is not application/json 415, so that no web page open in the
// user's browser can post to a server on loopback (a page's "simple"
// text/plain posts need no CORS preflight). Then the hook routes, the agent
// routes and /metrics authenticate the client (Tokens, ClientCerts);
// /healthz and /readyz stay open for load balancers. A refused request is
// answered before its body is read, with Connection: close, and never
// reaches admission, a hook, the store or the decision log; it is counted
// in luahook_requests_refused_total{reason}.
//
// With neither Tokens nor ClientCerts, every client is let in unnamed.
// Requests on a Unix socket (a listener whose address is a Unix one) need
// no authentication: the socket's file mode lets only its owner connect.
type Auth struct {
	// Tokens, when it holds any, makes every request carry
	// "Authorization: Bearer TOKEN" with one of them (401 otherwise, with
	// WWW-Authenticate: Bearer); the client is the token's name.
	Tokens *Tokens
	// ClientCerts makes every request come over TLS with a client
	// certificate that the listener's TLS configuration verified (see
	// TLSConfig); 401 otherwise. The client is the certificate's subject
	// common name, else its first DNS name. With Tokens too, a request
	// needs both, and the token's name, when it has one, names the client.
	ClientCerts bool
	// AllowOrigins lists the origins (ParseOrigin) whose browser requests
	// are let through: a web page of the operator's own.
	AllowOrigins []string
}

// Why requests are refused: the reason label of luahook_requests_refused_total.
type refusalReason uint8

const (
	refuseOrigin      refusalReason = iota // an Origin not listed
	refuseFetchSite                        // Sec-Fetch-Site cross-site or same-site
	refuseContentType                      // a POST body not declared application/json
	refuseNoToken                          // no bearer token
	refuseBadToken                         // a bearer token that is none of the server's
	refuseNoCert                           // no verified client certificate
	refuseCertName                         // a client certificate that names no usable client
	numRefusals
)

var refusalNames = [numRefusals]string{"origin", "fetch_site", "content_type", "no_token", "bad_token", "no_client_cert", "client_cert_name"}

// denial is a refused request: why, the status and what the answer says.
type denial struct {
	reason refusalReason
	code   int
	msg    string
}

// guard applies an Auth.
type guard struct {
	tokens  *Tokens
	certs   bool
	origins map[string]bool
	refused [numRefusals]metrics.Counter
}

func newGuard(a *Auth, reg *metrics.Registry) *guard {
	if a == nil {
		return nil
	}
	g := &guard{certs: a.ClientCerts, origins: map[string]bool{}}
	if a.Tokens.Len() > 0 {
		g.tokens = a.Tokens
	}
	for _, o := range a.AllowOrigins {
		g.origins[strings.ToLower(o)] = true
	}
	refused := reg.NewCounterVec("luahook_requests_refused_total",
		"Requests refused before their body was read, by reason: origin, fetch_site (a browser's), content_type (not application/json), no_token, bad_token, no_client_cert, client_cert_name.", "reason")
	for i, name := range refusalNames {
		g.refused[i] = refused.WithLabelValues(name)
	}
	return g
}

// browser refuses a request that a web page may have sent.
func (g *guard) browser(r *http.Request) *denial {
	origins := r.Header.Values("Origin")
	for _, o := range origins {
		if !g.origins[strings.ToLower(o)] {
			return &denial{refuseOrigin, http.StatusForbidden, fmt.Sprintf(
				"a browser's request, from the origin %.100q; luahook serve answers browsers only from the origins --allow-origin lists", o)}
		}
	}
	if len(origins) == 0 {
		// A listed origin's page is often another site; without an
		// Origin, a browser's cross-site request is told by its fetch
		// metadata (a GET from an <img> or a <script> carries no Origin).
		switch site := r.Header.Get("Sec-Fetch-Site"); site {
		case "cross-site", "same-site":
			return &denial{refuseFetchSite, http.StatusForbidden, "a browser's request from another site (Sec-Fetch-Site: " + site + ")"}
		}
	}
	if r.Method == http.MethodPost {
		ct := r.Header.Get("Content-Type")
		if ct != "application/json" {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || mt != "application/json" {
				what := "no Content-Type"
				if ct != "" {
					what = fmt.Sprintf("Content-Type %.100q", ct)
				}
				return &denial{refuseContentType, http.StatusUnsupportedMediaType, what + "; want application/json"}
			}
		}
	}
	return nil
}

// authenticate returns the name of the client that sent r ("" for a client
// without one), or why it is refused.
func (g *guard) authenticate(r *http.Request) (string, *denial) {
	if onUnixSocket(r) {
		return "", nil
	}
	var client string
	if g.certs {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
			return "", &denial{refuseNoCert, http.StatusUnauthorized, "no client certificate: this server authenticates its clients by mutual TLS"}
		}
		name, err := certClient(r.TLS.VerifiedChains[0][0])
		if err != nil {
			return "", &denial{refuseCertName, http.StatusForbidden, err.Error()}
		}
		client = name
	}
	if g.tokens != nil {
		auth := r.Header.Values("Authorization")
		if len(auth) == 0 {
			return "", &denial{refuseNoToken, http.StatusUnauthorized, "no bearer token: send Authorization: Bearer TOKEN"}
		}
		token, ok := bearer(auth[0])
		if !ok || len(auth) > 1 {
			return "", &denial{refuseNoToken, http.StatusUnauthorized, "the Authorization header is not one Bearer TOKEN"}
		}
		name, ok := g.tokens.lookup(token)
		if !ok {
			return "", &denial{refuseBadToken, http.StatusUnauthorized, "the bearer token is not one of this server's"}
		}
		if name != "" {
			client = name
		}
	}
	return client, nil
}

// bearer returns the token of an Authorization header of the Bearer scheme.
func bearer(h string) (string, bool) {
	const scheme = "bearer "
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	t := strings.TrimLeft(h[len(scheme):], " ")
	return t, t != ""
}

// certClient returns the client a verified certificate names: its subject
// common name, else its first DNS name.
func certClient(c *x509.Certificate) (string, error) {
	name := c.Subject.CommonName
	if name == "" && len(c.DNSNames) > 0 {
		name = c.DNSNames[0]
	}
	switch {
	case name == "":
		return "", fmt.Errorf("the client certificate (serial %s) names no client: it has no subject common name and no DNS name", c.SerialNumber)
	case len(name) > luahook.MaxIDBytes:
		return "", fmt.Errorf("the client certificate's name is %d bytes, over the limit of %d", len(name), luahook.MaxIDBytes)
	case !printable(name):
		return "", fmt.Errorf("the client certificate's name %.100q has characters that are not printable", name)
	}
	return name, nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

// onUnixSocket reports whether r came through a Unix socket listener.
func onUnixSocket(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && (a.Network() == "unix" || a.Network() == "unixpacket")
}

// ParseOrigin checks an origin given to be allowed (Auth.AllowOrigins):
// scheme://host[:port], http or https, nothing more, as browsers send it
// in the Origin header. It returns the origin in lower case.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case s == "null":
		return "", fmt.Errorf("origin %q: the opaque origin of sandboxed pages and files cannot be allowed", s)
	case err != nil:
		return "", fmt.Errorf("origin %q: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("origin %q: want http:// or https:// and a host (https://dash.example.com)", s)
	case u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("origin %q: want scheme://host[:port] alone, as a browser's Origin header says it", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// deny answers a refused request, before its body is read: the status,
// WWW-Authenticate when a bearer token was missing or wrong, and a body
// that denies, for a client that reads only the body; then it closes the
// connection (closeRefused).
func (h *Handler) deny(w http.ResponseWriter, r *http.Request, d *denial) {
	h.countDenial(r, d)
	hd := w.Header()
	if d.code == http.StatusUnauthorized && h.guard.tokens != nil {
		v := `Bearer realm="luahook"`
		if d.reason == refuseBadToken {
			v += `, error="invalid_token"`
		}
		hd.Set("WWW-Authenticate", v)
	}
	body := map[string]string{"error": d.msg}
	if r.Method == http.MethodPost {
		body["action"], body["reason"] = "deny", "luahook serve refused the request: "+d.msg
	}
	hd.Set("Connection", "close")
	writeJSON(w, d.code, body)
	closeRefused(w)
}

// After a refusal's answer, what the client still sends is read and
// dropped for at most refusalLinger, and refusalDiscard bytes.
const (
	refusalLinger  = 100 * time.Millisecond
	refusalDiscard = 64 << 10
)

// closeRefused closes the connection of a refused request once its answer
// (with Connection: close and a Content-Length) is written, without
// reading its body first. net/http, left to close a connection whose
// request body was not read, holds it for half a second (so that the
// client's unread bytes do not make the close a reset that takes the
// answer away with it): a flood of refused requests would hold every
// connection slot (Limits.MaxConns). Here the connection is half-closed,
// read until the client closes its end, for refusalLinger at most, and
// closed. Where the connection cannot be taken over (HTTP/2, a recorder),
// net/http closes it.
func closeRefused(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	conn.SetReadDeadline(time.Now().Add(refusalLinger))
	io.Copy(io.Discard, io.LimitReader(conn, refusalDiscard))
	conn.Close()
}

// countDenial counts and logs a refusal: at debug level, since a flood of
// refused requests must not flood the log too. Neither says anything of
// the request's credentials.
func (h *Handler) countDenial(r *http.Request, d *denial) {
	h.guard.refused[d.reason].Inc()
	if h.logger.Enabled(r.Context(), slog.LevelDebug) {
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "request refused", slog.Int("status", d.code),
			slog.String("reason", refusalNames[d.reason]), slog.String("remote", r.RemoteAddr),
			slog.String("path", r.URL.Path), slog.String("err", d.msg))
	}
}

// client authenticates r on a route that needs it: the client's name, or
// false once r was refused (answered by deny).
func (h *Handler) client(w http.ResponseWriter, r *http.Request) (string, bool) {
	if h.guard == nil {
		return "", true
	}
	name, d := h.guard.authenticate(r)
	if d != nil {
		h.deny(w, r, d)
		return "", false
	}
	return name, true
}

// authenticated serves next to authenticated clients only (/metrics).
func (h *Handler) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.client(w, r); ok {
			next.ServeHTTP(w, r)
		}
	})
}
