// Package redisstore is the store module's backend in a Redis server, for
// luahook processes that must count together: several `luahook serve`
// replicas behind a load balancer, each of whose Lua hooks sees the same
// store. It keeps the semantics the store module documents for Lua
// (package internal/store, whose Backend it implements): values keep their
// type, tables are stored as JSON, store.incr is atomic with its
// fixed-window TTL applied when the key is created, in one round trip (a
// server-side script), and a value or key past the limits is refused before
// anything is sent.
//
// Every call runs under the hook call's context and under Options.Timeout,
// whichever ends sooner, on a bounded pool of connections; a call that fails
// is an error naming the server ("store: redis at 127.0.0.1:6379: connect:
// connection refused"), which the store module raises in the hook, so a
// fail-closed hook denies. Calls are never retried: an incr sent twice
// would count twice.
//
// Nothing the server sends can make the process allocate past a reply's
// bounds: every connection reads through a guard that follows the RESP
// framing as the bytes arrive and refuses a reply that announces a string
// longer than the value limit allows, more values than a reply of the
// store holds or a deeper nesting, before go-redis allocates what it
// announced (respguard.go). A server that fails or hangs trips a breaker:
// after Options.BreakerFailures calls in a row failed, calls fail at once,
// with an error that is store.ErrUnavailable, until a call after the
// cool-down finds the server answering again (breaker.go).
//
// What the in-process store bounds by MaxKeys and MaxBytes cannot be counted
// across a fleet without a round trip per write; a Redis backend leaves the
// total to the server: give it a maxmemory with maxmemory-policy noeviction,
// so that a full server refuses writes (the hook fails) rather than evicting
// a rate limiter's counter.
package redisstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/luahook/luahook/internal/store"
)

// Defaults of Options, applied to its zero fields.
const (
	DefaultTimeout     = time.Second
	DefaultDialTimeout = time.Second
	DefaultPoolSize    = 32
)

// Options say which server to use and how.
type Options struct {
	// Address is the server's host:port.
	Address string
	// Username and Password authenticate (both empty: no AUTH).
	Username, Password string
	// DB is the database number.
	DB int
	// KeyPrefix is put before every key.
	KeyPrefix string
	// DialTimeout bounds opening a connection (default 1s).
	DialTimeout time.Duration
	// Timeout bounds one call, waiting for a connection included (default
	// 1s); the caller's context bounds it too.
	Timeout time.Duration
	// PoolSize caps the open connections (default 32).
	PoolSize int
	// TLS, when not nil, is the TLS configuration to speak to the server.
	TLS *tls.Config
	// Limits bound keys and values as they bound the in-process store's;
	// MaxKeys and MaxBytes are not enforced (see the package comment).
	// MaxValueBytes bounds the server's replies too.
	Limits store.Limits
	// BreakerFailures is how many calls in a row must fail (no connection,
	// no answer in time, a refused reply) for calls to fail at once
	// (default DefaultBreakerFailures).
	BreakerFailures int
	// BreakerCooldown is how long calls then fail at once before one tries
	// the server again; a random part of it again is added (default
	// DefaultBreakerCooldown).
	BreakerCooldown time.Duration
}

// Store is a store.Backend in a Redis server. Its methods are safe
// for concurrent use.
type Store struct {
	c       *redis.Client
	addr    string
	prefix  string
	timeout time.Duration
	pool    int

	mu  sync.Mutex
	lim store.Limits
	// replyMax is what one reply of the server may hold (replyBytes of
	// lim's MaxValueBytes), read by each connection's guard.
	replyMax atomic.Int64

	brk     *breaker
	metrics metrics
}

var _ store.Backend = (*Store)(nil)

