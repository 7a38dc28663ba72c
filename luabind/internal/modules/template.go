package modules

import (
	"github.com/luahook/luahook/luabind/internal/lpattern"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// template is the replacement string of string.gsub ("%1") or re.gsub
// ("$1", "${name}"), read once per call to count its literal text and its
// references, so that the size of each replacement is known, from the
// captures, before it is built: a template of 2^20 references to a 16 MiB
// match asks for 16 TiB. Nothing is stored per reference (a part list would
// cost 16 times the template); write reads the template again.
type template struct {
	src    string
	names  []string // re.gsub: the pattern's submatch names; nil: string.gsub
	lit    int      // bytes of literal text, in every replacement
	refs   []tmplRef
	byNum  []int          // a numbered reference (%1, $1) -> its place in refs + 1
	byName map[string]int // a named reference (${name}) -> its place in refs + 1
	vals   []string       // the text of each reference for the current match
	check  func()         // raises once the call's context is done
	pieces int            // pieces walked since the last check
}

// templateCheckEvery is how many pieces (literal runs and references) a walk
// of a template reads between two looks at the call's context: a template
// of 16 MiB holds millions of them.
const templateCheckEvery = 1 << 14

// tmplRef is a reference to a capture: for string.gsub the group (0: the
// whole match, k: capture k-1), for re.gsub the submatches that a name or
// number may stand for, of which the first that took part is used.
type tmplRef struct {
	groups []int
	n      int // occurrences in the template
}

func newTemplate(src string, names []string, check func()) *template {
	t := &template{src: src, names: names, byNum: make([]int, max(10, len(names))), check: check}
	t.walk(func(lit string, ref int) { t.lit += len(lit) })
	t.vals = make([]string, len(t.refs))
	return t
}

// luaTemplate reads a string.gsub replacement string; check raises once the
// call's context is done.
func luaTemplate(src string, check func()) *template { return newTemplate(src, nil, check) }

// goTemplate reads a re.gsub replacement string for a pattern with the given
// submatch names (names[0] is the whole match's, ""); check raises once the
// call's context is done.
func goTemplate(src string, names []string, check func()) *template {
	return newTemplate(src, names, check)
}

// walk calls fn with each piece of the template in order: literal text
// (ref < 0) or a reference (the index in refs, counted on the first walk).
func (t *template) walk(fn func(lit string, ref int)) {
	counted := func(lit string, ref int) {
		if t.pieces++; t.pieces == templateCheckEvery {
			t.pieces = 0
			if t.check != nil {
				t.check()
			}
		}
		fn(lit, ref)
	}
	if t.names == nil {
		t.walkLua(counted)
	} else {
		t.walkGo(counted)
	}
}

// refNum returns the index of numbered reference k, adding it on the first
// walk.
func (t *template) refNum(k int, groups func() []int) int {
	if i := t.byNum[k]; i > 0 {
		return t.seen(i - 1)
	}
	t.refs = append(t.refs, tmplRef{groups: groups(), n: 1})
	t.byNum[k] = len(t.refs)
	return len(t.refs) - 1
}

// refName returns the index of named reference name, adding it on the
// first walk.
func (t *template) refName(name string, groups func() []int) int {
	if i := t.byName[name]; i > 0 {
		return t.seen(i - 1)
	}
	if t.byName == nil {
		t.byName = map[string]int{}
	}
	t.refs = append(t.refs, tmplRef{groups: groups(), n: 1})
	t.byName[name] = len(t.refs)
	return len(t.refs) - 1
}

// seen counts another occurrence of reference i on the first walk.
func (t *template) seen(i int) int {
	if t.vals == nil {
		t.refs[i].n++
	}
	return i
}

// walkLua reads the template as Lua 5.1's add_s: %0 is the whole match,
// %1-%9 a capture, % before any other character that character.
func (t *template) walkLua(fn func(lit string, ref int)) {
	s, start := t.src, 0
	for i := 0; i < len(s); i++ {
		if s[i] != lpattern.Esc {
			continue
		}
		fn(s[start:i], -1)
		i++
		switch {
		case i == len(s):
		case isDigit(s[i]):
			k := int(s[i] - '0')
			fn("", t.refNum(k, func() []int { return []int{k} }))
		default:
			fn(s[i:i+1], -1)
		}
		start = i + 1
	}
	if start < len(s) {
		fn(s[start:], -1)
	}
}

// walkGo reads the template as regexp.Expand.
func (t *template) walkGo(fn func(lit string, ref int)) {
	s := t.src
	for len(s) > 0 {
		before, after, ok := strings.Cut(s, "$")
		if !ok {
			break
		}
		fn(before, -1)
		s = after
		if s != "" && s[0] == '$' {
			fn("$", -1)
			s = s[1:]
			continue
		}
		name, num, rest, ok := extractName(s)
		if !ok {
			fn("$", -1) // malformed: the $ is text
			continue
		}
		s = rest
		if num >= 0 {
			if num < len(t.names) {
				fn("", t.refNum(num, func() []int { return []int{num} }))
			}
			continue
		}
		fn("", t.refName(name, func() []int { // none: an unknown name, always ""
			var groups []int
			for i, n := range t.names {
				if n == name && i > 0 {
					groups = append(groups, i)
				}
			}
			return groups
		}))
	}
	fn(s, -1)
}

// size returns the length of the replacement once vals holds the text of
// each reference.
func (t *template) size() int {
	n := t.lit
	for i, r := range t.refs {
		n += r.n * len(t.vals[i])
	}
	return n
}

// write appends the replacement to b and returns the pieces it wrote, the
// work done.
func (t *template) write(b *strings.Builder) int {
	pieces := 0
	t.walk(func(lit string, ref int) {
		pieces++
		if ref < 0 {
			b.WriteString(lit)
		} else {
			b.WriteString(t.vals[ref])
		}
	})
	return pieces
}

// resolveLua sets vals for the match s..e of ms.
func (t *template) resolveLua(ms *lpattern.Matcher, s, e int) {
	for i, r := range t.refs {
		t.vals[i] = captureText(ms, r.groups[0], s, e)
	}
}

// captureText is the text %k stands for in a replacement string of the
// match s..e of ms (lstrlib.c's push_onecapture, as a string).
func captureText(ms *lpattern.Matcher, k, s, e int) string {
	if k == 0 {
		return ms.Text()[s:e]
	}
	text, pos, isPos := ms.Capture(k-1, s, e)
	if isPos {
		return strconv.Itoa(pos)
	}
	return text
}

// resolveGo sets vals for the match loc (submatch indexes) of src.
func (t *template) resolveGo(src string, loc []int) {
	for i, r := range t.refs {
		t.vals[i] = ""
		for _, g := range r.groups {
			if 2*g+1 < len(loc) && loc[2*g] >= 0 {
				t.vals[i] = src[loc[2*g]:loc[2*g+1]]
				break
			}
		}
	}
}

// extractName is regexp's extract: a name or number after a '$', braced or
// not; num is -1 when the name is not a number.
func extractName(str string) (name string, num int, rest string, ok bool) {
	if str == "" {
		return
	}
	brace := false
	if str[0] == '{' {
		brace = true
		str = str[1:]
	}
	i := 0
	for i < len(str) {
		r, size := utf8.DecodeRuneInString(str[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			break
		}
		i += size
	}
	if i == 0 {
		return // an empty name is not a name
	}
	name = str[:i]
	if brace {
		if i >= len(str) || str[i] != '}' {
			return // no closing brace
		}
		i++
	}
	num = 0
	for j := 0; j < len(name); j++ {
		if name[j] < '0' || '9' < name[j] || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(name[j]) - '0'
	}
	if name[0] == '0' && len(name) > 1 {
		num = -1 // no leading zeros
	}
	return name, num, str[i:], true
}
