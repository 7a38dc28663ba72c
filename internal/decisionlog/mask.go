package decisionlog

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook/internal/logconf"
)

// DefaultMaskWith is what a masked value, or a string that held a secret,
// is replaced with when Options.MaskWith is empty.
const DefaultMaskWith = logconf.DefaultMaskWith

// path is a configured JSON path, split: a key, "*" (any key), "[N]" (the
// element N of an array) or "[*]" (any element).
type path []string

// ParsePath checks and splits a configured path: keys separated by dots
// ("toolInput.headers.Authorization"), "*" for any key, "[N]" or "[*]" after
// a key for an array's elements ("toolInput.args[*]"). Its first key must be
// one of the payload's (luahook.InputKeys). The error says what is wrong.
// The syntax is logconf.ParsePath's, which luahook.toml's [decision_log]
// checks too.
func ParsePath(s string) (path, error) {
	p, err := logconf.ParsePath(s)
	return path(p), err
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
	// segs is the walkers' path buffer, reused walk after walk: a masker
	// serves one goroutine (the Logger's writer).
	segs []seg
}

// text returns s, or the mask when it holds a secret, and records where.
func (m *masker) text(s string, at place, masked *[]string) string {
	if m.secrets && hasSecret(s) {
		*masked = append(*masked, at.String())
		return m.with
	}
	return s
}

// seg is one step of the path to a value: a key (raw, as the JSON text
// spells it, without quotes) or an array index (key nil).
type seg struct {
	key   []byte
	index int
}

// matches reports whether the configured segment want names s.
func (s seg) matches(want string) bool {
	if s.key == nil {
		return want == "[*]" || len(want) > 2 && want[0] == '[' && want[1:len(want)-1] == strconv.Itoa(s.index)
	}
	return want == "*" || want == string(s.key)
}

// walker rewrites one JSON value: the members at drop paths go, the values
// at mask paths and the strings that hold a secret become the mask. It
// reads the text itself (the writer's hot loop): encoding/json's token
// reader costs ten times as much.
type walker struct {
	m      *masker
	src    []byte
	pos    int
	out    []byte
	segs   []seg    // the path of the value being read, below the value's root
	root   []string // the root's path from the payload's top
	report place    // what the report writes for the root
	masked *[]string
}

// place names where a text of the record sits, for Record.Masked: the path
// is spelt out only when something there is masked, so that a record with
// nothing to mask builds no path.
type place struct {
	hook   int       // the hook's index in hooks; inDecision, inPayload
	suffix [2]string // what follows "hooks[i]" or "decision", in two parts: ".outcome", ".reason"
}

const (
	inDecision = -1 // the suffix follows "decision"
	inPayload  = -2 // the suffix alone (the payload's own root is "")
)

func (p place) String() string {
	suffix := p.suffix[0] + p.suffix[1]
	switch p.hook {
	case inPayload:
		return suffix
	case inDecision:
		return "decision" + suffix
	}
	return "hooks[" + strconv.Itoa(p.hook) + "]" + suffix
}

// at returns the place of field below p, a place of one part (every
// caller's: a hook, or an outcome of a hook or of the decision).
func (p place) at(field string) place {
	return place{hook: p.hook, suffix: [2]string{p.suffix[0], field}}
}

var errSyntax = errors.New("decisionlog: malformed JSON")

// apply rewrites raw, a value found at root (from the payload's top), and
// appends the path of each value it changed to masked, as report followed
// by the segments below root.
func (m *masker) apply(raw []byte, root []string, report place, masked *[]string) (json.RawMessage, error) {
	return m.applyTo(make([]byte, 0, len(raw)), raw, root, report, masked)
}

// applyTo is apply writing the masked JSON over dst's array (grown as
// needed), for a caller that reuses one buffer record after record.
func (m *masker) applyTo(dst, raw []byte, root []string, report place, masked *[]string) (json.RawMessage, error) {
	w := &walker{m: m, src: raw, out: dst[:0], segs: m.segs[:0], root: root, report: report, masked: masked}
	err := w.value()
	if cap(w.segs) <= maxKeptSegs {
		m.segs = w.segs[:0]
	}
	if err != nil {
		return nil, err
	}
	if w.ws(); w.pos != len(w.src) {
		return nil, errSyntax
	}
	return w.out, nil
}

// maxKeptSegs bounds the path buffer a masker keeps: one deeply nested
// payload does not pin its buffer.
const maxKeptSegs = 64

// at renders the current path for Record.Masked.
func (w *walker) at() string {
	var b strings.Builder
	b.WriteString(w.report.String())
	for _, s := range w.segs {
		if s.key == nil {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.key)
	}
	return b.String()
}

// ruled reports whether a rule in rules names the current path.
func (w *walker) ruled(rules []path) bool {
	n := len(w.root) + len(w.segs)
next:
	for _, p := range rules {
		if len(p) != n {
			continue
		}
		for i, want := range p {
			if i < len(w.root) {
				if want != w.root[i] && want != "*" {
					continue next
				}
			} else if !w.segs[i-len(w.root)].matches(want) {
				continue next
			}
		}
		return true
	}
	return false
}

