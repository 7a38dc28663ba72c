package install

import (
	"bytes"
	"fmt"
	"slices"
)

// edit replaces src[start:end] with text (an insertion when start == end).
// A change to a settings file is a list of edits: everything outside them
// stays byte for byte what it was.
type edit struct {
	start, end int
	text       string
}

// splice applies edits to src. Edits must not overlap.
func splice(src []byte, edits []edit) ([]byte, error) {
	slices.SortStableFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	out.Grow(len(src))
	pos := 0
	for _, e := range edits {
		if e.start < pos || e.end < e.start {
			return nil, fmt.Errorf("install: overlapping edits at offset %d", e.start)
		}
		out.Write(src[pos:e.start])
		out.WriteString(e.text)
		pos = e.end
	}
	out.Write(src[pos:])
	return out.Bytes(), nil
}

// fileStyle reads how src lays out its values: the indentation of the top
// level's first key (two spaces when it has none of its own line) and its
// line ending.
func fileStyle(src []byte, root *node) style {
	st := defaultStyle
	if bytes.Contains(src, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if len(root.members) > 0 {
		if ind, ok := ownLine(src, root.members[0].keyStart); ok && ind != "" {
			st.unit = ind
		}
	}
	return st
}

// ownLine returns the white space before pos on its line, and whether only
// white space precedes pos there.
func ownLine(src []byte, pos int) (string, bool) {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	lead := src[ls:pos]
	return string(lead), len(bytes.TrimLeft(lead, " \t")) == 0
}

// leading returns the white space that starts the line holding pos.
func leading(src []byte, pos int) string {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	i := ls
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

// lineEnd returns where to insert a line after the value ending at pos: the
// end of that line when the rest of it is white space and comments (the
// comments stay with the value they follow), else pos itself.
func lineEnd(src []byte, pos int) int {
	i := pos
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '\r' || c == '\n':
			return i
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return pos // a comment that ends the file: keep it last
			}
			if j > 0 && src[i+j-1] == '\r' {
				j--
			}
			return i + j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 || bytes.IndexByte(src[i:i+2+j], '\n') >= 0 {
				return pos
			}
			i += 2 + j + 2
		default:
			return pos
		}
	}
	return pos
}

// appendAfter adds text after the value that ends at last (the last member
// or element of its container, which starts at lastStart): a comma, then
// the text on a line of its own indented like the value, or inline when the
// container is written on one line. text is rendered by render(indent) or
// inline by compact.
func appendAfter(src []byte, st style, lastStart, last int, v any, key string) []edit {
	prefix := ""
	if key != "" {
		prefix = quote(key) + ": "
	}
	indent, own := ownLine(src, lastStart)
	if !own {
		return []edit{{last, last, ", " + prefix + compact(v)}}
	}
	text := st.nl + indent + prefix + st.render(v, indent)
	at := lineEnd(src, last)
	if at == last {
		return []edit{{last, last, "," + text}}
	}
	return []edit{{last, last, ","}, {at, at, text}}
}

// fillEmpty puts text into the empty object or array c (its brackets hold
// only white space or comments), on a line of its own.
func fillEmpty(src []byte, st style, c *node, v any, key string) edit {
	prefix := ""
	if key != "" {
		prefix = quote(key) + ": "
	}
	outer := leading(src, c.start)
	inner := outer + st.unit
	text := st.nl + inner + prefix + st.render(v, inner) + st.nl + outer
	if len(bytes.TrimSpace(src[c.start+1:c.end-1])) == 0 {
		return edit{c.start + 1, c.end - 1, text}
	}
	return edit{c.end - 1, c.end - 1, text} // after the comments
}

// insertMembers adds fields at the end of object o.
func insertMembers(src []byte, st style, o *node, fields obj) []edit {
	if len(o.members) == 0 {
		outer := leading(src, o.start)
		inner := outer + st.unit
		e := fillEmpty(src, st, o, fields[0].val, fields[0].key)
		e.text = e.text[:len(e.text)-len(st.nl+outer)] + moreMembers(st, fields[1:], inner, true) + st.nl + outer
		return []edit{e}
	}
	last := o.members[len(o.members)-1]
	edits := appendAfter(src, st, last.keyStart, last.value.end, fields[0].val, fields[0].key)
	indent, own := ownLine(src, last.keyStart)
	edits[len(edits)-1].text += moreMembers(st, fields[1:], indent, own)
	return edits
}

// moreMembers writes fields as members that follow another, each on a line
// of its own indented with indent, or inline.
func moreMembers(st style, fields obj, indent string, own bool) string {
	var s string
	for _, f := range fields {
		if own {
			s += "," + st.nl + indent + quote(f.key) + ": " + st.render(f.val, indent)
		} else {
			s += ", " + quote(f.key) + ": " + compact(f.val)
		}
	}
	return s
}

// arrayEdits removes the elements of a whose indices are in remove and, when
// add is not nil, appends add. What separates the remaining elements is
// left as it was.
func arrayEdits(src []byte, st style, a *node, remove map[int]bool, add any) []edit {
	n := len(a.elems)
	var edits []edit
	// A run of removed elements that ends the array: its deletion starts
	// where the previous element ends (or the first removed one starts),
	// and the appended element takes its place.
	tailFrom, tailTo := -1, -1
	for i := 0; i < n; {
		if !remove[i] {
			i++
			continue
		}
		j := i
		for j+1 < n && remove[j+1] {
			j++
		}
		switch {
		case j < n-1:
			edits = append(edits, edit{a.elems[i].start, a.elems[j+1].start, ""})
		case i > 0:
			tailFrom, tailTo = a.elems[i-1].end, a.elems[j].end
		default:
			tailFrom, tailTo = a.elems[0].start, a.elems[j].end
		}
		i = j + 1
	}
	allGone := n > 0 && tailFrom == a.elems[0].start && remove[0]
	switch {
	case add == nil:
		if tailFrom >= 0 {
			edits = append(edits, edit{tailFrom, tailTo, ""})
		}
	case n == 0:
		edits = append(edits, fillEmpty(src, st, a, add, ""))
	case allGone:
		indent, own := ownLine(src, a.elems[0].start)
		text := compact(add)
		if own {
			text = st.render(add, indent)
		}
		edits = append(edits, edit{tailFrom, tailTo, text})
	case tailFrom >= 0:
		// Keep the separator that followed the last element kept.
		p := 0
		for k := range n {
			if a.elems[k].end == tailFrom {
				p = k
			}
		}
		sep := string(src[a.elems[p].end:a.elems[p+1].start])
		indent, own := ownLine(src, a.elems[p+1].start)
		text := compact(add)
		if own {
			text = st.render(add, indent)
		}
		edits = append(edits, edit{tailFrom, tailTo, sep + text})
	default:
		last := a.elems[n-1]
		edits = append(edits, appendAfter(src, st, last.start, last.end, add, "")...)
	}
	return edits
}
