package server

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// The pace of a drain (Server.Drain).
const (
	// drainIdleAfter is how long a connection must have been idle (or,
	// new, have sent nothing) before a drain closes it: a client sending
	// request after request on a kept-alive connection gets its next
	// answer with Connection: close instead, and moves to a new
	// connection knowing it, rather than seeing the one it just wrote on
	// closed under it.
	drainIdleAfter = 250 * time.Millisecond
	// drainSweepEvery is how often a drain looks for such connections.
	drainSweepEvery = 25 * time.Millisecond
	// acceptQuietFor is how long StopAccepting waits for one more
	// connection before it closes a listener, every connection accepted
	// meanwhile starting the wait again, for acceptQuietMax at most in
	// all: a client sent to a new connection just before the stop is
	// served on it, rather than reset in the listen backlog.
	acceptQuietFor = 50 * time.Millisecond
	acceptQuietMax = time.Second
)

// Server serves an http.Handler with Limits on any number of listeners
// (TCP, TLS, a Unix socket) and stops without losing a request: net/http's
// Shutdown closes a kept-alive connection that is idle by its count while
// the client's next request is on its way, and the client sees the
// connection close under that request (EOF). A Server drains instead
// (Drain, Shutdown): every answer from then on carries Connection: close,
// so clients move to a new connection knowing it, and only connections
// that stayed idle for a while, with no byte of a request received or
// waiting in the socket, are closed.
type Server struct {
	srv *http.Server
	lim Limits

	draining atomic.Bool
	// holding suspends the drain while the listeners close (StopAccepting).
	holding  atomic.Bool
	mu       sync.Mutex
	conns    map[*trackedConn]struct{}
	lns      map[*drainListener]struct{}
	stopping bool          // StopAccepting was called
	sweep    chan struct{} // closed by Close: ends the drain's sweeper
	sweeping bool
	closed   bool
}

// NewServer returns a Server for h with the time and header limits of l
// applied (HTTPServer; only HTTP/1.1 is spoken); net/http's own error lines
// go to logger at warn level. Its listeners hold at most l.MaxConns
// connections at once (Listener).
func (l Limits) NewServer(h http.Handler, logger *slog.Logger) *Server {
	s := &Server{lim: l.withDefaults(), conns: map[*trackedConn]struct{}{}, lns: map[*drainListener]struct{}{}, sweep: make(chan struct{})}
	s.srv = l.HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&drainWriter{ResponseWriter: w, s: s}, r)
	}), logger)
	s.srv.ConnState = s.connState
	// A non-nil empty map turns HTTP/2 off: a drain speaks HTTP/1.1's
	// Connection: close.
	s.srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	return s
}

// Serve accepts connections on ln, TLS ones when config is set, and serves
// them until StopAccepting or Close; then it returns http.ErrServerClosed.
// Any other error ends it too (the listener failed).
func (s *Server) Serve(ln net.Listener, config *tls.Config) error {
	dl := &drainListener{Listener: ln, s: s, stop: make(chan struct{}), done: make(chan struct{})}
	if s.lim.MaxConns > 0 {
		dl.slots = make(chan struct{}, s.lim.MaxConns)
	}
	s.mu.Lock()
	if s.stopping || s.closed {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.lns[dl] = struct{}{}
	s.mu.Unlock()
	defer dl.finish()
	var l net.Listener = dl
	if config != nil {
		config = config.Clone()
		config.NextProtos = []string{"http/1.1"}
		l = tls.NewListener(dl, config)
	}
	err := s.srv.Serve(l)
	s.mu.Lock()
	stopped := s.stopping || s.closed
	s.mu.Unlock()
	if stopped {
		return http.ErrServerClosed
	}
	return err
}

// Drain makes every answer from now on carry Connection: close (the
// connection closes after it), and closes each connection once it has
// been idle for a moment with nothing received, as net/http's own idle
// timeout does. Accepting goes on (StopAccepting ends it), so that clients
// of a load balancer still reach the server on new connections while the
// balancer takes it out of rotation. Drain may be called more than once.
func (s *Server) Drain() {
	s.draining.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sweeping || s.closed {
		return
	}
	s.sweeping = true
	go s.sweepIdle()
}

// StopAccepting closes the listeners, after accepting the connections the
// system has already completed, and returns once none accepts anymore.
// The connections open are served on. While the listeners close, a drain
// under way is held: no answer sends its client to a new connection and no
// idle connection is closed, since a client dialing again then would land
// in the listen backlog that the close resets; clients sent away after the
// close find the port closed before they send anything. StopAccepting may
// be called more than once.
func (s *Server) StopAccepting() {
	s.mu.Lock()
	s.stopping = true
	lns := make([]*drainListener, 0, len(s.lns))
	for l := range s.lns {
		lns = append(lns, l)
	}
	s.mu.Unlock()
	s.holding.Store(true)
	defer s.holding.Store(false)
	for _, l := range lns {
		l.stopAccepting()
	}
	for _, l := range lns {
		<-l.done
	}
}

// Shutdown stops accepting (StopAccepting), drains (Drain), and waits
// until every connection has closed: each one in flight after its answer,
// the idle ones as Drain closes them. It returns ctx's error when ctx ends
// first; Close then cuts the rest.
func (s *Server) Shutdown(ctx context.Context) error {
	s.StopAccepting()
	s.Drain()
	tick := time.NewTicker(drainSweepEvery)
	defer tick.Stop()
	for s.Conns() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// Close closes the listeners and every connection at once. Close may be
// called more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.sweep)
	}
	s.mu.Unlock()
	return s.srv.Close()
}

