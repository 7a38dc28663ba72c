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
	"syscall"
	"time"

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
	Limits store.Limits
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
	c := redis.NewClient(&redis.Options{
		Addr:                  o.Address,
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
		TLSConfig:             o.TLS,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	})
	s := &Store{c: c, addr: o.Address, prefix: o.KeyPrefix, timeout: o.Timeout, pool: o.PoolSize}
	s.SetLimits(o.Limits)
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
func (s *Store) Ping(ctx context.Context) error {
	ctx, done := s.begin(ctx, opPing)
	err := s.c.Ping(ctx).Err()
	return done(err)
}

// begin starts a call of op: its context, bounded by the call timeout, and
// the function that ends it, which counts the call and turns its error into
// the store's.
func (s *Store) begin(ctx context.Context, op op) (context.Context, func(error) error) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	return cctx, func(err error) error {
		cancel()
		res := resultOK
		if err != nil {
			res = resultError
			if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrPoolTimeout) || isTimeout(err) {
				res = resultTimeout
			}
			err = s.fail(ctx, err)
		}
		s.metrics.observe(op, res, time.Since(start))
		return err
	}
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
	switch {
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
	}
	return fmt.Errorf("store: redis at %s: %s", s.addr, strings.TrimPrefix(err.Error(), "redis: "))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
