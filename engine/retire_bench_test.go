package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	hooksd "github.com/luahook/luahook/hooks.d"
)

// BenchmarkReloadChurnRSS measures what a long-running engine keeps after a
// reload churn: a shipped policy (a copy of hooks.d's dangerous-commands
// and its lib modules) is rewritten b.N times through the watcher while
// bash PreToolUse calls run at it. It reports the resident memory and the live heap before and after
// the churn, each taken once the calls have stopped and the collector has
// returned what it freed to the OS, and rss-ratio, after over before (flat:
// at most 1.10). A warm-up of calls and reloads comes first, and each phase
// ends with the same number of calls on the last version, so that both
// figures are taken with every pool grown to its bound (the callers are
// twice as many as a pool has states) rather than as far as it happened to
// grow.
//
//	go test -run '^$' -bench ReloadChurnRSS -benchtime 300x ./engine
func BenchmarkReloadChurnRSS(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "hooks.d")
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		b.Fatal(err)
	}
	// The policy rewritten alone, with the lib modules it requires: the
	// pools of files that are never reloaded would grow during the churn
	// and blur what reloads leave.
	const name = "10-dangerous-commands.lua"
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f) != name {
			if err := os.Remove(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, name)
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	e := openEngine(b, Options{Dir: dir, Debounce: 5 * time.Millisecond})
	if err := e.Err(); err != nil {
		b.Fatal(err)
	}
	version := 0
	rewrite := func() {
		version++
		want := e.view.Load().reloads + 1
		saveByRename(b, path, fmt.Sprintf("%s\n-- version %d\n", src, version))
		deadline := time.Now().Add(30 * time.Second)
		for e.view.Load().reloads < want {
			if time.Now().After(deadline) {
				b.Fatalf("version %d not reloaded after 30s (errors: %v)", version, e.Err())
			}
			time.Sleep(time.Millisecond)
		}
	}
	in := bashInput(dir)
	in.ToolInput = []byte(`{"command":"git status"}`)
	callers := 2 * max(4, 2*runtime.GOMAXPROCS(0)) // luabind.Options.MaxStates's default, twice
	const settle = 50000                           // calls on the last version before memory is measured

	load := fireAway(e, callers, in)
	for range 20 {
		rewrite()
	}
	load.settle(settle)
	load.stop()
	rssBefore, heapBefore := settledMemory(b)
	statesBefore := e.Stats().States

	b.ResetTimer()
	start := time.Now()
	load = fireAway(e, callers, in)
	for range b.N {
		rewrite()
	}
	calls := load.calls.Load()
	took := time.Since(start)
	load.settle(settle)
	load.stop()
	b.StopTimer()
	rssAfter, heapAfter := settledMemory(b)
	statesAfter := e.Stats().States

	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mb(rssBefore), "rss-before-MB")
	b.ReportMetric(mb(rssAfter), "rss-after-MB")
	b.ReportMetric(float64(rssAfter)/float64(rssBefore), "rss-ratio")
	b.ReportMetric(mb(heapBefore), "heap-before-MB")
	b.ReportMetric(mb(heapAfter), "heap-after-MB")
	b.ReportMetric(float64(statesBefore), "states-before")
	b.ReportMetric(float64(statesAfter), "states-after")
	b.ReportMetric(float64(calls)/took.Seconds(), "decisions/s")
	b.ReportMetric(float64(b.N)/took.Seconds(), "reloads/s")
}

// settledMemory collects, returns the freed memory to the OS and then reads
// the resident memory and the live heap: what the process keeps, not the
// garbage it has not collected or returned yet.
func settledMemory(tb testing.TB) (rss, heap uint64) {
	tb.Helper()
	heap = liveHeap()
	debug.FreeOSMemory()
	rss, err := residentBytes()
	if err != nil {
		tb.Fatal(err)
	}
	return rss, heap
}

// residentBytes returns the process's resident memory: VmRSS of
// /proc/self/status, or where there is no /proc, what the Go runtime has
// mapped and not returned to the OS (runtime/metrics), which leaves out
// the memory of cgo and of the binary itself.
func residentBytes() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64() - s[1].Value.Uint64(), nil
	}
	defer f.Close()
	status, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/self/status: VmRSS %q: %w", bytes.TrimSpace(v), err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no VmRSS line")
}
