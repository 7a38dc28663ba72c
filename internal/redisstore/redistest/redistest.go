// Package redistest starts real redis-server processes for tests: each on a
// free port of 127.0.0.1, with no persistence, in the test's temporary
// folder, stopped when the test ends.
//
// A test that needs one skips, saying why, when no redis-server binary can
// be found and the environment variable CI is unset; under CI it fails, so
// that a CI machine without the server cannot pass by skipping.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startWithin bounds how long a server may take to answer its first PING.
const startWithin = 15 * time.Second

// Server is a redis-server a test started.
type Server struct {
	t    testing.TB
	args []string // further redis-server arguments
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has exited
}

// Binary returns the path of redis-server, or skips t (fails it under CI)
// when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("redis-server not found (CI is set, so the Redis store tests must run): %v", err)
	}
	t.Skipf("SKIP: redis-server not found (%v); install it (apt-get install redis-server) to run the Redis store tests", err)
	return ""
}

// Start starts a redis-server on a free port and stops it when t ends;
// args are further redis-server arguments ("--requirepass", "pw").
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	s := &Server{t: t, args: args, bin: Binary(t), dir: t.TempDir(), port: freePort(t)}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// Addr returns the server's "127.0.0.1:port".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

func (s *Server) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--daemonize", "no", "--loglevel", "warning")
	cmd.Args = append(cmd.Args, s.args...)
	out, err := os.Create(filepath.Join(s.dir, fmt.Sprintf("redis-%d.log", time.Now().UnixNano())))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		s.t.Fatalf("starting redis-server: %v", err)
	}
	exit := make(chan struct{})
	go func() {
		cmd.Wait()
		out.Close()
		close(exit)
	}()
	s.cmd, s.exit = cmd, exit
	c := s.Client()
	defer c.Close()
	deadline := time.Now().Add(startWithin)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exit:
			log, _ := os.ReadFile(out.Name())
			s.t.Fatalf("redis-server on port %d exited: %s", s.port, strings.TrimSpace(string(log)))
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on port %d did not answer within %v: %v", s.port, startWithin, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit; it may be called more
// than once.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
}

// Suspend stops the server's process (SIGSTOP), as a server that hangs:
// connections are still accepted by the kernel and commands sent, but
// nothing answers, not even PING, until Resume. Stop may be called on a
// suspended server.
func (s *Server) Suspend() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("SIGSTOP to redis-server: %v", err)
	}
}

// Resume continues a server Suspend stopped (SIGCONT). It may be called
// when the server is not suspended, or stopped.
func (s *Server) Resume() {
	if s.cmd != nil {
		s.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// Restart starts the server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Client returns a client of the server, for the test's own commands
// (CLIENT PAUSE, FLUSHALL, ...). The caller closes it.
func (s *Server) Client() *redis.Client {
	o := &redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1}
	for i, a := range s.args {
		if a == "--requirepass" && i+1 < len(s.args) {
			o.Password = s.args[i+1]
		}
	}
	return redis.NewClient(o)
}

// Pause makes the server hold, for d, every command that may write (CLIENT
// PAUSE WRITE): SET, DEL, EVAL and EVALSHA (store.set, store.delete and
// store.incr) get no answer, while reads and Unpause still do.
func (s *Server) Pause(d time.Duration) {
	s.t.Helper()
	c := s.Client()
	defer c.Close()
	if err := c.Do(context.Background(), "CLIENT", "PAUSE", d.Milliseconds(), "WRITE").Err(); err != nil {
		s.t.Fatalf("CLIENT PAUSE: %v", err)
	}
}

// Unpause ends a Pause.
func (s *Server) Unpause() {
	s.t.Helper()
	c := s.Client()
	defer c.Close()
	if err := c.Do(context.Background(), "CLIENT", "UNPAUSE").Err(); err != nil {
		s.t.Fatalf("CLIENT UNPAUSE: %v", err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
