package server

import (
	"errors"
	"io"
	"slices"
	"sync"
)

// firstBodyBuffer is the size of the first buffer a body is read into.
const firstBodyBuffer = 4 << 10

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

// readBody reads a request body of the announced length (-1: unknown, then
// at most max+1 bytes are asked for) into buf's array. The buffer starts
// small and doubles only when the bytes received fill it, never past the
// announced length, so memory follows what a client sent, not what it
// announced: a client that announces 8 MiB and sends 100 bytes costs 4 KiB
// (or a pooled buffer of at most maxPooledBuffer). Bytes past the announced
// length are never read into the buffer.
func readBody(buf []byte, r io.Reader, announced, maxBody int64) ([]byte, error) {
	limit := announced
	if limit < 0 {
		limit = maxBody + 1
	}
	buf = buf[:0]
	for {
		if int64(len(buf)) >= limit {
			// Announced length reached: the body must end here.
			var one [1]byte
			n, err := io.ReadFull(r, one[:])
			switch {
			case n > 0:
				return nil, errLongerThanAnnounced
			case err == io.EOF:
				return buf, nil
			}
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(max(cap(buf), firstBodyBuffer)), limit-int64(len(buf)))))
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err // what was read, for a body over the cap
		}
	}
}