// New returns a store over the server o names. It does not connect: the
// first call does, and Ping tells whether the server answers.
func New(o Options) (*Store, error) {
	if _, _, err := net.SplitHostPort(o.Address); err != nil {
		return nil, fmt.Errorf("redis store: address %q: %w", o.Address, err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.PoolSize <= 0 {
		o.PoolSize = DefaultPoolSize
	}
	s := &Store{addr: o.Address, prefix: o.KeyPrefix, timeout: o.Timeout, pool: o.PoolSize,
		brk: newBreaker(o.BreakerFailures, o.BreakerCooldown)}
	s.SetLimits(o.Limits)
	s.c = redis.NewClient(&redis.Options{
		Addr:                  o.Address,
		Dialer:                dialer(o, &s.replyMax),
		Username:              o.Username,
		Password:              o.Password,
		DB:                    o.DB,
		Protocol:              2,
		DialTimeout:           o.DialTimeout,
		DialerRetries:         1, // a refused dial fails the call at once, rather than after backoffs
		ReadTimeout:           o.Timeout,
		WriteTimeout:          o.Timeout,
		ContextTimeoutEnabled: true, // the hook's deadline bounds reads and writes
		PoolSize:              o.PoolSize,
		PoolTimeout:           o.Timeout,
		MaxRetries:            -1, // never resend: an incr sent twice counts twice
		DisableIdentity:       true,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	})
	return s, nil
}

// SilenceClientLog turns go-redis's own log off. That log is process-wide
// and writes to standard error, where the hosts of `luahook fire` read a
// deny's reason, so the luahook command turns it off; every failure it
// would log reaches the hook as the call's error anyway, and is counted in
// Metrics. A Go host that embeds luahook decides for itself: the library
// leaves the process's go-redis log alone.
func SilenceClientLog() { quietOnce.Do(func() { redis.SetLogger(quiet{}) }) }

var quietOnce sync.Once

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Address returns the server's address.
func (s *Store) Address() string { return s.addr }

// SetLimits sets the limits on keys and values; it applies to later calls.
func (s *Store) SetLimits(l store.Limits) {
	l = l.WithDefaults()
	s.mu.Lock()
	s.lim = l
	s.replyMax.Store(replyBytes(l.MaxValueBytes))
	s.mu.Unlock()
}

// Limits returns the limits in force, defaults applied.
func (s *Store) Limits() store.Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lim
}

// Close closes the connections; calls in flight fail, later ones too.
func (s *Store) Close() { _ = s.c.Close() }

// Ping reports whether the server answers within ctx and the call timeout.
// While the breaker is open it fails at once, saying so; after the
// cool-down it may be the call that tries the server again.
func (s *Store) Ping(ctx context.Context) error {
	ctx, done, err := s.begin(ctx, opPing)
	if err != nil {
		return err
	}
	return done(s.c.Ping(ctx).Err())
}

// begin starts a call of op: its context, bounded by the call timeout, and
// the function that ends it, which counts the call, tells the breaker how
// it went and turns its error into the store's. While the breaker is open,
// begin fails with its error instead.
func (s *Store) begin(ctx context.Context, op op) (context.Context, func(error) error, error) {
	probe, err := s.brk.allow(s.addr)
	if err != nil {
		s.metrics.refused(op)
		return nil, nil, err
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	return cctx, func(err error) error {
		cancel()
		res, out, cause := resultOK, outcomeOK, ""
		if err != nil {
			res = resultError
			if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrPoolTimeout) || isTimeout(err) {
				res = resultTimeout
			}
			out = outcomeOf(ctx, err)
			err = s.fail(ctx, err)
			cause = strings.TrimPrefix(err.Error(), "store: redis at "+s.addr+": ")
		}
		s.brk.record(probe, out, cause)
		s.metrics.observe(op, res, time.Since(start))
		return err
	}, nil
}

// outcomeOf is what a call's error says of the server: an error reply is
// an answer, a cancelled caller says nothing, anything else (no
// connection, no answer in time, a refused reply) is a failure.
func outcomeOf(ctx context.Context, err error) outcome {
	if errors.Is(ctx.Err(), context.Canceled) {
		return outcomeNeutral
	}
	var answer redis.Error
	if errors.As(err, &answer) {
		return outcomeOK
	}
	return outcomeFailed
}

// fail turns an error of the client into the store's: "store: redis at
// ADDR: what happened". When the caller's own context ended, its error is
// wrapped, so that the hook's failure is a timeout (or a cancellation).
func (s *Store) fail(ctx context.Context, err error) error {
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// A read or a write that timed out at the caller's deadline may
		// return a moment before the context says so.
		<-ctx.Done()
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("store: redis at %s: %w (the hook's deadline passed)", s.addr, cerr)
	}
	var op *net.OpError
	var refused *replyError
	var answer redis.Error
	switch {
	case errors.As(err, &refused):
		return fmt.Errorf("store: redis at %s: %v", s.addr, refused)
	case errors.Is(err, redis.ErrPoolTimeout):
		return fmt.Errorf("store: redis at %s: no free connection within the call's timeout of %v (pool_size %d)", s.addr, s.timeout, s.pool)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fmt.Errorf("store: redis at %s: no answer within the call's timeout of %v", s.addr, s.timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("store: redis at %s: the server closed the connection", s.addr)
	case errors.Is(err, redis.ErrClosed):
		return fmt.Errorf("store: redis at %s: the store is closed", s.addr)
	case errors.As(err, &op) && op.Err != nil:
		return fmt.Errorf("store: redis at %s: %v", s.addr, op.Err)
	case errors.As(err, &answer):
		// The server's own text: bounded, for the hook's error and /readyz.
		return fmt.Errorf("store: redis at %s: %s", s.addr, cut(answer.Error(), maxServerText))
	}
	return fmt.Errorf("store: redis at %s: %s", s.addr, strings.TrimPrefix(err.Error(), "redis: "))
}

// maxServerText bounds the text of the server's error replies in the
// store's errors.
const maxServerText = 256

// cut cuts s to at most max bytes, on a rune boundary, marking the cut.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
