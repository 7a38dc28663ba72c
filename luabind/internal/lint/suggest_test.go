package lint

import "testing"

// TestSuggestNamesNearTyposOnly: one edit (a swap of neighbours counting as
// one) for short names, two for longer ones, nothing past that or for names
// longer than maxSuggestLen.
func TestSuggestNamesNearTyposOnly(t *testing.T) {
	known := []string{"hook", "json", "string", "table", "match", "find_all"}
	for _, c := range []struct{ name, want string }{
		{"hooks", " (did you mean 'hook'?)"},
		{"jsno", " (did you mean 'json'?)"},
		{"srting", " (did you mean 'string'?)"},
		{"mach", " (did you mean 'match'?)"},
		{"findall", " (did you mean 'find_all'?)"},
		{"tbl", ""},
		{"xyz", ""},
		{"hook", ""},
		{string(make([]byte, maxSuggestLen+1)), ""},
	} {
		if got := suggest(c.name, known); got != c.want {
			t.Errorf("suggest(%.10q) = %q, want %q", c.name, got, c.want)
		}
	}
}
