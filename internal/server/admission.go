package server

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// admission decides when a hook request may read its body: it bounds the
// body bytes that the requests in flight hold, overall and per client, and
// the requests each client has in flight, so that neither one client nor a
// crowd of them can take the memory or the Lua states that the others need.
//
// A request reserves its announced Content-Length (the body cap when it
// announces none) before it reads a byte, in three places and always in the
// same order: a request slot of its client, its client's share of bytes,
// then the global budget. Each is served in arrival order, and a request
// holds its reservations until its answer is written, so requests never wait
// on one another in a cycle. A request that cannot get them all within the
// wait bound is refused (errOverloaded); one whose client goes away stops
// waiting.
//
// Bodies of at most smallBody bytes (the size of ordinary hook payloads)
// reserve from a lane of their own, a sixteenth of the global budget, so
// that large or slow bodies holding the rest can delay them only within
// their own client's share.
type admission struct {
	global      *budget // nil: no global bound
	small       *budget // the lane of small bodies; nil when global is
	clientReqs  int64   // <= 0: no bound
	clientBytes int64   // <= 0: no bound
	wait        time.Duration
	mu          sync.Mutex
	clients     map[clientKey]*clientShare // clients with a request in flight or waiting
}

// clientShare is what one client holds.
type clientShare struct {
	holders int     // requests holding or waiting for this share
	reqs    *budget // nil: no bound
	bytes   *budget // nil: no bound
}

// ticket is an admitted request's reservation.
type ticket struct {
	a    *admission
	c    *clientShare
	k    clientKey
	n    int64
	lane *budget // the global budget or the small lane; nil: neither
}

// smallBody is the largest body that reserves from the small lane.
const smallBody = 64 << 10

// overloaded is the refusal of a request that could not be admitted in time.
type overloaded struct {
	code int // 429: its client's own share was taken; 503: the whole budget
	msg  string
}

func (e *overloaded) Error() string { return e.msg }

func newAdmission(l Limits) *admission {
	a := &admission{clientReqs: int64(l.MaxClientRequests), clientBytes: l.MaxClientBytes, wait: l.ReadTimeout,
		clients: map[clientKey]*clientShare{}}
	if l.MaxBytesInFlight > 0 {
		small := max(l.MaxBytesInFlight/16, min(l.MaxBytesInFlight, smallBody))
		a.small = newBudget(small)
		if rest := l.MaxBytesInFlight - small; rest > 0 {
			a.global = newBudget(rest)
		} else {
			a.global = a.small
		}
	}
	return a
}

// clientKey names the client a request comes from: the name it
// authenticated as (Auth), so that clients behind one address (every
// agent of a host, a fleet behind one proxy) each have their own share and
// no client spends another's; else its IP address, IPv6 addresses grouped
// by /64 (what one host or one customer usually holds). Addresses that do
// not parse (a host's own transport, a Unix socket) share one key.
type clientKey struct {
	name string
	addr netip.Addr
}

func keyOf(remote, client string) clientKey {
	if client != "" {
		return clientKey{name: client}
	}
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return clientKey{}
	}
	a := ap.Addr().Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	return clientKey{addr: a}
}

// admit reserves n body bytes for a request from remote, authenticated as
// client ("" for none), waiting at most the wait bound. The error is an
// *overloaded, or ctx's error.
func (a *admission) admit(ctx context.Context, remote, client string, n int64) (*ticket, error) {
	t := &ticket{a: a, k: keyOf(remote, client)}
	a.mu.Lock()
	c := a.clients[t.k]
	if c == nil {
		c = &clientShare{}
		if a.clientReqs > 0 {
			c.reqs = newBudget(a.clientReqs)
		}
		if a.clientBytes > 0 {
			c.bytes = newBudget(a.clientBytes)
		}
		a.clients[t.k] = c
	}
	c.holders++
	a.mu.Unlock()
	t.c = c

	t.lane = a.global
	if n <= smallBody && a.small != nil {
		t.lane = a.small
	}
	steps := [...]struct {
		b *budget
		n int64
	}{{c.reqs, 1}, {c.bytes, n}, {t.lane, n}}
	// The wait bound's timer is made only for a request that has to wait:
	// most take every step at once.
	var wctx context.Context
	for i, s := range steps {
		if s.b == nil || s.b.tryAcquire(min(s.n, s.b.size)) {
			continue
		}
		if wctx == nil {
			var cancel context.CancelFunc
			wctx, cancel = context.WithTimeout(ctx, a.wait)
			defer cancel()
		}
		if err := s.b.acquire(wctx, min(s.n, s.b.size)); err != nil {
			for _, done := range steps[:i] {
				if done.b != nil {
					done.b.release(min(done.n, done.b.size))
				}
			}
			a.leave(t)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, a.refusal(i, n)
		}
	}
	t.n = n
	return t, nil
}

// refusal says which of admit's steps a request of n bytes waited for in
// vain.
func (a *admission) refusal(step int, n int64) *overloaded {
	code, what := http.StatusTooManyRequests, ""
	switch step {
	case 0:
		what = fmt.Sprintf("this client already has %d requests in flight (the limit)", a.clientReqs)
	case 1:
		what = fmt.Sprintf("this client's requests in flight already hold its share of %d body bytes", a.clientBytes)
	default:
		code, what = http.StatusServiceUnavailable, fmt.Sprintf("the requests in flight already hold the budget of %d body bytes", a.budget())
	}
	return &overloaded{code: code, msg: fmt.Sprintf("overloaded: %s; a request of %d body bytes waited %s for its turn", what, n, a.wait)}
}

// release gives back what the ticket holds.
func (t *ticket) release() {
	a, c := t.a, t.c
	for _, b := range [...]*budget{t.lane, c.bytes} {
		if b != nil {
			b.release(min(t.n, b.size))
		}
	}
	if c.reqs != nil {
		c.reqs.release(1)
	}
	a.leave(t)
}

// leave drops the ticket's client share once nobody holds or waits for it,
// so that the map holds only the clients with a request in the handler.
func (a *admission) leave(t *ticket) {
	a.mu.Lock()
	if t.c.holders--; t.c.holders == 0 {
		delete(a.clients, t.k)
	}
	a.mu.Unlock()
}

// budget returns the bytes of the global budget and the small lane together.
func (a *admission) budget() int64 {
	if a.global == a.small {
		return a.global.size
	}
	return a.global.size + a.small.size
}

// inUse returns the body bytes reserved now.
func (a *admission) inUse() int64 {
	if a.global == nil {
		return 0
	}
	if a.global == a.small {
		return a.global.inUse()
	}
	return a.global.inUse() + a.small.inUse()
}
