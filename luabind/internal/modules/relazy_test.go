package modules

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestAutomatonAnsweredPatternsCompileNoGoRegexp checks that a pattern the
// automaton answers is matched without compiling Go regexps (the pattern's
// and its wrapped form), and that a search that needs them compiles them
// then and finds what regexp finds.
func TestAutomatonAnsweredPatternsCompileNoGoRegexp(t *testing.T) {
	c, err := compileRe(`^ *(?:sudo +)?(?i:rm|mkfs[^ ]*)(?: |$)|dd if=$`)
	if err != nil {
		t.Fatal(err)
	}
	if c.dfa == nil || c.behindSrc == "" {
		t.Fatalf("the pattern should have an automaton (%v) and a wrapped form (%q)", c.dfa != nil, c.behindSrc)
	}
	for _, s := range []string{"sudo rm -rf /", "ls -la", "echo dd if=", "mkfs.ext4 /dev/sda"} {
		if _, ok := c.decided(s); !ok {
			t.Fatalf("%q: the automaton did not answer", s)
		}
	}
	if c.rxVal != nil || c.behindVal != nil {
		t.Fatal("answering from the automaton compiled a Go regexp")
	}
	want := regexp.MustCompile(c.pattern).FindAllStringSubmatchIndex("rm x; dd if=", -1)
	if got := c.rx().FindAllStringSubmatchIndex("rm x; dd if=", -1); len(got) != len(want) {
		t.Fatalf("search: %v, regexp %v", got, want)
	}
	if c.behind() == nil || c.behindVal == nil {
		t.Fatal("the wrapped form was not compiled at its first use")
	}
}

// TestAPatternTheSearchCannotWrapIsRefusedWhenCompiled checks that a pattern
// whose wrapped form (searched from a later position) goes past regexp's
// limits is refused when it is compiled, not when a search needs the
// wrapped form: one nesting level short of the parser's limit.
func TestAPatternTheSearchCannotWrapIsRefusedWhenCompiled(t *testing.T) {
	var p string
	for d := 990; d < 1000; d++ {
		p = strings.Repeat("(", d) + "a" + strings.Repeat(")", d) + `|\bx`
		if _, err := syntax.Parse(p, syntax.Perl); err != nil {
			t.Fatalf("no nesting below the parser's limit parses with its wrapper failing (%d: %v)", d, err)
		}
		if _, err := syntax.Parse(`(?s:.)(?s:.*?)(`+p+`)`, syntax.Perl); err != nil {
			break
		}
	}
	_, err := compileRe(p)
	if err == nil || !strings.Contains(err.Error(), "wrapping the pattern") {
		t.Fatalf("compileRe: %v, want the wrapping error", err)
	}
}
