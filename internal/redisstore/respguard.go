package redisstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// What one reply of the server may hold. go-redis allocates what a reply
// announces as it reads the announcement (a string's bytes, an array's
// slots, a map's buckets), before the bytes arrive: a server that answered
// $1099511627776 made the process ask for 1 TiB. Every connection of the
// store reads through a replyGuard, which checks each announcement against
// these bounds before go-redis sees it.
const (
	// replyFloor is what a reply may hold beyond the value limit: the other
	// strings of the replies the store reads (HELLO's fields and a module's
	// path, an error's text, an incr's answer).
	replyFloor = 64 << 10
	// maxReplyValues bounds the values of one reply, aggregates and what
	// they hold counted alike. The largest reply the store reads is HELLO's:
	// 14 values, and a few for each module the server loaded; an incr
	// answers at most 3.
	maxReplyValues = 1024
	// maxReplyDepth bounds how deep aggregates nest. HELLO's reply nests
	// deepest: its list of modules, each a list holding a list of arguments
	// (4 levels); twice that leaves room for a server that says more.
	maxReplyDepth = 8
)

// replyBytes is what one reply may hold with a value limit of maxValue: the
// value and its type tag, the byte past the limit a Get asks for (GETRANGE
// reads one more to tell a longer value), and replyFloor for the rest.
func replyBytes(maxValue int) int64 {
	return int64(min(maxValue, maxRedisValue)) + 2 + replyFloor
}

// replyError is a reply the store refused before go-redis read it: it
// announced more than a reply may hold, nested deeper than any reply the
// store reads, or was not RESP. The connection is closed: what follows in
// the stream cannot be told apart from the rest of the refused reply.
type replyError struct {
	what string
	at   int64 // the offending value's first byte, from the reply's first
}

func (e *replyError) Error() string {
	return fmt.Sprintf("refused the server's reply: at byte %d, %s", e.at, e.what)
}

// replyGuard is a connection to the server whose reads pass through a
// replyScanner: a read that completes an announcement past the bounds
// fails, and so does every later read.
type replyGuard struct {
	net.Conn
	scan replyScanner
	err  error
}

// sysReplyGuard is a replyGuard over a connection that gives its
// descriptor (a TCP connection), which go-redis's pool peeks at (without
// reading) to drop a connection the server closed or wrote to unasked.
type sysReplyGuard struct {
	*replyGuard
	sys syscall.Conn
}

func (g sysReplyGuard) SyscallConn() (syscall.RawConn, error) { return g.sys.SyscallConn() }

// guardReplies wraps c so that its replies are scanned against the bounds;
// limit holds what one reply may hold (replyBytes), read as each reply
// starts, so that a reload's new value limit applies to open connections.
func guardReplies(c net.Conn, limit *atomic.Int64) net.Conn {
	g := &replyGuard{Conn: c, scan: replyScanner{limit: limit}}
	if sc, ok := c.(syscall.Conn); ok {
		return sysReplyGuard{g, sc}
	}
	return g
}

// Read reads from the connection and scans what it read. go-redis reads a
// connection from one goroutine at a time.
func (g *replyGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.Conn.Read(p)
	if n > 0 {
		if serr := g.scan.scan(p[:n]); serr != nil {
			// Nothing of the chunk is handed on: the refused announcement
			// may be in it.
			g.err = serr
			g.Conn.Close()
			return 0, serr
		}
	}
	return n, err
}

// keepAlive is go-redis's own TCP keep-alive for the connections it dials.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 30 * time.Second, Interval: 5 * time.Second, Count: 3}

// dialer returns go-redis's Dialer for o's server: TCP, TLS when o says
// so, within the dial timeout, each connection behind a replyGuard. (With
// a Dialer of its own, go-redis leaves TLS to it.)
func dialer(o Options, limit *atomic.Int64) func(context.Context, string, string) (net.Conn, error) {
	d := &net.Dialer{KeepAliveConfig: keepAlive}
	var tc *tls.Config
	if o.TLS != nil {
		tc = o.TLS.Clone()
		if tc.ServerName == "" {
			tc.ServerName, _, _ = net.SplitHostPort(o.Address)
		}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
		defer cancel()
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc != nil {
			t := tls.Client(c, tc)
			if err := t.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, err
			}
			c = t
		}
		return guardReplies(c, limit), nil
	}
}

