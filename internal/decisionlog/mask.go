package decisionlog

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

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

// masker takes configured paths and secrets out of a record: every string
// it holds, keys included (maskrecord.go's maskRecord reads the record, this
// file the JSON texts it carries).
type masker struct {
	drop, mask []path
	with       string
	secrets    bool
	table      *secretTable // the secrets' table when secrets is set (setup builds it)

	// The buffers below are reused record after record: a masker serves
	// one goroutine (the Logger's writer), and the record it masked is
	// valid until the next one.
	segs []seg // the JSON walkers' path
	// arena holds the JSON texts of the record that masking rewrote.
	arena []byte
	// values are the strings the mask paths took out of the record, masked
	// wherever else the record holds them (hides).
	values []string
	// masked is the record's Masked.
	masked []string
	// steps is the path to the value the record walker reads.
	steps []step
	// shapes are the types found behind an interface of the record, which
	// recordShape cannot know in advance.
	shapes map[reflect.Type]*shape
}

// setup builds what the masker needs before its first record.
func (m *masker) setup() {
	if m.secrets && m.table == nil {
		m.table = secretTables()
	}
}

// minQuotedValue is the length from which a value a mask path took out is
// masked in a string that contains it, not only in one equal to it: a
// shorter value ("1", "yes") would mask unrelated text.
const minQuotedValue = 8

