package webui

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
)

// MaxRows is how many decisions the page's table shows at once (the newest
// that match its filter; older ones a page at a time): the page stays
// responsive however many decisions the window holds.
const MaxRows = 200

// maxLoginBody bounds the login form's body.
const maxLoginBody = 8 << 10

var funcs = template.FuncMap{
	"clock": func(t time.Time) string { return t.UTC().Format("15:04:05") },
	"stamp": func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
	"pretty": func(raw []byte) string {
		var b bytes.Buffer
		if len(raw) == 0 || json.Indent(&b, raw, "", "  ") != nil {
			return string(raw)
		}
		return b.String()
	},
	"join": strings.Join,
	"ms":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) + " ms" },
}

// verdicts are the verdicts the filter offers (decisionlog.Delivered's).
var verdicts = []string{"deny", "block", "ask", "allow", "rewrite", "context", "none", "error"}

type page struct {
	Title    string
	Who      string
	Instance string
	CSRF     string
}

type indexView struct {
	page
	ApprovalsOn bool
	Approvals   []approvals.Pending
	FeedOn      bool
	Filter      decisionfeed.Filter
	Verdicts    []string
	Decisions   []decisionfeed.Entry
	More        bool
	Window      int
	Held        int
	Counts      decisionfeed.Counts
	MaxRows     int
}

func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request, s *session) {
	v := indexView{page: h.page("luahook", s), ApprovalsOn: h.opts.Approvals != nil, FeedOn: h.opts.Feed != nil,
		Filter: filterOf(r), Verdicts: verdicts, MaxRows: MaxRows}
	if h.opts.Approvals != nil {
		v.Approvals = h.opts.Approvals.List()
	}
	if f := h.opts.Feed; f != nil {
		v.Decisions, v.More = f.Query(v.Filter, 0, MaxRows)
		v.Held = f.Len()
		v.Counts = f.Counts(60, 5)
	}
	h.render(w, r, http.StatusOK, "index.html", v)
}

// filterOf reads the decisions' filter from r's query.
func filterOf(r *http.Request) decisionfeed.Filter {
	q := r.URL.Query()
	get := func(k string) string { return cut(strings.TrimSpace(q.Get(k)), 200) }
	return decisionfeed.Filter{Agent: get("agent"), Session: get("session"), Verdict: get("verdict"), Policy: get("policy")}
}

func (h *Handler) page(title string, s *session) page {
	p := page{Title: title, Instance: h.opts.Instance}
	if s != nil {
		p.Who, p.CSRF = s.who(), s.csrf()
	}
	return p
}

type loginView struct {
	page
	Nonce string
	Error string
}

func (h *Handler) serveLoginForm(w http.ResponseWriter, r *http.Request) {
	if h.session(r) != nil {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	h.loginForm(w, r, http.StatusOK, "")
}

// loginForm renders the login form with a fresh CSRF nonce, in a cookie
// and in the form: the login POST must carry both, equal.
func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request, code int, msg string) {
	n := nonce()
	http.SetCookie(w, cookie(r, loginCookie, n, loginLifetime))
	h.render(w, r, code, "login.html", loginView{page: h.page("luahook: log in", nil), Nonce: n, Error: msg})
}

func (h *Handler) serveLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		h.loginForm(w, r, http.StatusBadRequest, "the form could not be read")
		return
	}
	c, err := r.Cookie(loginCookie)
	field := r.PostFormValue(csrfField)
	if err != nil || field == "" || c.Value != field {
		h.count("csrf")
		h.loginForm(w, r, http.StatusForbidden, "the login form expired or was not this page's: try again")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	name, keyID, key, ok := h.opts.Keys.Session(token)
	if !ok {
		h.log.Info("ui: login refused", "remote", r.RemoteAddr)
		h.loginForm(w, r, http.StatusUnauthorized, "that token is not one of this server's")
		return
	}
	exp := h.opts.Now().Add(h.opts.SessionLifetime)
	http.SetCookie(w, cookie(r, sessionCookie, sign(keyID, key, nonce(), exp), h.opts.SessionLifetime))
	http.SetCookie(w, cookie(r, loginCookie, "", -1))
	h.log.Info("ui: logged in", "client", name, "remote", r.RemoteAddr)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

func (h *Handler) serveLogout(w http.ResponseWriter, r *http.Request, s *session) {
	http.SetCookie(w, cookie(r, sessionCookie, "", -1))
	h.log.Info("ui: logged out", "client", s.Name)
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

func (h *Handler) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file") // one path element: {file} matches no "/"
	data, err := fs.ReadFile(files, "static/"+name)
	if err != nil {
		h.fail(w, r, http.StatusNotFound, "no such file: "+cut(name, 100))
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

// render executes a page's template into a buffer first, so that a
// failing template never sends half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, code int, name string, v any) {
	var b bytes.Buffer
	if err := h.pages.ExecuteTemplate(&b, name, v); err != nil {
		h.log.Error("ui: rendering a page", "page", name, "err", err)
		h.fail(w, r, http.StatusInternalServerError, "the page could not be rendered")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// fail answers an error: JSON to the page's script, a small page to a
// person.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/ui/api/") && r.URL.Path != "/ui/events" &&
		!strings.HasPrefix(r.URL.Path, "/ui/static/") {
		var b bytes.Buffer
		if err := h.pages.ExecuteTemplate(&b, "error.html", struct {
			page
			Code    int
			Message string
		}{h.page("luahook: "+http.StatusText(code), nil), code, msg}); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(code)
			w.Write(b.Bytes())
			return
		}
	}
	writeJSON(w, code, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"the answer could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
