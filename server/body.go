package server

import (
	"errors"
	"io"
	"slices"
)

// firstBodyBuffer is the size of the first buffer a body is read into.
const firstBodyBuffer = 4 << 10

var errLongerThanAnnounced = errors.New("body longer than its Content-Length")

// readBody reads a request body of the announced length (-1: unknown, then
// at most max+1 bytes are asked for). The buffer starts small and doubles
// only when the bytes received fill it, never past the announced length, so
// memory follows what a client sent, not what it announced: a client that
// announces 8 MiB and sends 100 bytes costs 4 KiB. At the end the buffer
// holds at most twice the bytes received, and exactly the announced length
// when the client sends it all.
func readBody(r io.Reader, announced, maxBody int64) ([]byte, error) {
	limit := announced
	if limit < 0 {
		limit = maxBody + 1
	}
	buf := make([]byte, 0, min(limit, firstBodyBuffer))
	for {
		if len(buf) == cap(buf) {
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
			buf = slices.Grow(buf, int(min(int64(max(cap(buf), firstBodyBuffer)), limit-int64(len(buf)))))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
