// Package webui is the web page luahook serve shows at /ui/ (serve --ui):
// the web approvals waiting for a person, with approve and deny; the live
// decisions, streamed with server-sent events and filtered by agent,
// session, verdict and policy; the counts of decisions and denials per
// minute with the rules that denied most; and one decision opened in full,
// as its decision-log record tells it.
//
// The page is plain server-rendered HTML (html/template) with one small
// script and one style sheet, all embedded in the binary: no build step, no
// CDN, no inline script. Every answer carries a strict
// Content-Security-Policy. A person logs in with one of serve's tokens:
// the login sets a session cookie (HttpOnly, SameSite=Strict, signed with a
// key derived from that token, so every replica with the same token file
// accepts it). Every state-changing request carries the session's CSRF
// token, and a request another site's page sent is refused: an Origin that
// is not the page's own, a Sec-Fetch-Site other than same-origin (but for a
// person following a link to the page), a POST whose Content-Type a form of
// another site could send.
package webui

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
	"github.com/luahook/luahook/internal/metrics"
)

//go:embed templates/*.html static/*
var files embed.FS

// Prefix is where the page is served.
const Prefix = "/ui/"

// DefaultMaxStreams is how many live streams (/ui/events) may be open at
// once by default.
const DefaultMaxStreams = 32

// CSP is the Content-Security-Policy of every answer: the page's own
// script and style sheet, its own requests, nothing else (no inline script
// or style, no frames, no other site's forms).
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Options configure a Handler. Keys is required.
type Options struct {
	// Keys logs people in (server.Tokens).
	Keys Keys
	// Feed holds the decisions the page shows; nil: none.
	Feed *decisionfeed.Feed
	// Approvals is the hub of web approvals; nil: the page says serve
	// keeps none (serve --approvals).
	Approvals *approvals.Hub
	// Instance names the replica, shown on the page.
	Instance string
	// Logger receives logins, refusals (debug) and decisions made on the
	// page. Nil discards.
	Logger *slog.Logger
	// Registry receives the page's metrics; nil: none.
	Registry *metrics.Registry
	// SessionLifetime is how long a login lasts; 0 means
	// DefaultSessionLifetime.
	SessionLifetime time.Duration
	// MaxStreams bounds the live streams open at once; 0 means
	// DefaultMaxStreams.
	MaxStreams int
	// Heartbeat is how often an idle stream sends a comment, so that
	// proxies keep it open; 0 means 15 s.
	Heartbeat time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Handler serves the page under Prefix.
type Handler struct {
	opts  Options
	mux   *http.ServeMux
	pages *template.Template
	log   *slog.Logger

	refused *metrics.CounterVec

	mu      sync.Mutex
	streams map[*stream]struct{}
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
}

// New returns the page's Handler.
func New(opts Options) (*Handler, error) {
	if opts.Keys == nil {
		return nil, errors.New("webui: no keys: the page logs people in with serve's tokens (--token-file or --token-env)")
	}
	if opts.SessionLifetime <= 0 {
		opts.SessionLifetime = DefaultSessionLifetime
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	pages, err := template.New("").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), pages: pages, log: opts.Logger, streams: map[*stream]struct{}{}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if opts.Registry != nil {
		h.refused = opts.Registry.NewCounterVec("luahook_ui_refused_total",
			"Requests to the web page refused, by reason: origin, fetch_site, content_type, csrf, session.", "reason")
	}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("GET /ui/{$}", h.authed(h.serveIndex))
	m.HandleFunc("GET /ui/login", h.serveLoginForm)
	m.HandleFunc("POST /ui/login", h.serveLogin)
	m.HandleFunc("POST /ui/logout", h.authed(h.serveLogout))
	m.HandleFunc("GET /ui/static/{file}", h.serveStatic)
	m.HandleFunc("GET /ui/decisions/{seq}", h.authed(h.serveDecision))
	m.HandleFunc("GET /ui/api/decisions", h.authed(h.apiDecisions))
	m.HandleFunc("GET /ui/api/counts", h.authed(h.apiCounts))
	m.HandleFunc("GET /ui/api/approvals", h.authed(h.apiApprovals))
	m.HandleFunc("POST /ui/api/approvals/{id}", h.authed(h.apiDecide))
	m.HandleFunc("GET /ui/events", h.authed(h.serveEvents))
	m.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "no such page: "+cut(r.URL.Path, 100))
	})
}

// ServeHTTP serves a request under Prefix (and /ui, sent to /ui/).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make Chromium send its forms with Origin: null
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	if reason, msg := h.foreign(r); reason != "" {
		h.count(reason)
		h.fail(w, r, http.StatusForbidden, msg)
		return
	}
	if r.URL.Path == "/ui" {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Close ends the live streams (serve calls it as it shuts down, so that no
// stream holds the shutdown); later streams are refused.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
}

// Streams returns how many live streams are open.
func (h *Handler) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// foreign says why r looks sent by another site's page ("" when it does
// not): an Origin other than the page's own; fetch metadata that says
// cross-site or same-site, but for a person following a link to a page; a
// POST in a Content-Type another site's form could send.
func (h *Handler) foreign(r *http.Request) (reason, msg string) {
	own := "http://" + r.Host
	if r.TLS != nil {
		own = "https://" + r.Host
	}
	for _, o := range r.Header.Values("Origin") {
		if !strings.EqualFold(o, own) {
			return "origin", "a request from another origin (" + cut(o, 100) + "): the page answers only its own"
		}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		navigate := r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
			r.Header.Get("Sec-Fetch-Dest") == "document"
		if !navigate {
			return "fetch_site", "a request from another site (Sec-Fetch-Site: " + cut(site, 40) + ")"
		}
	}
	if r.Method == http.MethodPost {
		want := "application/json"
		if r.URL.Path == "/ui/login" || r.URL.Path == "/ui/logout" {
			want = "application/x-www-form-urlencoded"
		}
		ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
		if !strings.EqualFold(strings.TrimSpace(ct), want) {
			return "content_type", "Content-Type " + cut(r.Header.Get("Content-Type"), 80) + "; want " + want
		}
	}
	return "", ""
}

func (h *Handler) count(reason string) {
	if h.refused != nil {
		h.refused.WithLabelValues(reason).Inc()
	}
}

// authed serves next to a logged-in person: a page request without a
// valid session is sent to the login page, any other is answered 401; a
// POST without the session's CSRF token is refused 403.
func (h *Handler) authed(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := h.session(r)
		if s == nil {
			h.count("session")
			if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/ui/api/") && r.URL.Path != "/ui/events" {
				http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
				return
			}
			h.fail(w, r, http.StatusUnauthorized, "not logged in: log in at /ui/login with a token of this server")
			return
		}
		if r.Method == http.MethodPost {
			token := r.Header.Get(csrfHeader)
			if token == "" && r.URL.Path == "/ui/logout" {
				r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
				token = r.PostFormValue(csrfField)
			}
			if !s.checkCSRF(token) {
				h.count("csrf")
				h.fail(w, r, http.StatusForbidden, "the request carries no valid CSRF token: reload the page")
				return
			}
		}
		next(w, r, s)
	}
}

// session returns r's valid session, nil when it has none.
func (h *Handler) session(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	s, err := verify(h.opts.Keys, c.Value, h.opts.Now())
	if err != nil {
		return nil
	}
	return s
}

// cut returns s cut to n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
