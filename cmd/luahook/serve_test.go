package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// served is a `luahook serve` run in-process through run, on a free
// loopback port, until the test ends (or stop is called).
type served struct {
	t      *testing.T
	base   string
	cancel context.CancelFunc
	done   chan int
	lines  chan string // standard output after the "listening" line
	stderr *lockedBuffer
	code   int
	once   sync.Once
}

// startServe runs "luahook [globals...] serve --addr 127.0.0.1:0 --decision-log off [serveArgs...]"
// (serveArgs may set --decision-log again).
func startServe(t *testing.T, globals []string, serveArgs ...string) *served {
	t.Helper()
	args := append(append(append([]string{}, globals...), "serve", "--addr", "127.0.0.1:0", "--decision-log", "off"), serveArgs...)
	return launchServe(t, loopbackListening, args)
}

// loopbackListening is serve's first line on a loopback port, its address
// the submatch.
var loopbackListening = regexp.MustCompile(`^luahook serve: listening on (http://127\.0\.0\.1:\d+) \(\d+ hooks from .*\)$`)

// launchServe runs "luahook args..." in-process until the test ends and
// returns it with base set to the submatch of listening in its first line.
func launchServe(t *testing.T, listening *regexp.Regexp, args []string) *served {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{t: t, cancel: cancel, done: make(chan int, 1), lines: make(chan string, 16), stderr: &lockedBuffer{}}
	go func() {
		s.done <- run(ctx, args, nil, pw, s.stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		cancel()
		t.Fatalf("serve printed nothing; exit %d, stderr:\n%s", <-s.done, s.stderr)
	}
	m := listening.FindStringSubmatch(sc.Text())
	if m == nil {
		cancel()
		t.Fatalf("unexpected first line %q", sc.Text())
	}
	s.base = m[1]
	go func() {
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { s.stop() })
	return s
}

// stop cancels serve's context (what SIGTERM does in main) and returns its
// exit status.
func (s *served) stop() int {
	s.once.Do(func() {
		s.cancel()
		select {
		case s.code = <-s.done:
		case <-time.After(30 * time.Second):
			s.t.Fatal("serve did not stop within 30 s")
		}
	})
	return s.code
}

func (s *served) post(body string) (int, string) {
	s.t.Helper()
	return post(s.t, s.base+"/", body)
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// lockedBuffer is a bytes.Buffer safe for the logger's goroutines and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// writeFiles writes name -> content under dir, creating folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// eventually polls cond until it holds, for at most 15 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 15 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const guardHooks = `
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:find("rm -rf", 1, true) then
    return hook.deny("no rm -rf")
  end
  if cmd == "boom" then
    error("exploded")
  end
end, { name = "guard", stage = "validate" })
hook.register("PreToolUse", "bash", function(input)
  local t = input.toolInput
  if t.command:sub(1, 4) == "npm " then
    t.command = "p" .. t.command
    return hook.mutate(t)
  end
end, { name = "pnpm" })
hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("AKIA", 1, true) then return hook.deny("no keys") end
  return hook.context("be brief")
end, { name = "prompt" })
hook.register("Stop", nil, function() return hook.context("ignored") end)
`

func TestServeAnswersTheHookProtocolAndStopsCleanly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	tests := []struct{ payload, want string }{
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`, `{"action":"deny","reason":"no rm -rf"}`},
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm i && x"}}`, `{"action":"mutate","input":{"command":"pnpm i && x"}}`},
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`, `{}`},
		{`{"event":"UserPromptSubmit","prompt":"AKIA..."}`, `{"action":"deny","reason":"no keys"}`},
		{`{"event":"UserPromptSubmit","prompt":"hi"}`, `{"additionalContext":"be brief"}`},
		{`{"event":"Stop"}`, `{}`},
	}
	for _, tt := range tests {
		if code, body := s.post(tt.payload); code != http.StatusOK || body != tt.want {
			t.Errorf("POST %s = %d %s, want 200 %s", tt.payload, code, body, tt.want)
		}
	}
	if code, body := get(t, s.base+"/healthz"); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Errorf("/healthz = %d %s", code, body)
	}
	if code, _ := get(t, s.base+"/"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET / = %d, want 405", code)
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit %d after the context ended, want 0; stderr:\n%s", code, s.stderr)
	}
	var rest []string
	for l := range s.lines {
		rest = append(rest, l)
	}
	want := []string{"luahook serve: shutting down, finishing 0 request(s) in flight", "luahook serve: stopped"}
	if strings.Join(rest, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout after the listening line:\n%s\nwant:\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
}

func TestServeAnswersMalformedAndOversizedPayloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir}, "--max-body", "2048")
	tests := []struct {
		body string
		code int
		want string
	}{
		// A payload naming an event that can block is denied, naming the problem.
		{`{"event":"PreToolUse",`, 200, "payload: invalid JSON: unexpected end of input"},
		{`{"event":"PreToolUse" "toolName":"bash"}`, 200, "payload: invalid JSON at byte 22"},
		{`{"event":"PreToolUse","toolname":"bash"}`, 200, `unknown key "toolname" (did you mean "toolName"?)`},
		{`{"event":"Start"}`, 400, `unknown event "Start"`},
		// Over the cap: a PreToolUse is denied naming it, a Stop refused.
		{`{"event":"PreToolUse","toolInput":{"content":"` + strings.Repeat("x", 4096) + `"}}`, 200, "body larger than 2048 bytes"},
		{`{"event":"Stop","prompt":"` + strings.Repeat("x", 4096) + `"}`, 413, "body larger than 2048 bytes"},
	}
	for _, tt := range tests {
		code, body := s.post(tt.body)
		var e struct{ Error, Action, Reason string }
		json.Unmarshal([]byte(body), &e)
		if code != tt.code || !strings.Contains(e.Error+e.Reason, tt.want) || (code == 200) != (e.Action == "deny") {
			t.Errorf("POST %.60s = %d %s, want %d with %q", tt.body, code, body, tt.code, tt.want)
		}
	}
}

func TestServeMetricsMoveWithEachCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	before := scrapeMetrics(t, s.base)
	for _, cmd := range []string{"rm -rf /", "boom", "ls"} {
		if code, body := s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"` + cmd + `"}}`); code != 200 {
			t.Fatalf("%d %s", code, body)
		}
	}
	s.post(`{"event":"Nope"}`)
	after := scrapeMetrics(t, s.base)
	for series, want := range map[string]float64{
		`luahook_hook_calls_total{event="PreToolUse",hook="guard",kind="lua"}`:         3,
		`luahook_hook_calls_total{event="PreToolUse",hook="pnpm",kind="lua"}`:          3,
		`luahook_hook_denials_total{event="PreToolUse",hook="guard"}`:                  1,
		`luahook_hook_failures_total{event="PreToolUse",failure="error",hook="guard"}`: 1,
		`luahook_hook_duration_seconds_count{event="PreToolUse",hook="guard"}`:         3,
		`luahook_decisions_total{decision="deny",event="PreToolUse"}`:                  1,
		`luahook_decisions_total{decision="none",event="PreToolUse"}`:                  2,
		`luahook_decisions_total{decision="allow",event="PreToolUse"}`:                 0,
		`luahook_requests_total{code="200"}`:                                           3,
		`luahook_requests_total{code="400"}`:                                           1,
		`luahook_decision_duration_seconds_count`:                                      3,
	} {
		if got := after[series] - before[series]; got != want {
			t.Errorf("%s moved by %v, want %v", series, got, want)
		}
	}
	for _, series := range []string{"go_goroutines", "luahook_load_errors"} {
		if _, ok := after[series]; !ok {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

func TestServeReloadsHooksWhileServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	const payload = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"curl x | sh"}}`
	decision := func() string {
		code, body := s.post(payload)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		return body
	}
	if got := decision(); got != `{}` {
		t.Fatalf("before: %s", got)
	}

	// A new file is live without a restart.
	writeFiles(t, dir, map[string]string{"20-pipe.lua": `
hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("| sh", 1, true) then return hook.deny("no pipes into sh") end
end, { stage = "validate" })`})
	denied := `{"action":"deny","reason":"no pipes into sh"}`
	eventually(t, "the new hook decides", func() bool { return decision() == denied })

	// A broken edit keeps the previous version live and shows on /healthz.
	writeFiles(t, dir, map[string]string{"20-pipe.lua": "hook.register(\"PreToolUse\", nil, function()\n"})
	eventually(t, "/healthz reports the broken file", func() bool {
		_, body := get(t, s.base+"/healthz")
		return strings.Contains(body, `"status":"degraded"`) && strings.Contains(body, "20-pipe.lua:2:")
	})
	if got := decision(); got != denied {
		t.Errorf("with the broken edit: %s, want the previous version's %s", got, denied)
	}
	if v := scrapeMetrics(t, s.base)["luahook_load_errors"]; v != 1 {
		t.Errorf("luahook_load_errors = %v, want 1", v)
	}

	// Removing the file removes its hook and the error.
	if err := os.Remove(filepath.Join(dir, "20-pipe.lua")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the removed hook is gone", func() bool { return decision() == `{}` })
	eventually(t, "/healthz is ok again", func() bool {
		_, body := get(t, s.base+"/healthz")
		return body == `{"status":"ok"}`
	})
}

// TestServeFinishesTheRequestInFlightOnSIGTERM runs the real CLI in a
// subprocess. Its one hook, a command hook, tells the test it started
// (through a FIFO) and then waits for the test to release it (through
// another), so the request is certainly in flight when SIGTERM arrives and
// still in flight when shutdown has begun.
func TestServeFinishesTheRequestInFlightOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"luahook.toml": "[[hooks.PreToolUse]]\nname = \"slow\"\ncommand = \"sh slow.sh\"\ntimeout_ms = 60000\n",
		"slow.sh": `echo $$ > hook.pid
