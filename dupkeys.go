package luahook

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"unicode/utf8"
)

// smallObject is how many keys an object may have before its keys go into a
// hash table rather than being compared one by one.
const smallObject = 8

// escapedKey marks a key reference into dupScan.arena rather than into the
// scanned value.
const escapedKey = 1 << 31

// errInvalidJSON reports text that is not valid JSON (checkJSON); whoever
// meets it decodes the text with encoding/json for an error that says where.
var errInvalidJSON = errors.New("invalid JSON")

// checkJSON validates v as json.Valid does (the same grammar, the same
// nesting limit, invalid UTF-8 accepted) and reports the first object in it
// that holds a key twice, as an error naming the key's path from name:
// `toolInput.edits[1].path: duplicate key`. Invalid JSON is errInvalidJSON,
// whether or not a duplicate key comes before the fault. Keys are compared
// as encoding/json decodes them: escapes resolved ("c\u006fmmand" is
// "command") and invalid UTF-8 replaced, so that no reader of the value can
// see two members where another sees one.
//
// The scan is one pass that allocates nothing for objects of up to
// smallObject keys written without escapes, nested at most 16 deep; a larger
// object holds a table of 8 to 16 bytes per key while it is open (a member
// takes at least 5 bytes of v), and escaped keys their unescaped text.
func checkJSON(name string, v []byte) error {
	end, err := scanJSON(name, v, 0)
	if err == errInvalidJSON {
		return err
	}
	for ; end < len(v); end++ {
		if c := v[end]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return errInvalidJSON // a second value
		}
	}
	return err
}

// scanJSON is checkJSON for the value that starts at v[at] (white space
// before it aside), which need not end v: it returns the offset just past
// the value, with what checkJSON reports of it. On errInvalidJSON the
// offset means nothing.
func scanJSON(name string, v []byte, at int) (int, error) {
	if len(v) >= escapedKey {
		return 0, fmt.Errorf("%s: %d bytes, too large to check for duplicate keys", name, len(v))
	}
	// Local slices over arrays on the stack: the scan allocates only when an
	// object is large, or nesting deep, or a key escaped.
	var keysBuf [4 * smallObject]uint32
	var framesBuf [16]dupFrame
	keys, frames := keysBuf[:0], framesBuf[:0]
	var arena []byte // escaped keys, unescaped: a uvarint length, then the text
	var seed maphash.Seed
	var dup error // the first duplicate key met
	state := wantValue
	i := at
	for {
		if state == wantNext && len(frames) == 0 {
			return i, dup
		}
		for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
			i++
		}
		if i == len(v) {
			break
		}
		c := v[i]
		switch state {
		case wantValue, wantValueOrClose:
			switch {
			case c == ']' && state == wantValueOrClose:
				frames = frames[:len(frames)-1]
				i, state = i+1, wantNext
			case c == '{' || c == '[':
				if len(frames) >= maxNesting {
					return 0, errInvalidJSON
				}
				if c == '{' {
					frames = append(frames, dupFrame{object: true, base: len(keys)})
					state = wantKeyOrClose
				} else {
					frames = append(frames, dupFrame{})
					state = wantValueOrClose
				}
				i++
			case c == '"':
				end, _ := scanString(v, i)
				if end < 0 {
					return 0, errInvalidJSON
				}
				i, state = end, wantNext
			case c == '-' || '0' <= c && c <= '9':
				if i = scanNumber(v, i); i < 0 {
					return 0, errInvalidJSON
				}
				state = wantNext
			case c == 't' && bytes.HasPrefix(v[i:], []byte("true")),
				c == 'n' && bytes.HasPrefix(v[i:], []byte("null")):
				i, state = i+4, wantNext
			case c == 'f' && bytes.HasPrefix(v[i:], []byte("false")):
				i, state = i+5, wantNext
			default:
				return 0, errInvalidJSON
			}
		case wantKey, wantKeyOrClose:
			switch {
			case c == '}' && state == wantKeyOrClose:
				keys = keys[:frames[len(frames)-1].base]
				frames = frames[:len(frames)-1]
				i, state = i+1, wantNext
			case c == '"':
				end, escaped := scanString(v, i)
				if end < 0 {
					return 0, errInvalidJSON
				}
				if dup == nil {
					ref := uint32(i + 1)
					if lit := v[i:end]; escaped || !utf8.Valid(lit) {
						var text string
						if err := json.Unmarshal(lit, &text); err != nil {
							return 0, errInvalidJSON
						}
						ref = uint32(len(arena)) | escapedKey
						arena = binary.AppendUvarint(arena, uint64(len(text)))
						arena = append(arena, text...)
					}
					top := &frames[len(frames)-1]
					top.member = ref
					switch {
					case top.add(v, arena, keys, ref, &seed):
						dup = duplicateError(name, v, arena, frames, ref)
					case top.table == nil:
						keys = append(keys, ref)
					}
				}
				i, state = end, wantColon
			default:
				return 0, errInvalidJSON
			}
		case wantColon:
			if c != ':' {
				return 0, errInvalidJSON
			}
			i, state = i+1, wantValue
		case wantNext:
			top := &frames[len(frames)-1]
			switch {
			case c == ',' && top.object:
				i, state = i+1, wantKey
			case c == ',':
				top.index++
				i, state = i+1, wantValue
			case c == '}' && top.object:
				keys = keys[:top.base]
				frames = frames[:len(frames)-1]
				i++
			case c == ']' && !top.object:
				frames = frames[:len(frames)-1]
				i++
			default:
				return 0, errInvalidJSON
			}
		}
	}
	return 0, errInvalidJSON // the value ends before it is complete
}