// scanState says what the next byte of the stream is.
type scanState uint8

const (
	scanType      scanState = iota // a value's type
	scanLine                       // in a line (+ - : , # ( _), up to its CRLF
	scanLenStart                   // the first byte of a length
	scanLenDigits                  // in a length's digits
	scanLenMinus                   // after a length's "-": only -1 (null) is one
	scanLenNull                    // after "-1": its CR
	scanLenLF                      // after a length's CR
	scanBulk                       // in a string's bytes
	scanBulkCR                     // after a string's bytes: its CR
	scanBulkLF                     // then its LF
)

// replyScanner follows the RESP2 and RESP3 framing of a stream of replies,
// byte by byte as reads deliver them (a reply may be cut anywhere between
// two reads), and refuses a value that announces more than its reply may
// still hold: a string past the reply's bytes, an aggregate past its
// values, a nesting past maxReplyDepth. It reads the framing only: what a
// string holds is counted and skipped.
//
// It frames attributes (|) as RESP3 does, a prefix of the value that
// follows. go-redis frames an attribute nested in another one differently
// (without its value), so that is refused: the two readers never disagree
// on where a value starts.
type replyScanner struct {
	limit *atomic.Int64

	state scanState
	typ   byte  // the type of the value being read
	n     int64 // the length being read; then a string's bytes left
	cr    bool  // scanLine: the last byte read was CR

	inReply bool
	budget  int64 // bytes the reply may still hold
	max     int64 // bytes the reply could hold
	values  int   // values the reply may still hold
	depth   int
	left    [maxReplyDepth]int64 // values each open aggregate still expects
	isAttr  [maxReplyDepth]bool
	attrs   int // open attributes

	read  int64 // bytes of the stream scanned before the current read
	start int64 // where the reply starts in the stream
	at    int64 // where the current value starts in the stream
}

// scan scans p, the next bytes of the stream.
func (s *replyScanner) scan(p []byte) error {
	for i := 0; i < len(p); {
		switch s.state {
		case scanType:
			if !s.inReply {
				s.inReply = true
				s.max = s.limit.Load()
				s.budget, s.values = s.max, maxReplyValues
				s.start = s.read + int64(i)
			}
			s.at = s.read + int64(i)
			if s.values == 0 {
				return s.refuse(fmt.Sprintf("more than the %d values a reply may hold", maxReplyValues))
			}
			s.values--
			s.budget--
			s.typ = p[i]
			switch s.typ {
			case '+', '-', ':', ',', '#', '(', '_':
				s.state, s.cr = scanLine, false
			case '$', '=', '!', '*', '~', '>', '%', '|':
				s.state = scanLenStart
			default:
				return s.refuse(fmt.Sprintf("%q is no RESP type", s.typ))
			}
			i++
		case scanLine:
			seg := p[i:]
			end := bytes.IndexByte(seg, '\n')
			if end >= 0 {
				seg = seg[:end]
			}
			if int64(len(seg)) >= s.budget {
				return s.refuse(fmt.Sprintf("a line longer than the %d bytes a reply may hold", s.max))
			}
			s.budget -= int64(len(seg))
			if len(seg) > 0 {
				s.cr = seg[len(seg)-1] == '\r'
			}
			i += len(seg)
			if end < 0 {
				continue
			}
			if !s.cr {
				return s.refuse("a line that does not end in CRLF")
			}
			s.budget--
			i++
			s.valueDone()
		case scanLenStart, scanLenDigits:
			b := p[i]
			if b >= '0' && b <= '9' {
				// The digits, as many as this read holds, in one go.
				n := s.n
				if s.state == scanLenStart {
					n, s.state = 0, scanLenDigits
				}
				for ; i < len(p) && p[i] >= '0' && p[i] <= '9'; i++ {
					if n > (1<<62)/10 {
						return s.refuse("a length of more than 18 digits")
					}
					n = n*10 + int64(p[i]-'0')
				}
				s.n = n
				// The CRLF, when this read holds it, then the header.
				if i+1 < len(p) && p[i] == '\r' && p[i+1] == '\n' {
					i += 2
					if err := s.header(); err != nil {
						return err
					}
				}
				continue
			}
			switch {
			case b == '-' && s.state == scanLenStart:
				s.state = scanLenMinus
			case b == '\r' && s.state == scanLenDigits:
				s.state = scanLenLF
			default:
				return s.refuse(fmt.Sprintf("a length holding %q", b))
			}
			i++
		case scanLenMinus:
			if p[i] != '1' {
				return s.refuse("a negative length other than -1")
			}
			s.state = scanLenNull
			i++
		case scanLenNull:
			if p[i] != '\r' {
				return s.refuse("a negative length other than -1")
			}
			s.n, s.state = -1, scanLenLF
			i++
		case scanLenLF:
			if p[i] != '\n' {
				return s.refuse("a length that does not end in CRLF")
			}
			i++
			if err := s.header(); err != nil {
				return err
			}
		case scanBulk:
			take := min(int64(len(p)-i), s.n)
			s.n -= take
			i += int(take)
			if s.n > 0 {
				continue
			}
			s.state = scanBulkCR
			// The CRLF, when this read holds it.
			if i+1 < len(p) {
				if p[i] != '\r' || p[i+1] != '\n' {
					return s.refuse("a string longer than its length")
				}
				i += 2
				s.valueDone()
			}
		case scanBulkCR, scanBulkLF:
			want := byte('\r')
			if s.state == scanBulkLF {
				want = '\n'
			}
			if p[i] != want {
				return s.refuse("a string longer than its length")
			}
			i++
			if s.state == scanBulkCR {
				s.state = scanBulkLF
			} else {
				s.valueDone()
			}
		}
	}
	s.read += int64(len(p))
	return nil
}

