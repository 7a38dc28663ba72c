package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/luabind"
)

// BenchmarkReloadLatency measures the time from a file write to the new
// behaviour being visible to a caller, through the real watcher with the
// default debounce: median and maximum over b.N writes.
//
//	go test -run '^$' -bench ReloadLatency -benchtime 50x ./engine
func BenchmarkReloadLatency(b *testing.B) {
	b.ReportAllocs()
	dir := hooksDir(b, map[string]string{"10-ver.lua": denyFile("v0")})
	e := openEngine(b, Options{Dir: dir, Debounce: DefaultDebounce})
	path := filepath.Join(dir, "10-ver.lua")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		want := fmt.Sprintf("v%d", i+1)
		start := time.Now()
		if err := os.WriteFile(path, []byte(denyFile(want)), 0o644); err != nil {
			b.Fatal(err)
		}
		for verdict(e) != want {
			if time.Since(start) > 5*time.Second {
				b.Fatalf("write %d not live after 5s", i)
			}
			time.Sleep(200 * time.Microsecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

// BenchmarkCallLatencyDuringReloads compares the p99 latency of a
// PreToolUse call (a file with a mutator and a validator) in steady state with
// its p99 while the file is rewritten and reloaded continuously.
//
//	go test -run '^$' -bench CallLatencyDuringReloads -benchtime 20000x ./engine
func BenchmarkCallLatencyDuringReloads(b *testing.B) {
	b.ReportAllocs()
	dir := hooksDir(b, map[string]string{"10-ver.lua": versionFile("v1")})
	e := openEngine(b, Options{Dir: dir, Debounce: 5 * time.Millisecond})
	path := filepath.Join(dir, "10-ver.lua")
	in := bashInput(dir)
	measure := func() []time.Duration {
		lat := make([]time.Duration, b.N)
		for i := range b.N {
			start := time.Now()
			e.Runner().PreToolUse(context.Background(), in)
			lat[i] = time.Since(start)
		}
		slices.Sort(lat)
		return lat
	}
	for range 100 { // warm the pool
		e.Runner().PreToolUse(context.Background(), in)
	}
	b.ResetTimer()
	steady := measure()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	reloads := e.Stats().Reloads
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			os.WriteFile(path, []byte(versionFile([]string{"v1", "v2"}[i%2])), 0o644)
		}
	})
	began := time.Now()
	during := measure()
	took := time.Since(began)
	close(stop)
	wg.Wait()
	b.StopTimer()
	n := e.Stats().Reloads - reloads
	p99 := func(lat []time.Duration) time.Duration { return lat[len(lat)*99/100] }
	b.ReportMetric(us(p99(steady)), "steady-p99-µs")
	b.ReportMetric(us(p99(during)), "reloading-p99-µs")
	b.ReportMetric(float64(p99(during))/float64(p99(steady)), "p99-ratio")
	b.ReportMetric(float64(n)/took.Seconds(), "reloads/s")
}

// BenchmarkReloadOneFile measures Reload after one file of the shipped size
// changed: the cost of a reload itself, without the watcher.
func BenchmarkReloadOneFile(b *testing.B) {
	b.ReportAllocs()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("%02d-other.lua", i)] = versionFile("other")
	}
	files["50-ver.lua"] = versionFile("v0")
	dir := hooksDir(b, files)
	e := openEngine(b, Options{Dir: dir, NoWatch: true})
	path := filepath.Join(dir, "50-ver.lua")
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if err := os.WriteFile(path, []byte(versionFile(fmt.Sprintf("v%d", i+1))), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := e.Reload(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenShippedPolicies measures Open (no watcher) on the policies
// that ship in hooks.d.
func BenchmarkOpenShippedPolicies(b *testing.B) {
	dir, err := filepath.Abs(filepath.Join("..", "hooks.d"))
	if err != nil {
		b.Fatal(err)
	}
	cache, err := luabind.OpenDiskCache(filepath.Join(b.TempDir(), "chunks"))
	if err != nil {
		b.Fatal(err)
	}
	// compile: every file compiled, as the first process after a change;
	// cached: a warm compiled-chunk cache, as every later one.
	for _, c := range []struct {
		name  string
		cache *luabind.DiskCache
	}{{"compile", nil}, {"cached", cache}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e, err := Open(context.Background(), Options{Dir: dir, NoWatch: true, ChunkCache: c.cache})
				if err != nil || e.Err() != nil {
					b.Fatal(err, e.Err())
				}
				e.Close()
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
