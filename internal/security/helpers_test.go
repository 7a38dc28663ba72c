package security

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/runner"
)

// hooksDir writes files (name -> content, mode 0644) into a fresh hooks
// folder (mode 0755) and returns it.
func hooksDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		writeFile(t, filepath.Join(dir, name), src)
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whatever the umask: the permission checks must see exactly 0644.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// open opens an engine without a watcher and closes it when the test ends.
func open(t testing.TB, opts engine.Options) *engine.Engine {
	t.Helper()
	opts.NoWatch = true
	e, err := engine.Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// writeConfig writes a luahook.toml next to dir and returns its path.
func writeConfig(t testing.TB, dir, content string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(dir), "luahook.toml")
	writeFile(t, p, content)
	return p
}

// pre fires a PreToolUse call for tool with toolInput at e.
func pre(e *engine.Engine, tool, toolInput string) runner.Result {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: tool,
		ToolInput: []byte(toolInput), Cwd: os.TempDir()})
}

// failures joins the messages of the failures in res's trace.
func failures(res runner.Result) string {
	var msgs []string
	for _, tr := range res.Trace {
		if tr.Failure != nil {
			msgs = append(msgs, tr.Failure.Error())
		}
	}
	return strings.Join(msgs, "; ")
}

// luaString quotes s as a Lua long string.
func luaString(s string) string {
	eq := "="
	for strings.Contains(s, "]"+eq+"]") {
		eq += "="
	}
	return "[" + eq + "[" + s + "]" + eq + "]"
}

// heapPeak samples the bytes of live heap objects while f runs and returns
// the highest sample, and how much the heap grew over what it held before.
func heapPeak(f func()) (peak, growth uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		top := read()
		for {
			select {
			case <-done:
				result <- max(top, read())
				return
			case <-tick.C:
				top = max(top, read())
			}
		}
	}()
	f()
	close(done)
	peak = <-result
	if peak > base {
		growth = peak - base
	}
	return peak, growth
}