// header acts on a complete length line: s.typ with length s.n (-1: null).
func (s *replyScanner) header() error {
	n := s.n
	switch s.typ {
	case '$', '=', '!':
		if n < 0 {
			s.valueDone()
			return nil
		}
		if n+2 > s.budget {
			return s.refuse(fmt.Sprintf("%s of %d bytes, more than the %d bytes a reply may hold (max_value_bytes and %d KiB)",
				typeText(s.typ), n, s.max, replyFloor>>10))
		}
		s.budget -= n + 2
		s.n, s.state = n, scanBulk
		if n == 0 {
			s.state = scanBulkCR
		}
		return nil
	}
	attr := s.typ == '|'
	if attr && s.attrs > 0 {
		return s.refuse("an attribute inside an attribute")
	}
	// A map or an attribute holds two values a pair; n is compared before
	// it is doubled, which could overflow.
	pairs := s.typ == '%' || attr
	count := n
	if pairs && n <= int64(s.values) {
		count = 2 * n
	}
	if n > int64(s.values) || count > int64(s.values) {
		unit := "elements"
		if pairs {
			unit = "pairs"
		}
		return s.refuse(fmt.Sprintf("%s of %d %s, more than the %d values a reply may hold",
			typeText(s.typ), n, unit, maxReplyValues))
	}
	if count <= 0 {
		// A null or empty aggregate is a value; an empty attribute
		// leaves its place to the value that follows.
		if attr {
			s.state = scanType
		} else {
			s.valueDone()
		}
		return nil
	}
	if s.depth == maxReplyDepth {
		return s.refuse(fmt.Sprintf("aggregates nested more than %d deep", maxReplyDepth))
	}
	s.left[s.depth], s.isAttr[s.depth] = count, attr
	s.depth++
	if attr {
		s.attrs++
	}
	s.state = scanType
	return nil
}

// valueDone ends a value: it counts for the aggregate that holds it, which
// ends in turn when it holds all it announced. An attribute that ends is
// not a value: its place is the next value's. When the outermost value
// ends, so does the reply.
func (s *replyScanner) valueDone() {
	s.state = scanType
	for s.depth > 0 {
		d := s.depth - 1
		if s.left[d]--; s.left[d] > 0 {
			return
		}
		s.depth--
		if s.isAttr[d] {
			s.attrs--
			return
		}
	}
	s.inReply = false
}

func (s *replyScanner) refuse(what string) error {
	return &replyError{what: what, at: s.at - s.start}
}

// typeText names a RESP type in an error.
func typeText(t byte) string {
	switch t {
	case '$':
		return "a string"
	case '=':
		return "a verbatim string"
	case '!':
		return "an error"
	case '*':
		return "an array"
	case '~':
		return "a set"
	case '>':
		return "a push message"
	case '%':
		return "a map"
	case '|':
		return "an attribute"
	}
	return fmt.Sprintf("a value of type %q", t)
}
