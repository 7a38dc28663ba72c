package webui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/runner"
)

const (
	aliceToken = "alice-2b7e151628aed2a6"
	bobToken   = "bob-abf7158809cf4f3c76"
)

func tokens(t testing.TB, text string) *server.Tokens {
	t.Helper()
	tk, err := server.ParseTokens([]byte(text), "tokens")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// rig is a page on a real HTTP server with a real feed and a real hub.
type rig struct {
	srv  *httptest.Server
	h    *Handler
	feed *decisionfeed.Feed
	hub  *approvals.Hub
	now  atomic.Int64 // unix nanoseconds; 0: time.Now
}

func newRig(t *testing.T, keys Keys, mod func(*Options)) *rig {
	t.Helper()
	r := &rig{feed: decisionfeed.New(decisionfeed.Options{}), hub: approvals.New(approvals.Options{})}
	opts := Options{Keys: keys, Feed: r.feed, Approvals: r.hub, Instance: "replica-a", Now: func() time.Time {
		if n := r.now.Load(); n != 0 {
			return time.Unix(0, n)
		}
		return time.Now()
	}}
	if mod != nil {
		mod(&opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.h = h
	r.srv = httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); r.srv.Close(); r.hub.Close(); r.feed.Close() })
	return r
}

// client is a browser-like client: a cookie jar, no redirects followed.
func client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type answer struct {
	code   int
	header http.Header
	body   string
}

func do(t *testing.T, c *http.Client, method, u, ctype, body string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

var (
	nonceField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	csrfMeta   = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)
)

// login logs c in with token through the form, as a browser does, and
// returns the page's CSRF token.
func (r *rig) login(t *testing.T, c *http.Client, token string) string {
	t.Helper()
	form := do(t, c, "GET", r.srv.URL+"/ui/login", "", "", nil)
	m := nonceField.FindStringSubmatch(form.body)
	if form.code != 200 || m == nil {
		t.Fatalf("the login form: %d %s", form.code, form.body)
	}
	a := do(t, c, "POST", r.srv.URL+"/ui/login", "application/x-www-form-urlencoded",
		url.Values{"csrf": {m[1]}, "token": {token}}.Encode(), map[string]string{"Origin": r.srv.URL, "Sec-Fetch-Site": "same-origin"})
	if a.code != http.StatusSeeOther || a.header.Get("Location") != "/ui/" {
		t.Fatalf("logging in: %d %v %s", a.code, a.header, a.body)
	}
	page := do(t, c, "GET", r.srv.URL+"/ui/", "", "", nil)
	m = csrfMeta.FindStringSubmatch(page.body)
	if page.code != 200 || m == nil {
		t.Fatalf("the page after logging in: %d %s", page.code, page.body)
	}
	return m[1]
}

// await puts a web approval up on the hub and returns it as listed, and
// the channel its decision arrives on.
func (r *rig) await(t *testing.T, approvers ...string) (approvals.Pending, <-chan error) {
	t.Helper()
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		d, err := r.hub.Await(ctx, runner.ApprovalRequest{Digest: "0123456789abcdef0123456789abcdef", Tool: "Bash",
			Input: []byte(`{"command":"deploy"}`), Reasons: []string{"deploys"}, Approvers: approvers, Timeout: time.Minute, Hooks: []string{"gate"}})
		if err == nil && !d.Approved {
			err = fmt.Errorf("denied by %s", d.By)
		}
		done <- err
	}()
	for i := 0; r.hub.Len() == 0; i++ {
		if i > 5000 {
			t.Fatal("the approval never waited")
		}
		time.Sleep(time.Millisecond)
	}
	return r.hub.List()[0], done
}

func decisionBody(p approvals.Pending, verdict string) string {
	b, _ := json.Marshal(map[string]string{"verdict": verdict, "digest": p.Digest, "reason": "from the test"})
	return string(b)
}

