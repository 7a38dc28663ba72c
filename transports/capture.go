package transports

import (
	"errors"
	"io"
	"slices"
)

// MaxOutputBytes caps what a hook may answer with: a command's stdout (more
// is a failure), a command's stderr (more is discarded) and an HTTP body
// (more is a failure).
const MaxOutputBytes = 64 << 10

var errOverflow = errors.New("output exceeded its cap")

// capture collects a child's output stream up to limit bytes, so that memory
// stays bounded whatever the child writes. Past the limit it either calls
// onOverflow once and fails the copy (stdout), or, with onOverflow nil, keeps
// draining and discards the rest (stderr).
type capture struct {
	buf        []byte
	limit      int
	overflowed bool
	onOverflow func()
}

// Write implements io.Writer.
func (c *capture) Write(p []byte) (int, error) {
	room := c.limit - len(c.buf)
	if len(p) <= room {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	c.buf = append(c.buf, p[:room]...)
	if c.onOverflow == nil {
		return len(p), nil
	}
	return room, c.overflow()
}

// ReadFrom implements io.ReaderFrom, so that io.Copy fills the buffer
// directly instead of going through a 32 KiB scratch buffer per stream.
func (c *capture) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for len(c.buf) < c.limit {
		if len(c.buf) == cap(c.buf) {
			c.buf = slices.Grow(c.buf, min(max(512, cap(c.buf)), c.limit-len(c.buf)))
		}
		n, err := r.Read(c.buf[len(c.buf):min(cap(c.buf), c.limit)])
		c.buf = c.buf[:len(c.buf)+n]
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	scratch := make([]byte, 4096)
	for {
		n, err := r.Read(scratch)
		total += int64(n)
		if n > 0 && c.onOverflow != nil {
			return total, c.overflow()
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func (c *capture) overflow() error {
	if !c.overflowed {
		c.overflowed = true
		c.onOverflow()
	}
	return errOverflow
}
