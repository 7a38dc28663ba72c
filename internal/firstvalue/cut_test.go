package firstvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// testMarker is a marker with a character JSON must escape.
func testMarker(n int64) string { return "\n[cut " + strconv.FormatInt(n, 10) + "]" }

// chunked hands out its bytes in reads of the sizes given, in turn, so that
// a string, an escape or a UTF-8 sequence is split across reads.
type chunked struct {
	b     []byte
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), max(1, c.sizes[c.i%len(c.sizes)]))
	c.i++
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// A string longer than Max keeps its characters that end within Max bytes
// (never half an escape, a UTF-8 sequence or a surrogate pair), then the
// marker, which counts the bytes withheld; the rest is kept as it was.
func TestReadCutCutsLongStringsAtACharacter(t *testing.T) {
	cases := []struct {
		name, in, want string
		cut            int64
	}{
		{"short strings kept", `{"a":"abcd","b":["x"]}`, `{"a":"abcd","b":["x"]}`, 0},
		{"one byte over", `{"a":"abcdef"}`, `{"a":"abcd\n[cut 2]"}`, 2},
		{"a key too", `{"abcdefgh":1}`, `{"abcd\n[cut 4]":1}`, 4},
		{"an escape is never split", `{"a":"abc\n"}`, `{"a":"abc\n[cut 2]"}`, 2},
		{"nor a \\u escape", `{"a":"ab\u00e9"}`, `{"a":"ab\n[cut 6]"}`, 6},
		{"nor a UTF-8 sequence", "{\"a\":\"abc\u00e9z\"}", "{\"a\":\"abc\\n[cut 3]\"}", 3},
		{"nor a surrogate pair", `{"a":"\ud83d\ude00"}`, `{"a":"\n[cut 12]"}`, 12},
		{"an escaped quote is not the end", `{"a":"abcd\"ef","b":"x"}`, `{"a":"abcd\n[cut 4]","b":"x"}`, 4},
		{"an escaped backslash is", `{"a":"abcdef\\","b":"abcdefgh"}`, `{"a":"abcd\n[cut 4]","b":"abcd\n[cut 4]"}`, 8},
		{"every long string", `["abcde","ab","abcdefg"]`, `["abcd\n[cut 1]","ab","abcd\n[cut 3]"]`, 4},
	}
	for _, c := range cases {
		for _, sizes := range [][]int{{1 << 20}, {1}, {2, 3}, {5, 1, 7}} {
			got, cut, err := ReadCut(&chunked{b: []byte(c.in), sizes: sizes}, 1<<20, Cut{Max: 4, Marker: testMarker})
			want := strings.ReplaceAll(c.want, "\n", `\n`)
			if err != nil || string(got) != want || cut != c.cut {
				t.Errorf("%s (reads of %v): %s, cut %d, %v; want %s, cut %d", c.name, sizes, got, cut, err, want, c.cut)
			}
		}
	}
}

// ReadCut reads what Read reads, and stops where Read stops: at the end of
// the first object or array, or at the end of a stream that starts with
// anything else (which the decoder refuses), or at the limit of the bytes
// kept.
func TestReadCutRefusesWhatReadRefuses(t *testing.T) {
	for _, in := range []string{`"x" {}`, `{"a":1`, ``, `  `, `nul{}`, `{"a":"b\"}"}` + "\n" + `{"next":1}`, `[1,[2]]{"next":true}`, `{"a":"\u12"}`} {
		want, werr := Read(iotest.OneByteReader(strings.NewReader(in)), 1<<20)
		got, cut, err := ReadCut(iotest.OneByteReader(strings.NewReader(in)), 1<<20, Cut{Max: 64, Marker: testMarker})
		if !bytes.Equal(got, want) || cut != 0 || !errors.Is(err, werr) {
			t.Errorf("ReadCut(%q) = %q, %d, %v; Read gives %q, %v", in, got, cut, err, want, werr)
		}
	}
	const limit = 100
	obj := `{"k":"` + strings.Repeat("v", limit-8) + `"}`
	if got, _, err := ReadCut(strings.NewReader(obj), limit, Cut{Max: 1 << 10, Marker: testMarker}); err != nil || string(got) != obj {
		t.Errorf("object of the limit: %q, %v", got, err)
	}
	got, _, err := ReadCut(strings.NewReader(obj+" "), limit-1, Cut{Max: 1 << 10, Marker: testMarker, Whole: true})
	if !errors.Is(err, ErrTooLarge) || string(got) != obj[:limit] {
		t.Errorf("object over the limit: %q, %v; want its first %d bytes and ErrTooLarge", got, err, limit)
	}
	// The limit is on what is kept: a stream far longer, whose long string
	// is cut, is within it.
	long := `{"k":"` + strings.Repeat("v", 10*limit) + `"}`
	if got, cut, err := ReadCut(strings.NewReader(long), limit, Cut{Max: 10, Marker: testMarker}); err != nil || cut != 10*limit-10 {
		t.Errorf("a long string cut within the limit: %q, cut %d, %v", got, cut, err)
	}
	// And what is kept over it is refused, the cut string included.
	if _, _, err := ReadCut(strings.NewReader(long), limit, Cut{Max: limit, Marker: testMarker}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("kept over the limit: %v, want ErrTooLarge", err)
	}
	rerr := errors.New("broken pipe")
	if got, cut, err := ReadCut(iotest.ErrReader(rerr), limit, Cut{}); got != nil || cut != 0 || err != rerr {
		t.Errorf("read error: %q, %d, %v", got, cut, err)
	}
}