func TestEveryAnswerCarriesTheStrictCSPAndNoInlineScript(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	r.login(t, c, aliceToken)
	r.await(t)
	rec := denyRecord("s-1")
	r.feed.Sink().Write(&rec)
	scripts := regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)
	attrs := regexp.MustCompile(`(?i)<[^>]*\s(on[a-z]+|style)\s*=|javascript:|<style`)
	for _, path := range []string{"/ui/login", "/ui/", "/ui/decisions/1", "/ui/decisions/999", "/ui/static/app.js", "/ui/static/app.css",
		"/ui/api/approvals", "/ui/api/decisions", "/ui/api/counts", "/ui/nowhere"} {
		a := do(t, c, "GET", r.srv.URL+path, "", "", nil)
		if a.header.Get("Content-Security-Policy") != CSP || a.header.Get("X-Content-Type-Options") != "nosniff" ||
			a.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v, want the CSP, nosniff and DENY", path, a.header)
		}
		if strings.HasPrefix(a.body, "<!doctype html>") {
			for _, m := range scripts.FindAllStringSubmatch(a.body, -1) {
				if !strings.Contains(m[1], `src="/ui/static/`) || strings.TrimSpace(m[2]) != "" {
					t.Errorf("%s holds an inline script: %q", path, m[0])
				}
			}
			if n := strings.Count(strings.ToLower(a.body), "<script"); n != len(scripts.FindAllString(a.body, -1)) || n == 0 {
				t.Errorf("%s: %d script tags, not each the page's own file", path, n)
			}
			if m := attrs.FindString(a.body); m != "" {
				t.Errorf("%s holds an inline handler or style: %q", path, m)
			}
		}
	}
	for _, s := range []string{"script-src 'self'", "default-src 'none'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(CSP, s) {
			t.Errorf("the CSP lacks %s", s)
		}
	}
	if strings.Contains(CSP, "unsafe-inline") || strings.Contains(CSP, "unsafe-eval") {
		t.Errorf("the CSP allows inline or eval: %s", CSP)
	}
	js, _ := files.ReadFile("static/app.js")
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function", "document.write"} {
		if strings.Contains(string(js), bad) {
			t.Errorf("app.js uses %s: text from decisions must go in through textContent", bad)
		}
	}
}

