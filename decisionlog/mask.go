package decisionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// DefaultMaskWith is what a masked value, or a string that held a secret,
// is replaced with when Options.MaskWith is empty.
const DefaultMaskWith = "[masked]"

// maxPathSegments bounds the segments of a configured path.
const maxPathSegments = 64

// path is a configured JSON path, split: a key, "*" (any key), "[N]" (the
// element N of an array) or "[*]" (any element).
type path []string

// ParsePath checks and splits a configured path: keys separated by dots
// ("toolInput.headers.Authorization"), "*" for any key, "[N]" or "[*]" after
// a key for an array's elements ("toolInput.args[*]"). Its first key must be
// one of the payload's (luahook.InputKeys). The error says what is wrong.
func ParsePath(s string) (path, error) {
	if s == "" {
		return nil, errors.New("empty path")
	}
	var p path
	for _, part := range strings.Split(s, ".") {
		key, idx := part, ""
		if i := strings.IndexByte(part, '['); i >= 0 {
			key, idx = part[:i], part[i:]
		}
		if key == "" {
			return nil, fmt.Errorf("path %q: empty key (write keys separated by single dots)", s)
		}
		p = append(p, key)
		for idx != "" {
			j := strings.IndexByte(idx, ']')
			if idx[0] != '[' || j < 0 {
				return nil, fmt.Errorf("path %q: %q: want [N] or [*] after a key", s, part)
			}
			n := idx[1:j]
			if _, err := strconv.ParseUint(n, 10, 31); n != "*" && err != nil {
				return nil, fmt.Errorf("path %q: %q is not an index (want [N] or [*])", s, idx[:j+1])
			}
			p, idx = append(p, "["+n+"]"), idx[j+1:]
		}
	}
	if len(p) > maxPathSegments {
		return nil, fmt.Errorf("path %q: more than %d segments", s, maxPathSegments)
	}
	if !slices.Contains(luahook.InputKeys(), p[0]) {
		return nil, fmt.Errorf("path %q: %q is not a payload key (want one of %s)", s, p[0], strings.Join(luahook.InputKeys(), ", "))
	}
	return p, nil
}

// matches reports whether the value at segs is the one p names.
func (p path) matches(segs []string) bool {
	if len(p) != len(segs) {
		return false
	}
	for i, want := range p {
		got := segs[i]
		switch {
		case want == got:
		case want == "*" && !strings.HasPrefix(got, "["):
		case want == "[*]" && strings.HasPrefix(got, "["):
		default:
			return false
		}
	}
	return true
}

// masker takes configured paths and secrets out of JSON values.
type masker struct {
	drop, mask []path
	with       string
	secrets    bool
}

// text returns s, or the mask when it holds a secret, and records where.
func (m *masker) text(s, at string, masked *[]string) string {
	if m.secrets && hasSecret(s) {
		*masked = append(*masked, at)
		return m.with
	}
	return s
}

// walker rewrites one JSON value: the members at drop paths go, the values
// at mask paths and the strings that hold a secret become the mask.
type walker struct {
	m      *masker
	dec    *json.Decoder
	out    bytes.Buffer
	segs   []string // the path of the value being read, from the payload root
	root   int      // how many of segs the report leaves out
	report string   // what the report writes for segs[:root]
	masked *[]string
}

// apply rewrites raw, a value found at segs (from the payload's root), and
// appends the path of each value it changed to masked, as report followed
// by the segments below segs.
func (m *masker) apply(raw []byte, segs []string, report string, masked *[]string) (json.RawMessage, error) {
	w := &walker{m: m, dec: json.NewDecoder(bytes.NewReader(raw)), segs: segs, root: len(segs), report: report, masked: masked}
	w.dec.UseNumber()
	w.out.Grow(len(raw))
	if err := w.value(); err != nil {
		return nil, err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return nil, errors.New("decisionlog: more than one JSON value")
	}
	return w.out.Bytes(), nil
}

// at renders the current path for Record.Masked.
func (w *walker) at() string {
	var b strings.Builder
	b.WriteString(w.report)
	for _, s := range w.segs[w.root:] {
		if !strings.HasPrefix(s, "[") && b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// ruled reports whether a rule in rules names the current path.
func (w *walker) ruled(rules []path) bool {
	for _, p := range rules {
		if p.matches(w.segs) {
			return true
		}
	}
	return false
}

// value copies (or rewrites) the next value.
func (w *walker) value() error {
	if w.ruled(w.m.mask) {
		var skip json.RawMessage
		if err := w.dec.Decode(&skip); err != nil {
			return err
		}
		*w.masked = append(*w.masked, w.at())
		appendString(&w.out, w.m.with)
		return nil
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		obj := t == '{'
		w.out.WriteByte(byte(t))
		n := 0
		for i := 0; w.dec.More(); i++ {
			seg := ""
			if obj {
				k, err := w.dec.Token()
				if err != nil {
					return err
				}
				seg, _ = k.(string)
			} else {
				seg = "[" + strconv.Itoa(i) + "]"
			}
			w.segs = append(w.segs, seg)
			if w.ruled(w.m.drop) {
				*w.masked = append(*w.masked, w.at())
				var skip json.RawMessage
				if err := w.dec.Decode(&skip); err != nil {
					return err
				}
			} else {
				if n > 0 {
					w.out.WriteByte(',')
				}
				n++
				if obj {
					appendString(&w.out, seg)
					w.out.WriteByte(':')
				}
				if err := w.value(); err != nil {
					return err
				}
			}
			w.segs = w.segs[:len(w.segs)-1]
		}
		end, err := w.dec.Token()
		if err != nil {
			return err
		}
		w.out.WriteByte(byte(end.(json.Delim)))
	case string:
		appendString(&w.out, w.m.text(t, w.at(), w.masked))
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		w.out.WriteString(strconv.FormatBool(t))
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

// appendString writes s as a JSON string, escaping what JSON requires and
// nothing more (the log is read by people and by replay, not by browsers).
func appendString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteString(`\ufffd`) // invalid UTF-8, as encoding/json writes it
			}
		}
		i++
		start = i
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
