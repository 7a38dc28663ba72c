package registry

import (
	"strings"
	"testing"
)

// FuzzMatch checks the parsed matcher against a plain reading of the rule:
// "" and "*" match everything; otherwise an exact, trimmed, case-insensitive
// name from the "|"-separated list; an empty key matches every matcher.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"", "bash"}, {"*", ""}, {"edit|write", "Write"}, {" bash | * ", "*"}, {"|", "x"}, {"é", "É"}, {"0\xa9", "0\x89"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, matcher, key string) {
		want := matcher == "" || matcher == "*" || key == ""
		for _, p := range strings.Split(matcher, "|") {
			if p = strings.TrimSpace(p); p != "" && strings.EqualFold(p, key) {
				want = true
			}
		}
		if got := Match(matcher, key); got != want {
			t.Fatalf("Match(%q, %q) = %v, want %v", matcher, key, got, want)
		}
	})
}