// Whole reads to the end of the stream: what follows the first value is
// kept (the decoder refuses it), its long strings cut too.
func TestReadCutWholeReadsToTheEnd(t *testing.T) {
	in := `{"a":1} "abcdefgh"`
	got, cut, err := ReadCut(iotest.OneByteReader(strings.NewReader(in)), 1<<20, Cut{Max: 4, Marker: testMarker, Whole: true})
	if err != nil || string(got) != `{"a":1} "abcd\n[cut 4]"` || cut != 4 {
		t.Errorf("got %s, %d, %v", got, cut, err)
	}
}

// The reader's memory follows what it keeps, not what it reads: a payload
// of 50 MB whose tool output is one string allocates a small multiple of
// the 4 MiB it keeps (the blocks it writes them in, and the payload
// joined once), far from the 50 MB a reader that held the payload would.
func TestReadCutMemoryFollowsWhatIsKept(t *testing.T) {
	const size, max = 50_000_000, 4 << 20
	var kept int
	var cut int64
	alloc := allocated(func() {
		got, n, err := ReadCut(bigPayload(size), 8<<20, Cut{Max: max, Marker: testMarker})
		if err != nil {
			t.Fatal(err)
		}
		kept, cut = len(got), n
	})
	if kept < max-1024 || kept > max+1024 || cut < size-max-1024 {
		t.Fatalf("kept %d bytes, cut %d: want the first %d bytes of the output kept", kept, cut, max)
	}
	if alloc > 3*uint64(kept) {
		t.Errorf("reading %d bytes allocated %d bytes to keep %d: want at most 3 times what is kept", size, alloc, kept)
	}
	t.Logf("read %d bytes, kept %d, allocated %d", size, kept, alloc)
}

// allocated returns the bytes f allocates (the process's, so run alone).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// bigPayload is a PostToolUse payload of size bytes, its output one string
// of 'x', made as it is read.
func bigPayload(size int) io.Reader {
	head := `{"event":"PostToolUse","toolName":"Bash","toolInput":{"command":"cat big.log"},"toolResult":{"content":"`
	tail := `","isError":false}}`
	return io.MultiReader(strings.NewReader(head), io.LimitReader(xs{}, int64(size-len(head)-len(tail))), strings.NewReader(tail))
}

