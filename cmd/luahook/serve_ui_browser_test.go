package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The web page (serve --ui) driven by a real headless Chromium through the
// DevTools protocol: a person logs in, watches decisions arrive, approves,
// denies and lets time out calls a Codex agent waits on, and opens one
// decision; another site's page and a browser without the session cookie
// are refused. LUAHOOK_UI_SCREENSHOTS=DIR keeps the pages' screenshots
// there (docs/ holds the ones the documentation shows).

// uiHooks route deploys to alice, migrations to anyone for 3 s, and deny
// recursive deletes.
const uiHooks = `hook.register("PreToolUse", nil, function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("^deploy") then
    return hook.approve{reason = "production deploy: " .. cmd, approvers = {"alice"}, timeout_ms = 120000}
  end
  if cmd:find("^migrate") then
    return hook.approve{reason = "schema migration, 3 s to decide", timeout_ms = 3000}
  end
  if cmd:find("rm %-rf") then
    return hook.deny("recursive deletes are not allowed")
  end
end, { name = "prod-gate" })
`

// chromiumPath returns the Chromium to drive: Debian's chromium package,
// which .ci/run installs. Without CI the tests are skipped when there is
// none; with CI=1 they fail.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found (CI is set, so the browser tests must run): apt-get install chromium")
	}
	t.Skip("SKIP: chromium not found; install it (apt-get install chromium) to run the browser tests")
	return ""
}

// browser starts a headless Chromium and returns a tab's context, bounded
// by a minute and a half.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// browse runs browser actions, failing the test with what was being done.
func browse(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		body, _ := chromedp.Run(c, chromedp.Text(chromedp.CSS("body")))
		cancel()
		t.Fatalf("%s: %v\npage text: %.2000s", what, err, body)
	}
}

