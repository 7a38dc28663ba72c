package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/internal/server"
)

// countingHook counts every bash call of a session in the store, as a
// per-session rate limit does, and lets it through.
const countingHook = `hook.register("PreToolUse", "bash", function(input, rt)
  store.incr("calls:" .. (rt.session_id or ""), 1, 60000)
  return hook.allow()
end, { name = "count", stage = "validate", failure_policy = "closed" })
`

// BenchmarkServeStoreThroughput is BenchmarkServeThroughput with a policy
// that does one store.incr per decision, on the in-process store and on a
// local redis-server (each replica of a fleet shares its counts there).
func BenchmarkServeStoreThroughput(b *testing.B) {
	body := payload("bash", `{"command":"go test ./... -run TestRunner -count=1","timeout":120000}`)
	b.Run("memory", func(b *testing.B) { serveLoad(b, serveWithConfig(b, ""), body, explicitAllow) })
	b.Run("redis", func(b *testing.B) {
		r := redistest.Start(b)
		serveLoad(b, serveWithConfig(b, "[store]\nbackend = \"redis\"\naddress = \""+r.Addr()+"\"\n"), body, explicitAllow)
	})
}

// serveWithConfig serves countingHook under the config text (none when
// empty) on a loopback listener and returns the hook protocol's URL.
func serveWithConfig(tb testing.TB, config string) string {
	tb.Helper()
	dir := tb.TempDir()
	hooks := filepath.Join(dir, "hooks.d")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooks, "10-count.lua"), []byte(countingHook), 0o644); err != nil {
		tb.Fatal(err)
	}
	opts := engine.Options{Dir: hooks, NoWatch: true}
	if config != "" {
		opts.ConfigPath = filepath.Join(dir, "luahook.toml")
		if err := os.WriteFile(opts.ConfigPath, []byte(config), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	eng, err := engine.Open(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	if err := eng.Err(); err != nil {
		tb.Fatal(err)
	}
	return serveHandler(tb, server.New(eng.Runner(), server.Options{Health: eng.Errors})) + "/hook"
}

// explicitAllow is the answer to countingHook's hook.allow().
var explicitAllow = []byte("{\"action\":\"allow\"}\n")
