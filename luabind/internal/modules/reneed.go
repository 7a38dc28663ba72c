package modules

import (
	"math/bits"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A needed literal is text that every match of a pattern contains: when
// none of a pattern's needed literals is in the subject, it cannot match,
// and re.match, re.find and re.gsub answer without running the regexp.
// secrets.lua's eleven kinds of credential, for one, take RE2's backtracker
// about 14 µs over a short prompt that holds none of them; looking for
// their literals takes well under one.
type needLit struct {
	text string
	fold bool // (?i): compared as RE2 folds case (unicode.SimpleFold orbits)
}

// maxNeeds bounds the literals looked for: past it, the regexp runs.
const maxNeeds = 16

// needsOf returns literals one of which every match of the parsed pattern
// contains, or nil when it cannot tell. It follows only what guarantees
// text: a literal, a capture, a repeat of at least one, the best member of
// a concatenation, and an alternation all of whose branches have their own.
// A literal holding U+FFFD is never needed text: RE2 matches it against an
// invalid byte, which is not that rune's encoding.
func needsOf(re *syntax.Regexp, depth int) []needLit {
	if depth > 100 {
		return nil
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil
		}
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				return nil
			}
		}
		return []needLit{{text: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return needsOf(re.Sub[0], depth+1)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needsOf(re.Sub[0], depth+1)
		}
	case syntax.OpConcat:
		var best []needLit
		for _, sub := range re.Sub {
			if n := needsOf(sub, depth+1); n != nil && (best == nil || better(n, best)) {
				best = n
			}
		}
		return best
	case syntax.OpAlternate:
		var all []needLit
		for _, sub := range re.Sub {
			n := needsOf(sub, depth+1)
			if n == nil || len(all)+len(n) > maxNeeds {
				return nil
			}
			all = append(all, n...)
		}
		return all
	}
	return nil
}

// better prefers the set whose shortest literal is longer (a one-letter
// literal is in most texts), then the one with fewer literals.
func better(a, b []needLit) bool {
	if sa, sb := shortest(a), shortest(b); sa != sb {
		return sa > sb
	}
	return len(a) < len(b)
}

func shortest(n []needLit) int {
	m := -1
	for _, l := range n {
		if m < 0 || len(l.text) < m {
			m = len(l.text)
		}
	}
	return m
}

// mayMatch reports whether c may match s: s holds one of c's needed
// literals (or c has none), and c's automaton, when it has one that can
// answer, finds a match.
func (c *compiledRe) mayMatch(s string) bool {
	if !c.mayHoldNeeds(s) {
		return false
	}
	if matched, ok := c.decided(s); ok {
		return matched
	}
	return true
}

// decided returns whether c matches s when c's automaton can tell within
// the work of one uninterruptible search (len(s) at most fastRegexpWork):
// ok is false when the regexp must answer.
func (c *compiledRe) decided(s string) (matched, ok bool) {
	if c.dfa == nil || len(s) > fastRegexpWork {
		return false, false
	}
	return c.dfa.match(s)
}

// mayHoldNeeds reports whether s holds one of c's needed literals, or c
// has none (then anything may match).
func (c *compiledRe) mayHoldNeeds(s string) bool {
	if c.needs == nil {
		return true
	}
	if c.scan != nil && len(s)*c.scan.bytes <= fastRegexpWork {
		return c.scan.holds(s, c.needs)
	}
	return holdsEach(s, c.needs)
}

// holdsEach looks for the literals one by one.
func holdsEach(s string, needs []needLit) bool {
	ascii := -1 // whether s is all ASCII, once a folded literal asks
	for _, l := range needs {
		if !l.fold {
			if strings.Contains(s, l.text) {
				return true
			}
			continue
		}
		if holdsFolded(s, l.text, &ascii) {
			return true
		}
	}
	return false
}

// holdsFolded reports whether s holds lit as RE2's (?i) matches it, or
// whether the scan would pass the work bound; ascii caches whether s is all
// ASCII (-1: not known yet).
func holdsFolded(s, lit string, ascii *int) bool {
	// A case-folded scan is one compare per byte of s and rune of the
	// literal, with no look at the call's context: past the work a regexp
	// search may do in one go, leave it to the regexp's own bounded search.
	if len(s)*len(lit) > fastRegexpWork {
		return true
	}
	if *ascii < 0 {
		*ascii = boolInt(isASCII(s))
	}
	if *ascii == 1 && isASCII(lit) {
		// ASCII against ASCII: the rest of a letter's folding orbit (K, ſ)
		// is not in s
		return asciiFoldContains(s, lit)
	}
	return foldContains(s, lit)
}

