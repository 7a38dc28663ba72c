package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// rig is a real runner over a real registry of Go hooks, served by a Handler
// on a real loopback HTTP server.
type rig struct {
	t   *testing.T
	reg *registry.Registry
	run *runner.Runner
	srv *httptest.Server
}

func newRig(t *testing.T, opts Options) *rig {
	t.Helper()
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg})
	t.Cleanup(run.Close)
	srv := httptest.NewServer(New(run, opts))
	t.Cleanup(srv.Close)
	return &rig{t: t, reg: reg, run: run, srv: srv}
}

func (g *rig) add(spec luahook.Spec) {
	g.t.Helper()
	if spec.Kind == "" {
		spec.Kind = luahook.KindGo
	}
	if _, err := g.reg.Register(spec); err != nil {
		g.t.Fatal(err)
	}
}

// post sends body to path and returns the status and the body of the answer.
func (g *rig) post(path, body string) (int, string) {
	g.t.Helper()
	resp, err := g.srv.Client().Post(g.srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func (g *rig) get(path string) (int, string) {
	g.t.Helper()
	resp, err := g.srv.Client().Get(g.srv.URL + path)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func answer(o *luahook.Outcome) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return o, nil }
}

func failing(kind luahook.FailureKind) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return nil, luahook.Failf(kind, "broken on purpose")
	}
}

func TestHookAnswersInTheContractShapeOfItsEvent(t *testing.T) {
	ctxSeparate := &luahook.Outcome{AdditionalContext: "see docs", ContextAs: luahook.ContextSeparate}
	tests := []struct {
		name    string
		hooks   []luahook.Spec
		payload string
		want    string
	}{
		{"PreToolUse deny", []luahook.Spec{
			{Event: luahook.PreToolUse, Matcher: "bash", Hook: answer(luahook.Deny("no rm & co"))},
		}, `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`,
			`{"action":"deny","reason":"no rm & co"}`},
		{"PreToolUse mutate carries the final input", []luahook.Spec{
			{Event: luahook.PreToolUse, Hook: answer(luahook.Mutate(json.RawMessage(`{"command":"pnpm i"}`)))},
		}, `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm i"}}`,
			`{"action":"mutate","input":{"command":"pnpm i"}}`},
		{"PreToolUse allow with context", []luahook.Spec{
			{Event: luahook.PreToolUse, Hook: answer(ctxSeparate)},
		}, `{"event":"PreToolUse","toolName":"bash","toolInput":{}}`,
			`{"additionalContext":"see docs","contextAs":"separate"}`},
		{"PreToolUse without hooks: no objection, not an allow", nil,
			`{"event":"PreToolUse","toolName":"bash","toolInput":{}}`, `{}`},
		{"UserPromptSubmit blocked", []luahook.Spec{
			{Event: luahook.UserPromptSubmit, Hook: answer(luahook.Deny("no secrets"))},
		}, `{"event":"UserPromptSubmit","prompt":"AKIA..."}`, `{"action":"deny","reason":"no secrets"}`},
		{"UserPromptSubmit context", []luahook.Spec{
			{Event: luahook.UserPromptSubmit, Hook: answer(luahook.Context("be brief"))},
		}, `{"event":"UserPromptSubmit","prompt":"hi"}`, `{"additionalContext":"be brief"}`},
		{"UserPromptSubmit nothing", nil, `{"event":"UserPromptSubmit","prompt":"hi"}`, `{}`},
		{"PostToolUse context", []luahook.Spec{
			{Event: luahook.PostToolUse, Hook: answer(luahook.Context("run the tests"))},
		}, `{"event":"PostToolUse","toolName":"write","toolInput":{},"toolResult":{"content":"ok","isError":false}}`,
			`{"additionalContext":"run the tests","contextAs":"inline"}`},
		{"SessionStart context", []luahook.Spec{
			{Event: luahook.SessionStart, Hook: answer(ctxSeparate)},
		}, `{"event":"SessionStart","cwd":"/tmp"}`, `{"additionalContext":"see docs","contextAs":"separate"}`},
		{"SessionStart nothing", nil, `{"event":"SessionStart"}`, `{}`},
		{"Stop ignores context", []luahook.Spec{
			{Event: luahook.Stop, Hook: answer(luahook.Context("ignored"))},
		}, `{"event":"Stop"}`, `{}`},
		{"observational ignores deny", []luahook.Spec{
			{Event: luahook.Notification, Hook: answer(luahook.Deny("ignored"))},
		}, `{"event":"Notification","notification":{"kind":"permission","message":"?"}}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, Options{})
			for _, s := range tt.hooks {
				g.add(s)
			}
			for _, path := range []string{"/", "/hook"} {
				code, body := g.post(path, tt.payload)
				if code != http.StatusOK || strings.TrimSpace(body) != tt.want {
					t.Errorf("POST %s = %d %s, want 200 %s", path, code, body, tt.want)
				}
			}
		})
	}
}

func TestHookAnswerIsJSONWithNoStore(t *testing.T) {
	g := newRig(t, Options{})
	resp, err := g.srv.Client().Post(g.srv.URL, "application/json", strings.NewReader(`{"event":"Stop"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q", cc)
	}
}

// TestMalformedPayloadOfABlockingEventIsDeniedNamingTheProblem: a payload
// that does not decode but names PreToolUse or UserPromptSubmit is answered
// 200 with a denial naming the problem, as fire answers it (an agent reads
// an error status as "proceed"); no hook runs.
func TestMalformedPayloadOfABlockingEventIsDeniedNamingTheProblem(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"toolInput not an object", `{"event":"PreToolUse","toolInput":"rm -rf /"}`, "toolInput must be an object"},
		{"a duplicate key in toolInput", `{"event":"PreToolUse","toolInput":{"command":"rm -rf /","command":"ls"}}`, "toolInput.command: duplicate key"},
		{"a duplicate top-level key", `{"event":"PreToolUse","toolName":"bash","toolName":"x"}`, `duplicate key "toolName"`},
		{"a prompt cut short", `{"event":"UserPromptSubmit","prompt":"hi`, "invalid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var called atomic.Bool
			g := newRig(t, Options{})
			for _, ev := range luahook.Events() {
				g.add(luahook.Spec{Event: ev, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
					called.Store(true)
					return nil, nil
				})})
			}
			code, body := g.post("/", tt.body)
			var o luahook.Outcome
			if err := json.Unmarshal([]byte(body), &o); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if code != http.StatusOK || o.Action != luahook.ActionDeny || !strings.Contains(o.Reason, tt.want) ||
				!strings.Contains(o.Reason, "luahook could not decide") {
				t.Errorf("= %d %s, want 200 and a denial naming %q", code, body, tt.want)
			}
			if called.Load() {
				t.Error("a hook ran for a payload that did not decode")
			}
		})
	}
}

