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
)

// Limits bound what clients can hold of a serving process: connections,
// time to send headers and body, idle keep-alive time, header size. The
// zero value applies the defaults above; `luahook serve` runs with them.
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
