package decisionlog

import (
	mathbits "math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	hooksd "github.com/luahook/luahook/hooks.d"
)

// Secret is one built-in secret pattern: an RE2 pattern and what it finds.
type Secret struct {
	Pattern string
	What    string
}

// secretEntry is one line of secrets.lua's patterns table:
// { [[pattern]], "label" }.
const secretEntry = `(?m)^\s*\{\s*\[\[(.*?)\]\],\s*"([^"]*)"\s*\},?\s*$`

// secretTables are the patterns of the shipped lib module
// hooks.d/lib/secrets.lua, which every shipped secret policy and pack uses,
// in its order: read from the copy embedded in the binary, so that the two
// are one list. They are built on first use, not at start: a one-shot fire
// that logs no decision does not pay for compiling them.
var secretTables = sync.OnceValue(func() *secretTable {
	list := readSecrets()
	t := &secretTable{list: list, res: compileSecrets(list), hints: secretHintsOf(list), shortest: -1}
	for i, s := range list {
		n := minMatchLen(syntax.Parse(s.Pattern, syntax.Perl))
		t.minLens = append(t.minLens, n)
		if t.shortest < 0 || n < t.shortest {
			t.shortest = n
		}
		if i < tabled {
			h := t.hints[i]
			for _, c := range foldedASCII(h.lit[0], h.fold) {
				t.first[c] |= 1 << i
			}
			if len(h.lit) == 1 {
				for c := range t.second {
					t.second[c] |= 1 << i
				}
				continue
			}
			for _, c := range foldedASCII(h.lit[1], h.fold) {
				t.second[c] |= 1 << i
			}
		}
	}
	for c := utf8.RuneSelf; c < len(t.first); c++ {
		t.first[c] = outsideASCII
	}
	return t
})

// tabled is how many secrets the tables first and second hold; the
// others are looked for hint by hint.
const tabled = 63

// outsideASCII is first's mark for a byte outside ASCII, which no hint
// starts with (hints are ASCII) but which may be part of a rune that folds
// to a letter of one.
const outsideASCII = 1 << tabled

// secretTable holds the built-in secrets with their compiled patterns,
// hints and shortest matches, index for index.
type secretTable struct {
	list    []Secret
	res     []*regexp.Regexp
	hints   []secretHint
	minLens []int
	// shortest is the fewest bytes any pattern matches: most strings of a
	// record (its keys, names, kinds) are shorter and need no other look.
	shortest int
	// first[c] has bit i set when the hint of secret i starts with the
	// byte c (in either case, for a hint that ignores it), second[c] when
	// its second byte is c (or it has one byte only), for the first
	// tabled secrets; first[c] is outsideASCII for a byte outside ASCII.
	// Most bytes of a record start no hint: one look at first passes them.
	first, second [256]uint64
}

// foldedASCII returns c, and its other case when fold is set.
func foldedASCII(c byte, fold bool) []byte {
	switch {
	case fold && 'a' <= c && c <= 'z':
		return []byte{c, c - 'a' + 'A'}
	case fold && 'A' <= c && c <= 'Z':
		return []byte{c, c - 'A' + 'a'}
	}
	return []byte{c}
}

// readSecrets reads the patterns table of the embedded lib/secrets.lua. A
// module without entries, or with a pattern RE2 refuses, is a build of
// luahook that cannot redact: it panics on first use (and its tests fail).
func readSecrets() []Secret {
	src, err := hooksd.FS.ReadFile("lib/secrets.lua")
	if err != nil {
		panic("decisionlog: " + err.Error())
	}
	var list []Secret
	for _, m := range regexp.MustCompile(secretEntry).FindAllSubmatch(src, -1) {
		list = append(list, Secret{Pattern: string(m[1]), What: string(m[2])})
	}
	if len(list) == 0 {
		panic("decisionlog: no { [[pattern]], \"label\" } entries in hooks.d/lib/secrets.lua")
	}
	return list
}

// Secrets returns the built-in secret patterns: the ones the shipped secret
// policies look for. A string value of a logged payload that matches any of
// them is redacted unless Options.KeepSecrets is set.
func Secrets() []Secret { return append([]Secret(nil), secretTables().list...) }

// compileSecrets compiles the secrets' patterns; each is run only on a
// string that holds its hint.
func compileSecrets(secrets []Secret) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(secrets))
	for i, s := range secrets {
		res[i] = regexp.MustCompile(s.Pattern)
	}
	return res
}