func TestMalformedPayloadIs400NamingTheProblem(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not JSON", `{"event":"Stop",`, "payload: invalid JSON"},
		{"syntax error has its offset", `{"event" "Stop"}`, "at byte 9"},
		{"not an object", `["Stop"]`, "want a JSON object"},
		{"empty", ``, "payload: empty"},
		{"unknown event", `{"event":"PreToolUze"}`, `unknown event "PreToolUze"`},
		{"no event", `{"prompt":"hi"}`, `an "event" key`},
		{"unknown key", `{"event":"Stop","tool":"bash"}`, `unknown key "tool"`},
		{"a sessionId one byte over its limit", `{"event":"Stop","sessionId":"` + strings.Repeat("s", luahook.MaxIDBytes+1) + `"}`,
			"sessionId is 257 bytes, over the limit of 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var called atomic.Bool
			g := newRig(t, Options{})
			for _, ev := range luahook.Events() {
				g.add(luahook.Spec{Event: ev, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
					called.Store(true)
					return nil, nil
				})})
			}
			code, body := g.post("/", tt.body)
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("body %q is not an error object: %v", body, err)
			}
			if code != http.StatusBadRequest || !strings.Contains(e.Error, tt.want) {
				t.Errorf("= %d %q, want 400 with %q", code, e.Error, tt.want)
			}
			if called.Load() {
				t.Error("a hook ran for a refused payload")
			}
		})
	}
}

