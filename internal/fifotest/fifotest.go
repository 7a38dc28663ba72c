//go:build unix

// Package fifotest helps tests put a named pipe where luahook expects a
// file, without letting a luahook that blocks on it hang the test run.
package fifotest

import (
	"fmt"
	"os"
	"runtime/metrics"
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
// Then, so that f can end and the test run does not hang, it opens each
// end of every pipe in fifos and closes it again (an open blocked on the
// other end returns; a reader then sees the end of the file, a writer a
// broken pipe) until f returns.
//
// While f runs, the process's live heap is watched: f reading a device
// that never ends (/dev/zero) would take the machine's memory, so past
// MaxHeap the test binary reports it and exits at once.
func Within(t testing.TB, limit time.Duration, fifos []string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	go watchHeap(t.Name(), done)
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
			if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				time.Sleep(10 * time.Millisecond)
				r.Close()
			}
		}
		select {
		case <-done:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// MaxHeap is the live heap past which Within ends the test binary.
const MaxHeap = 512 << 20

func watchHeap(name string, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if heap := sample[0].Value.Uint64(); heap > MaxHeap {
			fmt.Fprintf(os.Stderr, "%s: FAIL: the live heap reached %d MiB (more than %d MiB): something is read without a limit; exiting\n",
				name, heap>>20, MaxHeap>>20)
			os.Exit(3)
		}
	}
}
