package codec

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// origin is the JSON text a mutate's input was decoded from (the payload's
// toolInput), indexed so that the encoder can walk it alongside the Lua
// table it encodes, path by path: a number, string or key whose Lua value is
// the value the original text at the same path stands for is written as
// that text, so that what a hook did not change leaves luahook as it came
// (9007199254740993 stays 9007199254740993, "\u00e9" stays "\u00e9"), and
// only what it changed is formatted from Lua. Containers are written
// compact.
//
// The index is built only for an outcome that carries an input, in one pass
// over the text; finding a child costs O(1) along the original order, and a
// key out of that order is looked up in a map built for its object the first
// time one is. One origin belongs to one encoder and is reused.
type origin struct {
	data    []byte
	nodes   []onode
	scratch []byte // a string's unescaped text, for comparisons
}

// onode is one value of the original text, or one object key. The nodes are
// in document order: an object's node is followed by its key and value
// nodes in turn, an array's by its items' nodes.
type onode struct {
	start, end int32 // the text: data[start:end]
	next       int32 // the index of the node after this value and all it holds
}

// maxOriginNodes bounds the index kept between calls; a bigger one is
// dropped after use.
const maxOriginNodes = 1 << 14

// index indexes data, a JSON document, and reports whether it could: a text
// that is not one (the caller changed its input after it was decoded) is not
// indexed, and a mutate's input is then formatted whole.
func (o *origin) index(data []byte) bool {
	o.data, o.nodes = data, o.nodes[:0]
	if len(data) >= math.MaxInt32 {
		return false
	}
	end, ok := o.value(0, 0)
	return ok && o.space(end) == len(data)
}

// release lets go of the text and of an index too big to keep.
func (o *origin) release() {
	o.data = nil
	if cap(o.nodes) > maxOriginNodes {
		o.nodes = nil
	}
	if cap(o.scratch) > 1<<16 {
		o.scratch = nil
	}
}

// value indexes the value at or after offset i and returns the offset after
// it. The text was decoded before, so this only fails on a text changed
// since; it checks JSON's grammar all the same, so that every text the
// encoder copies from it is JSON.
func (o *origin) value(i, depth int) (int, bool) {
	data := o.data
	i = o.space(i)
	if i >= len(data) || depth > MaxDepth {
		return 0, false
	}
	n := len(o.nodes)
	o.nodes = append(o.nodes, onode{start: int32(i)})
	var ok bool
	switch c := data[i]; c {
	case '{':
		i, ok = o.members(i+1, depth)
	case '[':
		i, ok = o.items(i+1, depth)
	case '"':
		i, ok = o.stringEnd(i)
	case 't':
		i, ok = o.literal(i, "true")
	case 'f':
		i, ok = o.literal(i, "false")
	case 'n':
		i, ok = o.literal(i, "null")
	default:
		i, ok = o.numberEnd(i)
	}
	if !ok {
		return 0, false
	}
	o.nodes[n].end, o.nodes[n].next = int32(i), int32(len(o.nodes))
	return i, true
}

// members indexes an object's keys and values, from the offset after its '{'.
func (o *origin) members(i, depth int) (int, bool) {
	data := o.data
	if i = o.space(i); i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		i = o.space(i)
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		end, ok := o.stringEnd(i)
		if !ok {
			return 0, false
		}
		o.nodes = append(o.nodes, onode{start: int32(i), end: int32(end), next: int32(len(o.nodes) + 1)})
		if i = o.space(end); i >= len(data) || data[i] != ':' {
			return 0, false
		}
		if i, ok = o.value(i+1, depth+1); !ok {
			return 0, false
		}
		if i = o.space(i); i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == '}' {
			return i + 1, true
		}
		return 0, false
	}
}

// items indexes an array's items, from the offset after its '['.
func (o *origin) items(i, depth int) (int, bool) {
	data := o.data
	if i = o.space(i); i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = o.value(i, depth+1); !ok {
			return 0, false
		}
		if i = o.space(i); i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		return 0, false
	}
}

