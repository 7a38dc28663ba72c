package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineEscapesEverythingATerminalActsOn(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcödé & emoji 🙂", "plain text, ünïcödé & emoji 🙂"},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"ok\rluahook: fine", `ok\rluahook: fine`},
		{"a\nluahook: forged", `a\nluahook: forged`},
		{"tab\there", `tab\there`},
		{"del\x7f", `del\x7f`},
		{"c1 csi \u009b2J", `c1 csi \u009b2J`},
		{"rtl \u202eexe.txt", `rtl \u202eexe.txt`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
		{"nul \x00", `nul \x00`},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBlockKeepsLinesButIndentsTheirContinuation(t *testing.T) {
	got := Block("first\nluahook: forged\r\x1b[1A\tx")
	want := "first\n  luahook: forged\\r\\x1b[1A\tx"
	if got != want {
		t.Fatalf("Block = %q, want %q", got, want)
	}
}

func TestCleanTextIsReturnedWithoutAllocating(t *testing.T) {
	s := strings.Repeat("a clean reason with ünïcödé; ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = Line(s); _ = Block(s) }); n != 0 {
		t.Fatalf("%.0f allocations for clean text", n)
	}
}

func FuzzLineNeverLeavesAControlCharacter(f *testing.F) {
	for _, s := range []string{"", "x", "\x1b[31mred", "\u009b", "\xff", "a\nb", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Block(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("escaped %q is not valid UTF-8: %q", s, out)
			}
			for _, r := range out {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || unsafeRune(r) {
					t.Fatalf("escaped %q still holds %U: %q", s, r, out)
				}
			}
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line(%q) spans lines: %q", s, Line(s))
		}
	})
}