// TestBodyOverTheCap: a payload over the cap is not decided, as fire does
// not decide one: when its event can block it is denied naming the cap
// (with a Content-Length or chunked, the cap holding while reading), and
// any other is refused with 413. No hook runs.
func TestBodyOverTheCap(t *testing.T) {
	g := newRig(t, Options{MaxBody: 1024})
	var called atomic.Bool
	for _, ev := range luahook.Events() {
		g.add(luahook.Spec{Event: ev, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			called.Store(true)
			return nil, nil
		})})
	}
	big := `{"event":"PreToolUse","toolInput":{"content":"` + strings.Repeat("x", 2000) + `"}}`
	if code, body := g.post("/", big); code != http.StatusOK || !strings.Contains(body, `"action":"deny"`) || !strings.Contains(body, "larger than 1024 bytes") {
		t.Errorf("with Content-Length: %d %s, want a denial naming the cap", code, body)
	}
	// Without a declared length (chunked), the cap holds while reading.
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(big))
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, g.srv.URL, pr)
	resp, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"action":"deny"`) {
		t.Errorf("chunked: %d %s, want a denial", resp.StatusCode, answer)
	}
	bigStop := `{"event":"Stop","prompt":"` + strings.Repeat("x", 2000) + `"}`
	if code, body := g.post("/", bigStop); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than 1024 bytes") {
		t.Errorf("Stop over the cap: %d %s, want 413", code, body)
	}
	if called.Load() {
		t.Error("a hook ran for a payload over the cap")
	}
	if code, _ := g.post("/", `{"event":"Stop"}`); code != http.StatusOK || !called.Load() {
		t.Errorf("a small body after a refused one: %d", code)
	}
}

func TestOnlyPOSTSpeaksTheHookProtocol(t *testing.T) {
	g := newRig(t, Options{})
	if code, _ := g.get("/"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET / = %d, want 405", code)
	}
	if code, _ := g.post("/other", `{"event":"Stop"}`); code != http.StatusNotFound {
		t.Errorf("POST /other = %d, want 404", code)
	}
}

func TestHealthzIsOKAndListsLoadErrorsAsDegraded(t *testing.T) {
	var errs atomic.Pointer[[]error]
	errs.Store(&[]error{})
	g := newRig(t, Options{Health: func() []error { return *errs.Load() }})
	code, body := g.get("/healthz")
	if code != http.StatusOK || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("healthy: %d %s", code, body)
	}
	if v := scrape(t, g.srv.URL)["luahook_load_errors"]; v != 0 {
		t.Errorf("luahook_load_errors = %v, want 0", v)
	}
	errs.Store(&[]error{errors.New("hooks.d/10-x.lua:3: boom")})
	code, body = g.get("/healthz")
	var st healthStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if code != http.StatusOK || st.Status != "degraded" || !slices.Equal(st.Errors, []string{"hooks.d/10-x.lua:3: boom"}) {
		t.Errorf("with a load error: %d %s", code, body)
	}
	if v := scrape(t, g.srv.URL)["luahook_load_errors"]; v != 1 {
		t.Errorf("luahook_load_errors = %v, want 1", v)
	}
}

// /healthz is liveness (200 while the handler serves); /readyz is
// readiness: 503 while load errors mean some policy is not the one on disk,
// so that a load balancer can keep traffic on replicas that loaded whole.
func TestReadyzIs503WhileDegraded(t *testing.T) {
	var errs atomic.Pointer[[]error]
	errs.Store(&[]error{})
	g := newRig(t, Options{Health: func() []error { return *errs.Load() }})
	code, body := g.get("/readyz")
	if code != http.StatusOK || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("ready: %d %s", code, body)
	}
	errs.Store(&[]error{errors.New("hooks.d/10-x.lua:3: boom")})
	code, body = g.get("/readyz")
	if code != http.StatusServiceUnavailable || strings.TrimSpace(body) != `{"status":"degraded","errors":["hooks.d/10-x.lua:3: boom"]}` {
		t.Errorf("with a load error: %d %s, want 503 and the error", code, body)
	}
	if code, _ := g.get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz answers %d with a load error: liveness must not fail", code)
	}
}

func TestMetricsCountCallsDenialsFailuresAndDecisions(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "guard", Matcher: "bash", Stage: luahook.StageValidate,
		Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			if strings.Contains(string(in.ToolInput), "rm") {
				return luahook.Deny("no rm"), nil
			}
			return nil, nil
		})})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "after-guard", Stage: luahook.StageValidate, Hook: answer(nil)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "flaky", Hook: failing(luahook.FailTimeout)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "flaky-late", Background: true, Hook: answer(nil)})

	before := scrape(t, g.srv.URL)
	post := func(body string, want int) {
		t.Helper()
		if code, got := g.post("/", body); code != want {
			t.Fatalf("POST %s = %d %s", body, code, got)
		}
	}
	post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm x"}}`, 200)
	post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm y"}}`, 200)
	post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`, 200)
	post(`{"event":"PostToolUse","toolName":"bash","toolInput":{}}`, 200)
	post(`{"event":"Nope"}`, 400)
	post(`{"event":"Stop","toolInput":[`+strings.Repeat(`1,`, 10)+`1]}`, 400)
	after := scrape(t, g.srv.URL)

	want := map[string]float64{
		series("luahook_requests_total", "code", "200"):                                                      4,
		series("luahook_requests_total", "code", "400"):                                                      2,
		series("luahook_decisions_total", "event", "PreToolUse", "decision", "deny"):                         2,
		series("luahook_decisions_total", "event", "PreToolUse", "decision", "none"):                         1, // no objection, not an allow
		series("luahook_decisions_total", "event", "PreToolUse", "decision", "allow"):                        0,
		series("luahook_decisions_total", "event", "PostToolUse", "decision", "none"):                        1,
		series("luahook_hook_calls_total", "event", "PreToolUse", "hook", "guard", "kind", "go"):             3,
		series("luahook_hook_calls_total", "event", "PreToolUse", "hook", "after-guard", "kind", "go"):       1, // not reached twice
		series("luahook_hook_denials_total", "event", "PreToolUse", "hook", "guard"):                         2,
		series("luahook_hook_failures_total", "event", "PostToolUse", "hook", "flaky", "failure", "timeout"): 1,
		series("luahook_hook_calls_total", "event", "PostToolUse", "hook", "flaky", "kind", "go"):            1,
		series("luahook_hook_duration_seconds_count", "event", "PreToolUse", "hook", "guard"):                3,
		"luahook_decision_duration_seconds_count":                                                            4,
	}
	for k, v := range want {
		if got := after[k] - before[k]; got != v {
			t.Errorf("%s moved by %v, want %v", k, got, v)
		}
	}
	if _, ok := after[series("luahook_hook_calls_total", "event", "PostToolUse", "hook", "flaky-late", "kind", "go")]; ok {
		t.Error("a background hook, not awaited, was counted as a call")
	}
}

func TestClientThatGivesUpCancelsItsHooks(t *testing.T) {
	g := newRig(t, Options{})
	started, ended := make(chan struct{}), make(chan error, 1)
	g.add(luahook.Spec{Event: luahook.PreToolUse, Timeout: time.Minute,
		Hook: luahook.HookFunc(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
			close(started)
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		})})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.srv.URL, strings.NewReader(`{"event":"PreToolUse","toolInput":{}}`))
	done := make(chan error, 1)
	go func() {
		resp, err := g.srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v, want context.Canceled", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("hook context ended with %v, want Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook's context was not cancelled when the client went away")
	}
	waitFor(t, func() bool { return scrape(t, g.srv.URL)[series("luahook_requests_total", "code", "499")] == 1 })
}

// waitFor polls cond until it holds, for at most 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// series writes a metric's name and labels as the text exposition format
// does: labels sorted by name.
func series(name string, labels ...string) string {
	type pair struct{ k, v string }
	var ps []pair
	for i := 0; i+1 < len(labels); i += 2 {
		ps = append(ps, pair{labels[i], labels[i+1]})
	}
	slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	var b strings.Builder
	b.WriteString(name)
	if len(ps) > 0 {
		b.WriteByte('{')
		for i, p := range ps {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", p.k, p.v)
		}
		b.WriteByte('}')
	}
	return b.String()
}
