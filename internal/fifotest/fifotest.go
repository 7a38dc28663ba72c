//go:build unix

// Package fifotest helps tests put a named pipe where luahook expects a
// file, without letting a luahook that blocks on it hang the test run.
package fifotest

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Make makes a named pipe at path (mode 0600) and returns path.
func Make(t testing.TB, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
	return path
}

// Within runs f and fails the test when f has not returned after limit.
// Then, so that f can end and the test run does not hang, it opens the
// write end of every pipe in fifos and closes it again (an open blocked on
// the read end returns, and a reader then sees the end of the file) until f
// returns.
func Within(t testing.TB, limit time.Duration, fifos []string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return
	case <-time.After(limit):
		t.Errorf("still blocked after %s on one of %q", limit, fifos)
	}
	for {
		for _, p := range fifos {
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		select {
		case <-done:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}
