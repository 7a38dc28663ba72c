package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/decisionlog"
)

// replicaOptions say how to start one `luahook serve` process of a fleet.
type replicaOptions struct {
	// Hooks is the hooks folder (--dir).
	Hooks string
	// Config, when set, is the text of the replica's luahook.toml (its
	// [store] section chooses the store the replicas share), written
	// beside the decision log and passed as --config.
	Config string
	// Instance is --instance-id.
	Instance string
	// Args are more serve flags (--drain-delay, --grace).
	Args []string
}

// replica is a `luahook serve` run as a real process (this test binary
// under the name luahook) on a free loopback port, its decision log in a
// file. The test's end kills it if it is still running.
type replica struct {
	t        *testing.T
	instance string
	addr     string // 127.0.0.1:PORT
	log      string // the decision log's path
	cmd      *exec.Cmd
	lines    chan string // standard output after the listening line
	stderr   *lockedBuffer
	exited   chan struct{}
	err      error // cmd.Wait's, once exited is closed
}

// startReplica starts a replica and waits for its listening line.
func startReplica(t *testing.T, o replicaOptions) *replica {
	t.Helper()
	dir := t.TempDir()
	r := &replica{t: t, instance: o.Instance, log: filepath.Join(dir, "decisions.jsonl"),
		lines: make(chan string, 64), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	args := []string{"--dir", o.Hooks}
	if o.Config != "" {
		cfg := filepath.Join(dir, "luahook.toml")
		if err := os.WriteFile(cfg, []byte(o.Config), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", cfg)
	}
	args = append(args, "serve", "--addr", "127.0.0.1:0", "--decision-log", r.log, "--instance-id", o.Instance)
	r.cmd = luahookExe(t, append(args, o.Args...)...)
	r.cmd.Stderr = r.stderr
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
		r.err = r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-r.exited:
		default:
			r.cmd.Process.Kill()
			<-r.exited
		}
	})
	m := regexp.MustCompile(`^luahook serve: listening on http://(127\.0\.0\.1:\d+) `).FindStringSubmatch(r.nextLine())
	if m == nil {
		t.Fatalf("replica %s: no listening line; stderr:\n%s", o.Instance, r.stderr)
	}
	r.addr = m[1]
	return r
}

// nextLine returns the replica's next line of standard output, within 30 s.
func (r *replica) nextLine() string {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("replica %s: output ended; stderr:\n%s", r.instance, r.stderr)
		}
		return l
	case <-time.After(30 * time.Second):
		r.t.Fatalf("replica %s: no output within 30 s; stderr:\n%s", r.instance, r.stderr)
	}
	return ""
}

// expectLine fails the test unless the next line of output starts with prefix.
func (r *replica) expectLine(prefix string) {
	r.t.Helper()
	if l := r.nextLine(); !strings.HasPrefix(l, prefix) {
		r.t.Fatalf("replica %s: output %q, want %q...", r.instance, l, prefix)
	}
}

// terminate sends SIGTERM.
func (r *replica) terminate() {
	r.t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		r.t.Fatal(err)
	}
}

// wait returns the replica's exit error once it exited, within 60 s.
func (r *replica) wait() error {
	r.t.Helper()
	select {
	case <-r.exited:
		return r.err
	case <-time.After(60 * time.Second):
		r.t.Fatalf("replica %s did not exit within 60 s; stderr:\n%s", r.instance, r.stderr)
	}
	return nil
}

// records reads the replica's decision log (complete once it exited).
func (r *replica) records() []decisionlog.Record {
	r.t.Helper()
	data, err := os.ReadFile(r.log)
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	var out []decisionlog.Record
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec decisionlog.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			r.t.Fatalf("replica %s: decision log line %q: %v", r.instance, line, err)
		}
		out = append(out, rec)
	}
	return out
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// haproxyCfg is the fleet example's load balancer config, which the tests
// run as shipped.
var haproxyCfg = filepath.Join("..", "..", "examples", "fleet", "haproxy.cfg")

// startHAProxy runs haproxy in the foreground with the fleet example's
// config in front of the replicas a and b, and returns its address once it
// answers /readyz through a ready replica. Without haproxy the test is
// skipped, with a message, outside CI and fails in CI.
func startHAProxy(t *testing.T, a, b *replica) string {
	t.Helper()
	return runHAProxy(t, a, b, true)
}

// startHAProxyWhenUnready is startHAProxy for replicas that are not ready:
// it returns once haproxy's checks marked both down.
func startHAProxyWhenUnready(t *testing.T, a, b *replica) string {
	t.Helper()
	return runHAProxy(t, a, b, false)
}

func runHAProxy(t *testing.T, a, b *replica, ready bool) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("SKIP: haproxy is not installed (apt-get install haproxy); the fleet test needs a real load balancer")
		}
		t.Fatalf("haproxy is needed in CI: %v", err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-db", "-f", haproxyCfg)
	cmd.Env = append(os.Environ(), "LUAHOOK_LB_ADDR="+addr, "LUAHOOK_A_ADDR="+a.addr, "LUAHOOK_B_ADDR="+b.addr)
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
	if !ready {
		eventually(t, "haproxy marks both replicas down", func() bool {
			o := out.String()
			return strings.Contains(o, "replicas/a is DOWN") && strings.Contains(o, "replicas/b is DOWN")
		})
		return addr
	}
	eventually(t, "haproxy answers /readyz through a replica", func() bool {
		select {
		case <-done:
			t.Fatalf("haproxy exited:\n%s", out)
		default:
		}
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return addr
}

// loadResult is what sendLoad saw: each answer's body counted, and every
// request that did not get a 200.
type loadResult struct {
	mu      sync.Mutex
	bodies  map[string]int
	failed  []string
	answers int
}

func (l *loadResult) add(body string, failure error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if failure != nil {
		l.failed = append(l.failed, failure.Error())
		return
	}
	l.bodies[body]++
	l.answers++
}

// count returns how many answers came so far.
func (l *loadResult) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.answers
}

// sendLoad posts payload(i) to url from clients goroutines, keep-alive,
// until stop is closed, and records each answer.
func sendLoad(url string, clients int, payload func(i int) string, stop <-chan struct{}) (*loadResult, func()) {
	res := &loadResult{bodies: map[string]int{}}
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	var wg sync.WaitGroup
	var next struct {
		sync.Mutex
		i int
	}
	for range clients {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				next.Lock()
				i := next.i
				next.i++
				next.Unlock()
				resp, err := client.Post(url, "application/json", strings.NewReader(payload(i)))
				if err != nil {
					res.add("", err)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					res.add("", err)
				case resp.StatusCode != http.StatusOK:
					res.add("", fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b)))
				default:
					res.add(string(bytes.TrimSpace(b)), nil)
				}
			}
		})
	}
	return res, func() { wg.Wait(); tr.CloseIdleConnections() }
}