func TestLoginSetsAStrictHttpOnlySessionCookieThatHoldsNoToken(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	form := do(t, c, "GET", r.srv.URL+"/ui/login", "", "", nil)
	m := nonceField.FindStringSubmatch(form.body)
	a := do(t, c, "POST", r.srv.URL+"/ui/login", "application/x-www-form-urlencoded", url.Values{"csrf": {m[1]}, "token": {aliceToken}}.Encode(), nil)
	var session *http.Cookie
	for _, ck := range (&http.Response{Header: a.header}).Cookies() {
		if ck.Name == sessionCookie {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/ui/" || session.MaxAge <= 0 {
		t.Fatalf("the session cookie: %+v", session)
	}
	if strings.Contains(session.Value, aliceToken) || strings.Contains(session.Value, "alice") {
		t.Fatalf("the session cookie gives the token or the name away: %s", session.Value)
	}
	if p := do(t, c, "GET", r.srv.URL+"/ui/", "", "", nil); p.code != 200 || !strings.Contains(p.body, `id="who">alice<`) {
		t.Fatalf("logged in, the page: %d", p.code)
	}
}

func TestALoginWithoutItsFormsNonceOrWithAWrongTokenIsRefused(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	// No form first: no nonce cookie.
	a := do(t, c, "POST", r.srv.URL+"/ui/login", "application/x-www-form-urlencoded", url.Values{"csrf": {"x"}, "token": {aliceToken}}.Encode(), nil)
	if a.code != http.StatusForbidden || strings.Contains(a.header.Get("Set-Cookie"), sessionCookie+"=v1") {
		t.Fatalf("a login without the form's nonce: %d %v", a.code, a.header)
	}
	form := do(t, c, "GET", r.srv.URL+"/ui/login", "", "", nil)
	m := nonceField.FindStringSubmatch(form.body)
	a = do(t, c, "POST", r.srv.URL+"/ui/login", "application/x-www-form-urlencoded", url.Values{"csrf": {m[1]}, "token": {bobToken}}.Encode(), nil)
	if a.code != http.StatusUnauthorized || strings.Contains(a.header.Get("Set-Cookie"), sessionCookie+"=v1") {
		t.Fatalf("a token not in the file: %d %v", a.code, a.header)
	}
}

func TestRequestsOfAnotherSitesPageAreRefused(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	csrf := r.login(t, c, aliceToken)
	p, done := r.await(t)
	body := decisionBody(p, "approve")
	for _, tc := range []struct {
		name          string
		method, ctype string
		path          string
		header        map[string]string
		code          int
	}{
		{"a form post from another origin", "POST", "text/plain", "/ui/api/approvals/" + p.ID, map[string]string{"Origin": "http://127.0.0.1:1", csrfHeader: csrf}, 403},
		{"a JSON post from another origin", "POST", "application/json", "/ui/api/approvals/" + p.ID, map[string]string{"Origin": "http://evil.example", csrfHeader: csrf}, 403},
		{"a post another site's fetch sent", "POST", "application/json", "/ui/api/approvals/" + p.ID, map[string]string{"Sec-Fetch-Site": "cross-site", csrfHeader: csrf}, 403},
		{"a post a same-site page sent", "POST", "application/json", "/ui/api/approvals/" + p.ID, map[string]string{"Sec-Fetch-Site": "same-site", csrfHeader: csrf}, 403},
		{"a text/plain post of the page's own origin", "POST", "text/plain", "/ui/api/approvals/" + p.ID, map[string]string{"Origin": r.srv.URL, csrfHeader: csrf}, 403},
		{"a post without the CSRF token", "POST", "application/json", "/ui/api/approvals/" + p.ID, map[string]string{"Origin": r.srv.URL}, 403},
		{"a post with another CSRF token", "POST", "application/json", "/ui/api/approvals/" + p.ID, map[string]string{"Origin": r.srv.URL, csrfHeader: csrf[:len(csrf)-2] + "AA"}, 403},
		{"another site's script reading the API", "GET", "", "/ui/api/approvals", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}, 403},
		{"another site's logout form", "POST", "application/x-www-form-urlencoded", "/ui/logout", map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
	} {
		if a := do(t, c, tc.method, r.srv.URL+tc.path, tc.ctype, body, tc.header); a.code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, a.code, a.body, tc.code)
		}
	}
	if r.hub.Len() != 1 {
		t.Fatal("a refused request decided the approval")
	}
	// A person following another site's link to the page lands on it.
	if a := do(t, c, "GET", r.srv.URL+"/ui/", "", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}); a.code != 200 {
		t.Errorf("a link from another site: %d, want the page", a.code)
	}
	// The page's own request decides it.
	if a := do(t, c, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", body, map[string]string{"Origin": r.srv.URL, "Sec-Fetch-Site": "same-origin", csrfHeader: csrf}); a.code != 200 || !strings.Contains(a.body, `"by":"alice"`) {
		t.Fatalf("the page's own decision: %d %s", a.code, a.body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWithoutASessionThePageSendsToLoginAndTheAPIRefuses(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	p, _ := r.await(t)
	c := client(t)
	if a := do(t, c, "GET", r.srv.URL+"/ui/", "", "", nil); a.code != http.StatusSeeOther || a.header.Get("Location") != "/ui/login" {
		t.Fatalf("the page without a session: %d %v", a.code, a.header)
	}
	for _, path := range []string{"/ui/api/approvals", "/ui/api/decisions", "/ui/api/counts", "/ui/events"} {
		if a := do(t, c, "GET", r.srv.URL+path, "", "", nil); a.code != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %d", path, a.code)
		}
	}
	if a := do(t, c, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", decisionBody(p, "approve"), map[string]string{csrfHeader: "x"}); a.code != http.StatusUnauthorized {
		t.Fatalf("a decision without a session: %d %s", a.code, a.body)
	}
	if r.hub.Len() != 1 {
		t.Fatal("decided without a session")
	}
}

func TestASessionHoldsOnEveryReplicaWithTheTokenAndEndsWithIt(t *testing.T) {
	file := "alice " + aliceToken + "\nbob " + bobToken + "\n"
	a := newRig(t, tokens(t, file), nil)
	b := newRig(t, tokens(t, file), nil)
	without := newRig(t, tokens(t, "bob "+bobToken), nil)
	c := client(t)
	a.login(t, c, aliceToken)
	var session *http.Cookie
	for _, ck := range c.Jar.Cookies(mustURL(a.srv.URL + "/ui/")) {
		if ck.Name == sessionCookie {
			session = ck
		}
	}
	for _, rr := range []*rig{b, without} {
		req, _ := http.NewRequest("GET", rr.srv.URL+"/ui/api/approvals", nil)
		req.AddCookie(session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 200
		if rr == without {
			want = 401 // alice's token is not in that replica's file
		}
		if resp.StatusCode != want {
			t.Errorf("the session on another replica: %d, want %d", resp.StatusCode, want)
		}
	}
}

func TestForgedAndExpiredSessionsAreRefused(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	r.login(t, c, aliceToken)
	var value string
	for _, ck := range c.Jar.Cookies(mustURL(r.srv.URL + "/ui/")) {
		if ck.Name == sessionCookie {
			value = ck.Value
		}
	}
	parts := strings.Split(value, ".")
	later := parts[0] + "." + parts[1] + "." + fmt.Sprint(time.Now().Add(1000*time.Hour).Unix()) + "." + parts[3] + "." + parts[4]
	for name, v := range map[string]string{"a later expiry": later, "another MAC": strings.Join(parts[:4], ".") + ".AAAA",
		"another key": parts[0] + ".000000000000000000000000." + strings.Join(parts[2:], "."), "too long": value + strings.Repeat("A", 600), "garbage": "v1...."} {
		req, _ := http.NewRequest("GET", r.srv.URL+"/ui/api/approvals", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: v})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("%s: %d, want 401", name, resp.StatusCode)
		}
	}
	r.now.Store(time.Now().Add(DefaultSessionLifetime + time.Minute).UnixNano())
	if a := do(t, c, "GET", r.srv.URL+"/ui/api/approvals", "", "", nil); a.code != 401 {
		t.Fatalf("an expired session: %d", a.code)
	}
}

