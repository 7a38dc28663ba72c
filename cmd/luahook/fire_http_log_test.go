package main

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/decisionlog"
)

// forwardedPayload is Claude's PreToolUse payload fire --http forwards.
const forwardedPayload = `{"session_id":"s7","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`

// fireHTTPProcess runs "luahook [globals...] fire --agent claude --http URL
// --http-timeout 5s [extra...]" as a process of its own, with the payload
// on standard input and configHome as $XDG_CONFIG_HOME, and returns its
// standard output, standard error and exit status.
func fireHTTPProcess(t *testing.T, configHome, url string, globals []string, extra ...string) (stdout, stderr string, code int) {
	t.Helper()
	args := append(append([]string{}, globals...), "fire", "--agent", "claude", "--http", url, "--http-timeout", "5s")
	cmd := luahookExe(t, append(args, extra...)...)
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+configHome)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(forwardedPayload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// closedPort returns the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// checkServerRecord holds the one record of log to a block fire answered
// itself for a server that could not decide: Claude's block (exit 2)
// delivered, cause server, the reason naming the server and why, the
// payload logged, and no hook nor any decision of the policies.
func checkServerRecord(t *testing.T, log, target, why string) {
	t.Helper()
	recs := readRecords(t, log)
	if len(recs) != 1 {
		t.Fatalf("%d records in the decision log, want the block's one: %+v", len(recs), recs)
	}
	rec := recs[0]
	d := rec.Delivered
	if d == nil {
		t.Fatalf("the record says nothing of what the agent received: %+v", rec)
	}
	if d.Verdict != "block" || d.ExitCode != 2 || d.Agent != "claude" || d.Cause != "server" ||
		!strings.Contains(d.Reason, "luahook serve at "+target+" could not decide") || !strings.Contains(d.Reason, why) {
		t.Errorf("delivered %+v; want Claude's block (exit 2) of cause server naming %s and %q", *d, target, why)
	}
	if len(rec.Hooks) != 0 || rec.Decision.Action != "" || rec.Decision.DecidedBy != "" {
		t.Errorf("hooks %+v, decision %+v; want none: no policy decided", rec.Hooks, rec.Decision)
	}
	if rec.Event != "PreToolUse" || rec.ToolName != "Bash" || rec.SessionID != "s7" || !strings.Contains(string(rec.Input), `"command":"ls"`) {
		t.Errorf("event %q, tool %q, session %q, input %s; want the forwarded payload's", rec.Event, rec.ToolName, rec.SessionID, rec.Input)
	}
}

// TestFireHTTPLogsTheBlockOfAServerItCannotReach: fire --http against a
// port nothing listens on blocks the call itself, and writes that block to
// the decision log fire writes without --http: the file of --decision-log,
// or the one the config's [decision_log] names.
func TestFireHTTPLogsTheBlockOfAServerItCannotReach(t *testing.T) {
	t.Parallel()
	url := closedPort(t)
	target := url + "/agent/claude"
	check := func(t *testing.T, stdout, stderr string, code int) {
		t.Helper()
		if code != 2 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.Contains(stderr, "connection refused") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want Claude's block naming the refused connection", code, stdout, stderr)
		}
	}
	t.Run("--decision-log", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "fire.jsonl")
		stdout, stderr, code := fireHTTPProcess(t, t.TempDir(), url, nil, "--decision-log", log)
		check(t, stdout, stderr, code)
		checkServerRecord(t, log, target, "connection refused")
	})
	t.Run("the config's [decision_log]", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		writeFiles(t, home, map[string]string{"luahook/luahook.toml": "[decision_log]\nenabled = true\npath = \"fire.jsonl\"\n"})
		stdout, stderr, code := fireHTTPProcess(t, home, url, nil)
		check(t, stdout, stderr, code)
		checkServerRecord(t, filepath.Join(home, "luahook", "fire.jsonl"), target, "connection refused")
	})
}