// space returns the offset of the first byte at or after i that is not
// white space.
func (o *origin) space(i int) int {
	data := o.data
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset after the string that starts at offset i.
// A control character in it is an error: whatever the index copies is JSON.
func (o *origin) stringEnd(i int) (int, bool) {
	data := o.data
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
		case c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// literal returns the offset after word, which must start at offset i.
func (o *origin) literal(i int, word string) (int, bool) {
	if len(o.data)-i < len(word) || string(o.data[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// numberEnd returns the offset after the JSON number that starts at offset
// i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (o *origin) numberEnd(i int) (int, bool) {
	data := o.data
	digits := func() bool {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

// text returns node n's original text.
func (o *origin) text(n int) []byte {
	return o.data[o.nodes[n].start:o.nodes[n].end]
}

// kind returns the first byte of node n's text ('{', '[', '"', a digit or
// '-' for a number, 't', 'f' or 'n'), or 0 when there is no node n.
func (o *origin) kind(n int) byte {
	if n < 0 {
		return 0
	}
	return o.data[o.nodes[n].start]
}

// sameNumber reports whether node n is a number that stands for f: its text
// parses to the same float64, bit for bit (so -0 is not 0).
func (o *origin) sameNumber(n int, f float64) bool {
	if c := o.kind(n); c != '-' && (c < '0' || c > '9') {
		return false
	}
	text := o.text(n)
	g, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	return err == nil && math.Float64bits(g) == math.Float64bits(f)
}

// sameString reports whether node n is a string (or a key) that decodes to s,
// as the decoder decodes it.
func (o *origin) sameString(n int, s string) bool {
	if o.kind(n) != '"' {
		return false
	}
	text := o.text(n)
	raw := text[1 : len(text)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == s
	}
	if len(s) > len(raw) {
		return false // unescaping never makes a text longer
	}
	d := Decoder{data: o.data, pos: int(o.nodes[n].start) + 1}
	var err error
	o.scratch, err = d.unescape(o.scratch[:0], int(o.nodes[n].end)-1)
	return err == nil && string(o.scratch) == s
}

// originKeys walks an object's keys for the encoder: along the original order,
// and through a map from decoded key to key node once a key is out of it.
type originKeys struct {
	obj    int // the object's node, or -1
	next   int // the key node the next key is expected at
	byName map[string]int
}

// keysOf returns the walk of node n's keys; none when n is not an object
// or has no keys.
func (o *origin) keysOf(n int) originKeys {
	if o.kind(n) != '{' || n+1 == int(o.nodes[n].next) {
		return originKeys{obj: -1}
	}
	return originKeys{obj: n, next: n + 1}
}

// member returns the key node and the value node of key s in the object
// that k walks, or -1, -1.
func (o *origin) member(k *originKeys, s string) (key, val int) {
	if k.obj < 0 {
		return -1, -1
	}
	end := int(o.nodes[k.obj].next)
	if k.next < end && o.sameString(k.next, s) {
		key = k.next
	} else if k.byName == nil && k.next == end {
		return -1, -1 // every key came in the original order: s is a new one
	} else {
		if k.byName == nil {
			k.byName = make(map[string]int)
			for n := k.obj + 1; n < end; n = int(o.nodes[n+1].next) {
				if name, ok := o.keyName(n); ok {
					k.byName[name] = n
				}
			}
		}
		var ok bool
		if key, ok = k.byName[s]; !ok {
			return -1, -1
		}
	}
	k.next = int(o.nodes[key+1].next)
	return key, key + 1
}

// keyName returns the decoded text of key node n. A key without escapes is
// its original bytes, which stay put while the encoder runs.
func (o *origin) keyName(n int) (string, bool) {
	text := o.text(n)
	raw := text[1 : len(text)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(raw), len(raw)), true
	}
	d := Decoder{data: o.data, pos: int(o.nodes[n].start) + 1}
	buf, err := d.unescape(nil, int(o.nodes[n].end)-1)
	return string(buf), err == nil
}

// itemsOf returns the node of the first item of node n, or -1 when n is not
// an array or is empty.
func (o *origin) itemsOf(n int) (first, end int) {
	if o.kind(n) != '[' || n+1 == int(o.nodes[n].next) {
		return -1, -1
	}
	return n + 1, int(o.nodes[n].next)
}

// after returns the node after item n of an array that ends at node end, or
// -1 past its last item.
func (o *origin) after(n, end int) int {
	if n < 0 {
		return -1
	}
	if next := int(o.nodes[n].next); next < end {
		return next
	}
	return -1
}
