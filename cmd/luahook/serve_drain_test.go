package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestServeAnswersEveryRequestOnAKeptAliveConnectionAroundSIGTERM runs the
// real CLI in a subprocess with clients sending request after request on
// kept-alive connections, and sends it SIGTERM while they do. Every request
// a client wrote gets its answer (none sees the connection close under it,
// EOF); what a client cannot get, once serve stopped accepting, is a new
// connection, which it learns before sending anything. With and without a
// --drain-delay.
func TestServeAnswersEveryRequestOnAKeptAliveConnectionAroundSIGTERM(t *testing.T) {
	t.Parallel()
	for _, delay := range []string{"0s", "300ms"} {
		t.Run("drain-delay "+delay, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
			cmd := luahookExe(t, "--dir", dir, "serve", "--addr", "127.0.0.1:0", "--decision-log", "off", "--drain-delay", delay)
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 16)
			exited := make(chan error, 1)
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
			})
			var first string
			select {
			case first = <-lines:
			case <-time.After(30 * time.Second):
				t.Fatalf("serve did not start; stderr:\n%s", stderr)
			}
			m := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(first)
			if m == nil {
				t.Fatalf("first line %q", first)
			}
			url := m[1] + "/"

			const clients = 12
			var (
				signalled   atomic.Bool
				afterSignal atomic.Int64 // answers to requests sent after SIGTERM
				keptAlive   atomic.Int64 // of which on kept-alive connections
				mu          sync.Mutex
				lost        []string
			)
			warm := make(chan struct{}, clients)
			var wg sync.WaitGroup
			for i := range clients {
				wg.Go(func() {
					tr := &http.Transport{MaxIdleConnsPerHost: 1}
					defer tr.CloseIdleConnections()
					c := &http.Client{Transport: tr, Timeout: 60 * time.Second}
					for n := 0; ; n++ {
						var wrote, reused bool
						trace := &httptrace.ClientTrace{
							GotConn:      func(info httptrace.GotConnInfo) { reused = info.Reused },
							WroteRequest: func(httptrace.WroteRequestInfo) { wrote = true },
						}
						payload := fmt.Sprintf(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /%d-%d"}}`, i, n)
						req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", url, strings.NewReader(payload))
						req.Header.Set("Content-Type", "application/json")
						after := signalled.Load()
						resp, err := c.Do(req)
						if err != nil {
							if wrote {
								mu.Lock()
								lost = append(lost, fmt.Sprintf("client %d request %d (kept-alive connection %v, after SIGTERM %v): %v", i, n, reused, after, err))
								mu.Unlock()
							}
							return // no connection to be had: serve stopped accepting
						}
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 || !strings.Contains(string(b), "no rm -rf") {
							mu.Lock()
							lost = append(lost, fmt.Sprintf("client %d request %d: %d %s", i, n, resp.StatusCode, b))
							mu.Unlock()
							return
						}
						if after {
							afterSignal.Add(1)
							if reused {
								keptAlive.Add(1)
							}
						}
						if n == 10 {
							warm <- struct{}{}
						}
					}
				})
			}
			for range clients {
				select {
				case <-warm:
				case <-time.After(60 * time.Second):
					t.Fatalf("the clients did not get going; stderr:\n%s", stderr)
				}
			}
			signalled.Store(true)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			for _, l := range lost {
				t.Error("lost: " + l)
			}
			// With a delay every answer says Connection: close, so that
			// requests after SIGTERM go on new connections.
			if afterSignal.Load() == 0 || (delay == "0s" && keptAlive.Load() == 0) {
				t.Errorf("%d requests sent after SIGTERM were answered, %d of them on kept-alive connections: the test did not meet the shutdown",
					afterSignal.Load(), keptAlive.Load())
			}
			var rest []string
			for l := range lines {
				rest = append(rest, l)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("serve exited with %v, want 0; stderr:\n%s", err, stderr)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("serve did not exit")
			}
			if len(rest) == 0 || rest[len(rest)-1] != "luahook serve: stopped" {
				t.Errorf("output after the listening line: %q", rest)
			}
			t.Logf("%d requests sent after SIGTERM answered, %d on kept-alive connections", afterSignal.Load(), keptAlive.Load())
		})
	}
}
