package decisionlog

import (
	"testing"
	"time"
)

// A logger's writer thread is kept for the next logger when it closes,
// never ended: an ended thread would kill the child processes it started
// with a parent-death signal (a host's, a test's redis-server). Loggers
// opened and closed one after another all write on one thread.
func TestClosedLoggersLeaveTheirThreadForTheNext(t *testing.T) {
	open := func() {
		l, err := New(Options{Sink: Func(func(Record) {})})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	open() // an idle writer thread now exists
	// Close returns once the writer's loop is done; its thread then waits
	// for the next one, which may take it a moment.
	time.Sleep(50 * time.Millisecond)
	before := writerThreads.Load()
	for range 30 {
		open()
		time.Sleep(10 * time.Millisecond)
	}
	if made := writerThreads.Load() - before; made > 15 {
		t.Fatalf("30 loggers opened and closed one after another made %d writer threads, want them to reuse the one kept", made)
	}
}
