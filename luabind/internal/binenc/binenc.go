// Package binenc is the byte format of luahook's compiled-chunk cache: a
// writer that appends unsigned varints, integers and strings, and a reader
// that checks every length against the bytes that remain before it makes
// anything of that length, so that no input, however damaged, can make it
// allocate more than the input's own size or panic.
package binenc

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrCorrupt is the error of every read past the end or of a value out of
// range.
var ErrCorrupt = errors.New("corrupt cache entry")

// Writer appends to B.
type Writer struct{ B []byte }

// Uint appends v as an unsigned varint.
func (w *Writer) Uint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// Int appends v as a signed varint.
func (w *Writer) Int(v int) { w.B = binary.AppendVarint(w.B, int64(v)) }

// Byte appends one byte.
func (w *Writer) Byte(v byte) { w.B = append(w.B, v) }

// Bool appends v as one byte.
func (w *Writer) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}

// Uint32 appends v in four bytes.
func (w *Writer) Uint32(v uint32) { w.B = binary.LittleEndian.AppendUint32(w.B, v) }

// Float appends the bits of v in eight bytes (NaNs keep their bits).
func (w *Writer) Float(v float64) { w.B = binary.LittleEndian.AppendUint64(w.B, math.Float64bits(v)) }

// String appends s with its length before it.
func (w *Writer) String(s string) {
	w.Uint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// Reader reads what a Writer wrote, from a string so that the strings it
// returns share its memory rather than being copied one by one. The first
// error sticks: every later read returns zero values and Err reports it.
type Reader struct {
	s   string
	err error
}

// NewReader reads s.
func NewReader(s string) *Reader { return &Reader{s: s} }

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Len is the number of bytes left.
func (r *Reader) Len() int { return len(r.s) }

func (r *Reader) fail() { r.err, r.s = ErrCorrupt, "" }

// Fail records that the input is malformed, for a check the caller makes.
func (r *Reader) Fail() { r.fail() }

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if i >= len(r.s) {
			break
		}
		c := r.s[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.s = r.s[i+1:]
			return v
		}
	}
	r.fail()
	return 0
}

// Int reads a signed varint that must fit in 32 bits (line numbers,
// program counters: no Lua chunk has more).
func (r *Reader) Int() int {
	u := r.Uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int(v)
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.s) < 1 {
		r.fail()
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

// Uint32 reads four bytes.
func (r *Reader) Uint32() uint32 {
	if len(r.s) < 4 {
		r.fail()
		return 0
	}
	v := uint32(r.s[0]) | uint32(r.s[1])<<8 | uint32(r.s[2])<<16 | uint32(r.s[3])<<24
	r.s = r.s[4:]
	return v
}

// Float reads eight bytes.
func (r *Reader) Float() float64 {
	if len(r.s) < 8 {
		r.fail()
		return 0
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(r.s[i])
	}
	r.s = r.s[8:]
	return math.Float64frombits(v)
}

// String reads a string; it shares the reader's memory.
func (r *Reader) String() string {
	n := r.Uint()
	if r.err != nil || n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// Count reads the length of a list whose every element takes at least min
// bytes (min >= 1), and fails unless that many elements can still follow:
// a damaged count can never make the caller allocate more than the input
// could describe.
func (r *Reader) Count(min int) int {
	n := r.Uint()
	if r.err != nil || min < 1 || n > uint64(len(r.s)/min) {
		r.fail()
		return 0
	}
	return int(n)
}