func TestOnlyTheApproversMayDecideOnThePage(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken+"\nbob "+bobToken), nil)
	c := client(t)
	csrf := r.login(t, c, bobToken)
	p, done := r.await(t, "alice")
	h := map[string]string{csrfHeader: csrf}
	if a := do(t, c, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", decisionBody(p, "approve"), h); a.code != 403 || !strings.Contains(a.body, "not among the approvers") {
		t.Fatalf("bob decides alice's approval: %d %s", a.code, a.body)
	}
	alice := client(t)
	csrf = r.login(t, alice, aliceToken)
	bad := strings.Replace(decisionBody(p, "approve"), p.Digest, strings.Repeat("f", 32), 1)
	if a := do(t, alice, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", bad, map[string]string{csrfHeader: csrf}); a.code != 409 {
		t.Fatalf("another call's digest: %d %s", a.code, a.body)
	}
	if a := do(t, alice, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", decisionBody(p, "deny"), map[string]string{csrfHeader: csrf}); a.code != 200 {
		t.Fatalf("alice denies: %d %s", a.code, a.body)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "denied by alice") {
		t.Fatalf("the call: %v", err)
	}
	if a := do(t, alice, "POST", r.srv.URL+"/ui/api/approvals/"+p.ID, "application/json", decisionBody(p, "approve"), map[string]string{csrfHeader: csrf}); a.code != 409 {
		t.Fatalf("a second decision: %d %s", a.code, a.body)
	}
}

// sse reads a live stream's events.
type sse struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openStream(t *testing.T, c *http.Client, u string) (*sse, int) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sse{resp: resp, sc: bufio.NewScanner(resp.Body)}, 200
}

// next returns the next event's name and data.
func (s *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var event, data string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "" && event != "":
			return event, data
		}
	}
	return "", ""
}

