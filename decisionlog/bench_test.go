package decisionlog_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook/decisionlog"
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