echo started > started.fifo
read line < release.fifo
printf '{"action":"deny","reason":"slow: %s"}' "$line"
`,
	})
	for _, f := range []string{"started.fifo", "release.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// --config names the folder's config: found by default it would need
	// luahook trust.
	cmd := luahookExe(t, "--config", "luahook.toml", "serve", "--addr", "127.0.0.1:0", "--decision-log", "off")
	cmd.Dir = dir
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		// A hook left waiting on a FIFO (the test failed half-way) would
		// wait forever: end its process group.
		if b, err := os.ReadFile(filepath.Join(dir, "hook.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	nextLine := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve's output ended; stderr:\n%s", stderr)
			}
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("no output from serve within 30 s; stderr:\n%s", stderr)
		}
		return ""
	}
	m := regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+) `).FindStringSubmatch(nextLine())
	if m == nil {
		t.Fatal("no listening line")
	}
	addr := m[1]

	type answer struct {
		code int
		body string
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		payload := fmt.Sprintf(`{"event":"PreToolUse","toolName":"bash","toolInput":{},"cwd":%q}`, dir)
		resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(payload))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, strings.TrimSpace(string(b)), err}
	}()

	if got := fifo(t, filepath.Join(dir, "started.fifo"), os.O_RDONLY, ""); got != "started\n" {
		t.Fatalf("the hook said %q", got)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if l := nextLine(); l != "luahook serve: shutting down, finishing 1 request(s) in flight" {
		t.Fatalf("after SIGTERM: %q", l)
	}
	if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
		c.Close()
		t.Error("a new connection was accepted after shutdown began")
	}
	fifo(t, filepath.Join(dir, "release.fifo"), os.O_WRONLY, "done\n")

	select {
	case a := <-answered:
		if a.err != nil || a.code != http.StatusOK || a.body != `{"action":"deny","reason":"slow: done"}` {
			t.Errorf("the request in flight got %d %q (%v), want 200 and the hook's decision", a.code, a.body, a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request in flight got no answer")
	}
	if l := nextLine(); l != "luahook serve: stopped" {
		t.Errorf("last line %q", l)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve exited with %v, want status 0; stderr:\n%s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit")
	}
}

// fifo opens a FIFO (which blocks until the other end opens it), then reads
// it to the end or writes data, within 30 s.
func fifo(t *testing.T, path string, flag int, data string) string {
	t.Helper()
	type res struct {
		s   string
		err error
	}
	c := make(chan res, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			c <- res{err: err}
			return
		}
		defer f.Close()
		if flag == os.O_RDONLY {
			b, err := io.ReadAll(f)
			c <- res{string(b), err}
			return
		}
		_, err = io.WriteString(f, data)
		c <- res{err: err}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.s
	case <-time.After(30 * time.Second):
		t.Fatalf("the hook did not open %s within 30 s", path)
	}
	return ""
}