// shot takes a screenshot of the page: kept in $LUAHOOK_UI_SCREENSHOTS
// when set, and checked to be a PNG either way.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	browse(t, ctx, "screenshot "+name, into(chromedp.FullScreenshot(100), &png))
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s is not a PNG (%d bytes)", name, len(png))
	}
	if dir := os.Getenv("LUAHOOK_UI_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// login logs the browser in with token.
func login(t *testing.T, ctx context.Context, base, token string) {
	t.Helper()
	browse(t, ctx, "log in",
		chromedp.Navigate(base+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS("#who")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-live="on"]`)))
}

// approvalSel selects the approval id on the page.
func approvalSel(id string) string { return fmt.Sprintf(`#approvals li.approval[data-id=%q]`, id) }

func TestUIInARealBrowser(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": uiHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--approvals", "--ui",
		"--instance-id", "replica-a")
	ctx := browser(t)

	// Not logged in: the page sends the browser to the login form; a token
	// that is not the server's is refused there.
	var where string
	browse(t, ctx, "open the page", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#login-form")), into(chromedp.Location(), &where))
	if !strings.HasSuffix(where, "/ui/login") {
		t.Fatalf("not logged in, the page is %s, want the login form", where)
	}
	shot(t, ctx, "ui-login")
	var msg string
	browse(t, ctx, "a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "mallory-0000000000000000"),
		chromedp.Click(chromedp.CSS("#login-submit")), chromedp.WaitVisible(chromedp.CSS("#login-error")),
		into(chromedp.Text(chromedp.CSS("#login-error")), &msg))
	if !strings.Contains(msg, "not one of this server's") {
		t.Fatalf("a wrong token: %q", msg)
	}
	login(t, ctx, s.base, aliceToken)
	var who string
	browse(t, ctx, "who", into(chromedp.Text(chromedp.CSS("#who")), &who))
	if who != "alice" {
		t.Fatalf("logged in as %q, want alice", who)
	}
	var cookies []*network.Cookie
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{s.base + "/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	cookies = got.Cookies
	var session *network.Cookie
	for _, c := range cookies {
		if c.Name == "luahook_ui" {
			session = c
		}
	}
	if session == nil || !session.HTTPOnly || session.SameSite != network.CookieSameSiteStrict || session.Path != "/ui/" {
		t.Fatalf("the session cookie: %+v, want HttpOnly, SameSite=Strict, Path=/ui/", session)
	}
	if strings.Contains(session.Value, aliceToken) {
		t.Fatal("the session cookie holds the token")
	}

	// A decision arrives live.
	if code, _, body := ask(t, http.DefaultClient, "POST", s.base+"/agent/codex", codexCall("rm -rf /srv"), bearerOf(bobToken)); code != 200 || !strings.Contains(body, "recursive deletes") {
		t.Fatalf("the deny: %d %s", code, body)
	}
	var reason string
	browse(t, ctx, "the deny arrives live",
		chromedp.WaitVisible(chromedp.CSS(`#decision-rows tr .v-deny`)),
		into(chromedp.Text(chromedp.CSS(`#decision-rows tr:first-child td.reason`)), &reason))
	if reason != "recursive deletes are not allowed" {
		t.Fatalf("the live row's reason: %q", reason)
	}

	// Approve a call a Codex agent waits on: the agent's answer becomes an allow.
	done := callAsync(t, s.base, "deploy web")
	p := pendingApprovals(t, s.base, 1)[0]
	browse(t, ctx, "the approval appears", chromedp.WaitVisible(chromedp.CSS(approvalSel(p.ID))))
	shot(t, ctx, "ui-approvals")
	select {
	case a := <-done:
		t.Fatalf("answered before anyone decided: %+v", a)
	default:
	}
	browse(t, ctx, "approve", chromedp.SendKeys(chromedp.CSS(approvalSel(p.ID)+" .decide-reason"), "looks fine"),
		chromedp.Click(chromedp.CSS(approvalSel(p.ID)+" button.approve")))
	if a := waitAnswer(t, done); a.code != 200 || !strings.Contains(a.body, `"permissionDecision":"allow"`) {
		t.Fatalf("approved on the page, the agent got %d %s", a.code, a.body)
	}
	browse(t, ctx, "the approval leaves the page", chromedp.WaitNotPresent(chromedp.CSS(approvalSel(p.ID))))

	// Deny one: the agent's answer is a deny with the person's reason.
	done = callAsync(t, s.base, "deploy db")
	p = pendingApprovals(t, s.base, 1)[0]
	browse(t, ctx, "deny", chromedp.WaitVisible(chromedp.CSS(approvalSel(p.ID))),
		chromedp.SendKeys(chromedp.CSS(approvalSel(p.ID)+" .decide-reason"), "not during the freeze"),
		chromedp.Click(chromedp.CSS(approvalSel(p.ID)+" button.deny")))
	if a := waitAnswer(t, done); !strings.Contains(a.body, `"permissionDecision":"deny"`) || !strings.Contains(a.body, "not during the freeze") {
		t.Fatalf("denied on the page, the agent got %d %s", a.code, a.body)
	}

	// Let one time out: it shows, then leaves the page, and the agent is denied.
	done = callAsync(t, s.base, "migrate users")
	p = pendingApprovals(t, s.base, 1)[0]
	browse(t, ctx, "the timeout", chromedp.WaitVisible(chromedp.CSS(approvalSel(p.ID))), chromedp.WaitNotPresent(chromedp.CSS(approvalSel(p.ID))))
	if a := waitAnswer(t, done); !strings.Contains(a.body, `"permissionDecision":"deny"`) {
		t.Fatalf("timed out, the agent got %d %s", a.code, a.body)
	}

	// The decisions of the page, filtered; one opened as explain tells it.
	// The decision log's writer hands the timeout's record to the page
	// after the agent had its answer: the filtered table (fetched, then
	// followed live) shows it once it arrives.
	browse(t, ctx, "filter the denials", chromedp.SetValue(chromedp.CSS("#f-verdict"), "deny"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)),
		into(chromedp.Poll[bool](`(() => { const v = [...document.querySelectorAll("#decision-rows td.verdict")].map(td => td.textContent);
  return v.length === 3 && v.every(x => x === "deny") })()`), nil))
	var verdicts []string
	browse(t, ctx, "the filtered rows", into(chromedp.Evaluate[[]string](`[...document.querySelectorAll("#decision-rows td.verdict")].map(td => td.textContent)`), &verdicts))
	if len(verdicts) != 3 {
		t.Fatalf("filtered on deny, the rows' verdicts are %q, want the 3 denials (the delete, the denied deploy, the timeout)", verdicts)
	}
	for _, v := range verdicts {
		if v != "deny" {
			t.Fatalf("filtered on deny, a row says %q", v)
		}
	}
	// The chart and the counts follow the decisions that arrived (redrawn
	// within 3 s of the last).
	browse(t, ctx, "the counts", chromedp.WaitReady(chromedp.CSS("#chart rect.denials")),
		into(chromedp.Poll[bool](`document.querySelector("#top-rules").textContent.includes("prod-gate 3") &&
  document.querySelector("#held").textContent === "4 in the window"`), nil))
	shot(t, ctx, "ui-decisions")
	var explain string
	browse(t, ctx, "open a decision", chromedp.Click(chromedp.CSS(`#decision-rows tr:first-child td.seq a`)),
		chromedp.WaitVisible(chromedp.CSS("#explain")), into(chromedp.Text(chromedp.CSS("#explain")), &explain))
	for _, want := range []string{"event: PreToolUse, tool name \"Bash\"", "prod-gate", "routed to a person", "decision: deny", "approval: timeout"} {
		if !strings.Contains(explain, want) {
			t.Fatalf("the decision opened lacks %q:\n%s", want, explain)
		}
	}
	shot(t, ctx, "ui-explain")
}

// awaitPromise makes an Evaluate wait for the promise its script returns.
func awaitPromise(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }

// into makes a step of an action that returns a value, keeping the value
// in *dst (nil: dropped).
func into[T any](a chromedp.Action[T], dst *T) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		v, err := a(ctx, tg)
		if err == nil && dst != nil {
			*dst = v
		}
		return chromedp.Void{}, err
	}
}

// waitAnswer waits for the agent's answer, at most a minute.
func waitAnswer(t *testing.T, c <-chan answered) answered {
	t.Helper()
	select {
	case a := <-c:
		return a
	case <-time.After(time.Minute):
		t.Fatal("the agent's call was not answered within a minute")
	}
	return answered{}
}

// Another site's page, open in the logged-in person's browser, cannot
// decide an approval, nor log them out: its form post and its script's
// request are refused. A browser without the session cookie is sent to the
// login form and refused by the API.
func TestUIRefusesOtherSitesAndBrowsersWithoutTheCookie(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": uiHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--approvals", "--ui")
	ctx := browser(t)
	login(t, ctx, s.base, aliceToken)
	done := callAsync(t, s.base, "deploy web")
	p := pendingApprovals(t, s.base, 1)[0]

	// The other site: another port of 127.0.0.1 (another origin, the same
	// site: the browser sends SameSite=Strict cookies along), and localhost.
	evil := http.NewServeMux()
	evil.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" enctype="text/plain" action="%s/ui/api/approvals/%s">
<input name='{"verdict":"approve","reason":"x","digest":"%s","pad":"' value='"}'></form>
<script>document.getElementById("f").submit()</script>`, s.base, p.ID, p.Digest)
	})
	evil.HandleFunc("/logout", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/ui/logout"><input name="csrf" value="guess"></form>
<script>document.getElementById("f").submit()</script>`, s.base)
	})
	evil.HandleFunc("/fetch", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><p id="out">…</p><script>
fetch(%q, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"},
  body: JSON.stringify({verdict: "approve", reason: "x", digest: %q})})
  .then(() => { document.getElementById("out").textContent = "sent" }, e => { document.getElementById("out").textContent = "failed " + e })
