package security

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/server"
)

// serving is `luahook serve` in-process: the shipped kind of policy behind
// server.Handler, on a loopback listener, with the serve command's limits.
type serving struct {
	url     string
	open    atomic.Int64 // server-side connections open now
	maxOpen atomic.Int64 // the most open at once
}

func serve(t *testing.T, lim server.Limits) *serving {
	t.Helper()
	return serveHooks(t, lim, map[string]string{"rm.lua": `
hook.register("PreToolUse", "bash", function(input)
  if (input.toolInput.command or ""):find("rm -rf", 1, true) then return hook.deny("rm -rf is blocked") end
end)`})
}

// serveHooks is serve with the hook files given.
func serveHooks(t *testing.T, lim server.Limits, files map[string]string) *serving {
	t.Helper()
	e := open(t, engine.Options{Dir: hooksDir(t, files)})
	s := &serving{}
	srv := lim.HTTPServer(server.New(e.Runner(), server.Options{Limits: lim}), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(lim.Listener(&countingListener{Listener: ln, s: s})) }()
	t.Cleanup(func() { srv.Close(); <-done })
	s.url = "http://" + ln.Addr().String()
	return s
}

// countingListener counts the sockets open on the server's side: a
// connection counts from its accept to its close.
type countingListener struct {
	net.Listener
	s *serving
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	n := l.s.open.Add(1)
	for m := l.s.maxOpen.Load(); n > m && !l.s.maxOpen.CompareAndSwap(m, n); m = l.s.maxOpen.Load() {
	}
	return &countedConn{Conn: c, s: l.s}, nil
}

type countedConn struct {
	net.Conn
	s    *serving
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.s.open.Add(-1) })
	return err
}

// decide asks for a decision as a well-behaved client and checks it.
func (s *serving) decide(c *http.Client) (time.Duration, error) {
	start := time.Now()
	resp, err := c.Post(s.url, "application/json",
		strings.NewReader(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"},"cwd":"/"}`))
	if err != nil {
		return 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"rm -rf is blocked"`)) {
		return 0, fmt.Errorf("answer %d %s", resp.StatusCode, body)
	}
	return time.Since(start), nil
}

func dialN(t *testing.T, url string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return conns
}

func fds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1 // not Linux: not measured
	}
	return len(ents)
}

// waitFor polls cond until it holds or the timeout passes: the server closes
// connections on its own clock, and nothing signals it.
func waitFor(timeout time.Duration, cond func() bool) bool {
	end := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestServeKeepsAnsweringUnderAbuseWithBoundedResources(t *testing.T) {
	const (
		idle      = 500
		slow      = 100
		headerFor = time.Second
	)
	s := serve(t, server.Limits{ReadHeaderTimeout: headerFor})
	good := &http.Client{Timeout: 10 * time.Second}
	if _, err := s.decide(good); err != nil { // warm: a keep-alive connection
		t.Fatal(err)
	}
	runtime.GC()
	baseG, baseFD := runtime.NumGoroutine(), fds(t)

	var worst time.Duration
	var answered, duringG, duringFD int
	_, growth := heapPeak(func() {
		idleConns := dialN(t, s.url, idle)
		slowConns := dialN(t, s.url, slow)
		for _, c := range slowConns {
			io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\n")
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		// Slowloris: one more header byte per connection every 50 ms.
		wg.Go(func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					for _, c := range slowConns {
						c.Write([]byte("X"))
					}
				}
			}
		})
		// Oversized headers and malformed bodies, from fresh connections.
		abuse := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		statuses := map[int]int{}
		var mu sync.Mutex
		for i := range 40 {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", s.url, strings.NewReader(`{"event":`))
				if i%2 == 0 {
					req.Header.Set("X-Big", strings.Repeat("x", 100<<10))
				}
				resp, err := abuse.Do(req)
				if err != nil {
					t.Errorf("abusive request %d: %v", i, err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			})
		}
		// Meanwhile the well-behaved client keeps getting decisions.
		for range 50 {
			took, err := s.decide(good)
			if err != nil {
				t.Errorf("well-behaved client: %v", err)
				continue
			}
			answered++
			worst = max(worst, took)
		}
		duringG, duringFD = runtime.NumGoroutine(), fds(t)
		if g := duringG; g > baseG+idle+slow+200 {
			t.Errorf("goroutines: %d, more than one per abusive connection over the %d before", g, baseG)
		}
		close(stop)
		wg.Wait()
		if statuses[431] != 20 || statuses[400] != 20 {
			t.Errorf("answers to the abusive requests: %v, want 20 × 431 (oversized headers) and 20 × 400 (malformed bodies)", statuses)
		}
		// Every slow and idle connection is cut once its header time is up.
		if !waitFor(headerFor+5*time.Second, func() bool { return s.open.Load() <= 1 }) {
			t.Errorf("%d server connections still open %v after the abuse began", s.open.Load(), headerFor+5*time.Second)
		}
		for _, c := range append(idleConns[:5:5], slowConns[:5]...) {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Read(make([]byte, 512)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
				// A slow client may get a 408 first; the next read ends it.
				if _, err := c.Read(make([]byte, 512)); errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("an abusive connection was not closed by the server")
				}
			}
		}
	})
	if worst > 2*time.Second {
		t.Errorf("the well-behaved client waited up to %v for a decision during the abuse, want under 2 s", worst)
	}
	if growth > 128<<20 {
		t.Errorf("heap grew by %d MiB during the abuse, want under 128 MiB", growth>>20)
	}
	t.Logf("%d idle + %d slowloris connections, 20 oversized headers, 20 malformed bodies: %d/50 decisions, worst latency %v, at most %d server connections, heap growth %d MiB, goroutines %d -> %d, fds (both ends) %d -> %d",
		idle, slow, answered, worst.Round(time.Millisecond), s.maxOpen.Load(), growth>>20, baseG, duringG, baseFD, duringFD)
}

func TestServeHoldsAtMostMaxConnsConnections(t *testing.T) {
	const maxConns, headerFor = 8, 500 * time.Millisecond
	s := serve(t, server.Limits{MaxConns: maxConns, ReadHeaderTimeout: headerFor})
	dialN(t, s.url, 24) // idle: they hold every slot until their header time is up
	waitFor(2*time.Second, func() bool { return s.open.Load() == maxConns })
	took, err := s.decide(&http.Client{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The well-behaved client waits for the idle ones ahead of it to time out,
	// a few header periods at most, never forever.
	if took > 24/maxConns*headerFor+5*time.Second {
		t.Errorf("a decision took %v with every slot held by idle clients", took)
	}
	if m := s.maxOpen.Load(); m > maxConns {
		t.Errorf("%d connections open at once, want at most %d", m, maxConns)
	}
	t.Logf("24 idle connections against max %d: at most %d open, a decision in %v", maxConns, s.maxOpen.Load(), took.Round(time.Millisecond))
}
