package modules

import (
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
	ascii := -1 // whether s is all ASCII, once a folded literal asks
	for _, l := range c.needs {
		if !l.fold {
			if strings.Contains(s, l.text) {
				return true
			}
			continue
		}
		// A case-folded scan is one compare per byte of s and rune of the
		// literal, with no look at the call's context: past the work a
		// regexp search may do in one go, leave it to the regexp's own
		// bounded search.
		if len(s)*len(l.text) > fastRegexpWork {
			return true
		}
		if ascii < 0 {
			ascii = boolInt(isASCII(s))
		}
		if ascii == 1 && isASCII(l.text) {
			// ASCII against ASCII: the rest of a letter's folding orbit
			// (K, ſ) is not in s
			if asciiFoldContains(s, l.text) {
				return true
			}
		} else if foldContains(s, l.text) {
			return true
		}
	}
	return false
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
