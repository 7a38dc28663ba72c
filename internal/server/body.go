package server

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/luahook/luahook/internal/pipeline"
)

// maxPooledBuffer is the largest buffer kept for the next request: a larger
// body or answer gets a buffer of its own, which is dropped after it.
const maxPooledBuffer = 64 << 10

var errLongerThanAnnounced = errors.New("body longer than its Content-Length")

// buffers are the byte buffers requests read their bodies and write their
// answers into, each of at most maxPooledBuffer bytes.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// getBuffer returns an empty buffer; recycle gives it back.
func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

// recycle keeps b (the buffer's last contents, which nothing may read
// afterwards) for a later request, unless it is larger than maxPooledBuffer.
func recycle(p *[]byte, b []byte) {
	if cap(b) > maxPooledBuffer {
		return
	}
	*p = b[:0]
	buffers.Put(p)
}

// readWindow is the size of the buffer a body is read through.
const readWindow = 32 << 10

// readBody reads a request body of the announced length (-1: unknown) as
// every door reads a payload (pipeline.ReadPayload: its strings longer than
// luahook.MaxScanBytes cut), keeping at most maxBody bytes, in buf's array
// when they fit. It reads through a pooled window, and keeps what it keeps
// in blocks that grow with it, so memory follows what is kept, not what a
// client sent or announced: a client that announces 8 MiB and sends 100
// bytes costs a pooled buffer, one that sends a 50 MB tool output costs the
// 1 MiB kept of it. A body longer than announced is refused. The request
// returned carries the payload and what was cut; its CutOver is set when
// the body was longer than maxBody, and within it only for what was cut.
// Over maxBody kept, the error is firstvalue.ErrTooLarge with what was
// kept.
func readBody(buf []byte, r io.Reader, announced, maxBody int64) (pipeline.Request, error) {
	win := getBuffer()
	if cap(*win) < readWindow {
		*win = make([]byte, readWindow)
	}
	lr := &lengthReader{r: r, announced: announced}
	data, cut, err := pipeline.ReadPayload(lr, int(maxBody), true, (*win)[:cap(*win)], buf[:0])
	recycle(win, *win)
	if lr.err != nil {
		return pipeline.Request{}, lr.err
	}
	req := pipeline.Request{Payload: data, Cut: cut}
	if err == nil && cut > 0 && lr.n > maxBody {
		req.CutOver = bodyTooLarge(maxBody)
	}
	return req, err
}

func bodyTooLarge(maxBody int64) error { return fmt.Errorf("body larger than %d bytes", maxBody) }

// lengthReader counts the bytes of a body, and refuses those past its
// announced length (-1: unknown).
type lengthReader struct {
	r         io.Reader
	announced int64
	n         int64
	err       error
}

func (l *lengthReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.announced >= 0 && l.n > l.announced {
		l.err = errLongerThanAnnounced
		return 0, l.err
	}
	return n, err
}