// TestFireHTTPLogsTheBlockOfAServerThatAnswersGarbage: a server whose
// answer is not luahook's gets the call blocked by fire, and the block is
// logged with its cause and the answer it could not use.
func TestFireHTTPLogsTheBlockOfAServerThatAnswersGarbage(t *testing.T) {
	t.Parallel()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>gateway says hello</html>"))
	}))
	defer garbage.Close()
	log := filepath.Join(t.TempDir(), "fire.jsonl")
	stdout, stderr, code := fireHTTPProcess(t, t.TempDir(), garbage.URL, nil, "--decision-log", log)
	if code != 2 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.Contains(stderr, "not a luahook answer") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want Claude's block naming the unusable answer", code, stdout, stderr)
	}
	checkServerRecord(t, log, garbage.URL+"/agent/claude", "gateway says hello")
}

// TestFireHTTPWritesNoRecordOfWhatServeAnswered: an answer the server gave
// is the server's to log; fire --http adds no record of it (nor opens a
// log for it).
func TestFireHTTPWritesNoRecordOfWhatServeAnswered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	log := filepath.Join(t.TempDir(), "fire.jsonl")
	stdout, stderr, code := fireHTTPProcess(t, t.TempDir(), s.base, nil, "--decision-log", log)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the server's no objection", code, stdout, stderr)
	}
	if exists(log) {
		t.Errorf("fire --http opened its decision log for an answer the server gave: %v", readRecords(t, log))
	}
}

// TestServeLogsTheBlockOfAnOversizedBody: a body over --max-body on an
// agent's route is blocked unread, and the block goes to serve's decision
// log with its cause (read) and the reason the agent was given.
func TestServeLogsTheBlockOfAnOversizedBody(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	log := filepath.Join(t.TempDir(), "serve.jsonl")
	s := startServe(t, []string{"--dir", dir}, "--max-body", "2048", "--decision-log", log)
	big := `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"` + strings.Repeat("x", 4096) + `"}}`
	resp, body := postAgent(t, s.base+"/agent/claude", []byte(big), false)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Luahook-Exit-Code") != "2" || !strings.Contains(string(body), "body larger than 2048 bytes") {
		t.Fatalf("POST /agent/claude of 4 KiB = %d (exit %s) %s; want Claude's block naming the cap", resp.StatusCode, resp.Header.Get("Luahook-Exit-Code"), body)
	}
	var recs []decisionlog.Record
	eventually(t, "the record of the oversized body's block", func() bool {
		recs = readRecords(t, log)
		return len(recs) > 0
	})
	rec := recs[0]
	d := rec.Delivered
	if len(recs) != 1 || d == nil || d.Verdict != "block" || d.ExitCode != 2 || d.Agent != "claude" || d.Cause != "read" ||
		!strings.Contains(d.Reason, "luahook serve could not read the request: body larger than 2048 bytes") {
		t.Fatalf("%d records, the first %+v delivered %+v; want Claude's block of cause read naming the cap", len(recs), rec, d)
	}
	if len(rec.Hooks) != 0 || string(rec.Input) != "null" || rec.Instance == "" {
		t.Errorf("hooks %+v, input %s, instance %q; want no hook, no payload (it was not read) and serve's instance", rec.Hooks, rec.Input, rec.Instance)
	}
}

// TestReplayDoesNotReplayABlockFireGaveForTheServer: the record of a block
// fire --http gave itself holds the payload but no decision of the
// policies; replay names it as not decided rather than reporting what the
// policies decide now as a change from a decision nobody made.
func TestReplayDoesNotReplayABlockFireGaveForTheServer(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "fire.jsonl")
	if _, stderr, code := fireHTTPProcess(t, t.TempDir(), closedPort(t), nil, "--decision-log", log); code != 2 {
		t.Fatalf("fire --http at a closed port: exit %d, stderr %q; want 2", code, stderr)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-deny.lua": `hook.register("PreToolUse", nil, function() return hook.deny("no") end)`})
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"--dir", dir, "replay", log}, nil, &out, &errb)
	if code != 2 || !strings.Contains(out.String(), "0 events replayed, 0 changed, 1 unreadable") ||
		!strings.Contains(errb.String(), "not decided (cause server)") {
		t.Errorf("replay: exit %d, stdout %q, stderr %q; want the record named as not decided (cause server), not replayed", code, out.String(), errb.String())
	}
}
