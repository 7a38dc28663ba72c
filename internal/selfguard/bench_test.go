package selfguard

import (
	"path/filepath"
	"testing"
)

// BenchmarkCheck measures the guard alone on the kinds of calls an agent
// makes: the cheap look at an ordinary shell command, a file tool's path
// resolved with its links followed, a command that names a protected path
// and is parsed, one that is denied.
//
//	go test -run '^$' -bench Check -benchmem ./internal/selfguard
func BenchmarkCheck(b *testing.B) {
	f := newFixture(b)
	calls := map[string]func() (bool, string){}
	in1 := f.shell("npm install left-pad", f.proj)
	calls["ordinary bash"] = func() (bool, string) { return f.g.Check(in1) }
	in2 := f.shell(`git commit -m "fix: handle a nil input" && go test ./...`, f.proj)
	calls["ordinary bash quoted"] = func() (bool, string) { return f.g.Check(in2) }
	in3 := f.tool("Write", map[string]any{"file_path": filepath.Join(f.proj, "src", "main.go"), "content": "x"}, f.proj)
	calls["ordinary Write"] = func() (bool, string) { return f.g.Check(in3) }
	in4 := f.shell("cat hooks.d/10-x.lua | grep allow", f.proj)
	calls["names hooks.d"] = func() (bool, string) { return f.g.Check(in4) }
	in5 := f.shell("rm -rf hooks.d", f.proj)
	calls["denied"] = func() (bool, string) { return f.g.Check(in5) }
	for _, name := range []string{"ordinary bash", "ordinary bash quoted", "ordinary Write", "names hooks.d", "denied"} {
		call := calls[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}
