package security

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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveMemoryBound is the documented bound on the resident memory of a
// `luahook serve` process with the default limits, whatever its clients
// send: the request bodies in flight (--max-bytes-in-flight, 128 MiB) at
// about four bytes of memory per body byte, the store's total (64 MiB), and
// a fixed part for the runtime, the Lua states, the connections and the
// collector's headroom. docs/reliability.md states the same.
const serveMemoryBound = 4*128<<20 + 64<<20 + 256<<20

// buildLuahook builds the luahook command once for the test and returns its
// path.
func buildLuahook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "luahook")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/luahook/luahook/cmd/luahook")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServe runs `luahook serve` on a free loopback port with dir as its
// hooks folder (and config, if not empty) and returns its base URL and
// process.
func startServe(t *testing.T, bin, dir, config string) (string, *os.Process) {
	t.Helper()
	args := []string{"--dir", dir, "serve", "--addr", "127.0.0.1:0", "--read-header-timeout", "2s", "--log-level", "error"}
	if config != "" {
		args = append([]string{"--config", config}, args...)
	}
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve's standard error:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve did not start: %v; stderr %s", err, stderr.String())
	}
	go io.Copy(io.Discard, stdout)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("serve said %q", line)
	}
	return strings.Fields(line[i:])[0], cmd.Process
}

// peakRSS reads the process's resident high-water mark (VmHWM) in bytes.
func peakRSS(t *testing.T, p *os.Process) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// clientFrom returns an HTTP client whose connections come from the loopback
// address ip, so that serve sees it as a client of its own.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

func post(c *http.Client, url string, body []byte) (int, string, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// payload returns a payload JSON object of about size bytes: the fields
// given, and a padding string in field pad.
func payload(fields map[string]any, pad string, size int) []byte {
	if pad != "" {
		fields[pad] = strings.Repeat("a", size)
	}
	b, _ := json.Marshal(fields)
	return b
}

// TestServeProcessMemoryStaysUnderItsBoundUnderAbuse runs a real `luahook
// serve` with its default limits and throws every abuse of the review at it
// at once — slow bodies announcing 8 MiB, many valid 8 MiB payloads from
// many clients, a flood of background hooks on invented sessions, a hook
// filling the store, 8 MiB prompts from one client — while a well-behaved
// client's secrets check must still deny in time. The process's peak
// resident memory stays under serveMemoryBound.
func TestServeProcessMemoryStaysUnderItsBoundUnderAbuse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs luahook serve (skipped with -short)")
	}
	bin := buildLuahook(t)
	dir := hooksDir(t, map[string]string{
		"10-rm.lua": `hook.register("PreToolUse", "bash", function(input)
  if (input.toolInput.command or ""):find("rm -rf /", 1, true) then return hook.deny("rm -rf / is blocked") end
end, {name = "rm-guard", stage = "validate"})`,
		"20-secrets.lua": `hook.register("UserPromptSubmit", nil, function(input)
  if (input.prompt or ""):find("PRIVATE KEY", 1, true) then return hook.deny("a private key in the prompt") end
end, {name = "prompt-secrets"})`,
		"30-keep.lua": `hook.register("PostToolUse", nil, function(input)
  store.set("result:" .. (input.sessionId or "") .. ":" .. tostring(math.random(1e9)), input.toolResult and input.toolResult.content or "")
end, {name = "keep-results"})`,
	})
	config := writeConfig(t, dir, `[[hooks.PostToolUse]]
name = "slow-background"
command = "sh -c 'sleep 0.2'"
background = true
`)
	url, proc := startServe(t, bin, dir, config)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	addr := strings.TrimPrefix(url, "http://")

	// 200 connections announce 8 MiB bodies and send a byte now and then.
	for i := range 200 {
		wg.Go(func() {
			conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+i%250))}}).DialContext(ctx, "tcp", addr)
			if err != nil {
				return // serve may hold further connections in the backlog
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", 8<<20-1)
			for range 10 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(300 * time.Millisecond):
				}
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		})
	}
	// 32 clients each send three valid payloads of almost 8 MiB.
	big := payload(map[string]any{"event": "PreToolUse", "toolName": "bash"}, "", 0)
	big = bytes.Replace(big, []byte(`}`), []byte(`,"toolInput":{"command":"rm -rf /","junk":"`+strings.Repeat("j", 8<<20-200)+`"}}`), 1)
	for i := range 32 {
		wg.Go(func() {
			c := clientFrom(fmt.Sprintf("127.0.2.%d", 1+i))
			for range 3 {
				code, body, err := post(c, url, big)
				if err != nil {
					report("8 MiB payload: %v", err)
					return
				}
				if !strings.Contains(body, `"deny"`) {
					report("8 MiB rm -rf payload answered %d %s", code, body)
				}
			}
		})
	}
	// 1,500 PostToolUse calls on invented sessions, each storing a result of
	// 64 KiB and scheduling the slow background command.
	wg.Go(func() {
		c := clientFrom("127.0.3.1")
		for i := range 1500 {
			body := payload(map[string]any{"event": "PostToolUse", "toolName": "bash", "sessionId": fmt.Sprintf("s%d", i),
				"toolInput": map[string]any{}, "toolResult": map[string]any{"content": strings.Repeat("r", 64<<10), "isError": false}}, "", 0)
			if _, _, err := post(c, url, body); err != nil {
				report("PostToolUse flood: %v", err)
				return
			}
			if ctx.Err() != nil {
				return
			}
		}
	})
	// One client floods 8 MiB prompts.
	prompt := payload(map[string]any{"event": "UserPromptSubmit"}, "prompt", 8<<20-100)
	for range 16 {
		wg.Go(func() {
			c := clientFrom("127.0.4.1")
			for range 3 {
				if _, _, err := post(c, url, prompt); err != nil {
					return
				}
			}
		})
	}
	// Meanwhile a well-behaved client's secrets check denies, promptly.
	good := clientFrom("127.0.0.1")
	secret := payload(map[string]any{"event": "UserPromptSubmit", "prompt": "here: -----BEGIN RSA PRIVATE KEY-----"}, "", 0)
	var slowest time.Duration
	for range 20 {
		start := time.Now()
		code, body, err := post(good, url, secret)
		slowest = max(slowest, time.Since(start))
		if err != nil || !strings.Contains(body, `"deny"`) {
			report("the well-behaved client's private key: %d %s %v", code, body, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	rss := peakRSS(t, proc)
	for _, p := range problems {
		t.Error(p)
	}
	if rss > serveMemoryBound {
		t.Errorf("serve's peak resident memory %d MiB, over the documented bound of %d MiB", rss>>20, serveMemoryBound>>20)
	}
	if slowest > 5*time.Second {
		t.Errorf("the well-behaved client waited %v for a decision", slowest)
	}
	t.Logf("peak resident memory %d MiB (bound %d MiB); the well-behaved client's slowest decision %v", rss>>20, serveMemoryBound>>20, slowest.Round(time.Millisecond))
}