</script>`, s.base+"/ui/api/approvals/"+p.ID, p.Digest)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: evil}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	for _, origin := range []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)} {
		var text string
		browse(t, ctx, "another site's form post from "+origin, chromedp.Navigate(origin+"/form"),
			chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(500*time.Millisecond),
			into(chromedp.Text(chromedp.CSS("body")), &text))
		if !strings.Contains(text, "another") && !strings.Contains(text, "not logged in") {
			t.Fatalf("the form post from %s was answered: %.500s", origin, text)
		}
		browse(t, ctx, "another site's fetch from "+origin, chromedp.Navigate(origin+"/fetch"),
			chromedp.WaitVisible(chromedp.Search(`//p[@id="out"][text()!="…"]`)))
		browse(t, ctx, "another site's logout from "+origin, chromedp.Navigate(origin+"/logout"),
			chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(300*time.Millisecond))
	}
	// The approval still waits, and the person is still logged in.
	if got := pendingApprovals(t, s.base, 1); got[0].ID != p.ID {
		t.Fatalf("the approval waiting is %+v, want %s", got[0], p.ID)
	}
	select {
	case a := <-done:
		t.Fatalf("another site's request decided the call: %+v", a)
	default:
	}
	var who string
	browse(t, ctx, "still logged in", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#who")), into(chromedp.Text(chromedp.CSS("#who")), &who))
	if who != "alice" {
		t.Fatalf("after the other site's logout, logged in as %q", who)
	}

	// A request the page's own script makes without the CSRF token is
	// refused too, though it carries the cookie.
	var status int
	browse(t, ctx, "no CSRF token", into(chromedp.Evaluate[int](fmt.Sprintf(`fetch("/ui/api/approvals/%s", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({verdict: "approve", digest: %q})}).then(r => r.status)`, p.ID, p.Digest),
		awaitPromise), &status))
	if status != 403 {
		t.Fatalf("a POST without the CSRF token: %d, want 403", status)
	}

	// A browser without the cookie: sent to the login form; the API answers 401.
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	var where, text string
	browse(t, ctx, "the page without the cookie", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#login-form")), into(chromedp.Location(), &where))
	if !strings.HasSuffix(where, "/ui/login") {
		t.Fatalf("without the cookie the page is %s", where)
	}
	browse(t, ctx, "the API without the cookie", chromedp.Navigate(s.base+"/ui/api/approvals"), into(chromedp.Text(chromedp.CSS("body")), &text))
	var refused struct{ Error string }
	if json.Unmarshal([]byte(text), &refused) != nil || !strings.Contains(refused.Error, "not logged in") {
		t.Fatalf("the API without the cookie answered %q", text)
	}
	browse(t, ctx, "a decision without the cookie", chromedp.Navigate(s.base+"/ui/login"), chromedp.WaitVisible(chromedp.CSS("#login-form")),
		into(chromedp.Evaluate[int](fmt.Sprintf(`fetch("/ui/api/approvals/%s", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": "x"},
  body: JSON.stringify({verdict: "approve", digest: %q})}).then(r => r.status)`, p.ID, p.Digest),
			awaitPromise), &status))
	if status != 401 {
		t.Fatalf("a decision without the cookie: %d, want 401", status)
	}
	if got := pendingApprovals(t, s.base, 1); got[0].ID != p.ID {
		t.Fatalf("the approval waiting is %+v, want %s", got[0], p.ID)
	}
}

// fireMany sends the luahook-protocol tool calls from to to-1 as bob, from
// 8 clients at once; every 10th is denied by uiHooks.
func fireMany(t *testing.T, base string, from, to int) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cmd := fmt.Sprintf("ls /tmp/%d", i)
				if i%10 == 0 {
					cmd = fmt.Sprintf("rm -rf /tmp/%d", i)
				}
				body := fmt.Sprintf(`{"event":"PreToolUse","sessionId":"s-%d","toolName":"Bash","toolInput":{"command":%q}}`, i%7, cmd)
				req, _ := http.NewRequest("POST", base+"/hook", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+bobToken)
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					continue
				}
				resp.Body.Close()
			}
		}()
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// fireInBatches fires the calls from to to-1 500 at a time, each batch
// held by the page's window before the next is sent: the decision log's
// queue (1,024 records) drops what its writer cannot keep up with, which
// under the race detector on a busy machine it may not.
func fireInBatches(t *testing.T, ctx context.Context, base string, from, to int) {
	t.Helper()
	for i := from; i < to; i += 500 {
		end := min(i+500, to)
		fireMany(t, base, i, end)
		eventually(t, fmt.Sprintf("decision %d held", end), func() bool {
			var newest float64
			browse(t, ctx, "newest", into(chromedp.Evaluate[float64](`fetch("/ui/api/decisions?limit=1").then(r => r.json()).then(b => b.decisions.length ? b.decisions[0].seq : 0)`, awaitPromise), &newest))
			return newest == float64(end)
		})
	}
}

