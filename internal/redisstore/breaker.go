package redisstore

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// Defaults of the breaker (Options.BreakerFailures, BreakerCooldown).
const (
	// DefaultBreakerFailures is how many calls in a row must fail for the
	// breaker to open (3): one failure is a dropped connection, three with
	// no success between them is a server that is down or hung.
	DefaultBreakerFailures = 3
	// DefaultBreakerCooldown is how long the breaker stays open before it
	// lets a call try the server again (1 s, plus up to as much again at
	// random, so that the replicas of a fleet do not all try at once).
	DefaultBreakerCooldown = time.Second
)

type breakerState int32

const (
	breakerClosed   breakerState = iota // calls go to the server
	breakerOpen                         // calls fail at once until the cool-down ends
	breakerHalfOpen                     // one call tries the server; the others fail at once
)

var breakerStateNames = [...]string{"closed", "open", "half-open"}

// outcome is what a call says of the server's health.
type outcome uint8

const (
	// outcomeOK: the server answered, with a value or an error reply.
	outcomeOK outcome = iota
	// outcomeFailed: no connection, no answer within the call's timeout
	// or the hook's deadline, a closed connection, a refused reply.
	outcomeFailed
	// outcomeNeutral: the caller gave up (its context was cancelled),
	// which says nothing of the server.
	outcomeNeutral
)

// breaker stops a Store from sending calls to a server that failed its
// last ones: once its number of failures in a row is reached it opens, and
// every call fails at once (a hook fails fast and gives its Lua state back,
// rather than each waiting out the call's timeout); after the cool-down one
// call goes to the server (half-open): if it succeeds the breaker closes,
// if it fails the breaker opens again. Calls that were in flight when it
// opened count for nothing.
//
// A call on the closed breaker costs two atomic loads.
type breaker struct {
	failures int32
	cooldown time.Duration

	state atomic.Int32 // breakerState
	fails atomic.Int32 // failures in a row, while closed
	trips atomic.Uint64

	mu      sync.Mutex
	until   time.Time // while open: when a call may try the server
	probing bool      // while half-open: a call is trying the server
	cause   string    // the failure that opened it
}

func newBreaker(failures int, cooldown time.Duration) *breaker {
	if failures <= 0 {
		failures = DefaultBreakerFailures
	}
	if cooldown <= 0 {
		cooldown = DefaultBreakerCooldown
	}
	return &breaker{failures: int32(min(failures, 1<<20)), cooldown: cooldown}
}

// allow says whether a call may go to the server: probe is true for the
// one call that tries it while half-open; a call refused gets the error
// it fails with.
func (b *breaker) allow(addr string) (probe bool, err error) {
	if breakerState(b.state.Load()) == breakerClosed {
		return false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch breakerState(b.state.Load()) {
	case breakerClosed:
		return false, nil
	case breakerOpen:
		if wait := time.Until(b.until); wait > 0 {
			return false, &unavailableError{addr: addr, failures: int(b.failures), cause: b.cause, wait: wait}
		}
		b.state.Store(int32(breakerHalfOpen))
	}
	if b.probing {
		return false, &unavailableError{addr: addr, failures: int(b.failures), cause: b.cause}
	}
	b.probing = true
	return true, nil
}

// record counts the end of a call that allow let through; cause is the
// failure's text, for the error of the calls the breaker will refuse.
func (b *breaker) record(probe bool, o outcome, cause string) {
	if probe {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.probing = false
		switch o {
		case outcomeOK:
			b.fails.Store(0)
			b.state.Store(int32(breakerClosed))
		case outcomeFailed:
			b.open(cause)
		}
		return
	}
	switch o {
	case outcomeOK:
		if b.fails.Load() != 0 {
			b.fails.Store(0)
		}
	case outcomeFailed:
		if b.fails.Add(1) < b.failures || breakerState(b.state.Load()) != breakerClosed {
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if breakerState(b.state.Load()) == breakerClosed {
			b.trips.Add(1)
			b.open(cause)
		}
	}
}

// open opens the breaker for the cool-down and a random part of it again.
// b.mu is held.
func (b *breaker) open(cause string) {
	b.until = time.Now().Add(b.cooldown + rand.N(b.cooldown))
	b.cause = cause
	b.fails.Store(0)
	b.state.Store(int32(breakerOpen))
}

// unavailableError is the error of a call the breaker refused.
type unavailableError struct {
	addr     string
	failures int
	cause    string        // the failure that opened the breaker
	wait     time.Duration // until a call tries the server; 0: one is trying it
}

func (e *unavailableError) Error() string {
	state := "half-open, one call is trying the server"
	if e.wait > 0 {
		state = fmt.Sprintf("open for %v more", e.wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("store: redis at %s: unavailable: the breaker is %s, after %d failed calls in a row (the last: %s)",
		e.addr, state, e.failures, e.cause)
}

// Is makes the error store.ErrUnavailable.
func (e *unavailableError) Is(target error) bool { return target == store.ErrUnavailable }
