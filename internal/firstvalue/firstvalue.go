// Package firstvalue reads a payload from a stream that its writer may
// keep open: up to the end of the JSON object or array it starts with, or
// to its end. luahook fire and luahook-fire read standard input with it,
// so the two read exactly the same bytes of the same stream.
package firstvalue

import (
	"errors"
	"io"
	"slices"
)

// ErrTooLarge is returned for a stream whose first value (or whole
// stream, when it starts with something else) is longer than the limit.
var ErrTooLarge = errors.New("payload larger than the limit")

// Read reads r until the JSON object or array it starts with is complete,
// or to its end, refusing more than limit bytes: ErrTooLarge comes with
// the first limit+1 bytes (no more is read, and the buffer grows by
// doubling up to them). What follows
// the first value is not read. A read error other than io.EOF is returned
// as it is, with nothing read.
func Read(r io.Reader, limit int) ([]byte, error) {
	var sc valueEnd
	buf := make([]byte, 0, min(4096, limit+1))
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), limit+1-len(buf)))
		}
		// Grow may round the capacity up: never read past limit+1.
		n, err := r.Read(buf[len(buf):min(cap(buf), limit+1)])
		ended := sc.scan(buf[len(buf) : len(buf)+n])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return buf, ErrTooLarge
		}
		if ended || err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// valueEnd finds where the first JSON object or array of a stream ends.
type valueEnd struct {
	started, inString, escaped, scalar bool
	depth                              int
}

// scan reads the next bytes of the stream and reports whether the first value
// ended in them. A stream that starts with anything but '{' or '[' is read to
// its end (the decoder refuses it).
func (v *valueEnd) scan(p []byte) bool {
	for _, c := range p {
		switch {
		case v.scalar:
			return false
		case !v.started:
			switch c {
			case ' ', '\t', '\n', '\r':
			case '{', '[':
				v.started, v.depth = true, 1
			default:
				v.scalar = true
			}
		case v.inString:
			switch {
			case v.escaped:
				v.escaped = false
			case c == '\\':
				v.escaped = true
			case c == '"':
				v.inString = false
			}
		case c == '"':
			v.inString = true
		case c == '{' || c == '[':
			v.depth++
		case c == '}' || c == ']':
			v.depth--
			if v.depth == 0 {
				return true
			}
		}
	}
	return false
}