// The states of checkJSON's scan: what may come next.
const (
	wantValue        = iota // a value
	wantValueOrClose        // a value or ']': an array just opened
	wantKey                 // a key: after ',' in an object
	wantKeyOrClose          // a key or '}': an object just opened
	wantColon               // ':' after a key
	wantNext                // ',' or the close of the innermost object or array, or the end after the last
)

// scanString returns the offset just past the JSON string literal that
// starts at v[i] ('"'), and whether it holds an escape; -1 when the literal
// is not valid JSON (a raw control character, a bad escape, no closing
// quote). Invalid UTF-8 is valid here, as in json.Valid. Runs without an
// escape are found with bytes.IndexByte and checked for control characters
// eight bytes at a time.
func scanString(v []byte, i int) (int, bool) {
	escaped := false
	i++
	for {
		q := bytes.IndexByte(v[i:], '"')
		if q < 0 {
			return -1, false
		}
		run := v[i : i+q]
		b := bytes.IndexByte(run, '\\')
		if b < 0 {
			if hasControl(run) {
				return -1, false
			}
			return i + q + 1, escaped
		}
		if hasControl(run[:b]) {
			return -1, false
		}
		escaped = true
		i += b + 1 // the escaped character
		if i == len(v) {
			return -1, false
		}
		switch v[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+4 >= len(v) {
				return -1, false
			}
			for _, h := range v[i+1 : i+5] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return -1, false
				}
			}
			i += 4
		default:
			return -1, false
		}
		i++
	}
}

// hasControl reports whether b holds a byte below 0x20, which a JSON string
// may not hold raw.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		// A byte below 0x20 borrows its high bit in x - 0x20..., and had
		// it clear in x.
		if (x-0x20*ones)&^x&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// scanNumber returns the offset just past the JSON number that starts at
// v[i], or -1 when what starts there is not one: -?(0|[1-9][0-9]*)
// (.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(v []byte, i int) int {
	digits := func(i int) int { // past a run of at least one digit, or -1
		j := i
		for j < len(v) && '0' <= v[j] && v[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if v[i] == '-' {
		i++
	}
	switch {
	case i == len(v):
		return -1
	case v[i] == '0':
		i++
	default:
		if i = digits(i); i < 0 {
			return -1
		}
	}
	if i < len(v) && v[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		return digits(i)
	}
	return i
}

// dupFrame is an object or array open in checkJSON's scan.
type dupFrame struct {
	object bool
	base   int      // index in keys of the object's first key
	n      int      // the object's keys so far
	table  []uint32 // the object's keys once it has more than smallObject, hashed
	member uint32   // the key of the object's current member
	index  int      // the array's current element
}

// add records the key ref in the object f, and reports whether the object
// already has it. Up to smallObject keys are compared one by one (they are
// keys[f.base:]); past that they go into an open-addressing table of key
// references, hashed with a random seed so that no payload can choose keys
// that collide.
func (f *dupFrame) add(v, arena []byte, keys []uint32, ref uint32, seed *maphash.Seed) bool {
	k := keyText(v, arena, ref)
	f.n++
	if f.table == nil {
		for _, prev := range keys[f.base:] {
			if bytes.Equal(keyText(v, arena, prev), k) {
				return true
			}
		}
		if f.n <= smallObject {
			return false
		}
		if *seed == (maphash.Seed{}) {
			*seed = maphash.MakeSeed()
		}
		f.table = make([]uint32, 4*smallObject)
		for _, prev := range keys[f.base:] {
			f.insert(v, arena, prev, keyText(v, arena, prev), *seed)
		}
		return f.insert(v, arena, ref, k, *seed)
	}
	if 2*f.n > len(f.table) {
		old := f.table
		f.table = make([]uint32, 2*len(old))
		for _, prev := range old {
			if prev != 0 {
				f.insert(v, arena, prev, keyText(v, arena, prev), *seed)
			}
		}
	}
	return f.insert(v, arena, ref, k, *seed)
}

// insert puts ref, whose text is k, into f.table (which has a free slot),
// unless a key of the same text is there: then it reports true.
func (f *dupFrame) insert(v, arena []byte, ref uint32, k []byte, seed maphash.Seed) bool {
	mask := uint64(len(f.table) - 1)
	for i := maphash.Bytes(seed, k) & mask; ; i = (i + 1) & mask {
		switch prev := f.table[i]; {
		case prev == 0:
			f.table[i] = ref
			return false
		case bytes.Equal(keyText(v, arena, prev), k):
			return true
		}
	}
}

// keyText returns the text of a key reference: an offset into v just past
// the key's opening quote, or (with escapedKey set) an offset into arena.
func keyText(v, arena []byte, ref uint32) []byte {
	if ref&escapedKey == 0 {
		rest := v[ref:]
		return rest[:bytes.IndexByte(rest, '"')]
	}
	rest := arena[ref&^escapedKey:]
	n, w := binary.Uvarint(rest)
	return rest[w : w+int(n)]
}

// duplicateError names the key ref met twice in the innermost of frames.
func duplicateError(name string, v, arena []byte, frames []dupFrame, ref uint32) error {
	var b strings.Builder
	b.WriteString(name)
	for _, f := range frames[:len(frames)-1] {
		if f.object {
			writeMember(&b, keyText(v, arena, f.member))
		} else {
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	writeMember(&b, keyText(v, arena, ref))
	b.WriteString(": duplicate key")
	return errors.New(b.String())
}

// writeMember writes .key, or ["key"] when key is not a plain name.
func writeMember(b *strings.Builder, key []byte) {
	plain := len(key) > 0 && len(key) <= maxKeyInError
	for _, c := range key {
		if !(c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		b.WriteByte('.')
		b.Write(key)
		return
	}
	fmt.Fprintf(b, "[%q]", keyName(string(key)))
}