// Conns returns the number of connections open.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// connState follows each connection's state for the drain.
func (s *Server) connState(nc net.Conn, st http.ConnState) {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	c, ok := nc.(*trackedConn)
	if !ok {
		return
	}
	if st == http.StateIdle {
		// From here on, a byte read is the next request's.
		c.got.Store(false)
	}
	c.since.Store(time.Now().UnixNano())
	c.state.Store(int32(st))
	if st == http.StateHijacked {
		s.forget(c)
	}
}

// sweepIdle closes, until Close, the connections that can be closed
// without losing a request.
func (s *Server) sweepIdle() {
	tick := time.NewTicker(drainSweepEvery)
	defer tick.Stop()
	var quiet []*trackedConn
	for {
		select {
		case <-s.sweep:
			return
		case <-tick.C:
		}
		if s.holding.Load() {
			continue
		}
		now := time.Now().UnixNano()
		quiet = quiet[:0]
		s.mu.Lock()
		for c := range s.conns {
			if c.quiet(now) {
				quiet = append(quiet, c)
			}
		}
		s.mu.Unlock()
		for _, c := range quiet {
			c.Close()
		}
	}
}

func (s *Server) track(c *trackedConn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) forget(c *trackedConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// drainWriter adds Connection: close to an answer whose header is written
// while the server drains, whenever its request began.
type drainWriter struct {
	http.ResponseWriter
	s     *Server
	wrote bool
}

func (w *drainWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		if w.s.draining.Load() && !w.s.holding.Load() {
			w.Header().Set("Connection", "close")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *drainWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *drainWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// trackedConn is a connection a Server follows: its HTTP state, since
// when, and whether a byte came in since it went idle.
type trackedConn struct {
	net.Conn
	s       *Server
	release func() // gives the listener's slot back; nil: none
	once    sync.Once
	state   atomic.Int32 // http.ConnState
	since   atomic.Int64 // when it took that state, Unix nanoseconds
	got     atomic.Bool  // a byte was read since it went idle (or was accepted)
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.got.Store(true)
	}
	return n, err
}

// CloseWrite half-closes the connection, when it can be.
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the connection and, the first time, gives its slot back.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
		c.s.forget(c)
	})
	return err
}

// quiet reports whether c can be closed without losing a request: idle
// after an answer, or new, for drainIdleAfter, with no byte received
// since, nor waiting in the socket.
func (c *trackedConn) quiet(now int64) bool {
	switch http.ConnState(c.state.Load()) {
	case http.StateIdle, http.StateNew:
	default:
		return false
	}
	if now-c.since.Load() < int64(drainIdleAfter) || c.got.Load() {
		return false
	}
	return !pending(c.Conn)
}

