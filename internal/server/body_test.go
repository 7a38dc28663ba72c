package server

import (
	"errors"
	"strings"
	"testing"
)

// TestReadBodyNeverReadsPastTheAnnouncedLength guards readBody over a pooled
// buffer larger than the body: it returns the announced bytes, refuses a
// body longer than announced, and reads an unannounced body whole.
func TestReadBodyNeverReadsPastTheAnnouncedLength(t *testing.T) {
	pooled := make([]byte, 0, maxPooledBuffer)
	cases := []struct {
		name      string
		body      string
		announced int64
		want      string
		wantErr   error
	}{
		{"exact", "hello", 5, "hello", nil},
		{"longer than announced", "hello world", 5, "", errLongerThanAnnounced},
		{"unannounced", "hello world", -1, "hello world", nil},
		{"empty", "", 0, "", nil},
		{"larger than the window", strings.Repeat("x", 3*readWindow), 3 * readWindow, strings.Repeat("x", 3*readWindow), nil},
	}
	for _, c := range cases {
		for _, buf := range [][]byte{nil, pooled} {
			req, err := readBody(buf, strings.NewReader(c.body), c.announced, 1<<20)
			if got := req.Payload; !errors.Is(err, c.wantErr) || string(got) != c.want {
				t.Errorf("%s (buffer of %d): %q, %v; want %q, %v", c.name, cap(buf), got, err, c.want, c.wantErr)
			}
		}
	}
}

// TestRecycleKeepsNoLargeBuffer guards the pool's cap: a buffer larger than
// maxPooledBuffer is never kept for a later request.
func TestRecycleKeepsNoLargeBuffer(t *testing.T) {
	for range 100 {
		recycle(getBuffer(), make([]byte, 0, maxPooledBuffer+1))
	}
	for range 100 {
		if b := getBuffer(); cap(*b) > maxPooledBuffer {
			t.Fatalf("the pool handed out a buffer of %d bytes", cap(*b))
		}
	}
}
