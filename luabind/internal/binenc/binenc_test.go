package binenc

import (
	"math"
	"testing"
)

// TestRoundTrip: what a Writer writes, a Reader reads back.
func TestRoundTrip(t *testing.T) {
	w := &Writer{}
	w.Uint(math.MaxUint64)
	w.Int(-5)
	w.Int(math.MaxInt32)
	w.Byte(7)
	w.Bool(true)
	w.Uint32(0xdeadbeef)
	w.Float(math.NaN())
	w.String("héllo")
	w.Uint(3)
	w.B = append(w.B, "abc"...)
	r := NewReader(string(w.B))
	if r.Uint() != math.MaxUint64 || r.Int() != -5 || r.Int() != math.MaxInt32 || r.Byte() != 7 || !r.Bool() ||
		r.Uint32() != 0xdeadbeef || !math.IsNaN(r.Float()) || r.String() != "héllo" || r.Count(1) != 3 {
		t.Fatal("values differ")
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

// TestCountNeverPassesTheBytesLeft: a count is refused when its elements,
// at their smallest, could not fit in the bytes that remain, so a damaged
// count never sizes an allocation beyond the input.
func TestCountNeverPassesTheBytesLeft(t *testing.T) {
	for _, c := range []struct {
		count uint64
		rest  int
		min   int
		ok    bool
	}{
		{4, 4, 1, true}, {5, 4, 1, false}, {2, 8, 4, true}, {3, 8, 4, false},
		{math.MaxUint64, 100, 1, false}, {1 << 40, 1 << 10, 1, false}, {0, 0, 1, true}, {1, 10, 0, false},
	} {
		w := &Writer{}
		w.Uint(c.count)
		w.B = append(w.B, make([]byte, c.rest)...)
		r := NewReader(string(w.B))
		n := r.Count(c.min)
		if ok := r.Err() == nil; ok != c.ok || (ok && n != int(c.count)) || (!ok && n != 0) {
			t.Errorf("count %d, %d bytes left, min %d: got %d, %v", c.count, c.rest, c.min, n, r.Err())
		}
	}
}

// TestMalformedInputsFail: each malformed input is ErrCorrupt, and the
// error sticks for every later read.
func TestMalformedInputsFail(t *testing.T) {
	long := &Writer{}
	long.Int(math.MaxInt32 + 1)
	for name, read := range map[string]func(*Reader){
		"overlong varint":     func(r *Reader) { r.Uint() },
		"string past the end": func(r *Reader) { _ = r.String() },
		"int past 32 bits":    func(r *Reader) { r.Int() },
		"bool of 2":           func(r *Reader) { r.Bool() },
		"short uint32":        func(r *Reader) { r.Uint32() },
		"short float":         func(r *Reader) { r.Float() },
	} {
		in := map[string]string{
			"overlong varint":     "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
			"string past the end": "\x05abc",
			"int past 32 bits":    string(long.B),
			"bool of 2":           "\x02",
			"short uint32":        "abc",
			"short float":         "abcdefg",
		}[name]
		r := NewReader(in)
		read(r)
		if r.Err() != ErrCorrupt {
			t.Errorf("%s: err %v", name, r.Err())
		}
		if r.Byte() != 0 || r.Err() != ErrCorrupt || r.Len() != 0 {
			t.Errorf("%s: the error did not stick", name)
		}
	}
}
