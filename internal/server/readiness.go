package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the store's readiness probe (Options.StoreCheck).
const (
	// DefaultStoreCheckTimeout bounds one round trip to the store made for
	// /readyz (500 ms): a store slower than that is not ready to serve
	// hooks that use it.
	DefaultStoreCheckTimeout = 500 * time.Millisecond
	// DefaultStoreCheckEvery is how long the result of a store probe
	// answers /readyz (1 s), so that a storm of probes from load balancers
	// makes at most one round trip to the store a second per replica.
	DefaultStoreCheckEvery = time.Second
)

// Readiness statuses of /readyz beyond "ok" and "degraded".
const (
	// StatusUnready is /readyz's status while the store does not answer.
	StatusUnready = "unready"
	// StatusDraining is /readyz's status once Drain was called.
	StatusDraining = "draining"
)

// storeProbe checks the store for /readyz at most once per every, each
// check bounded by timeout; between checks it answers with the last result.
// Concurrent probes wait for the one check in progress rather than start
// their own.
type storeProbe struct {
	check   func(context.Context) error
	timeout time.Duration
	every   time.Duration

	mu   sync.Mutex
	at   time.Time // when err was found; zero: never checked
	err  error
	runs atomic.Int64 // checks made, for tests
}

func newStoreProbe(check func(context.Context) error, timeout, every time.Duration) *storeProbe {
	if check == nil {
		return nil
	}
	if timeout <= 0 {
		timeout = DefaultStoreCheckTimeout
	}
	if every <= 0 {
		every = DefaultStoreCheckEvery
	}
	return &storeProbe{check: check, timeout: timeout, every: every}
}

// result returns the store's state: the last check's error if it is
// recent, else that of a new check. A nil probe (no store check) is ready.
func (p *storeProbe) result(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && time.Since(p.at) < p.every {
		return p.err
	}
	// The probe's own deadline, not the request's: a load balancer that
	// hangs up early must not make the store look down to the next one.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	p.runs.Add(1)
	p.err = p.check(cctx)
	if p.err == nil && cctx.Err() != nil {
		p.err = cctx.Err()
	}
	p.at = time.Now()
	return p.err
}

// Drain makes /readyz answer 503 {"status":"draining"} from now on, so that
// load balancers take the replica out of rotation, while the handler goes
// on answering hook requests. serve calls it on SIGTERM, --drain-delay
// before it stops accepting connections. Drain may be called more than once.
func (h *Handler) Drain() { h.draining.Store(true) }

// Draining reports whether Drain was called.
func (h *Handler) Draining() bool { return h.draining.Load() }
