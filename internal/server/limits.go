package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults applied to the zero fields of Limits.
const (
	DefaultMaxConns          = 1024
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	// DefaultWriteTimeout bounds a whole answer: hooks are clamped to 10 min
	// each, and a client that gives up cancels them through the request's
	// context, so this only bounds a pathological chain.
	DefaultWriteTimeout   = 11 * time.Minute
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxBytesInFlight is the default budget of body bytes that the
	// requests in flight hold at once: 16 bodies at the default 8 MiB cap.
	DefaultMaxBytesInFlight = 128 << 20
	// DefaultMaxClientRequests bounds the requests one client has in flight.
	// Agents behind one address (every local agent, with serve on loopback)
	// share it; further requests wait their turn, which for the small
	// payloads of ordinary tool calls is a matter of microseconds.
	DefaultMaxClientRequests = 8
)

// Limits bound what clients can hold of a serving process: connections,
// time to send headers and body, idle keep-alive time, header size, and the
// body bytes and requests in flight, overall and per client. The zero value
// applies the defaults above; `luahook serve` runs with them. HTTPServer and
// Listener apply the connection limits, Options.Limits the others.
//
// A client that sends its headers byte by byte (slowloris) holds a
// connection for at most ReadHeaderTimeout; one that sends a large header
// block is answered 431; at most MaxConns connections are open at once, and
// further clients wait in the listen backlog until one closes, so memory,
// goroutines and file descriptors stay bounded whatever the clients do.
type Limits struct {
	// MaxConns bounds the connections open at once (idle keep-alive ones
	// included). Zero means DefaultMaxConns; negative means no bound.
	MaxConns int
	// ReadHeaderTimeout bounds the time to read a request's headers, from
	// the moment the connection is accepted or its previous answer sent.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the time to read a whole request, body included.
	ReadTimeout time.Duration
	// IdleTimeout bounds how long a keep-alive connection waits for its
	// next request.
	IdleTimeout time.Duration
	// WriteTimeout bounds the time from the end of the request's headers to
	// the end of the answer.
	WriteTimeout time.Duration
	// MaxHeaderBytes caps the request line and headers; past it (and net/http's
	// 4 KiB of slack) the answer is 431.
	MaxHeaderBytes int

	// MaxBytesInFlight is the budget of request body bytes that the hook
	// requests in flight hold at once. A request reserves its announced
	// Content-Length (the body cap when it announces none) before reading
	// its body and holds it until its answer is written; requests that do
	// not fit wait their turn, in arrival order. Zero means
	// DefaultMaxBytesInFlight; negative means no bound.
	MaxBytesInFlight int64
	// MaxClientRequests bounds the hook requests one client (the name it
	// authenticated as, Options.Auth; else an IP address, an IPv6 /64) has
	// in flight; further ones wait their turn. Zero means
	// DefaultMaxClientRequests; negative means no bound.
	MaxClientRequests int
	// MaxClientBytes is one client's share of MaxBytesInFlight: the body
	// bytes its requests in flight hold at once. Zero means an eighth of
	// MaxBytesInFlight (16 MiB by default: two bodies at the default cap,
	// so that one client's large payloads leave Lua states and CPU to the
	// others); negative means no bound.
	//
	// A request waits at most ReadTimeout for its turn (a client that goes
	// away stops waiting) and is then answered 429 (its client's share was
	// taken) or 503 (the whole budget was), with a body that denies; once
	// admitted it has ReadTimeout again to send its body.
	MaxClientBytes int64
}

func (l Limits) withDefaults() Limits {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if l.MaxConns == 0 {
		l.MaxConns = DefaultMaxConns
	}
	def(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&l.ReadTimeout, DefaultReadTimeout)
	def(&l.IdleTimeout, DefaultIdleTimeout)
	def(&l.WriteTimeout, DefaultWriteTimeout)
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxBytesInFlight == 0 {
		l.MaxBytesInFlight = DefaultMaxBytesInFlight
	}
	if l.MaxClientRequests == 0 {
		l.MaxClientRequests = DefaultMaxClientRequests
	}
	if l.MaxClientBytes == 0 && l.MaxBytesInFlight > 0 {
		l.MaxClientBytes = l.MaxBytesInFlight / 8
	}
	return l
}

// HTTPServer returns an http.Server for h with the time and header limits
// applied; net/http's own error lines (TLS handshakes, bad requests) go to
// logger at warn level. Serve it on Listener's result to bound the
// connections too.
func (l Limits) HTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	l = l.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		IdleTimeout:       l.IdleTimeout,
		WriteTimeout:      l.WriteTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// Listener wraps ln so that at most MaxConns accepted connections are open
// at once: Accept waits for one to close before it accepts another. Closing
// the returned listener ends a wait.
func (l Limits) Listener(ln net.Listener) net.Listener {
	l = l.withDefaults()
	if l.MaxConns < 0 {
		return ln
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, l.MaxConns), done: make(chan struct{})}
}

// limitListener is a net.Listener with a bound on open connections.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// Accept waits for a free slot, then accepts a connection that gives the
// slot back when it closes.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close closes the listener and ends a wait for a slot.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn gives its slot back on its first Close.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
