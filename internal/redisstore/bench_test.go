package redisstore_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/runner"
)

// incrHook is a hook file whose one hook counts each call in the store.
const incrHook = `hook.register("PreToolUse", "bash", function(input, rt)
  store.incr("calls:" .. rt.session_id, 1, 60000)
end, { name = "count", failure_policy = "closed" })
`

// benchEngine opens an engine over a hooks folder holding incrHook, with
// config as its luahook.toml ("" for none).
func benchEngine(b *testing.B, config string) *engine.Engine {
	b.Helper()
	root := b.TempDir()
	dir := filepath.Join(root, "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "50-count.lua"), []byte(incrHook), 0o644); err != nil {
		b.Fatal(err)
	}
	opts := engine.Options{Dir: dir, NoWatch: true}
	if config != "" {
		opts.ConfigPath = filepath.Join(root, "luahook.toml")
		if err := os.WriteFile(opts.ConfigPath, []byte(config), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	e, err := engine.Open(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// benchIncr measures a PreToolUse call whose one Lua hook does one
// store.incr, one goroutine and then 16.
func benchIncr(b *testing.B, e *engine.Engine) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{"command":"ls"}`), Cwd: os.TempDir(), SessionID: "s1"}
	check := func(res *runner.Result) {
		if res.Denied() || len(res.Trace) != 1 || res.Trace[0].Failure != nil {
			b.Fatalf("the counting hook did not run cleanly: %+v", res.Trace)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		var res runner.Result
		for b.Loop() {
			e.Runner().FireInto(context.Background(), in, &res)
		}
		check(&res)
	})
	b.Run("parallel16", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0))) // 16 goroutines
		b.RunParallel(func(pb *testing.PB) {
			in := *in
			var res runner.Result
			ran := false
			for pb.Next() {
				e.Runner().FireInto(context.Background(), &in, &res)
				ran = true
			}
			if ran {
				check(&res)
			}
		})
	})
}

// BenchmarkHookIncr compares a hook doing one store.incr on the in-process
// store and on a local redis-server, one caller and 16.
//
//	go test -run '^$' -bench HookIncr -benchmem ./internal/redisstore
func BenchmarkHookIncr(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchIncr(b, benchEngine(b, "")) })
	b.Run("redis", func(b *testing.B) {
		srv := redistest.Start(b)
		benchIncr(b, benchEngine(b, redisConfig(srv.Addr(), "")))
	})
}
