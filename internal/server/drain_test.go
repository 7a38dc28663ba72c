package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startServer serves h on a fresh loopback port with a Server and returns
// it with its address; Serve's result arrives on the channel.
func startServer(t *testing.T, h http.Handler) (*Server, string, <-chan error) {
	t.Helper()
	s := Limits{}.NewServer(h, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln, nil) }()
	t.Cleanup(func() { s.Close() })
	return s, ln.Addr().String(), served
}

// okHandler reads the body and answers it back.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
})

// TestShutdownLosesNoRequestSentOnAKeptAliveConnection: clients sending
// request after request on kept-alive connections while the server shuts
// down get an answer to every request they wrote; what they cannot get is
// a new connection once the server stopped accepting, which they learn
// before sending anything. net/http's own Shutdown closes connections it
// counts as idle while the next request is on its way (EOF).
func TestShutdownLosesNoRequestSentOnAKeptAliveConnection(t *testing.T) {
	const clients = 16
	s, addr, served := startServer(t, okHandler)
	var (
		answered    atomic.Int64 // answers, all clients
		afterDrain  atomic.Int64 // answers on a kept-alive connection after Shutdown began
		closeSeen   atomic.Int64 // answers with Connection: close
		shutdownRan atomic.Bool
		mu          sync.Mutex
		lost        []string
	)
	warm := make(chan struct{}, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			tr := &http.Transport{MaxIdleConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			for n := 0; ; n++ {
				var wrote, reused bool
				trace := &httptrace.ClientTrace{
					GotConn:      func(info httptrace.GotConnInfo) { reused = info.Reused },
					WroteRequest: func(httptrace.WroteRequestInfo) { wrote = true },
				}
				body := fmt.Sprintf(`{"client":%d,"n":%d}`, i, n)
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", "http://"+addr+"/", strings.NewReader(body))
				draining := shutdownRan.Load()
				resp, err := c.Do(req)
				if err != nil {
					if wrote {
						mu.Lock()
						lost = append(lost, fmt.Sprintf("client %d request %d (reused connection %v): %v", i, n, reused, err))
						mu.Unlock()
					}
					// Not written: no connection could be had; the server
					// stopped accepting.
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != body {
					mu.Lock()
					lost = append(lost, fmt.Sprintf("client %d request %d: answer %q, %v", i, n, b, err))
					mu.Unlock()
					return
				}
				answered.Add(1)
				if resp.Close {
					closeSeen.Add(1)
				}
				if draining && reused {
					afterDrain.Add(1)
				}
				if n == 20 {
					warm <- struct{}{}
				}
			}
		})
	}
	for range clients {
		<-warm
	}
	shutdownRan.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	wg.Wait()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	for _, l := range lost {
		t.Error("lost: " + l)
	}
	if afterDrain.Load() == 0 || closeSeen.Load() == 0 {
		t.Errorf("%d answers on kept-alive connections after the shutdown began, %d with Connection: close: the shutdown did not meet requests on their way",
			afterDrain.Load(), closeSeen.Load())
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("%d connections open after Shutdown", n)
	}
	t.Logf("%d answers, %d on kept-alive connections after the shutdown began, %d with Connection: close", answered.Load(), afterDrain.Load(), closeSeen.Load())
}

// rawExchange writes one request on c and reads its answer.
func rawExchange(t *testing.T, c net.Conn, r *bufio.Reader, body string) *http.Response {
	t.Helper()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to %s: %v", body, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != body {
		t.Fatalf("answer %q to %q", b, body)
	}
	return resp
}

// TestDrainAnswersTheNextRequestAndClosesOnlyQuietConnections: once the
// server drains, a request on a kept-alive connection is answered with
// Connection: close, and a connection that stays idle is closed.
func TestDrainAnswersTheNextRequestAndClosesOnlyQuietConnections(t *testing.T) {
	s, addr, _ := startServer(t, okHandler)
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	quiet, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	br, qr := bufio.NewReader(busy), bufio.NewReader(quiet)
	if resp := rawExchange(t, busy, br, `"a"`); resp.Close {
		t.Fatal("closed before the drain")
	}
	rawExchange(t, quiet, qr, `"b"`)

	s.Drain()
	if resp := rawExchange(t, busy, br, `"c"`); !resp.Close {
		t.Error("a request after the drain began was answered without Connection: close")
	}
	for name, r := range map[string]*bufio.Reader{"the answered one": br, "the idle one": qr} {
		c := busy
		if name == "the idle one" {
			c = quiet
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := r.ReadByte(); err != io.EOF {
			t.Errorf("%s: read %v, want the server to close it (EOF)", name, err)
		}
	}
	eventually(t, "every connection closed", func() bool { return s.Conns() == 0 })
	// Draining, the server still accepts: a load balancer may send more.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("a drain stopped accepting: %v", err)
	}
	defer c.Close()
	if resp := rawExchange(t, c, bufio.NewReader(c), `"d"`); !resp.Close {
		t.Error("a new connection's answer while draining lacks Connection: close")
	}
}

func TestStopAcceptingServesTheOpenConnectionsAndNoNewOne(t *testing.T) {
	s, addr, served := startServer(t, okHandler)
	open, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	r := bufio.NewReader(open)
	rawExchange(t, open, r, `1`)
	s.StopAccepting()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("a connection was accepted after StopAccepting")
	}
	rawExchange(t, open, r, `2`)
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 15 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
