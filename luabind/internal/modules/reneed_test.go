package modules

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNeededLiteralsAreFoundAsRE2MatchesThem: a subject that holds a
// pattern's match always passes mayMatch, however RE2 got there: case
// folding beyond ASCII (the Kelvin sign for k, ſ for s), an alternation,
// a repeat; and a pattern with no text it must hold is never skipped.
func TestNeededLiteralsAreFoundAsRE2MatchesThem(t *testing.T) {
	for _, c := range []struct {
		pattern, subject string
		needs            bool // needsOf finds literals
	}{
		{`(?i)\baws_?secret_?access_?key\b`, "AWS_SECRET_ACCESS_\u212AEY", true},
		{`(?i)secret`, "\u017Fecret", true},
		{`\bgh[pousr]_[A-Za-z0-9]{3,}\b|\bglpat-[A-Za-z0-9]{3,}`, "x glpat-abc", true},
		{`(?:abc)+x`, "abcabcx", true},
		{`^npm install$`, "npm install", true},
		{`a\x{FFFD}b`, "a\xffb", false},
		{`x*`, "", false},
		{`(?:abc)?d`, "d", true},
		{`[ab]c|d`, "bc", true},
	} {
		c2, err := compileRe(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if !c2.rx().MatchString(c.subject) {
			t.Fatalf("%s does not match %q: a bad case", c.pattern, c.subject)
		}
		if (c2.needs != nil) != c.needs {
			t.Errorf("%s: needs %v, want some: %v", c.pattern, c2.needs, c.needs)
		}
		if !c2.mayMatch(c.subject) {
			t.Errorf("%s: mayMatch(%q) is false, but it matches", c.pattern, c.subject)
		}
	}
	c, err := compileRe(`\bsk-[A-Za-z0-9_-]{20,}\b|\bnpm_[A-Za-z0-9]{36}\b`)
	if err != nil {
		t.Fatal(err)
	}
	if c.mayMatch("Add a greeting to hello.txt, run the tests and commit.") {
		t.Error("a subject with none of the needed literals may match")
	}
}

// TestShippedSecretPatternsHaveNeededLiterals: the combined pattern
// lib/secrets.lua matches prompts with is skipped on a prompt that holds
// none of its kinds' literals (the point of the prefilter).
func TestShippedSecretPatternsHaveNeededLiterals(t *testing.T) {
	pats := []string{
		`-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----`, `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
		`(?i)\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b`, `\bgh[pousr]_[A-Za-z0-9]{36,}\b`,
		`\bgithub_pat_[A-Za-z0-9_]{60,}\b`, `\bglpat-[A-Za-z0-9_-]{20,}\b`, `\bsk-[A-Za-z0-9_-]{20,}\b`,
		`\b[rs]k_live_[A-Za-z0-9]{20,}\b`, `\bxox[abpr]-[A-Za-z0-9-]{10,}\b`, `\bAIza[0-9A-Za-z_-]{35}\b`, `\bnpm_[A-Za-z0-9]{36}\b`,
	}
	parts := make([]string, len(pats))
	for i, p := range pats {
		parts[i] = "(?:" + p + ")"
	}
	c, err := compileRe(strings.Join(parts, "|"))
	if err != nil {
		t.Fatal(err)
	}
	if c.needs == nil {
		t.Fatal("no needed literals for the secret patterns")
	}
	if c.mayMatch("Add a greeting to hello.txt, run the tests and commit with a conventional message.") {
		t.Error("an ordinary prompt may match")
	}
	if !c.mayMatch("token ghp_" + strings.Repeat("a", 36)) {
		t.Error("a GitHub token may not match")
	}
}

// FuzzNeededLiteralsNeverHideAMatch: for any pattern and subject, when RE2
// matches, mayMatch says it may; and a folded literal's ASCII scan of an
// ASCII subject finds what the rune scan finds.
func FuzzNeededLiteralsNeverHideAMatch(f *testing.F) {
	for _, s := range [][2]string{
		{`(?i)key`, "\u212Aey"}, {`(?i)s+ecret`, "\u017F\u017Fecret"}, {`a|b|c`, "c"}, {`(?:ab){2,}c`, "ababc"},
		{`\bsk-[a-z]{3}\b`, "sk-abc"}, {`x\x{FFFD}y`, "x\xffy"}, {`(?i)ǅ`, "ǆ"}, {`(?i)Σ`, "ς"}, {`^$`, ""},
		{`(a|bc)d(e|f)`, "bcdf"}, {`(?s).k`, "\nk"}, {`(?i)(?:abc|abd)e`, "ABDE"},
		{`(?i)secret`, "a SeCrEt"}, {`(?i)sss`, "ssSs"}, {`(?i)key`, "KEKEY"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		if len(pattern) > 200 || !utf8.ValidString(pattern) {
			return
		}
		if _, err := regexp.Compile(pattern); err != nil {
			return
		}
		c, err := compileRe(pattern)
		if err != nil {
			return
		}
		if c.rx().MatchString(subject) && !c.mayMatch(subject) {
			t.Fatalf("%q matches %q, but mayMatch says no (needs %v)", pattern, subject, c.needs)
		}
		// the ASCII scan of an ASCII subject is the rune scan
		for _, l := range c.needs {
			if l.fold && isASCII(l.text) && isASCII(subject) && asciiFoldContains(subject, l.text) != foldContains(subject, l.text) {
				t.Fatalf("%q in %q: the ASCII scan says %v", l.text, subject, !foldContains(subject, l.text))
			}
		}
	})
}

// TestFoldedLiteralScanIsBounded: a case-folded literal is not looked for
// in a subject where the scan would pass the work a regexp search may do
// without looking at the call's context; mayMatch then leaves the answer
// to the regexp (true), and below that bound it scans (mayHoldNeeds, the
// literal half of mayMatch).
func TestFoldedLiteralScanIsBounded(t *testing.T) {
	lit := strings.Repeat("ab", 32)
	c, err := compileRe("(?i)" + lit)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.needs) != 1 || !c.needs[0].fold {
		t.Fatalf("needs %v, want one folded literal", c.needs)
	}
	big := strings.Repeat("a", fastRegexpWork/len(lit)+1)
	if !c.mayHoldNeeds(big) {
		t.Error("a scan past the work bound ran (and found nothing)")
	}
	small := big[:fastRegexpWork/len(lit)]
	if c.mayHoldNeeds(small) {
		t.Error("a scan within the work bound did not rule out a subject without the literal")
	}
}

// FuzzOnePassScanFindsWhatEachLiteralFinds: the one-pass scan of several
// needed literals (needScan) says a subject holds one exactly when looking
// for each on its own does: strings.Contains for a literal, RE2's (?i) for a
// folded one (the Kelvin sign holds k, ſ holds s, an invalid byte holds
// nothing). lits is the literals separated by NUL; bit i of fold folds the
// i-th.
func FuzzOnePassScanFindsWhatEachLiteralFinds(f *testing.F) {
	for _, s := range []struct {
		lits    string
		fold    uint32
		subject string
	}{
		{"SECRET\x00gh\x00npm_", 1, "my secret"},
		{"SECRET\x00gh\x00npm_", 1, "my sEcReT"},
		{"key\x00xox", 1, "\u212Aey"},
		{"sss\x00ab", 1, "s\u017Fs"},
		{"a\x00b\x00c", 0, "xxc"},
		{"a\x00bc", 2, "xB"},
		{"ab\x00bc", 3, "xaBc"},
		{"é\x00x", 1, "É"},
		{"ǅ\x00q", 1, "ǆ"},
		{"-----BEGIN \x00KIA\x00SIA\x00SECRET\x00gh\x00github_pat_\x00glpat-\x00sk-\x00k_live_\x00xox\x00AIza\x00npm_", 8,
			"Add a greeting to hello.txt, run the tests and commit with a conventional message."},
		{"KIA\x00SIA", 0, "AKIAQWERTY"},
		{"zz\x00z", 0, "z"},
		{"€\x00x", 0, "\xe2\x82\xac"},
		{"ab\x00cd", 0, "a\xffb"},
	} {
		f.Add(s.lits, s.fold, s.subject)
	}
	f.Fuzz(func(t *testing.T, lits string, fold uint32, subject string) {
		if len(subject) > 4096 {
			return
		}
		var needs []needLit
		for i, text := range strings.Split(lits, "\x00") {
			if text == "" || !utf8.ValidString(text) || strings.ContainsRune(text, utf8.RuneError) {
				return
			}
			needs = append(needs, needLit{text: text, fold: fold>>i&1 == 1})
		}
		n := newNeedScan(needs)
		if n == nil {
			return // fewer than two, or more than 32
		}
		want := false
		for _, l := range needs {
			if l.fold {
				want = want || regexp.MustCompile("(?i)"+regexp.QuoteMeta(l.text)).MatchString(subject)
			} else {
				want = want || strings.Contains(subject, l.text)
			}
		}
		if got := n.holds(subject, needs); got != want {
			t.Fatalf("needs %+v in %q: the one-pass scan says %v, each on its own %v", needs, subject, got, want)
		}
	})
}

// TestOnePassScanIsBoundedByTheLiteralsLength: a subject too long for one
// pass within the work bound (its length times the literals' total) is
// looked for literal by literal, as before the scan, where a folded literal
// past its own bound is left to the regexp (true). Just past that bound the
// one-pass scan, had it run, would have said false.
func TestOnePassScanIsBoundedByTheLiteralsLength(t *testing.T) {
	lit := strings.Repeat("ab", 32)
	c, err := compileRe("(?i:" + lit + ")|xyz")
	if err != nil {
		t.Fatal(err)
	}
	if c.scan == nil || c.scan.bytes != len(lit)+3 {
		t.Fatalf("needs %v: want a one-pass scan of %d bytes of literals", c.needs, len(lit)+3)
	}
	within := strings.Repeat("a", fastRegexpWork/c.scan.bytes)
	if c.mayHoldNeeds(within) {
		t.Error("the scan within the bound did not rule out a subject without the literals")
	}
	past := strings.Repeat("a", fastRegexpWork/len(lit)+1)
	if c.scan.holds(past, c.needs) {
		t.Fatal("a bad case: the subject holds a literal")
	}
	if !c.mayHoldNeeds(past) {
		t.Error("past the bound, the literals were scanned for (and not found) instead of being left to the regexp")
	}
}

// An empty literal is in every subject: no one-pass scan is built for a
// set that holds one (its first byte does not exist), and looking for the
// set literal by literal finds it anywhere.
func TestOnePassScanIsNotBuiltForAnEmptyLiteral(t *testing.T) {
	needs := []needLit{{text: "ab"}, {text: ""}}
	if n := newNeedScan(needs); n != nil {
		t.Fatal("a one-pass scan was built for a set holding an empty literal")
	}
	if !holdsEach("xyz", needs) {
		t.Error("the empty literal was not found")
	}
}
