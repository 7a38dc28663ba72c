package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/runner"
)

// validateHook is the typical policy: read one field, look for a pattern.
const validateHook = `hook.register("PreToolUse", %q, function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then return hook.deny("no") end
end, { stage = "validate" })
`

// openDir writes files into a fresh hooks folder and opens an engine on it.
func openDir(tb testing.TB, files map[string]string) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	eng, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := eng.Err(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// payload is a PreToolUse payload as a host or serve receives it.
func payload(tool string, toolInput string) []byte {
	return []byte(`{"event":"PreToolUse","toolName":"` + tool + `","toolInput":` + toolInput + `,"cwd":"/work/project","sessionId":"s1"}`)
}

// fire decodes a payload (JSON in) and runs it (decision out).
func fire(b *testing.B, eng *engine.Engine, data []byte) {
	var in luahook.Input
	if err := json.Unmarshal(data, &in); err != nil {
		b.Fatal(err)
	}
	res := eng.Runner().Fire(context.Background(), &in)
	if res.Denied() {
		b.Fatal("denied")
	}
}

// BenchmarkMatchingLuaHooks: 1, 10 and 100 matching Lua hooks on one event,
// each in its own file. The cost should grow linearly.
func BenchmarkMatchingLuaHooks(b *testing.B) {
	data := payload("bash", `{"command":"ls -la /tmp"}`)
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			files := map[string]string{}
			for i := range n {
				files[fmt.Sprintf("%03d.lua", i)] = fmt.Sprintf(validateHook, "bash")
			}
			eng := openDir(b, files)
			b.ReportAllocs()
			for b.Loop() {
				fire(b, eng, data)
			}
		})
	}
}

// BenchmarkTenLuaHooksOneMatching: nine hooks for other tools and one for
// bash; the nine must cost almost nothing.
func BenchmarkTenLuaHooksOneMatching(b *testing.B) {
	files := map[string]string{"000.lua": fmt.Sprintf(validateHook, "bash")}
	for i := 1; i < 10; i++ {
		files[fmt.Sprintf("%03d.lua", i)] = fmt.Sprintf(validateHook, fmt.Sprintf("tool%d|other%d", i, i))
	}
	eng := openDir(b, files)
	data := payload("bash", `{"command":"ls -la /tmp"}`)
	b.ReportAllocs()
	for b.Loop() {
		fire(b, eng, data)
	}
}

// bigWrite is a write tool's input with content of about n bytes: text with
// newlines, quotes and some non-ASCII, as an agent writes files.
func bigWrite(n int) string {
	line := `	fmt.Println("héllo, \"world\"") // a line of code with a tab and a quote` + "\n"
	content := strings.Repeat(line, max(1, n/len(line)))
	b, _ := json.Marshal(map[string]string{"path": "src/main.go", "content": content})
	return string(b)
}

// BenchmarkPayloadSize: a Lua hook that reads one field of payloads of 100 B,
// 10 KiB and 1 MiB, against decoding the same payload with encoding/json
// alone (BenchmarkDecodeJSON).
func BenchmarkPayloadSize(b *testing.B) {
	eng := openDir(b, map[string]string{"10-path.lua": `hook.register("PreToolUse", "write", function(input)
  if (input.toolInput.path or ""):find("%.env$") then return hook.deny("no") end
end, { stage = "validate" })`})
	for _, size := range []int{100, 10 << 10, 1 << 20} {
		data := payload("write", bigWrite(size))
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				fire(b, eng, data)
			}
		})
	}
}

// BenchmarkDecodeJSON is the floor for BenchmarkPayloadSize: encoding/json
// decoding the payload into generic Go values.
func BenchmarkDecodeJSON(b *testing.B) {
	for _, size := range []int{100, 10 << 10, 1 << 20} {
		data := payload("write", bigWrite(size))
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v map[string]any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("size=%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("size=%dKiB", n>>10)
	}
	return fmt.Sprintf("size=%dB", n)
}

// BenchmarkPostToolUseFanOut: 1, 4 and 16 Lua hooks that each add context,
// run in parallel and joined in order.
func BenchmarkPostToolUseFanOut(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			files := map[string]string{}
			for i := range n {
				files[fmt.Sprintf("%03d.lua", i)] = `hook.register("PostToolUse", "edit", function(input)
  return hook.context("checked " .. (input.toolInput.path or "?"))
end)`
			}
			eng := openDir(b, files)
			in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "edit", ToolInput: json.RawMessage(`{"path":"a.go"}`),
				ToolResult: &luahook.ToolResult{Content: "ok"}, Cwd: "/work"}
			b.ReportAllocs()
			for b.Loop() {
				if res := eng.Runner().PostToolUse(context.Background(), in); res.AdditionalContext == "" {
					b.Fatal("no context")
				}
			}
		})
	}
}

