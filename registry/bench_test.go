package registry

import (
	"testing"

	"github.com/luahook/luahook"
)

func BenchmarkHas(b *testing.B) {
	r := New()
	r.Register(Spec{Event: luahook.PostToolUse, Hook: nop})
	b.ReportAllocs()
	for b.Loop() {
		if r.Has(luahook.PreToolUse) {
			b.Fatal("has")
		}
	}
}

func BenchmarkMatchNonMatching(b *testing.B) {
	m := compileMatcher("edit|write|patch")
	b.ReportAllocs()
	for b.Loop() {
		if m.match("bash") {
			b.Fatal("matched")
		}
	}
}