func TestTheLiveStreamCarriesWhatItsFilterMatchesAndApprovals(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	r.login(t, c, aliceToken)
	s, code := openStream(t, c, r.srv.URL+"/ui/events?verdict=deny&session=s-2")
	if code != 200 {
		t.Fatalf("the stream: %d", code)
	}
	if ev, _ := s.next(t); ev != "hello" {
		t.Fatalf("first event %q", ev)
	}
	for _, sess := range []string{"s-1", "s-2"} {
		allow, deny := allowRecord(sess), denyRecord(sess)
		r.feed.Sink().Write(&allow)
		r.feed.Sink().Write(&deny)
	}
	ev, data := s.next(t)
	var e decisionfeed.Entry
	json.Unmarshal([]byte(data), &e)
	if ev != "decision" || e.Session != "s-2" || e.Verdict != "deny" || e.Seq != 4 {
		t.Fatalf("the stream's first decision: %s %s, want s-2's deny (4)", ev, data)
	}
	p, _ := r.await(t)
	ev, data = s.next(t)
	if ev != "approval" || !strings.Contains(data, `"kind":"pending"`) || !strings.Contains(data, p.ID) {
		t.Fatalf("the approval on the stream: %s %s", ev, data)
	}
}

func TestLiveStreamsAreBoundedAndEndWithTheHandler(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), func(o *Options) { o.MaxStreams = 2 })
	c := client(t)
	r.login(t, c, aliceToken)
	var open []*sse
	for range 2 {
		s, code := openStream(t, c, r.srv.URL+"/ui/events")
		if code != 200 {
			t.Fatalf("a stream within the bound: %d", code)
		}
		s.next(t)
		open = append(open, s)
	}
	if _, code := openStream(t, c, r.srv.URL+"/ui/events"); code != http.StatusServiceUnavailable {
		t.Fatalf("a third stream past MaxStreams 2: %d, want 503", code)
	}
	r.h.Close()
	for _, s := range open {
		if ev, data := s.next(t); ev != "bye" || !strings.Contains(data, "stopping") {
			t.Fatalf("on Close a stream got %q %s, want bye", ev, data)
		}
	}
	for i := 0; r.h.Streams() != 0; i++ {
		if i > 5000 {
			t.Fatalf("%d streams still open after Close", r.h.Streams())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestADecisionOpensAsTheLogRecordedIt(t *testing.T) {
	r := newRig(t, tokens(t, "alice "+aliceToken), nil)
	c := client(t)
	r.login(t, c, aliceToken)
	rec := denyRecord("s-9")
	rec.Approval = &runner.Approval{ID: "ab", Digest: "cd", Verdict: runner.ApprovalDenied, By: "alice", At: time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC), Reason: "not today"}
	r.feed.Sink().Write(&rec)
	a := do(t, c, "GET", r.srv.URL+"/ui/decisions/1", "", "", nil)
	for _, want := range []string{"event: PreToolUse, tool name &#34;Bash&#34;", "1. no-rm (10-rm.lua:3) [lua]", "answered: deny: recursive deletes",
		"decision: deny: recursive deletes", "decided by: no-rm", "approval: denied by alice at 2026-12-07 08:00:00Z: not today", "&lt;script&gt;"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the decision's page lacks %q", want)
		}
	}
	if strings.Contains(a.body, "<script>alert") {
		t.Error("the payload's text went into the page unescaped")
	}
	if a := do(t, c, "GET", r.srv.URL+"/ui/decisions/2", "", "", nil); a.code != 404 {
		t.Errorf("a decision the window does not hold: %d", a.code)
	}
}

func denyRecord(session string) decisionlog.Record {
	return decisionlog.Record{Time: time.Now().UTC(), Agent: "codex", SessionID: session, Event: luahook.PreToolUse, ToolName: "Bash",
		Input:    json.RawMessage(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / <script>alert(1)</script>"}}`),
		Hooks:    []decisionlog.Hook{{Name: "no-rm", Source: "10-rm.lua:3", Kind: "lua", Outcome: &luahook.Outcome{Action: luahook.ActionDeny, Reason: "recursive deletes"}, DurationMs: 0.2}},
		Decision: decisionlog.Decision{Action: luahook.ActionDeny, Reason: "recursive deletes", DecidedBy: "no-rm"}}
}

func allowRecord(session string) decisionlog.Record {
	return decisionlog.Record{Time: time.Now().UTC(), Agent: "codex", SessionID: session, Event: luahook.PreToolUse, ToolName: "Read",
		Input: json.RawMessage(`{"event":"PreToolUse","toolName":"Read"}`), Hooks: []decisionlog.Hook{{Name: "no-rm", Kind: "lua"}}}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
