package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAFleetBehindHAProxyLosesNoRequestWhenAReplicaDrains runs the fleet
// example for real: two serve processes behind haproxy with
// examples/fleet/haproxy.cfg. Both replicas answer (their instance ids are
// in their decision logs); then one is sent SIGTERM in the middle of the
// load, with a --drain-delay longer than haproxy takes to see /readyz fail,
// and not one request fails.
func TestAFleetBehindHAProxyLosesNoRequestWhenAReplicaDrains(t *testing.T) {
	t.Parallel()
	hooks := t.TempDir()
	writeFiles(t, hooks, map[string]string{"10-guard.lua": guardHooks})
	// haproxy.cfg: checks 200 ms apart, down after 2 failures.
	drain := []string{"--drain-delay", "1500ms"}
	a := startReplica(t, replicaOptions{Hooks: hooks, Instance: "replica-a", Args: drain})
	b := startReplica(t, replicaOptions{Hooks: hooks, Instance: "replica-b", Args: drain})
	lb := startHAProxy(t, a, b)

	payload := func(i int) string {
		cmd := "ls"
		if i%2 == 1 {
			cmd = "rm -rf /"
		}
		return fmt.Sprintf(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":%q},"sessionId":"s%d"}`, cmd, i%7)
	}
	stop := make(chan struct{})
	load, wait := sendLoad("http://"+lb+"/", 4, payload, stop)
	eventually(t, "200 answers through haproxy", func() bool { return load.count() >= 200 })

	a.terminate()
	a.expectLine("luahook serve: draining: /readyz answers 503")
	a.expectLine("luahook serve: shutting down, finishing ")
	if err := a.wait(); err != nil {
		t.Errorf("replica a exited with %v after SIGTERM, want 0; stderr:\n%s", err, a.stderr)
	}
	after := load.count()
	eventually(t, "200 more answers once replica a is gone", func() bool { return load.count() >= after+200 })
	close(stop)
	wait()

	if len(load.failed) > 0 {
		t.Errorf("%d of %d requests failed while replica a drained; the first: %s", len(load.failed), load.answers+len(load.failed), load.failed[0])
	}
	allow, deny := `{}`, `{"action":"deny","reason":"no rm -rf"}`
	if load.bodies[allow] == 0 || load.bodies[deny] == 0 || load.bodies[allow]+load.bodies[deny] != load.answers {
		t.Errorf("answers %v, want only %s and %s", load.bodies, allow, deny)
	}

	b.terminate()
	if err := b.wait(); err != nil {
		t.Errorf("replica b exited with %v, want 0", err)
	}
	decided := 0
	for _, r := range []*replica{a, b} {
		recs := r.records()
		if len(recs) == 0 {
			t.Errorf("replica %s decided nothing: haproxy did not spread the load", r.instance)
		}
		for _, rec := range recs {
			if rec.Instance != r.instance {
				t.Fatalf("a record of replica %s names instance %q", r.instance, rec.Instance)
			}
		}
		decided += len(recs)
	}
	// The decision log never holds a decision up: on a loaded machine its
	// bounded queue may drop records (counted in
	// luahook_decision_log_dropped_total), never add one.
	if decided > load.answers {
		t.Errorf("the replicas logged %d decisions, the clients got only %d answers", decided, load.answers)
	} else if decided < load.answers {
		t.Logf("the replicas logged %d of %d decisions; the log's queue dropped the rest", decided, load.answers)
	}
}

// TestServeDrainsOnSIGTERM: from SIGTERM, /readyz answers 503 "draining"
// while requests are still answered for --drain-delay; then no connection
// is accepted, the request in flight (a slow hook) gets its real answer,
// and serve exits 0.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := fmt.Sprintf("[[hooks.PreToolUse]]\nname = \"slow\"\ncommand = \"sh %s\"\ntimeout_ms = 60000\n", filepath.Join(dir, "slow.sh"))
	writeFiles(t, dir, map[string]string{
		"slow.sh": `echo $$ > hook.pid
echo started > started.fifo
read line < release.fifo
printf '{"action":"deny","reason":"slow: %s"}' "$line"
`,
		"hooks.d/10-prompt.lua": `hook.register("UserPromptSubmit", nil, function() return hook.context("be brief") end)`,
	})
	for _, f := range []string{"started.fifo", "release.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { killHook(dir) })
	// The delay only has to outlast the few local requests made during it.
	r := startReplica(t, replicaOptions{Hooks: filepath.Join(dir, "hooks.d"), Config: config,
		Instance: "drainer", Args: []string{"--drain-delay", "3s"}})
	base := "http://" + r.addr

	slow := make(chan string, 1)
	go func() {
		resp, err := http.Post(base+"/", "application/json", strings.NewReader(
			fmt.Sprintf(`{"event":"PreToolUse","toolName":"bash","toolInput":{},"cwd":%q}`, dir)))
		if err != nil {
			slow <- err.Error()
			return
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, err = fmt.Fprint(&b, resp.StatusCode, " ")
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		slow <- strings.TrimSpace(b.String())
	}()
	if got := fifo(t, filepath.Join(dir, "started.fifo"), os.O_RDONLY, ""); got != "started\n" {
		t.Fatalf("the hook said %q", got)
	}
	if code, body := get(t, base+"/readyz"); code != 200 || body != `{"status":"ok"}` {
		t.Fatalf("/readyz before SIGTERM = %d %s", code, body)
	}
	r.terminate()
	r.expectLine("luahook serve: draining: /readyz answers 503, requests are answered for --drain-delay 3s more")
	if code, body := get(t, base+"/readyz"); code != http.StatusServiceUnavailable || body != `{"status":"draining"}` {
		t.Errorf("/readyz during the drain delay = %d %s, want 503 draining", code, body)
	}
	if code, body := post(t, base+"/", `{"event":"UserPromptSubmit","prompt":"hi"}`); code != 200 || body != `{"additionalContext":"be brief"}` {
		t.Errorf("a request during the drain delay = %d %s, want its answer", code, body)
	}
	r.expectLine("luahook serve: shutting down, finishing 1 request(s) in flight")
	if c, err := net.DialTimeout("tcp", r.addr, 5*time.Second); err == nil {
		c.Close()
		t.Error("a connection was accepted after the drain delay")
	}
	fifo(t, filepath.Join(dir, "release.fifo"), os.O_WRONLY, "done\n")
	select {
	case got := <-slow:
		if got != `200 {"action":"deny","reason":"slow: done"}` {
			t.Errorf("the request in flight at SIGTERM got %q, want 200 and the hook's own answer", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request in flight got no answer")
	}
	r.expectLine("luahook serve: stopped")
	if err := r.wait(); err != nil {
		t.Errorf("serve exited with %v, want 0; stderr:\n%s", err, r.stderr)
	}
	if m := regexp.MustCompile(`(?m)^.*msg=draining.*$`).FindString(r.stderr.String()); !strings.Contains(m, "instance=drainer") {
		t.Errorf("the draining log line %q does not name the instance; stderr:\n%s", m, r.stderr)
	}
}

// killHook ends the process group of a hook left waiting on a FIFO (a test
// that failed half-way), whose pid it wrote to dir/hook.pid.
func killHook(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "hook.pid"))
	if err != nil {
		return
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// TestWhenNoReplicaIsReadyHAProxyStillReachesThem: with every replica
// unready (here a hook file that does not load; in a fleet, the shared
// store gone), haproxy.cfg's backup servers still send calls to the
// replicas, which decide them (failing closed where a policy says so),
// rather than haproxy answering 503, which an agent reads as no objection.
func TestWhenNoReplicaIsReadyHAProxyStillReachesThem(t *testing.T) {
	t.Parallel()
	hooks := t.TempDir()
	writeFiles(t, hooks, map[string]string{"10-guard.lua": guardHooks, "20-broken.lua": "hook.register(\n"})
	a := startReplica(t, replicaOptions{Hooks: hooks, Instance: "replica-a"})
	b := startReplica(t, replicaOptions{Hooks: hooks, Instance: "replica-b"})
	for _, r := range []*replica{a, b} {
		if code, body := get(t, "http://"+r.addr+"/readyz"); code != http.StatusServiceUnavailable {
			t.Fatalf("replica %s: /readyz = %d %s, want 503", r.instance, code, body)
		}
	}
	lb := startHAProxyWhenUnready(t, a, b)
	for i := range 20 {
		// The replicas deny: the policy's own reason first, then the file
		// that has no version in force (fail closed).
		code, body := post(t, "http://"+lb+"/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`)
		if code != 200 || !strings.HasPrefix(body, `{"action":"deny","reason":"no rm -rf\n`) || !strings.Contains(body, "20-broken.lua is broken") {
			t.Fatalf("call %d through haproxy with no replica ready = %d %s, want the replicas' denial", i, code, body)
		}
	}
}