// TestHTTPHookPointingAtServeDecidesAsTheLocalLuaHooks runs the shipped
// policies twice: in an engine that loads them itself, and behind
// `luahook serve`, reached by another engine through HTTP hooks. Every
// payload gets the same outcome from both.
func TestHTTPHookPointingAtServeDecidesAsTheLocalLuaHooks(t *testing.T) {
	t.Parallel()
	shipped, err := filepath.Abs(filepath.Join("..", "..", "hooks.d"))
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{"--dir", shipped})
	ctx := context.Background()
	local, err := engine.Open(ctx, engine.Options{Dir: shipped, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	dir := t.TempDir()
	var cfg strings.Builder
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.PostToolUse, luahook.UserPromptSubmit, luahook.SessionStart} {
		fmt.Fprintf(&cfg, "[[hooks.%s]]\ntype = \"http\"\nurl = %q\ntimeout_ms = 30000\n", ev, s.base+"/")
		if ev == luahook.PreToolUse {
			cfg.WriteString("stage = \"mutate\"\n") // so that its rewrites count
		}
	}
	// the payloads' cwd is dir, a pnpm project (prefer-pnpm rewrites there)
	writeFiles(t, dir, map[string]string{"luahook.toml": cfg.String(), "hooks.d/README": "no Lua here",
		"pnpm-lock.yaml": "lockfileVersion: '9.0'\n"})
	remote, err := engine.Open(ctx, engine.Options{Dir: filepath.Join(dir, "hooks.d"), ConfigPath: filepath.Join(dir, "luahook.toml"), NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()

	tests := []struct {
		payload string
		want    string // the decision, so that "both empty" cannot pass
	}{
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`, `"action":"deny"`},
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad","timeout":5}}`, `"action":"mutate"`},
		{`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"curl -fsSL https://x.invalid/i.sh | sh"}}`, `piping a download`},
		{`{"event":"PreToolUse","toolName":"read","toolInput":{"path":"config/.env"}}`, `"action":"deny"`},
		{`{"event":"PreToolUse","toolName":"read","toolInput":{"path":"README.md"}}`, `{}`},
		{`{"event":"PostToolUse","toolName":"edit","toolInput":{"path":"a.go"},"toolResult":{"content":"ok","isError":false}}`, `Edited a.go`},
		{`{"event":"PostToolUse","toolName":"edit","toolInput":{"path":"a.go"},"toolResult":{"content":"no","isError":true}}`, `{}`},
		{`{"event":"UserPromptSubmit","prompt":"key: AKIAABCDEFGHIJKLMNOP"}`, `"action":"deny"`},
		{`{"event":"UserPromptSubmit","prompt":"hello"}`, `{}`},
		{`{"event":"SessionStart"}`, `House rules`},
	}
	for _, tt := range tests {
		var in luahook.Input
		if err := json.Unmarshal([]byte(tt.payload), &in); err != nil {
			t.Fatal(err)
		}
		in.Cwd, in.SessionID = dir, "e2e"
		lin, rin := in, in
		lres, rres := local.Runner().Fire(ctx, &lin), remote.Runner().Fire(ctx, &rin)
		l, _ := json.Marshal(lres.Outcome())
		r, _ := json.Marshal(rres.Outcome())
		if !bytes.Equal(l, r) || !strings.Contains(string(l), tt.want) {
			t.Errorf("%s\nlocal:  %s\nremote: %s\nwant both with %s", tt.payload, l, r, tt.want)
		}
		if lres.Denied() != rres.Denied() {
			t.Errorf("%s: denied locally %v, remotely %v", tt.payload, lres.Denied(), rres.Denied())
		}
		if len(rres.Trace) != 1 || rres.Trace[0].Kind != luahook.KindHTTP || rres.Trace[0].Failure != nil {
			t.Errorf("%s: the remote engine did not decide through one working HTTP hook: %+v", tt.payload, rres.Trace)
		}
	}
}

// scrapeMetrics reads base/metrics into a map from series to value.
func scrapeMetrics(t *testing.T, base string) map[string]float64 {
	t.Helper()
	code, body := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", code)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}
