package hooksd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	hooksd "github.com/luahook/luahook/hooks.d"
)

// openShipped opens an engine on a copy of the named shipped policies (all
// of them when none is named) and the lib folder.
func openShipped(tb testing.TB, files ...string) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		tb.Fatal(err)
	}
	if len(files) > 0 {
		keep := map[string]bool{}
		for _, f := range files {
			keep[f] = true
		}
		ents, _ := os.ReadDir(dir)
		for _, d := range ents {
			if !d.IsDir() && !keep[d.Name()] {
				os.Remove(filepath.Join(dir, d.Name()))
			}
		}
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Err(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// typical4K is a 4 KiB shell command of the everyday kind: a chain of
// builds, greps and quoted arguments.
func typical4K() string {
	var b strings.Builder
	for b.Len() < 4096 {
		b.WriteString(`cd ./src && go test -run 'TestX|TestY' ./... 2>&1 | grep -v "^ok" ; echo "$HOME/build done" && `)
	}
	b.WriteString("true")
	return b.String()
}

// BenchmarkDangerousCommands measures one PreToolUse bash call through the
// dangerous-commands policy alone, through the engine's runner as a host
// calls it.
func BenchmarkDangerousCommands(b *testing.B) { benchBash(b, "10-dangerous-commands.lua") }

// BenchmarkProtectSecretsShell measures the same call through the
// protect-secrets policy alone.
func BenchmarkProtectSecretsShell(b *testing.B) { benchBash(b, "20-protect-secrets.lua") }

func benchBash(b *testing.B, file string) {
	for _, bc := range []struct{ name, cmd string }{
		{"git_status", "git status"},
		{"4KiB", typical4K()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := openShipped(b, file)
			input, _ := json.Marshal(map[string]string{"command": bc.cmd})
			in := luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", SessionID: "bench", ToolInput: input}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res := e.Runner().Fire(ctx, &in)
				if res.Denied() {
					b.Fatalf("denied: %s", res.Reason)
				}
			}
		})
	}
}
