package modules

import (
	"slices"
	"testing"
)

// TestSteppedSearchesFindWhatRegexpFinds: the interruptible path (a reader
// from each position, and for patterns that look behind the pattern wrapped
// to start one rune early) finds exactly the matches of regexp's own
// FindAllStringSubmatchIndex. If this fails after a Go release, re-check
// rematch.go's readAll and the wrapping in compileRe.
func TestSteppedSearchesFindWhatRegexpFinds(t *testing.T) {
	patterns := []string{`a`, `a*`, `b|`, `\bab\b`, `\Bb`, `^a`, `(?m)^a|b$`, `\Aa|c`, `(a)(b)?`, `(?P<x>\w+)\s*`,
		`(?i)AB`, `\b`, `$`, `(?m)$`, `\Qa)\E`, `(?s).`, `x*?`, `(é|e)\b`, `[^a]+\b`, `(?U)a+`}
	texts := []string{"", "a", "ab abc ab", "aaa", "ba\nab\nb", "é é e", "xaxbx\n", "ab\nab\n\nab"}
	for _, p := range patterns {
		c, err := compileRe(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, s := range texts {
			want := c.rx().FindAllStringSubmatchIndex(s, -1)
			sr := &searcher{re: c, s: s, rd: ctxReader{s: s, period: 1}}
			got := sr.readAll(maxMatches)
			if len(got) != len(want) {
				t.Errorf("%q in %q: %v, want %v", p, s, got, want)
				continue
			}
			for i := range got {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("%q in %q: %v, want %v", p, s, got, want)
					break
				}
			}
		}
	}
}
