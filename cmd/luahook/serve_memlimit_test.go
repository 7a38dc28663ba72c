package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestServeSetsASoftMemoryLimitUnderItsBound: serve gives the Go runtime a
// soft memory limit at three quarters of its documented bound (four bytes
// per byte in flight, the store, 256 MiB), unless the operator set
// GOMEMLIMIT or lifted the bound on the bodies in flight.
func TestServeSetsASoftMemoryLimitUnderItsBound(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")

	debug.SetMemoryLimit(1 << 62)
	setServeMemoryLimit(128<<20, 64<<20)
	if got, want := debug.SetMemoryLimit(-1), int64(624<<20); got != want {
		t.Errorf("the default limits: memory limit %d MiB, want %d MiB (3/4 of 832 MiB)", got>>20, want>>20)
	}
	for _, c := range []struct {
		name            string
		inFlight, store int64
		env             string
	}{
		{"GOMEMLIMIT set", 128 << 20, 64 << 20, "1GiB"},
		{"no bound in flight", -1, 64 << 20, ""},
	} {
		debug.SetMemoryLimit(1 << 62)
		if c.env != "" {
			t.Setenv("GOMEMLIMIT", c.env)
		} else {
			os.Unsetenv("GOMEMLIMIT")
		}
		setServeMemoryLimit(c.inFlight, int(c.store))
		if got := debug.SetMemoryLimit(-1); got != 1<<62 {
			t.Errorf("%s: memory limit changed to %d MiB, want it left alone", c.name, got>>20)
		}
	}
}
