package suggest

import (
	"strings"
	"testing"
)

func TestDistanceCountsEachKindOfEditOnce(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"hook", "hook", 0}, {"hooks", "hook", 1}, {"hok", "hook", 1}, {"hoik", "hook", 1},
		{"ohok", "hook", 1}, {"jsno", "json", 1}, {"srting", "string", 1}, {"gti", "git", 1}, {"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearestIsWithinTheLimitAndFirstAmongEquals(t *testing.T) {
	known := []string{"match", "find", "find_all", "gsub", "split", "quote"}
	for _, c := range []struct {
		name  string
		limit int
		want  string
	}{
		{"mach", 1, "match"}, {"fnd", 1, "find"}, {"find", 2, ""}, {"xyz", 2, ""}, {"spilt", 2, "split"},
		{strings.Repeat("a", MaxLen+1), 100, ""},
	} {
		if got := Nearest(c.name, known, c.limit); got != c.want {
			t.Errorf("Nearest(%q, %d) = %q, want %q", c.name, c.limit, got, c.want)
		}
	}
	if got := Nearest("ab", []string{"ax", "ay"}, 1); got != "ax" {
		t.Errorf("Nearest among equals = %q, want the first, ax", got)
	}
}
