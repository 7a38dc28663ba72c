package security

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
)

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// keepFile is a fail-closed hook that keeps a fresh value of about 1 MiB in
// the store on every call, with a TTL of TTL ms (replaced by the test; 0:
// none).
const keepFile = `
hook.register("PreToolUse", "keep", function()
  local n = store.incr("n")
  store.set("kept:" .. n, ("x"):rep(2^20 - 16) .. n, TTL)
end, { name = "keep", failure_policy = "closed" })`

// What hooks keep in the store is bounded by [store] max_bytes: past it, a
// write fails the hook (a fail-closed hook denies) instead of the process
// growing by what every call adds.
func TestStoreHoldsNoMoreThanItsBound(t *testing.T) {
	dir := hooksDir(t, map[string]string{"keep.lua": strings.Replace(keepFile, "TTL", "0", 1)})
	e := open(t, engine.Options{Dir: dir, ConfigPath: writeConfig(t, dir, "[store]\nmax_bytes = 8388608\n")})
	base := liveHeap()
	allowed := 0
	for i := range 40 {
		res := pre(e, "keep", `{}`)
		if !res.Denied() {
			if allowed != i {
				t.Fatalf("call %d allowed after a denial", i)
			}
			allowed++
			continue
		}
		if msg := failures(res); !strings.Contains(res.Reason, "fail-closed") || !strings.Contains(msg, "over its 8 MiB limit") {
			t.Fatalf("call %d: reason %q, failure %q; want a fail-closed denial naming the 8 MiB limit", i, res.Reason, msg)
		}
	}
	if allowed != 8 {
		t.Errorf("%d calls kept their 1 MiB, want the 8 that fit in 8 MiB", allowed)
	}
	if grown := int64(liveHeap()) - int64(base); grown > 16<<20 {
		t.Errorf("the live heap grew by %d MiB over 40 calls, want at most the store's 8 MiB and change", grown>>20)
	}
}

// Entries with a TTL are released when they expire though nothing reads
// them again: the store does not wait for traffic to free memory.
func TestStoreReleasesExpiredEntriesWithoutTraffic(t *testing.T) {
	// The TTL leaves the 40 calls time to run on a loaded machine under the
	// race detector (1.6 s seen) before the first entry expires.
	dir := hooksDir(t, map[string]string{"keep.lua": strings.Replace(keepFile, "TTL", "5000", 1)})
	e := open(t, engine.Options{Dir: dir})
	base := liveHeap()
	for i := range 40 {
		if res := pre(e, "keep", `{}`); res.Denied() {
			t.Fatalf("call %d denied: %s", i, failures(res))
		}
	}
	held := int64(liveHeap()) - int64(base)
	if held < 30<<20 {
		t.Fatalf("the store holds %d MiB after 40 calls, want about 40", held>>20)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		grown := int64(liveHeap()) - int64(base)
		if grown < 8<<20 {
			t.Logf("%d MiB held after the calls, %d MiB once their entries expired", held>>20, grown>>20)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the live heap still holds %d MiB 5 s after the store's entries expired", grown>>20)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