func (w *walker) ws() {
	for w.pos < len(w.src) {
		switch w.src[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value copies (or rewrites) the next value.
func (w *walker) value() error {
	w.ws()
	if w.pos >= len(w.src) {
		return errSyntax
	}
	if len(w.m.mask) > 0 && w.ruled(w.m.mask) {
		if err := w.skip(); err != nil {
			return err
		}
		*w.masked = append(*w.masked, w.at())
		w.out = appendString(w.out, w.m.with)
		return nil
	}
	switch c := w.src[w.pos]; c {
	case '{', '[':
		return w.container(c == '{')
	case '"':
		start := w.pos
		end, escaped, err := w.str()
		if err != nil {
			return err
		}
		raw := w.src[start:end]
		if w.m.secrets && w.secret(raw[1:len(raw)-1], escaped) {
			*w.masked = append(*w.masked, w.at())
			w.out = appendString(w.out, w.m.with)
		} else {
			w.out = append(w.out, raw...)
		}
		return nil
	}
	start := w.pos
	for w.pos < len(w.src) && !strings.ContainsRune(",]} \t\n\r", rune(w.src[w.pos])) {
		w.pos++
	}
	if w.pos == start {
		return errSyntax
	}
	w.out = append(w.out, w.src[start:w.pos]...)
	return nil
}

// secret reports whether the string of JSON text body holds a secret.
func (w *walker) secret(body []byte, escaped bool) bool {
	if !escaped {
		return hasSecretBytes(body)
	}
	var s string
	quoted := make([]byte, 0, len(body)+2)
	quoted = append(append(append(quoted, '"'), body...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return true // unreadable: masked, to be safe
	}
	return hasSecret(s)
}

// container copies an object or an array, member by member.
func (w *walker) container(obj bool) error {
	open, end := byte('['), byte(']')
	if obj {
		open, end = '{', '}'
	}
	w.out = append(w.out, open)
	w.pos++
	n := 0
	for i := 0; ; i++ {
		w.ws()
		if w.pos < len(w.src) && w.src[w.pos] == end && i == 0 {
			w.pos++
			break
		}
		s := seg{index: i}
		var rawKey []byte
		if obj {
			start := w.pos
			if w.pos >= len(w.src) || w.src[w.pos] != '"' {
				return errSyntax
			}
			stop, escaped, err := w.str()
			if err != nil {
				return err
			}
			rawKey = w.src[start:stop]
			s.key = rawKey[1 : len(rawKey)-1]
			if escaped {
				var k string
				if json.Unmarshal(rawKey, &k) != nil {
					return errSyntax
				}
				s.key = []byte(k)
			}
			if s.key == nil {
				s.key = []byte{}
			}
			w.ws()
			if w.pos >= len(w.src) || w.src[w.pos] != ':' {
				return errSyntax
			}
			w.pos++
		}
		w.segs = append(w.segs, s)
		if len(w.m.drop) > 0 && w.ruled(w.m.drop) {
			*w.masked = append(*w.masked, w.at())
			w.ws()
			if err := w.skip(); err != nil {
				return err
			}
		} else {
			if n > 0 {
				w.out = append(w.out, ',')
			}
			n++
			if obj {
				w.out = append(append(w.out, rawKey...), ':')
			}
			if err := w.value(); err != nil {
				return err
			}
		}
		w.segs = w.segs[:len(w.segs)-1]
		w.ws()
		if w.pos >= len(w.src) {
			return errSyntax
		}
		c := w.src[w.pos]
		w.pos++
		if c == end {
			break
		}
		if c != ',' {
			return errSyntax
		}
	}
	w.out = append(w.out, end)
	return nil
}

// str moves past the string at pos and returns where it ends (after the
// closing quote) and whether it holds escapes.
func (w *walker) str() (end int, escaped bool, err error) {
	for i := w.pos + 1; i < len(w.src); i++ {
		switch w.src[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			w.pos = i + 1
			return w.pos, escaped, nil
		}
	}
	return 0, false, errSyntax
}

// skip moves past the value at pos.
func (w *walker) skip() error {
	depth := 0
	for w.pos < len(w.src) {
		switch w.src[w.pos] {
		case '"':
			if _, _, err := w.str(); err != nil {
				return err
			}
			if depth == 0 {
				return nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return nil // a scalar before the end of its container
			}
			if depth--; depth == 0 {
				w.pos++
				return nil
			}
		case ',':
			if depth == 0 {
				return nil
			}
		}
		w.pos++
	}
	if depth != 0 {
		return errSyntax
	}
	return nil
}

// plainWord reports whether none of the eight bytes of s from i needs a
// look in a JSON string: none is a control character, a quote, a backslash
// or part of a multi-byte rune.
func plainWord(s string, i int) bool {
	_ = s[i+7]
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	ctl := (w - 0x20*ones) & ^w & highs // a byte below 0x20
	return (w&highs)|ctl|hasZero(w^('"'*ones))|hasZero(w^('\\'*ones)) == 0
}

// appendString appends s as a JSON string to b, escaping what JSON
// requires and nothing more (the log is read by people and by replay, not
// by browsers).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none of them needs a look: most of a
		// record is paths, names and digests that need no escape.
		for i+8 <= len(s) && plainWord(s, i) {
			i += 8
		}
		if i >= len(s) {
			break
		}
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
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, `\ufffd`...) // invalid UTF-8, as encoding/json writes it
			}
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
