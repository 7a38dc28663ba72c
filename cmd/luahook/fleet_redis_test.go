package main

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// TestTheShippedRateLimitHoldsAcrossReplicasSharingRedis: two serve
// processes share one real redis-server as their store; one session's
// shell commands, sent to both at once, are allowed exactly LIMIT times
// (hooks.d/50-rate-limit.lua), and each count past it is denied exactly
// once: one count across the fleet, not one per replica.
func TestTheShippedRateLimitHoldsAcrossReplicasSharingRedis(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	src, err := fs.ReadFile(hooksd.FS, "50-rate-limit.lua")
	if err != nil {
		t.Fatal(err)
	}
	hooks := t.TempDir()
	writeFiles(t, hooks, map[string]string{"50-rate-limit.lua": string(src)})
	store := fmt.Sprintf("[store]\nbackend = \"redis\"\naddress = %q\nkey_prefix = \"fleet-test:\"\n", redis.Addr())
	replicas := []*replica{
		startReplica(t, replicaOptions{Hooks: hooks, Config: store, Instance: "a"}),
		startReplica(t, replicaOptions{Hooks: hooks, Config: store, Instance: "b"}),
	}
	const limit, calls = 60, 100 // LIMIT in 50-rate-limit.lua; its CLIENT_LIMIT (1200) is not reached
	var mu sync.Mutex
	answers := map[string]int{}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			r := replicas[i%2]
			code, body := post(t, "http://"+r.addr+"/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"sessionId":"one-session"}`)
			if code != 200 {
				t.Errorf("replica %s: %d %s", r.instance, code, body)
			}
			mu.Lock()
			answers[body]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := answers[`{}`]; n != limit {
		t.Errorf("%d calls allowed across the replicas, want exactly %d; answers: %v", n, limit, answers)
	}
	for n := limit + 1; n <= calls; n++ {
		denial := fmt.Sprintf(`{"action":"deny","reason":"rate limit: %d shell commands in the last minute (limit %d). Slow down and batch your work."}`, n, limit)
		if answers[denial] != 1 {
			t.Errorf("count %d was denied %d times, want once (one count across the replicas)", n, answers[denial])
		}
	}
	// Each replica counts its store calls: 50 incr of the session's key,
	// and those of the global key for the calls allowed.
	for _, r := range replicas {
		_, metrics := get(t, "http://"+r.addr+"/metrics")
		if !strings.Contains(metrics, `luahook_store_calls_total{op="incr",result="ok"}`) ||
			!strings.Contains(metrics, `luahook_store_call_duration_seconds_count{op="incr"}`) {
			t.Errorf("replica %s's /metrics lacks the store's calls:\n%s", r.instance, metrics)
		}
	}
	for _, r := range replicas {
		r.terminate()
		if err := r.wait(); err != nil {
			t.Errorf("replica %s: %v", r.instance, err)
		}
		if got := len(r.records()); got != calls/2 {
			t.Errorf("replica %s logged %d decisions, want %d", r.instance, got, calls/2)
		}
	}
}
