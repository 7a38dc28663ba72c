package registry

import (
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func BenchmarkHas(b *testing.B) {
	r := New()
	r.Register(luahook.Spec{Event: luahook.PostToolUse, Hook: nop})
	b.ReportAllocs()
	for b.Loop() {
		if r.Has(luahook.PreToolUse) {
			b.Fatal("has")
		}
	}
}

func BenchmarkMatchNonMatching(b *testing.B) {
	for _, c := range []struct{ name, matcher string }{
		{"names", "edit|write|patch"},
		{"regex", "mcp__github__.*"},
		{"capability", "@fs.write"},
		{"rule", "Edit(src/**)"}, // the tool does not match: the input is not read
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := ParseMatcher(luahook.PreToolUse, c.matcher)
			if err != nil {
				b.Fatal(err)
			}
			in := &luahook.Input{ToolName: "bash", ToolInput: []byte(`{"command":"git push"}`), ToolCapabilities: []string{"shell"}}
			b.ReportAllocs()
			for b.Loop() {
				if m.Match(in.ToolName, in) {
					b.Fatal("matched")
				}
			}
		})
	}
}

// BenchmarkMatchRule: a Tool(pattern) matcher whose tool matches reads its
// one argument from the tool input.
func BenchmarkMatchRule(b *testing.B) {
	for _, c := range []struct{ name, matcher, input string }{
		{"command", "Bash(git push:*)", `{"command":"cd repo && make test && git status","description":"run the tests","timeout":120000}`},
		{"path", "Edit(src/**)", `{"file_path":"/home/u/proj/lib/x.go","old_string":"a","new_string":"b"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := ParseMatcher(luahook.PreToolUse, c.matcher)
			if err != nil {
				b.Fatal(err)
			}
			tool, _, _ := strings.Cut(c.matcher, "(")
			in := &luahook.Input{ToolName: tool, ToolInput: []byte(c.input), Cwd: "/home/u/proj"}
			b.ReportAllocs()
			for b.Loop() {
				if m.Match(in.ToolName, in) {
					b.Fatal("matched")
				}
			}
		})
	}
}