// needScan looks for several needed literals in one pass over a subject:
// at each byte, the literals that can start there with the next byte
// (two table reads) are compared. secrets.lua's twelve literals in a short
// prompt: one pass instead of twelve.
type needScan struct {
	first, second [256]uint32 // bit i: needs[i] can have this byte first, second
	single        uint32      // literals of one byte: any second byte
	folded        uint32      // folded literals in the tables (ASCII, both cases of a letter)
	apart         uint32      // folded literals not in the tables (not ASCII): looked for alone
	// bytes is the literals' total length: a pass compares at most that
	// many bytes at each byte of the subject
	bytes int
}

// newNeedScan returns the tables for needs, or nil when there are too few
// literals for one pass to beat strings.Contains.
func newNeedScan(needs []needLit) *needScan {
	if len(needs) < 2 || len(needs) > 32 {
		return nil
	}
	n := &needScan{}
	for i, l := range needs {
		if l.text == "" {
			return nil // in every subject (needsOf finds none)
		}
		bit := uint32(1) << i
		n.bytes += len(l.text)
		if l.fold && !isASCII(l.text) {
			n.apart |= bit
			continue
		}
		cases := func(b byte) []byte {
			switch {
			case l.fold && 'a' <= b && b <= 'z':
				return []byte{b, b - 'a' + 'A'}
			case l.fold && 'A' <= b && b <= 'Z':
				return []byte{b, b - 'A' + 'a'}
			}
			return []byte{b}
		}
		if l.fold {
			n.folded |= bit
		}
		for _, b := range cases(l.text[0]) {
			n.first[b] |= bit
		}
		if len(l.text) == 1 {
			n.single |= bit
			continue
		}
		for _, b := range cases(l.text[1]) {
			n.second[b] |= bit
		}
	}
	return n
}

// holds reports whether s holds one of needs (the literals n was built
// from), as holdsEach does.
func (n *needScan) holds(s string, needs []needLit) bool {
	var high byte // the bytes of s or'ed: a folded literal may match a rune outside ASCII
	for i := 0; i < len(s); i++ {
		c := s[i]
		high |= c
		m := n.first[c]
		if m == 0 {
			continue
		}
		if i+1 < len(s) {
			m &= n.second[s[i+1]] | n.single
		} else {
			m &= n.single
		}
		for m != 0 {
			l := needs[bits.TrailingZeros32(m)]
			m &= m - 1
			if l.fold {
				if asciiFoldHasPrefix(s[i:], l.text) {
					return true
				}
			} else if strings.HasPrefix(s[i:], l.text) {
				return true
			}
		}
	}
	// What the tables cannot see: a folded literal found through a rune
	// outside ASCII (the Kelvin sign for k), and the literals not in them.
	rest := n.apart
	if high >= utf8.RuneSelf {
		rest |= n.folded
	}
	ascii := boolInt(high < utf8.RuneSelf)
	for ; rest != 0; rest &= rest - 1 {
		if holdsFolded(s, needs[bits.TrailingZeros32(rest)].text, &ascii) {
			return true
		}
	}
	return false
}

// asciiFoldHasPrefix reports whether s begins with the ASCII literal lit,
// letters compared regardless of case.
func asciiFoldHasPrefix(s, lit string) bool {
	if len(s) < len(lit) {
		return false
	}
	for j := 0; j < len(lit); j++ {
		if lowerASCII(s[j]) != lowerASCII(lit[j]) {
			return false
		}
	}
	return true
}

// foldContains reports whether s holds lit with each rune replaced by any
// rune of its case-folding orbit, as RE2's (?i) matches: "K" (the Kelvin
// sign) holds "k", "ſ" holds "s". s is read as RE2 reads it: an invalid
// byte is U+FFFD, which no literal here holds.
func foldContains(s, lit string) bool {
	for i := 0; i < len(s); {
		if foldPrefix(s[i:], lit) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

func foldPrefix(s, lit string) bool {
	for _, want := range lit {
		if s == "" {
			return false
		}
		if c := s[0]; c < utf8.RuneSelf && want < utf8.RuneSelf {
			// Two ASCII letters fold together only as upper and lower
			// case: the rest of an orbit (K, ſ) is not ASCII.
			if lowerASCII(c) != lowerASCII(byte(want)) {
				return false
			}
			s = s[1:]
			continue
		}
		r, w := utf8.DecodeRuneInString(s)
		if !sameFold(r, want) {
			return false
		}
		s = s[w:]
	}
	return true
}

// asciiFoldContains reports whether the ASCII text s holds the ASCII
// literal lit with letters compared regardless of case: one pass over s
// that looks further only where lit's first byte is.
func asciiFoldContains(s, lit string) bool {
	if lit == "" {
		return true
	}
	first := lowerASCII(lit[0])
	for i := 0; i+len(lit) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(lit) && lowerASCII(s[i+j]) == lowerASCII(lit[j]) {
			j++
		}
		if j == len(lit) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func sameFold(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(b); f != b; f = unicode.SimpleFold(f) {
		if f == a {
			return true
		}
	}
	return false
}