// BenchmarkLuaValidateParallel: one Lua validate hook fired from every core,
// each goroutine passing its own payload as a host does; compare -cpu 1 and
// -cpu 2 for the scaling. This test process holds about 1 MiB, so at the
// default GOGC the collector runs at its 4 MiB minimum heap, every couple of
// thousand calls: internal/bench/report runs it again with GOGC=400 to show what the
// collector's pace costs.
func BenchmarkLuaValidateParallel(b *testing.B) {
	luaValidateParallel(b, func(r *runner.Runner, in *luahook.Input, res *runner.Result) bool {
		r.FireInto(context.Background(), in, res) // one Result per host goroutine, its trace reused
		return res.Denied()
	})
}

// BenchmarkLuaValidateParallelFire is the same load through Fire, which
// returns a fresh Result (and trace) every call.
func BenchmarkLuaValidateParallelFire(b *testing.B) {
	luaValidateParallel(b, func(r *runner.Runner, in *luahook.Input, _ *runner.Result) bool {
		return r.Fire(context.Background(), in).Denied()
	})
}

func luaValidateParallel(b *testing.B, fire func(*runner.Runner, *luahook.Input, *runner.Result) bool) {
	eng := openDir(b, map[string]string{"10-bash.lua": fmt.Sprintf(validateHook, "bash")})
	data := payload("bash", `{"command":"ls -la /tmp"}`)
	b.ReportAllocs()
	// Collect the setup's garbage (the engine, the loaded file) now, or
	// its collection runs during the measured calls, on one of the cores.
	runtime.GC()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var in luahook.Input
		if err := json.Unmarshal(data, &in); err != nil {
			b.Error(err)
			return
		}
		var res runner.Result
		for pb.Next() {
			if fire(eng.Runner(), &in, &res) {
				b.Error("denied")
				return
			}
		}
	})
}

// BenchmarkLoadFiles: loading a folder of 1,000 hook files (each compiled,
// run once, registered); B/op is the memory the loaded folder holds.
func BenchmarkLoadFiles(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		src := fmt.Sprintf(validateHook, fmt.Sprintf("tool%d", i))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.lua", i)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		eng, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
		if err != nil {
			b.Fatal(err)
		}
		if st := eng.Stats(); st.Files != 1000 {
			b.Fatalf("loaded %d files", st.Files)
		}
		eng.Close()
	}
}

// BenchmarkStateMemory reports the heap one pooled state holds
// (heap-B/state): 64 calls hold 64 states of one file busy at once, and the
// heap difference is divided by 64.
func BenchmarkStateMemory(b *testing.B) {
	chunk, err := luabind.Compile("busy.lua", []byte(`hook.register("PreToolUse", nil, function(input)
  store.incr("busy", 1)
  while not store.get("release") do end
end)`))
	if err != nil {
		b.Fatal(err)
	}
	var perState float64
	for b.Loop() {
		perState = stateMemory(b, chunk, 64)
	}
	b.ReportMetric(perState, "heap-B/state")
}

func stateMemory(b *testing.B, chunk *luabind.Chunk, states int) float64 {
	store := luabind.NewStore()
	// Twice: a closed state's call-stack segments wait in gopher-lua's
	// sync.Pool, still pointing into that state, until two collections
	// have passed; an earlier iteration's states must not count as "before".
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := luabind.Load(context.Background(), chunk, luabind.Options{MaxStates: states, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	hook := f.Registrations()[0].Hook
	var wg sync.WaitGroup
	for range states {
		wg.Go(func() {
			hook.Call(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolInput: json.RawMessage(`{}`)})
		})
	}
	for {
		if n, _, _ := store.Get(context.Background(), "busy"); n == float64(states) {
			break
		}
		runtime.Gosched()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	store.Set(context.Background(), "release", true, 0)
	wg.Wait()
	if st := f.Stats(); st.Created != states {
		b.Fatalf("%d states created, want %d", st.Created, states)
	}
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(states)
}

// BenchmarkCalibrateParallel is CPU-bound work with no allocation and no
// sharing (SHA-256 of 1 KiB) fired from every core: its -cpu 1,2 scaling is
// what the machine lets any code reach at that moment, the yardstick for
// BenchmarkLuaValidateParallel on a shared machine.
func BenchmarkCalibrateParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var buf [1024]byte
		for pb.Next() {
			sum := sha256.Sum256(buf[:])
			buf[0] = sum[0]
		}
	})
}
