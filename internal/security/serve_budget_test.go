package security

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/server"
)

// bigBody is a PreToolUse payload of about size bytes that the rm -rf policy
// of serve denies.
func bigBody(size int) []byte {
	head := `{"event":"PreToolUse","toolName":"bash","cwd":"/","toolInput":{"command":"rm -rf /","pad":"`
	return []byte(head + strings.Repeat("x", size-len(head)-3) + `"}}`)
}

// postDeny posts body to s with c and checks that the answer is the rm -rf
// denial.
func (s *serving) postDeny(c *http.Client, body []byte) error {
	resp, err := c.Post(s.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"rm -rf is blocked"`)) {
		return fmt.Errorf("answer %d %.200s", resp.StatusCode, b)
	}
	return nil
}

func TestServeMemoryFollowsTheBytesReceivedNotTheLengthAnnounced(t *testing.T) {
	const conns, announced = 64, 8 << 20
	// No admission bounds: every connection reads its body, so what is
	// measured is the read buffer alone.
	s := serve(t, server.Limits{MaxBytesInFlight: -1, MaxClientRequests: -1, MaxClientBytes: -1})
	var sent int
	_, growth := heapPeak(func() {
		cs := dialN(t, s.url, conns)
		for _, c := range cs {
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", announced)
			sent++
		}
		for range 5 {
			time.Sleep(100 * time.Millisecond)
			for _, c := range cs {
				c.Write([]byte(" "))
				sent++
			}
		}
		time.Sleep(200 * time.Millisecond)
	})
	// 64 connections of 4 KiB buffers, goroutines and bufio included: a few MiB.
	if growth > 16<<20 {
		t.Errorf("heap grew by %d MiB for %d connections that announced %d MiB each and sent %d bytes in all; want under 16 MiB",
			growth>>20, conns, announced>>20, sent)
	}
	t.Logf("%d connections announcing %d MiB, %d bytes sent: heap growth %d KiB", conns, announced>>20, sent, growth>>10)
}

func TestServeBoundsTheBodyBytesInFlight(t *testing.T) {
	clients, size, budget := 32, 8<<20-4<<10, 32<<20
	if raceEnabled {
		size, budget = size/4, budget/4
	}
	const (
		// perByte is the heap a request in flight holds per byte of its
		// body, decoded and handed to Lua (measured: see the log line of
		// a single request below); fixed covers the rest.
		perByte = 4
		fixed   = 64 << 20
	)
	// A wait long enough for the queue to drain under the race detector.
	s := serve(t, server.Limits{MaxBytesInFlight: int64(budget), MaxClientBytes: -1, MaxClientRequests: -1, ReadTimeout: 2 * time.Minute})
	body := bigBody(size)
	c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	// One request alone, for the cost per byte.
	_, one := heapPeak(func() {
		if err := s.postDeny(c, body); err != nil {
			t.Fatal(err)
		}
	})
	var answered atomic.Int64
	bodyBytes := float64(size)
	start := time.Now()
	_, growth := heapPeak(func() {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				if err := s.postDeny(c, body); err != nil {
					t.Error(err)
					return
				}
				answered.Add(1)
			})
		}
		wg.Wait()
	})
	if bound := uint64(budget*perByte + fixed); growth > bound {
		t.Errorf("heap grew by %d MiB with %d requests of %d MiB in flight, over the bound of %d MiB (budget %d MiB × %d + %d MiB)",
			growth>>20, clients, size>>20, bound>>20, budget>>20, perByte, fixed>>20)
	}
	if n := answered.Load(); n != int64(clients) {
		t.Errorf("%d/%d requests answered", n, clients)
	}
	t.Logf("one %d MiB request alone: heap growth %d MiB (%.1f bytes per body byte); %d at once with a %d MiB budget: growth %d MiB, all answered in %v",
		size>>20, one>>20, float64(one)/bodyBytes, clients, budget>>20, growth>>20, time.Since(start).Round(time.Millisecond))
}

func TestServeOneClientCannotStarveAnother(t *testing.T) {
	secrets, err := os.ReadFile("../../hooks.d/60-prompt-secrets.lua")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"60-prompt-secrets.lua": string(secrets)}
	// the policy requires lib/secrets.lua, which requires lib/shell.lua
	libs, _ := filepath.Glob("../../hooks.d/lib/*.lua")
	more, _ := filepath.Glob("../../hooks.d/lib/shell/*.lua")
	for _, l := range append(libs, more...) {
		src, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(filepath.ToSlash(l), "../../hooks.d/")] = string(src)
	}
	s := serveHooks(t, server.Limits{}, files)
	// The flood comes from 127.0.0.2, the well-behaved client from 127.0.0.1.
	flooder := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	prompt := strings.Repeat("lorem ipsum ", (8<<20-1<<10)/12)
	flood, _ := json.Marshal(map[string]string{"event": "UserPromptSubmit", "prompt": prompt})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var floods atomic.Int64
	for range 16 {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "POST", s.url, bytes.NewReader(flood))
				if resp, err := flooder.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					floods.Add(1)
				}
			}
		})
	}
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(time.Second) // the flood is under way

	good := &http.Client{Timeout: 20 * time.Second}
	key := "here is my key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n"
	payload, _ := json.Marshal(map[string]string{"event": "UserPromptSubmit", "prompt": key, "sessionId": "good"})
	var worst time.Duration
	for i := range 8 {
		start := time.Now()
		resp, err := good.Post(s.url, "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		worst = max(worst, took)
		if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"action":"deny"`)) || !bytes.Contains(b, []byte("a private key")) {
			t.Errorf("request %d during the flood: %d %s after %v; want the private key denied", i, resp.StatusCode, b, took)
		}
	}
	if worst > 4*time.Second {
		t.Errorf("the well-behaved client waited up to %v for an answer during the flood, want under 4 s", worst)
	}
	t.Logf("16 flooding requests of 8 MiB at a time from 127.0.0.2 (%d answered so far); 8 secrets checks from 127.0.0.1, worst %v",
		floods.Load(), worst.Round(time.Millisecond))
}