// The page with 10,000 decisions in its window: its table holds at most
// MaxRows of them, the newest, whatever the window holds; a filter is
// answered from all 10,000; a flood of new decisions while it is open
// leaves the table at MaxRows rows with the newest on top. The times the
// page took are logged (the performance section quotes them), never
// asserted.
func TestUIStaysResponsiveWith10000Decisions(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-prod.lua": uiHooks})
	s := startServeAt(t, []string{"--dir", dir}, "--addr", "127.0.0.1:0", "--token-file", tokenFile(t), "--ui")
	ctx := browser(t)
	login(t, ctx, s.base, aliceToken)
	start := time.Now()
	fireInBatches(t, ctx, s.base, 0, 10000)
	t.Logf("10,000 decisions fired and held in %s", time.Since(start).Round(time.Millisecond))
	var held string
	var rows int
	loaded := time.Now()
	browse(t, ctx, "the page with 10,000 decisions", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`body[data-live="on"]`)),
		into(chromedp.Text(chromedp.CSS("#held")), &held),
		into(chromedp.Evaluate[int](`document.querySelectorAll("#decision-rows tr").length`), &rows))
	t.Logf("the page loaded with its rows in %s", time.Since(loaded).Round(time.Millisecond))
	if held != "10000 in the window" || rows != 200 {
		t.Fatalf("with 10,000 decisions: %q, %d rows; want 10000 in the window and 200 rows", held, rows)
	}

	// A filter answered from the whole window: session s-3's denials.
	filtered := time.Now()
	var verdicts []string
	browse(t, ctx, "filter", chromedp.SetValue(chromedp.CSS("#f-session"), "s-3"), chromedp.SetValue(chromedp.CSS("#f-verdict"), "deny"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)),
		into(chromedp.Poll[bool](`[...document.querySelectorAll("#decision-rows td.session")].every(td => td.textContent === "s-3")`), nil),
		into(chromedp.Evaluate[[]string](`[...document.querySelectorAll("#decision-rows td.verdict")].map(td => td.textContent)`), &verdicts))
	t.Logf("a filter over 10,000 decisions answered and rendered in %s", time.Since(filtered).Round(time.Millisecond))
	// i%10 == 0 and i%7 == 3: 143 of 10,000.
	if len(verdicts) != 143 {
		t.Fatalf("session s-3's denials: %d rows, want 143", len(verdicts))
	}
	for _, v := range verdicts {
		if v != "deny" {
			t.Fatalf("a filtered row says %q", v)
		}
	}

	// A flood while the page is open, unfiltered: the table keeps 200 rows,
	// the newest first.
	browse(t, ctx, "unfilter", chromedp.Navigate(s.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`body[data-live="on"]`)),
		into(chromedp.Evaluate[bool](`window.__gaps = []; (function tick(last) { setTimeout(() => { const now = performance.now(); window.__gaps.push(now - last); if (window.__gaps.length < 100000) tick(now) }, 0) })(performance.now()); true`), nil))
	fireInBatches(t, ctx, s.base, 10000, 12000)
	code, _, body := ask(t, http.DefaultClient, "GET", s.base+"/ui/api/decisions?limit=1", "", nil)
	if code != 401 {
		t.Fatalf("the API without a session: %d %s", code, body)
	}
	// 12,000 decisions in all: the newest is number 12000.
	browse(t, ctx, "the newest on top", into(chromedp.Poll[bool](`document.querySelector("#decision-rows tr") && document.querySelector("#decision-rows tr").dataset.seq === "12000"`), nil))
	var gap float64
	browse(t, ctx, "rows after the flood", into(chromedp.Evaluate[int](`document.querySelectorAll("#decision-rows tr").length`), &rows),
		into(chromedp.Evaluate[float64](`Math.max(...window.__gaps)`), &gap))
	t.Logf("during a flood of 2,000 decisions the page's longest pause was %.0f ms", gap)
	if rows != 200 {
		t.Fatalf("after the flood the table has %d rows, want 200", rows)
	}
}
