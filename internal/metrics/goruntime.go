package metrics

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// NewGoCollector returns a Collector of the Go runtime's figures under the
// names Prometheus's Go client gives them: go_goroutines, go_threads,
// go_info{version}, go_gc_duration_seconds, go_sched_gomaxprocs_threads,
// go_gc_gogc_percent, go_gc_gomemlimit_bytes and the go_memstats_* of
// runtime.MemStats. A scrape reads runtime.MemStats, which stops the world
// briefly. go_gc_gogc_percent is read from $GOGC, as the runtime reads it at
// start: a later debug.SetGCPercent does not show.
func NewGoCollector() Collector { return CollectorFunc(collectGo) }

// memStats are the go_memstats_* gauges and counters.
var memStats = [...]struct {
	name, help string
	counter    bool
	value      func(*runtime.MemStats) uint64
}{
	{"alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", false, func(m *runtime.MemStats) uint64 { return m.Alloc }},
	{"alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", true, func(m *runtime.MemStats) uint64 { return m.TotalAlloc }},
	{"sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", false, func(m *runtime.MemStats) uint64 { return m.Sys }},
	{"mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", true, func(m *runtime.MemStats) uint64 { return m.Mallocs }},
	{"frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", true, func(m *runtime.MemStats) uint64 { return m.Frees }},
	{"heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", false, func(m *runtime.MemStats) uint64 { return m.HeapAlloc }},
	{"heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, func(m *runtime.MemStats) uint64 { return m.HeapSys }},
	{"heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, func(m *runtime.MemStats) uint64 { return m.HeapIdle }},
	{"heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", false, func(m *runtime.MemStats) uint64 { return m.HeapInuse }},
	{"heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", false, func(m *runtime.MemStats) uint64 { return m.HeapReleased }},
	{"heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", false, func(m *runtime.MemStats) uint64 { return m.HeapObjects }},
	{"stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", false, func(m *runtime.MemStats) uint64 { return m.StackInuse }},
	{"stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", false, func(m *runtime.MemStats) uint64 { return m.StackSys }},
	{"mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", false, func(m *runtime.MemStats) uint64 { return m.MSpanInuse }},
	{"mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", false, func(m *runtime.MemStats) uint64 { return m.MSpanSys }},
	{"mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", false, func(m *runtime.MemStats) uint64 { return m.MCacheInuse }},
	{"mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", false, func(m *runtime.MemStats) uint64 { return m.MCacheSys }},
	{"buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", false, func(m *runtime.MemStats) uint64 { return m.BuckHashSys }},
	{"gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", false, func(m *runtime.MemStats) uint64 { return m.GCSys }},
	{"other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", false, func(m *runtime.MemStats) uint64 { return m.OtherSys }},
	{"next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", false, func(m *runtime.MemStats) uint64 { return m.NextGC }},
}

func collectGo(s *Scrape) {
	s.Gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	s.Gauge("go_threads", "Number of OS threads created.", float64(threads))
	s.Gauge("go_info", "Information about the Go environment.", 1, "version", runtime.Version())
	s.Gauge("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads.", float64(runtime.GOMAXPROCS(0)))

	s.Gauge("go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.", float64(gogc(os.Getenv("GOGC"))))
	s.Gauge("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes.", float64(debug.SetMemoryLimit(-1)))

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	qs := make([]quantile, len(gc.PauseQuantiles))
	for i, d := range gc.PauseQuantiles {
		qs[i] = quantile{q: float64(i) / float64(len(qs)-1), v: d.Seconds()}
	}
	s.summary("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", qs, uint64(gc.NumGC), gc.PauseTotal.Seconds())
	last := 0.0
	if gc.NumGC > 0 {
		last = float64(gc.LastGC.UnixNano()) / 1e9
	}
	s.Gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", last)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, m := range memStats {
		if m.counter {
			s.Counter("go_memstats_"+m.name, m.help, float64(m.value(&ms)))
		} else {
			s.Gauge("go_memstats_"+m.name, m.help, float64(m.value(&ms)))
		}
	}
}

// gogc reads $GOGC as the runtime does: "off" is -1, a number is itself,
// anything else the default 100.
func gogc(env string) int {
	if env == "off" {
		return -1
	}
	if n, err := strconv.Atoi(env); err == nil {
		return n
	}
	return 100
}