// secretHintsOf returns, for each secret, a literal that every match of it
// contains (the longest literal of its top-level sequence; ASCII-folded for
// a part that ignores case): a string that holds none of them is not
// searched. Scanning for the hints costs a fraction of the regular
// expression, whose \b and case folding make it slow.
func secretHintsOf(secrets []Secret) []secretHint {
	hints := make([]secretHint, len(secrets))
	for i, s := range secrets {
		re, err := syntax.Parse(s.Pattern, syntax.Perl)
		if err != nil {
			panic(err)
		}
		re = re.Simplify()
		subs := []*syntax.Regexp{re}
		if re.Op == syntax.OpConcat {
			subs = re.Sub
		}
		for _, sub := range subs {
			lit := string(sub.Rune)
			if sub.Op != syntax.OpLiteral || len(lit) <= len(hints[i].lit) || !isASCII(lit) {
				continue
			}
			fold := sub.Flags&syntax.FoldCase != 0
			if fold {
				lit = strings.ToLower(lit)
			}
			hints[i] = secretHint{lit: lit, fold: fold, wide: fold && foldsWide(lit)}
		}
		if hints[i].lit == "" {
			panic("decisionlog: secret pattern " + s.Pattern + " has no ASCII literal to look for first")
		}
	}
	return hints
}

// secretHint is a literal every match of one secret pattern contains.
type secretHint struct {
	lit  string // lower-case when fold
	fold bool   // compared ignoring ASCII case
	// wide is set when a rune outside ASCII matches a letter of lit
	// ignoring case (ſ matches s, the Kelvin sign k): a string with such a
	// rune may hold a match without holding lit.
	wide bool
}

// foldsWide reports whether a rune outside ASCII folds to a letter of lit.
func foldsWide(lit string) bool {
	for _, r := range lit {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return true
			}
		}
	}
	return false
}

func (h secretHint) in(s string) bool {
	if !h.fold {
		return strings.Contains(s, h.lit)
	}
	for i := 0; i+len(h.lit) <= len(s); i++ {
		j := 0
		for j < len(h.lit) && lowerASCII(s[i+j]) == h.lit[j] {
			j++
		}
		if j == len(h.lit) {
			return true
		}
	}
	return false
}

// at reports whether the hint starts at s[i].
func (h secretHint) at(s string, i int) bool {
	if len(s)-i < len(h.lit) {
		return false
	}
	if !h.fold {
		return s[i:i+len(h.lit)] == h.lit
	}
	for j := 0; j < len(h.lit); j++ {
		if lowerASCII(s[i+j]) != h.lit[j] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// minMatchLen returns the fewest bytes a match of the parsed pattern re
// takes, counting a byte for each rune (the least a rune takes, whatever
// case folding matches). A pattern that does not parse panics, as
// compileSecrets does.
func minMatchLen(re *syntax.Regexp, err error) int {
	if err != nil {
		panic(err)
	}
	return minLen(re)
}

func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minLen(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty, a star, a question mark, an anchor or a word boundary
}

// hasSecret reports whether s holds a built-in secret.
func hasSecret(s string) bool { return secretTables().has(s) }

// has reports whether s holds one of t's secrets.
func (t *secretTable) has(s string) bool {
	if len(s) < t.shortest {
		return false
	}
	// Where a hint may start (its first two bytes), it is compared; a
	// secret's pattern runs only on a string that holds its hint, once.
	var tried uint64
	wide := false // s has a byte outside ASCII
	for i := 0; i < len(s); i++ {
		bits := t.first[s[i]]
		if bits == 0 {
			continue
		}
		if bits == outsideASCII {
			wide = true
			continue
		}
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		for bits &= t.second[next] &^ tried; bits != 0; bits &= bits - 1 {
			j := mathbits.TrailingZeros64(bits)
			if !t.hints[j].at(s, i) {
				continue
			}
			tried |= 1 << j
			if len(s) >= t.minLens[j] && t.res[j].MatchString(s) {
				return true
			}
		}
	}
	for j := range t.hints {
		h := &t.hints[j]
		if j < tabled && (!wide || !h.wide || tried&(1<<j) != 0) || len(s) < t.minLens[j] {
			continue
		}
		// Past the tables, or a hint that ignores case, which a rune
		// outside ASCII that folds to one of its letters may match.
		if (j >= tabled && h.in(s) || wide && h.wide) && t.res[j].MatchString(s) {
			return true
		}
	}
	return false
}