// xs yields 'x' forever.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// BenchmarkReadCut reads a payload of 50 MB whose tool output is one string,
// keeping its first 1 MiB (luahook.MaxScanBytes): MB/s read, and bytes
// allocated (B/op) against the 1 MiB kept.
func BenchmarkReadCut(b *testing.B) {
	const size = 50_000_000
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadCut(bigPayload(size), 8<<20, Cut{Max: 1 << 20, Marker: testMarker}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadCut holds the cut to its rules over any input, read in pieces of
// any size: cut output is valid JSON whenever the input is; it is the
// input when no string is longer than Max; and each string, key or value,
// is either the input's or a prefix of it (its characters within Max
// bytes) followed by the marker, whose counts add up to what was cut.
func FuzzReadCut(f *testing.F) {
	for _, s := range []string{
		`{"a":"abcdefghij","b":[1,2,{"c":"\u00e9\ud83d\ude00xyz"}]}`,
		`["\\\\\\\"\"abcdef", "\n\t\r\b\f\/", "` + "\u00e9\u4e16\U0001F600" + `"]`,
		`{"event":"PostToolUse","toolResult":{"content":"line1\nline2\nline3"}}`,
		`"just a string"`, `{"a":`, `[{"\ud800":"\udc00\ud800\ud800\udc00"}]`, "[\"\xff\xfe\xc3\"]",
	} {
		f.Add([]byte(s), uint8(3), uint8(2))
	}
	f.Fuzz(func(t *testing.T, in []byte, max, step uint8) {
		m := int(max%16) + 1
		var markers int64
		marker := func(n int64) string { return "\n[cut " + strconv.FormatInt(n, 10) + "]" }
		got, cut, err := ReadCut(&chunked{b: in, sizes: []int{int(step%7) + 1, 3, 1}}, 1<<20, Cut{Max: m, Marker: marker, Whole: true})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(in) {
			return
		}
		// With keys, what is cut is a subset of it: the result is valid
		// JSON, and nothing is cut when nothing was without them.
		kgot, kcut, err := ReadCut(&chunked{b: in, sizes: []int{int(step%5) + 1}}, 1<<20, Cut{Max: m, Marker: marker, Whole: true, Keys: []string{"a", "toolResult"}})
		if err != nil || !json.Valid(kgot) || kcut > cut || cut == 0 && !bytes.Equal(kgot, in) {
			t.Fatalf("with keys, %q cut to %q (cut %d, without keys %d), %v", in, kgot, kcut, cut, err)
		}
		if !json.Valid(got) {
			t.Fatalf("valid input %q cut to invalid %q", in, got)
		}
		long := longest(in) > m
		if !long && (cut != 0 || !bytes.Equal(got, in)) {
			t.Fatalf("no string over %d bytes in %q, yet %q, cut %d", m, in, got, cut)
		}
		if long && cut == 0 {
			t.Fatalf("a string over %d bytes in %q, nothing cut: %q", m, in, got)
		}
		din, dgot := json.NewDecoder(bytes.NewReader(in)), json.NewDecoder(bytes.NewReader(got))
		din.UseNumber()
		dgot.UseNumber()
		for {
			a, aerr := din.Token()
			b, berr := dgot.Token()
			if aerr != nil || berr != nil {
				if aerr != io.EOF || berr != io.EOF {
					t.Fatalf("tokens of %q and %q: %v, %v", in, got, aerr, berr)
				}
				break
			}
			as, aok := a.(string)
			bs, bok := b.(string)
			if !aok || !bok {
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Fatalf("token %v became %v (%q -> %q)", a, b, in, got)
				}
				continue
			}
			if as == bs {
				continue
			}
			i := strings.LastIndex(bs, "\n[cut ")
			if i < 0 || !strings.HasPrefix(as, bs[:i]) || !strings.HasSuffix(bs, "]") {
				t.Fatalf("string %q became %q, not a prefix and the marker", as, bs)
			}
			n, perr := strconv.ParseInt(bs[i+len("\n[cut "):len(bs)-1], 10, 64)
			if perr != nil || n <= 0 {
				t.Fatalf("marker of %q: %v", bs, perr)
			}
			markers += n
		}
		if markers != cut {
			t.Fatalf("markers count %d bytes, ReadCut says %d (%q -> %q)", markers, cut, in, got)
		}
	})
}

// longest returns the length of the longest string literal of a valid JSON
// text, as encoded between its quotes.
func longest(in []byte) int {
	best, inString, escaped, start := 0, false, false, 0
	for i, c := range in {
		switch {
		case !inString:
			if c == '"' {
				inString, start = true, i+1
			}
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
			best = max(best, i-start)
		}
	}
	return best
}

// A string cut, its marker included, is within Max: reading the payload
// again (a door that forwards it to serve) cuts nothing more.
func TestACutPayloadReadAgainIsNotCutAgain(t *testing.T) {
	const max = 1 << 20
	marker := func(n int64) string {
		return "\n[the rest of this output (" + strconv.FormatInt(n, 10) + " bytes) was withheld]"
	}
	once, cut, err := ReadCut(bigPayload(3*max), 8<<20, Cut{Max: max, Marker: marker})
	if err != nil || cut == 0 {
		t.Fatalf("first read: cut %d, %v", cut, err)
	}
	twice, cut, err := ReadCut(bytes.NewReader(once), 8<<20, Cut{Max: max, Marker: marker})
	if err != nil || cut != 0 || !bytes.Equal(once, twice) {
		t.Fatalf("the second read cut %d bytes (%v)", cut, err)
	}
}

// With Keys, only the strings under those members of the top-level object
// are cut: a tool's output, never the tool's input, whose cut would make
// the call decided on another input.
func TestReadCutWithKeysCutsOnlyUnderThem(t *testing.T) {
	keys := []string{"tool_response", "toolResult"}
	long := strings.Repeat("x", 10)
	cases := []struct{ in, want string }{
		{`{"tool_input":{"content":"` + long + `"},"tool_response":{"out":"` + long + `","n":["` + long + `"]}}`,
			`{"tool_input":{"content":"` + long + `"},"tool_response":{"out":"xxxx\n[cut 6]","n":["xxxx\n[cut 6]"]}}`},
		{`{"a":"` + long + `","toolResult":"` + long + `"}`, `{"a":"` + long + `","toolResult":"xxxx\n[cut 6]"}`},
		{`{"x":{"tool_response":"` + long + `"}}`, `{"x":{"tool_response":"` + long + `"}}`},
		{`["` + long + `",{"tool_response":"` + long + `"}]`, `["` + long + `",{"tool_response":"` + long + `"}]`},
		{`{"tool\u005fresponse":"` + long + `"}`, `{"tool\u005fresponse":"` + long + `"}`},
		{`{"` + long + `":"` + long + `", "tool_response" : "` + long + `"}`, `{"` + long + `":"` + long + `", "tool_response" : "xxxx\n[cut 6]"}`},
	}
	for _, c := range cases {
		for _, reads := range [][]int{{1 << 20}, {1}, {3, 5}} {
			got, _, err := ReadCut(&chunked{b: []byte(c.in), sizes: reads}, 1<<20, Cut{Max: 4, Marker: testMarker, Keys: keys})
			if err != nil || string(got) != c.want {
				t.Errorf("%s (reads of %v): %s, %v; want %s", c.in, reads, got, err, c.want)
			}
		}
	}
}
