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

// duplicateKey reports the first object in v that holds a key twice, as an
// error naming the key's path from name: `toolInput.edits[1].path: duplicate
// key`. v must be JSON that encoding/json has validated (and so nested at
// most maxNesting deep). Keys are compared as encoding/json decodes them:
// escapes resolved ("c\u006fmmand" is "command") and invalid UTF-8 replaced,
// so that no reader of the value can see two members where another sees one.
//
// The scan is one pass that allocates nothing for objects of up to
// smallObject keys written without escapes; a larger object holds a table of
// 8 to 16 bytes per key while it is open (a member takes at least 5 bytes of
// v), and escaped keys their unescaped text.
func duplicateKey(name string, v []byte) error {
	if len(v) >= escapedKey {
		return fmt.Errorf("%s: %d bytes, too large to check for duplicate keys", name, len(v))
	}
	// Local slices over arrays on the stack: the scan allocates only when an
	// object is large, or nesting deep, or a key escaped.
	var keysBuf [4 * smallObject]uint32
	var framesBuf [16]dupFrame
	keys, frames := keysBuf[:0], framesBuf[:0]
	var arena []byte // escaped keys, unescaped: a uvarint length, then the text
	var seed maphash.Seed
	wantKey := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			w := walker{data: v, pos: i}
			if err := w.skipString(); err != nil {
				return err
			}
			if wantKey {
				wantKey = false
				lit := v[i:w.pos]
				ref := uint32(i + 1)
				if bytes.IndexByte(lit, '\\') >= 0 || !utf8.Valid(lit) {
					var text string
					if err := json.Unmarshal(lit, &text); err != nil {
						return fmt.Errorf("%s: invalid key at byte %d: %w", name, i, err)
					}
					ref = uint32(len(arena)) | escapedKey
					arena = binary.AppendUvarint(arena, uint64(len(text)))
					arena = append(arena, text...)
				}
				top := &frames[len(frames)-1]
				top.member = ref
				if dup := top.add(v, arena, keys, ref, &seed); dup {
					return duplicateError(name, v, arena, frames, ref)
				}
				if top.table == nil {
					keys = append(keys, ref)
				}
			}
			i = w.pos - 1
		case '{':
			frames = append(frames, dupFrame{object: true, base: len(keys)})
			wantKey = true
		case '[':
			frames = append(frames, dupFrame{})
		case '}':
			keys = keys[:frames[len(frames)-1].base]
			frames = frames[:len(frames)-1]
		case ']':
			frames = frames[:len(frames)-1]
		case ',':
			if top := &frames[len(frames)-1]; top.object {
				wantKey = true
			} else {
				top.index++
			}
		}
	}
	return nil
}

// dupFrame is an object or array open in duplicateKey's scan.
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