// hides reports whether s is to be masked: it holds a built-in secret, or
// a value a mask path took out of the record.
func (m *masker) hides(s string) bool {
	if s == "" {
		return false
	}
	if m.secrets && m.table.has(s) {
		return true
	}
	for _, v := range m.values {
		if s == v || len(v) >= minQuotedValue && strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// hidesBytes is hides of a string's bytes.
func (m *masker) hidesBytes(b []byte) bool {
	return m.hides(unsafe.String(unsafe.SliceData(b), len(b)))
}

// gather adds s, a value a mask path names, to the values masked
// wherever else the record holds them.
func (m *masker) gather(s string) {
	if s != "" && !slices.Contains(m.values, s) {
		m.values = append(m.values, s)
	}
}

// note adds path to the record's Masked, once.
func (m *masker) note(path []byte) {
	for _, p := range m.masked {
		if p == string(path) {
			return
		}
	}
	m.masked = append(m.masked, string(path))
}

// keyMask returns what the nth (from 1) redacted key of an object or a map
// is written as: the mask, then mask#2, mask#3 and so on, skipping a name
// one of the object's own keys has (taken), so that the object keeps its
// keys unique: replay's strict reader refuses a key given twice.
func (m *masker) keyMask(n *int, taken func(string) bool) string {
	for {
		*n++
		name := m.with
		if *n > 1 {
			name += "#" + strconv.Itoa(*n)
		}
		if !taken(name) {
			return name
		}
	}
}

// seg is one step of the path to a value: a key (raw, as the JSON text
// spells it, without quotes) or an array index (key nil). shown is what
// the path says for a key that was masked.
type seg struct {
	key   []byte
	shown string
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
// at mask paths and the strings (keys included) that hide become the
// mask. It reads the text itself (the writer's hot loop): encoding/json's
// token reader costs ten times as much.
type walker struct {
	m    *masker
	src  []byte
	pos  int
	out  []byte
	segs []seg // the path of the value being read, below the value's root
	// rules is set when the configured paths apply to the value, root
	// its path from the payload's top.
	rules  bool
	root   []string
	report []step // where the value sits in the record
	// collect is the pass that only gathers the values at mask paths
	// (masker.values); gathering counts the mask paths it is inside.
	collect   bool
	gathering int
	changes   int
}

var errSyntax = errors.New("decisionlog: malformed JSON")

// raw masks the JSON text raw, the value the record walker reads; the
// configured paths apply when rules is set, raw being at root from the
// payload's top. It returns the masked text (in the masker's arena) and
// true, or raw and false when nothing in it is masked. Text that does not
// parse is replaced by the mask as a whole. The collect pass gathers the
// values at mask paths and changes nothing.
func (m *masker) raw(raw []byte, rules bool, root []string, collect bool) (json.RawMessage, bool) {
	m.setup()
	start := len(m.arena)
	w := &walker{m: m, src: raw, out: m.arena, segs: m.segs[:0], rules: rules, root: root, report: m.steps, collect: collect}
	err := w.value()
	if err == nil {
		if w.ws(); w.pos != len(w.src) {
			err = errSyntax
		}
	}
	if cap(w.segs) <= maxKeptSegs {
		m.segs = w.segs[:0]
	}
	switch {
	case collect:
		m.arena = w.out[:start]
		return raw, false
	case err != nil:
		m.note(m.here())
		m.arena = appendString(w.out[:start], m.with)
	case w.changes == 0:
		m.arena = w.out[:start]
		return raw, false
	default:
		m.arena = w.out
	}
	return m.arena[start:len(m.arena):len(m.arena)], true
}

// maxKeptSegs bounds the path buffer a masker keeps: one deeply nested
// payload does not pin its buffer.
const maxKeptSegs = 64

// note lists the current path in the record's Masked.
func (w *walker) note() {
	w.changes++
	b := appendPath(nil, w.report, true)
	for _, s := range w.segs {
		switch {
		case s.key == nil:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		case len(b) > 0:
			b = append(b, '.')
		}
		if s.shown != "" {
			b = append(b, s.shown...)
		} else {
			b = append(b, s.key...)
		}
	}
	w.m.note(b)
}

// ruled reports whether a rule in rules names the current path.
func (w *walker) ruled(rules []path) bool {
	if !w.rules {
		return false
	}
	return ruledAt(rules, w.root, w.segs)
}

// ruledAt reports whether a rule in rules names the value at root (from
// the payload's top) followed by segs.
func ruledAt(rules []path, root []string, segs []seg) bool {
	n := len(root) + len(segs)
next:
	for _, p := range rules {
		if len(p) != n {
			continue
		}
		for i, want := range p {
			if i < len(root) {
				if want != root[i] && want != "*" {
					continue next
				}
			} else if !segs[i-len(root)].matches(want) {
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
		if w.collect {
			w.gathering++
			err := w.plain()
			w.gathering--
			return err
		}
		if err := w.skip(); err != nil {
			return err
		}
		w.note()
		w.out = appendString(w.out, w.m.with)
		return nil
	}
	return w.plain()
}

// plain copies the value at pos, masking the strings in it that hide.
func (w *walker) plain() error {
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
		switch {
		case w.gathering > 0:
			if s, ok := unquote(raw, escaped); ok {
				w.m.gather(s)
			}
		case w.collect:
		case w.hidden(raw, escaped):
			w.note()
			w.out = appendString(w.out, w.m.with)
			return nil
		}
		w.out = append(w.out, raw...)
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

// hidden reports whether the JSON string raw (quotes included) hides.
func (w *walker) hidden(raw []byte, escaped bool) bool {
	if !escaped {
		return w.m.hidesBytes(raw[1 : len(raw)-1])
	}
	s, ok := unquote(raw, escaped)
	return !ok || w.m.hides(s) // unreadable: masked, to be safe
}

// unquote returns the text of the JSON string raw (quotes included).
func unquote(raw []byte, escaped bool) (string, bool) {
	if !escaped {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// container copies an object or an array, member by member.
func (w *walker) container(obj bool) error {
	open, end := byte('['), byte(']')
	if obj {
		open, end = '{', '}'
	}
	w.out = append(w.out, open)
	w.pos++
	members := w.pos // where the object's members start, to look up its keys
	n, redacted := 0, 0
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
			if !w.collect && w.m.hidesBytes(s.key) {
				s.shown = w.m.keyMask(&redacted, func(name string) bool { return hasKey(w.src[members:], name) })
			}
			w.ws()
			if w.pos >= len(w.src) || w.src[w.pos] != ':' {
				return errSyntax
			}
			w.pos++
		}
		w.segs = append(w.segs, s)
		if len(w.m.drop) > 0 && w.ruled(w.m.drop) {
			if !w.collect {
				w.note()
			}
			w.ws()
			if err := w.skip(); err != nil {
				return err
			}
		} else {
			if n > 0 {
				w.out = append(w.out, ',')
			}
			n++
			switch {
			case !obj:
			case s.shown != "":
				w.note()
				w.out = append(appendString(w.out, s.shown), ':')
			default:
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

// hasKey reports whether the object whose members src starts with has the
// key name.
func hasKey(src []byte, name string) bool {
	r := &walker{src: src}
	for {
		r.ws()
		if r.pos >= len(src) || src[r.pos] != '"' {
			return false
		}
		start := r.pos
		stop, escaped, err := r.str()
		if err != nil {
			return false
		}
		if k, ok := unquote(src[start:stop], escaped); ok && k == name {
			return true
		}
		r.ws()
		if r.pos >= len(src) || src[r.pos] != ':' {
			return false
		}
		r.pos++
		r.ws()
		if r.skip() != nil {
			return false
		}
		r.ws()
		if r.pos >= len(src) || src[r.pos] != ',' {
			return false
		}
		r.pos++
	}
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
