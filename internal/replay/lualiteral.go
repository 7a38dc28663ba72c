package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLiteralDepth bounds how deeply nested a JSON value may be to be written
// as a Lua literal; the runner's codec refuses deeper tables anyway.
const maxLiteralDepth = 200

// literalWidth is how wide a table may be written on one line; a wider one
// has one field per line.
const literalWidth = 88

// AppendLuaString appends s as a Lua double-quoted string literal that reads
// back to exactly s's bytes: quotes, backslashes, control bytes, bytes of
// invalid UTF-8 and runes a terminal or editor acts on are escaped (\ddd, in
// three digits so that a following digit is not read into the escape); the
// rest of the text is kept as it is. A quoted literal has no long brackets,
// so "]]" needs nothing.
func AppendLuaString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
			continue
		case c == '\n':
			b = append(b, '\\', 'n')
			i++
			continue
		case c == '\t':
			b = append(b, '\\', 't')
			i++
			continue
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || c < utf8.RuneSelf || !unicode.IsGraphic(r) {
			for _, x := range []byte(s[i : i+n]) {
				b = append(b, '\\', '0'+x/100, '0'+x/10%10, '0'+x%10)
			}
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// luaKeywords are Lua's reserved words: a key spelled as one must be written
// ["key"].
var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "goto": true, "if": true, "in": true,
	"local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "true": true, "until": true, "while": true,
}

// isLuaName reports whether s may be written as a field name: an identifier
// that is not a reserved word.
func isLuaName(s string) bool {
	if s == "" || luaKeywords[s] {
		return false
	}
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// jnode is a JSON value read for writing as Lua: an object keeps its keys
// in the order of the text, a number its text.
type jnode struct {
	kind  byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	text  string
	keys  []string
	items []jnode
}

// LuaLiteral returns the Lua expression of a JSON value: a table constructor
// for an object ({} when empty) or an array (json.array() when empty, which
// the json module encodes back as []), json.null for null, and strings,
// numbers and booleans as literals. Evaluated in a luahook Lua state and
// encoded with the json module, it gives back the same JSON value. indent
// is the indentation of the line the expression starts on; a table wider
// than a line is written with one field per line.
func LuaLiteral(data []byte, indent string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("JSON text has more than one value")
	}
	var b []byte
	b = appendNode(b, &n, indent)
	return string(b), nil
}

func readNode(dec *json.Decoder, depth int) (jnode, error) {
	if depth > maxLiteralDepth {
		return jnode{}, fmt.Errorf("JSON nested deeper than %d levels", maxLiteralDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return jnode{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := jnode{kind: byte(t)}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return jnode{}, err
				}
				n.keys = append(n.keys, k.(string))
			}
			item, err := readNode(dec, depth+1)
			if err != nil {
				return jnode{}, err
			}
			n.items = append(n.items, item)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jnode{}, err
		}
		return n, nil
	case string:
		return jnode{kind: '"', text: t}, nil
	case json.Number:
		// A JSON number is a Lua numeral as it is written; one out of
		// float64's range would become an infinity, which has no JSON form.
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) {
			return jnode{}, fmt.Errorf("number %s is out of range", t)
		}
		return jnode{kind: '0', text: string(t)}, nil
	case bool:
		if t {
			return jnode{kind: 't'}, nil
		}
		return jnode{kind: 'f'}, nil
	case nil:
		return jnode{kind: 'n'}, nil
	}
	return jnode{}, fmt.Errorf("unexpected JSON token %v", tok)
}

func appendNode(b []byte, n *jnode, indent string) []byte {
	switch n.kind {
	case '"':
		return AppendLuaString(b, n.text)
	case '0':
		return append(b, n.text...)
	case 't':
		return append(b, "true"...)
	case 'f':
		return append(b, "false"...)
	case 'n':
		return append(b, "json.null"...)
	}
	if len(n.items) == 0 {
		if n.kind == '[' {
			return append(b, "json.array()"...)
		}
		return append(b, "{}"...)
	}
	if w := flatWidth(n, literalWidth-len(indent)); w <= literalWidth-len(indent) {
		return appendFlat(b, n)
	}
	b = append(b, "{\n"...)
	inner := indent + "  "
	for i := range n.items {
		b = append(b, inner...)
		b = appendKey(b, n, i)
		b = appendNode(b, &n.items[i], inner)
		b = append(b, ",\n"...)
	}
	b = append(b, indent...)
	return append(b, '}')
}

// flatWidth returns the width of n written on one line, or a number past
// budget as soon as it is known to be wider: the cost is bounded by budget,
// not by n's size.
func flatWidth(n *jnode, budget int) int {
	switch n.kind {
	case '"':
		if len(n.text) > budget {
			return budget + 1
		}
		return len(AppendLuaString(nil, n.text))
	case '0':
		return len(n.text)
	case 't', 'n':
		return 4 + 5*btoi(n.kind == 'n') // true, json.null
	case 'f':
		return 5
	}
	if len(n.items) == 0 {
		return 12 // json.array()
	}
	w := 2 // "{ "
	for i := range n.items {
		if w > budget {
			return w
		}
		if n.kind == '{' {
			if len(n.keys[i]) > budget {
				return budget + 1
			}
			w += len(appendKey(nil, n, i))
		}
		w += flatWidth(&n.items[i], budget-w) + 2 // ", " or " }"
	}
	return w
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendFlat writes n on one line.
func appendFlat(b []byte, n *jnode) []byte {
	if n.kind != '{' && n.kind != '[' || len(n.items) == 0 {
		return appendNode(b, n, "")
	}
	b = append(b, "{ "...)
	for i := range n.items {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendKey(b, n, i)
		b = appendFlat(b, &n.items[i])
	}
	return append(b, " }"...)
}

// appendKey writes "key = " of field i of an object, nothing for an array.
func appendKey(b []byte, n *jnode, i int) []byte {
	if n.kind != '{' {
		return b
	}
	if k := n.keys[i]; isLuaName(k) {
		b = append(b, k...)
	} else {
		b = append(b, '[')
		b = AppendLuaString(b, k)
		b = append(b, ']')
	}
	return append(b, " = "...)
}

// luaComment returns s fit for a Lua line comment: one line, its control
// characters and anything a terminal acts on escaped as in a Go string.
func luaComment(s string) string {
	q := strconv.QuoteToGraphic(s)
	return strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
}