// drainListener is a listener a Server serves: it bounds the connections
// open at once (MaxConns), tracks each one, and, stopped, accepts the
// connections the system completed before it closes.
type drainListener struct {
	net.Listener
	s         *Server
	slots     chan struct{} // nil: no bound
	stopping  atomic.Bool
	stopAt    time.Time     // when stopAccepting began; set before stopping
	stop      chan struct{} // closed by stopAccepting
	done      chan struct{} // closed when it accepts no more
	stopOnce  sync.Once
	closeOnce sync.Once
	doneOnce  sync.Once

	mu      sync.Mutex
	drained bool       // the listener is closed and its backlog taken
	backlog []net.Conn // what it held, for Accept to hand out
}

// Accept waits for a free slot, then accepts a connection that gives the
// slot back when it closes. Once stopped, it hands out the connections the
// listener's backlog held, then net.ErrClosed.
func (l *drainListener) Accept() (net.Conn, error) {
	for {
		if c, ok, closed := l.fromBacklog(); ok || closed {
			if !ok {
				return nil, net.ErrClosed
			}
			return l.track(c, nil), nil
		}
		var release func()
		if l.slots != nil {
			select {
			case l.slots <- struct{}{}:
				release = func() { <-l.slots }
			default:
				// Every slot taken: wait for one, unless stopped.
				select {
				case l.slots <- struct{}{}:
					release = func() { <-l.slots }
				case <-l.stop:
					l.drain()
					continue
				}
			}
		}
		nc, err := l.Listener.Accept()
		if err != nil {
			if release != nil {
				release()
			}
			if l.stopping.Load() {
				// The quiet deadline passed, or a Close.
				l.drain()
				continue
			}
			return nil, err
		}
		if l.stopping.Load() {
			l.quietFrom(time.Now())
		}
		return l.track(nc, release), nil
	}
}

// quietFrom makes the Accept under way end once no connection came for
// acceptQuietFor after now (acceptQuietMax after the stop at the latest),
// and reports whether the listener takes deadlines.
func (l *drainListener) quietFrom(now time.Time) bool {
	d, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
	if !ok {
		return false
	}
	at := now.Add(acceptQuietFor)
	if last := l.stopAt.Add(acceptQuietMax); last.Before(at) {
		at = last
	}
	return d.SetDeadline(at) == nil
}

func (l *drainListener) track(nc net.Conn, release func()) *trackedConn {
	c := &trackedConn{Conn: nc, s: l.s, release: release}
	c.since.Store(time.Now().UnixNano())
	l.s.track(c)
	return c
}

// fromBacklog pops a connection of the drained backlog; closed reports that
// the listener is drained and holds no more.
func (l *drainListener) fromBacklog() (c net.Conn, ok, closed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.backlog) > 0 {
		c, l.backlog = l.backlog[0], l.backlog[1:]
		return c, true, false
	}
	return nil, false, l.drained
}

// drain takes the connections waiting in the listener's backlog and closes
// the listener right after, with no wait in between: closing a listener
// resets the connections the system completed but nobody accepted, under
// clients that may have sent their request on them. A connection that
// comes after the close is refused, before its client sends anything.
func (l *drainListener) drain() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drained {
		return
	}
	l.drained = true
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		d.SetDeadline(time.Time{})
	}
	l.backlog = acceptBacklog(l.Listener, l.Close)
}

// stopAccepting ends accepting: once no connection came for a while
// (quietFrom), Accept takes what the backlog holds and closes the listener
// (drain).
func (l *drainListener) stopAccepting() {
	l.stopOnce.Do(func() {
		l.stopAt = time.Now()
		l.stopping.Store(true)
		close(l.stop)
		if !l.quietFrom(l.stopAt) {
			l.Close()
		}
	})
}

// Close closes the listener (once; a Unix socket's file goes with it).
func (l *drainListener) Close() error {
	var err error
	l.closeOnce.Do(func() { err = l.Listener.Close() })
	return err
}

// finish marks the listener done once its Serve returned, whatever ended it.
func (l *drainListener) finish() {
	l.Close()
	l.doneOnce.Do(func() { close(l.done) })
	l.s.mu.Lock()
	delete(l.s.lns, l)
	l.s.mu.Unlock()
}
