package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// TestMatcherTable: every form of matcher parses to its form or is refused
// with its reason and the list of forms, and selects exactly the payloads
// the table says; a Go registration is refused the same way.
func TestMatcherTable(t *testing.T) {
	const cwd = "/home/u/proj"
	for _, c := range matcherCases {
		m, err := registry.ParseMatcher(c.ev(), c.matcher)
		if c.err != "" {
			var me *registry.MatcherError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), c.err) || !strings.HasSuffix(err.Error(), registry.MatcherForms) {
				t.Errorf("%s %.40q: error %v, want a *MatcherError with %q and the forms", c.ev(), c.matcher, err, c.err)
			}
			_, err := registry.New().Register(luahook.Spec{Event: c.ev(), Matcher: c.matcher, Hook: nopHook, Source: "plugin.go:7"})
			if err == nil || !strings.HasPrefix(err.Error(), "plugin.go:7: ") || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %.40q: Register error %v, want one naming plugin.go:7 and %q", c.ev(), c.matcher, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.ev(), c.matcher, err)
			continue
		}
		if got := m.String(); got != c.form {
			t.Errorf("%s %q: form %q, want %q", c.ev(), c.matcher, got, c.form)
		}
		for _, p := range c.probes {
			if got := m.Match(p.key, c.payload(p, cwd)); got != p.want {
				t.Errorf("%s %q on %s %s caps %v: match %v, want %v", c.ev(), c.matcher, p.key, p.input, p.caps, got, p.want)
			}
		}
	}
}

func TestMatcherRefusesInvalidUTF8(t *testing.T) {
	if _, err := registry.ParseMatcher(luahook.PreToolUse, "bash\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("err = %v", err)
	}
}

// TestMatcherToolInputMatchedOnlyWhenToolMatches: a Tool(pattern) matcher
// whose tool does not match does not read the tool input (here not JSON).
func TestMatcherToolInputMatchedOnlyWhenToolMatches(t *testing.T) {
	m, err := registry.ParseMatcher(luahook.PreToolUse, "Bash(git push:*)")
	if err != nil {
		t.Fatal(err)
	}
	in := &luahook.Input{ToolName: "Read", ToolInput: []byte(`not json`)}
	if m.Match("Read", in) || !m.ReadsToolInput() {
		t.Fatal("matched another tool")
	}
	if allocs := testing.AllocsPerRun(100, func() { m.Match("Read", in) }); allocs != 0 {
		t.Fatalf("a non-matching tool allocates %v times", allocs)
	}
}

// TestMatcherToolInputAmbiguousOrUnreadableMatches: a Tool(pattern) matcher
// whose argument is given twice, is not a string, or is in a payload that is
// not a JSON object cannot judge it, and selects the hook (a guard runs on
// input its matcher cannot read; the transports refuse duplicate keys).
func TestMatcherToolInputAmbiguousOrUnreadableMatches(t *testing.T) {
	m, err := registry.ParseMatcher(luahook.PreToolUse, "Bash(git push:*)")
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{
		`{"command":"git push","command":"ls"}`, `{"command":"ls","comm\u0061nd":"ls"}`, `{"command":["git","push"]}`,
		`{"command":null}`, `["git push"]`, `"git push"`, `{"command":"ls"`, ``,
	} {
		if !m.Match("Bash", &luahook.Input{ToolName: "Bash", ToolInput: []byte(input)}) {
			t.Errorf("%s: not selected", input)
		}
	}
	for _, input := range []string{`{"command":"ls","x":{"command":"git push"}}`, `{"x":"\"command\":\"git push\"","command":"ls"}`, ` { "command" : "ls" } `} {
		if m.Match("Bash", &luahook.Input{ToolName: "Bash", ToolInput: []byte(input)}) {
			t.Errorf("%s: selected", input)
		}
	}
}

var nopHook = luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })
