package firstvalue

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// A writer that keeps the stream open after the payload (as some agents
// keep a hook's standard input) gets it read as soon as its object is
// whole: Read does not wait for the end of the stream.
func TestReadReturnsAtTheEndOfTheFirstObjectOfAnOpenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	payload := `{"a":"} ] \" {","b":[{"c":1}]}`
	if _, err := w.WriteString("  \n" + payload + "\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 1)
	go func() {
		b, err := Read(r, 1<<20)
		if err != nil {
			t.Error(err)
		}
		done <- b
	}()
	select {
	case b := <-done:
		if got := strings.TrimSpace(string(b)); got != payload {
			t.Errorf("read %q, want %q", got, payload)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read waited for the end of a stream whose payload was whole")
	}
}

// Anything but an object or array is read to the end of the stream (the
// decoder refuses it), as is an object that never closes.
func TestReadReadsAnythingElseToTheEnd(t *testing.T) {
	for _, in := range []string{`"x" {}`, `{"a":1`, ``, `  `, `nul{}`} {
		b, err := Read(strings.NewReader(in), 1<<20)
		if err != nil || string(b) != in {
			t.Errorf("Read(%q) = %q, %v; want all of it", in, b, err)
		}
	}
}

// infinite yields bytes forever, counting them.
type infinite struct{ n int }

func (f *infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	f.n += len(p)
	return len(p), nil
}

// A stream past the limit is refused once limit+1 bytes arrived, which come
// with the error; nothing past them is read.
func TestReadStopsAtTheLimit(t *testing.T) {
	const limit = 100_000
	src := &infinite{}
	b, err := Read(src, limit)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	// Grow rounds a capacity up to its size class: within a quarter.
	if len(b) != limit+1 || cap(b) > (limit+1)*5/4 || src.n != limit+1 {
		t.Errorf("returned %d bytes (cap %d) after reading %d; want %d", len(b), cap(b), src.n, limit+1)
	}
	// A whole object of exactly the limit is read; one byte more is not.
	obj := `{"k":"` + strings.Repeat("v", limit-8) + `"}`
	if got, err := Read(strings.NewReader(obj), limit); err != nil || len(got) != limit {
		t.Errorf("object of the limit: %d bytes, %v", len(got), err)
	}
	if _, err := Read(strings.NewReader(obj+" "), limit-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("object over the limit: %v, want ErrTooLarge", err)
	}
}

// What follows the first value stays unread in the stream.
func TestReadLeavesWhatFollows(t *testing.T) {
	r := bytes.NewBufferString(`[1,[2]]{"next":true}`)
	b, err := Read(io.LimitReader(r, 1<<20), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	// bytes.Buffer hands Read everything it asks for, so what is left
	// depends on the buffer; the first value is what was returned.
	if !bytes.HasPrefix(b, []byte(`[1,[2]]`)) {
		t.Errorf("read %q", b)
	}
	rp, wp, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	wp.WriteString(`{"a":1}`)
	b, err = Read(rp, 1<<20)
	if err != nil || string(b) != `{"a":1}` {
		t.Fatalf("read %q, %v", b, err)
	}
	wp.WriteString(`{"b":2}`)
	wp.Close()
	rest, _ := io.ReadAll(rp)
	if string(rest) != `{"b":2}` {
		t.Errorf("what followed: %q", rest)
	}
}
