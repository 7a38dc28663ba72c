package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// The breaker opens after its number of failed calls in a row (a success
// starts the count again, a cancelled call counts for nothing), refuses
// calls while open with store.ErrUnavailable, lets one call try after the
// cool-down, closes when it succeeds and opens again when it fails; calls
// that were in flight when it opened count for nothing.
func TestBreakerOpensOnFailuresInARowAndClosesOnAGoodTry(t *testing.T) {
	b := newBreaker(3, time.Hour)
	call := func(o outcome) {
		t.Helper()
		probe, err := b.allow("127.0.0.1:6379")
		if err != nil {
			t.Fatalf("a call was refused while the breaker is %s: %v", breakerStateNames[b.state.Load()], err)
		}
		b.record(probe, o, "no answer within the call's timeout of 1s")
	}
	state := func() string { return breakerStateNames[b.state.Load()] }
	endCooldown := func() {
		b.mu.Lock()
		b.until = time.Now()
		b.mu.Unlock()
	}

	for _, o := range []outcome{outcomeFailed, outcomeFailed, outcomeOK, outcomeFailed, outcomeFailed, outcomeNeutral} {
		call(o)
	}
	if state() != "closed" {
		t.Fatalf("after fail, fail, ok, fail, fail, cancelled: %s, want closed", state())
	}
	call(outcomeFailed)
	if state() != "open" || b.trips.Load() != 1 {
		t.Fatalf("after the third failure in a row: %s, %d trips; want open, 1", state(), b.trips.Load())
	}
	_, err := b.allow("127.0.0.1:6379")
	want := "store: redis at 127.0.0.1:6379: unavailable: the breaker is open for "
	if !errors.Is(err, store.ErrUnavailable) || !strings.HasPrefix(err.Error(), want) ||
		!strings.HasSuffix(err.Error(), " more, after 3 failed calls in a row (the last: no answer within the call's timeout of 1s)") {
		t.Fatalf("a call while open: %v; want store.ErrUnavailable starting %q", err, want)
	}

	endCooldown()
	probe, err := b.allow("127.0.0.1:6379")
	if !probe || err != nil || state() != "half-open" {
		t.Fatalf("the first call after the cool-down: probe %v, %v, %s; want the try, half-open", probe, err, state())
	}
	if _, err := b.allow("127.0.0.1:6379"); !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), ": unavailable: the breaker is half-open, one call is trying the server, after 3 failed calls in a row") {
		t.Fatalf("a call while another tries the server: %v", err)
	}
	b.record(true, outcomeFailed, "connect: connection refused")
	if _, err := b.allow("a"); state() != "open" || err == nil || !strings.Contains(err.Error(), "(the last: connect: connection refused)") || b.trips.Load() != 1 {
		t.Fatalf("after a failed try: %s, %v, %d trips; want open again, not a new trip", state(), err, b.trips.Load())
	}

	endCooldown()
	probe, _ = b.allow("a")
	b.record(probe, outcomeNeutral, "")
	if state() != "half-open" || b.probing {
		t.Fatalf("after a try whose caller gave up: %s, probing %v; want half-open, the next call trying", state(), b.probing)
	}
	call(outcomeOK)
	if state() != "closed" {
		t.Fatalf("after a good try: %s, want closed", state())
	}

	// Five calls in flight; three fail and open it, the other two fail
	// after: one trip, and the count starts from zero when it closes.
	probes := make([]bool, 5)
	for i := range probes {
		probes[i], _ = b.allow("a")
	}
	for i := range probes {
		b.record(probes[i], outcomeFailed, "the server closed the connection")
	}
	if state() != "open" || b.trips.Load() != 2 {
		t.Fatalf("five calls in flight failing: %s, %d trips; want open, 2", state(), b.trips.Load())
	}
	endCooldown()
	call(outcomeOK)
	call(outcomeFailed)
	call(outcomeFailed)
	if state() != "closed" {
		t.Fatalf("two failures after it closed: %s, want closed (the failures of the calls in flight are forgotten)", state())
	}
}

// The cool-down is the configured one plus up to as much again, at random.
func TestBreakerCooldownIsJittered(t *testing.T) {
	b := newBreaker(1, time.Second)
	seen := map[time.Duration]bool{}
	for range 20 {
		b.mu.Lock()
		start := time.Now()
		b.open("x")
		wait := b.until.Sub(start)
		b.mu.Unlock()
		if wait < time.Second || wait >= 2*time.Second+time.Millisecond {
			t.Fatalf("a cool-down of %v, want within [1s, 2s)", wait)
		}
		seen[wait.Truncate(time.Millisecond)] = true
	}
	if len(seen) < 2 {
		t.Errorf("20 cool-downs took %d distinct lengths: no jitter", len(seen))
	}
}
