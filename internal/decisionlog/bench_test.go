package decisionlog_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/runner"
)

// BenchmarkDecisionLog fires a PreToolUse at a real Lua hook through the
// engine's runner (FireInto, as a busy host does), without a decision log
// and with one writing to a file. The ratio file/off is the cost the log
// adds to a decision; the writer's own work happens on its goroutine.
//
//	go test -run '^$' -bench DecisionLog -benchmem -count 3 ./decisionlog
func BenchmarkDecisionLog(b *testing.B) {
	const guard = `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm %-rf") then return hook.deny("no rm -rf") end
end, {name = "guard"})
`
	for _, mode := range []string{"off", "file"} {
		b.Run(mode, func(b *testing.B) {
			var log *decisionlog.Logger
			if mode == "file" {
				log = newLog(b, filepath.Join(b.TempDir(), "decisions.jsonl"), decisionlog.Options{})
			}
			e, _ := openWith(b, map[string]string{"10-guard.lua": guard}, log)
			in := bash("go test ./... -run TestRunner -count=1")
			var res runner.Result
			ctx := context.Background()
			settleWrites()
			b.ReportAllocs()
			for b.Loop() {
				e.Runner().FireInto(ctx, in, &res)
			}
			b.StopTimer()
			if log != nil {
				log.Close()
				st := log.Stats()
				b.ReportMetric(float64(st.Dropped)/float64(st.Written+st.Dropped), "dropped/op")
			}
		})
	}
}

// BenchmarkDecisionLogShipped is BenchmarkDecisionLog with the policies
// that ship with luahook (hooks.d) deciding a typical Bash call: the cost
// of the log next to a decision of real policies rather than of one
// trivial hook.
func BenchmarkDecisionLogShipped(b *testing.B) {
	files := map[string]string{}
	// The shipped policies that judge a Bash call, without the rate limit
	// (a benchmark's millions of calls would go past it).
	for _, name := range []string{"10-dangerous-commands.lua", "20-protect-secrets.lua", "30-prefer-pnpm.lua"} {
		src, err := fs.ReadFile(hooksd.FS, name)
		if err != nil {
			b.Fatal(err)
		}
		files[name] = string(src)
	}
	libs, err := fs.Glob(hooksd.FS, "lib/*.lua")
	if err != nil {
		b.Fatal(err)
	}
	more, _ := fs.Glob(hooksd.FS, "lib/*/*.lua")
	for _, name := range append(libs, more...) {
		src, err := fs.ReadFile(hooksd.FS, name)
		if err != nil {
			b.Fatal(err)
		}
		files[name] = string(src)
	}
	for _, mode := range []string{"off", "file"} {
		b.Run(mode, func(b *testing.B) {
			var log *decisionlog.Logger
			if mode == "file" {
				log = newLog(b, filepath.Join(b.TempDir(), "decisions.jsonl"), decisionlog.Options{})
			}
			e, _ := openWith(b, files, log)
			in := bash("go test ./... -run TestRunner -count=1")
			var res runner.Result
			ctx := context.Background()
			settleWrites()
			b.ReportAllocs()
			for b.Loop() {
				e.Runner().FireInto(ctx, in, &res)
			}
			b.StopTimer()
			if res.Denied() {
				b.Fatalf("the shipped policies denied the benchmark's command: %s", res.Reason)
			}
			if log != nil {
				log.Close()
				st := log.Stats()
				b.ReportMetric(float64(st.Dropped)/float64(st.Written+st.Dropped), "dropped/op")
			}
		})
	}
}
