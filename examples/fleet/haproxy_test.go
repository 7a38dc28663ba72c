// Package fleet holds the test of the fleet example's haproxy.cfg, run for
// real in front of two stand-in replicas. (The example's replicas, Redis
// and HAProxy together are tested in cmd/luahook.)
package fleet

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// When no replica is ready (the store is away and every /readyz answers
// 503), haproxy.cfg sends the calls to both replicas, round robin, through
// its backup servers: without `option allbackups`, HAProxy sent every call
// to the first backup, one replica taking the whole fleet's load.
func TestWhenNoReplicaIsReadyTheBackupsShareTheCalls(t *testing.T) {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("haproxy is needed in CI: %v", err)
		}
		t.Skip("SKIP: haproxy is not installed (apt-get install haproxy); the test runs haproxy.cfg for real")
	}
	var calls [2]atomic.Int64
	replica := func(i int) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/readyz" {
				http.Error(w, `{"status":"unready","store":"store: redis at 127.0.0.1:6379: connect: connection refused"}`, http.StatusServiceUnavailable)
				return
			}
			calls[i].Add(1)
			io.WriteString(w, `{"action":"deny","reason":"fail-closed"}`)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := replica(0), replica(1)
	lb := freeAddr(t)
	cmd := exec.Command(bin, "-db", "-f", "haproxy.cfg")
	cmd.Env = append(os.Environ(), "LUAHOOK_LB_ADDR="+lb,
		"LUAHOOK_A_ADDR="+strings.TrimPrefix(a.URL, "http://"), "LUAHOOK_B_ADDR="+strings.TrimPrefix(b.URL, "http://"))
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("haproxy's output:\n%s", out)
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; {
		o := out.String()
		if strings.Contains(o, "replicas/a is DOWN") && strings.Contains(o, "replicas/b is DOWN") {
			break
		}
		select {
		case <-done:
			t.Fatalf("haproxy exited:\n%s", o)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("haproxy did not mark both replicas down within 15 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	const n = 40
	for i := range n {
		resp, err := http.Post("http://"+lb+"/", "application/json", strings.NewReader(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte("fail-closed")) {
			t.Fatalf("call %d through haproxy with no replica ready = %d %s, want a replica's answer", i, resp.StatusCode, body)
		}
	}
	if na, nb := calls[0].Load(), calls[1].Load(); na < n/4 || nb < n/4 {
		t.Errorf("with no replica ready, replica a answered %d calls and b %d of %d: want both a share", na, nb, n)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

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
