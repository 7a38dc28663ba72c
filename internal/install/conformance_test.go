package install

import (
	"reflect"
	"testing"
)

// The doctor reads the suite's table as the suite writes it, and picks the
// release it ran that is nearest the one found: the very release, else
// the newest older one, else the oldest; the newest when none was found.
func TestSeenForPicksTheNearestReleaseTheSuiteRan(t *testing.T) {
	defer func(old string) { conformanceTable = old }(conformanceTable)
	conformanceTable = `| check | Claude Code 2.1.332 | Claude Code 2.1.197 | Codex 0.171.0 |
| --- | --- | --- | --- |
| a denied shell call does not run | yes | yes | yes |
| luahook missing from PATH blocks the prompt | yes | no: the call runs | — |
`
	v := func(s string) Version {
		ver, ok := ParseVersion(s)
		if !ok {
			t.Fatalf("bad version %q", s)
		}
		return ver
	}
	cases := []struct {
		found   string
		has     bool
		release string
		exact   bool
	}{
		{"2.1.332", true, "Claude Code 2.1.332", true},
		{"2.1.197", true, "Claude Code 2.1.197", true},
		{"2.1.300", true, "Claude Code 2.1.197", false},
		{"2.2.0", true, "Claude Code 2.1.332", false},
		{"2.0.1", true, "Claude Code 2.1.197", false},
		{"", false, "Claude Code 2.1.332", false},
	}
	for _, c := range cases {
		var found Version
		if c.has {
			found = v(c.found)
		}
		s := seenFor("Claude Code", found, c.has)
		if s == nil || s.Release != c.release || s.Exact != c.exact {
			t.Errorf("found %q: got %+v, want %s (exact %v)", c.found, s, c.release, c.exact)
		}
	}
	old := seenFor("Claude Code", v("2.1.197"), true)
	want := []SeenCheck{{"a denied shell call does not run", "yes"}, {"luahook missing from PATH blocks the prompt", "no: the call runs"}}
	if !reflect.DeepEqual(old.Checks, want) {
		t.Errorf("2.1.197's column: got %q, want %q", old.Checks, want)
	}
	codex := seenFor("Codex", v("0.171.0"), true)
	if len(codex.Checks) != 1 {
		t.Errorf("a cell of — is a check the suite did not make: got %q", codex.Checks)
	}
	if s := seenFor("Cursor", Version{}, false); s != nil {
		t.Errorf("the suite ran no Cursor, yet: %+v", s)
	}
}

// The table the binary embeds is one the doctor can read: a header of
// known agents' releases, so that a badly written table is not silently
// nothing.
func TestTheEmbeddedSuiteTableReads(t *testing.T) {
	cols := parseSuiteTable(conformanceTable)
	if len(cols) == 0 {
		t.Fatalf("the embedded conformance.md has no release the doctor can read:\n%s", conformanceTable)
	}
	for _, c := range cols {
		known := false
		for _, title := range Title {
			known = known || title == c.title
		}
		if !known {
			t.Errorf("conformance.md names %q, which is no agent's title (install.Title)", c.title)
		}
	}
}
