package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
)

// BenchmarkSelfProtection measures what the self-protection adds to a
// decision: each payload through Decide on one engine with it on and on
// the same hooks with it off (Options.NoSelfProtect). "ordinary" calls
// name nothing protected and stop at the guard's substring look (a shell
// command) or at one path resolved with its links followed (a file tool);
// "names hooks.d" is parsed; "denied" is denied before any hook runs.
// Two hook sets: one Lua hook that allows everything, and the shipped
// hooks.d.
//
//	go test -run '^$' -bench SelfProtection -benchmem ./engine
func BenchmarkSelfProtection(b *testing.B) {
	g := newGuarded(b, "")
	shipped, err := filepath.Abs(filepath.Join("..", "hooks.d"))
	if err != nil {
		b.Fatal(err)
	}
	calls := []struct {
		name string
		in   *luahook.Input
	}{
		{"ordinary bash", shellCall("npm install left-pad", g.proj)},
		{"ordinary bash quoted", shellCall(`git commit -m "fix: handle a nil input" && go test ./...`, g.proj)},
		{"ordinary Write", toolCall("Write", map[string]any{"file_path": filepath.Join(g.proj, "src", "main.go"),
			"content": "package main\n\nfunc main() {}\n"}, g.proj)},
		{"Read", toolCall("Read", map[string]any{"file_path": filepath.Join(g.hooks, "10-allow.lua")}, g.proj)},
		{"names hooks.d", shellCall("cat hooks.d/10-allow.lua | grep allow", g.proj)},
		{"denied", shellCall("rm -rf hooks.d", g.proj)},
	}
	for _, set := range []struct {
		name string
		dir  string
	}{{"one hook", g.hooks}, {"shipped hooks", shipped}} {
		engines := map[string]*Engine{}
		for _, state := range []string{"off", "on"} {
			engines[state] = openEngine(b, Options{Dir: set.dir, NoWatch: true, Protect: g.protect,
				NoSelfProtect: state == "off"})
		}
		for _, c := range calls {
			for _, state := range []string{"off", "on"} { // side by side: the machine drifts
				eng := engines[state]
				b.Run(set.name+"/"+c.name+"/guard "+state, func(b *testing.B) {
					ctx := context.Background()
					b.ReportAllocs()
					for b.Loop() {
						if _, err := eng.Decide(ctx, c.in); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
