package runner

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// TestBackgroundWorkIsBoundedWhateverTheSessions: the sessions are the
// client's to choose, so coalescing per session cannot bound background
// work; a fixed number of workers and a bounded queue do, and what does not
// fit is dropped and counted.
func TestBackgroundWorkIsBoundedWhateverTheSessions(t *testing.T) {
	const sessions, workers, queue = 3000, 4, 64
	rg := newRig(t, Options{BackgroundWorkers: workers, BackgroundQueue: queue})
	var running, peak, ran atomic.Int32
	release := make(chan struct{})
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: bound(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		n := running.Add(1)
		defer running.Add(-1)
		ran.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	})})
	before := runtime.NumGoroutine()
	for i := range sessions {
		rg.r.PostToolUse(t.Context(), post(fmt.Sprint("session-", i), "x"))
		if i == workers-1 {
			// Let the workers take their first payloads, so that the counts below are exact.
			for deadline := time.Now().Add(10 * time.Second); running.Load() < workers && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
	}
	grew := runtime.NumGoroutine() - before
	stats := rg.r.BackgroundStats()
	close(release)
	rg.waitBackground()
	if p := peak.Load(); p > workers {
		t.Errorf("%d background hooks ran at once for %d sessions, want at most %d", p, sessions, workers)
	}
	if grew > workers+8 {
		t.Errorf("%d goroutines more while %d sessions fired background hooks", grew, sessions)
	}
	if stats.Running != workers || stats.Queued != queue || stats.Dropped != sessions-workers-queue {
		t.Errorf("stats during the flood %+v, want %d running, %d queued, %d dropped", stats, workers, queue, sessions-workers-queue)
	}
	if n := ran.Load(); n != workers+queue {
		t.Errorf("%d runs, want the %d accepted", n, workers+queue)
	}
	if _, ok := rg.log.find("the background queue is full"); !ok {
		t.Error("the drops were not logged")
	}
	if st := rg.r.BackgroundStats(); st.Running != 0 || st.Queued != 0 {
		t.Errorf("stats after the flood %+v, want nothing running or queued", st)
	}
	t.Logf("%d sessions: peak %d running, %d goroutines more, %d ran", sessions, peak.Load(), grew, ran.Load())
}

// TestBackgroundQueueIsBoundedInBytes: waiting payloads hold at most
// MaxBackgroundQueueBytes of tool input, result and prompt; at the cap a
// payload is queued, one byte past it is dropped and counted.
func TestBackgroundQueueIsBoundedInBytes(t *testing.T) {
	rg := newRig(t, Options{BackgroundWorkers: 1})
	started, release := make(chan struct{}, 8), make(chan struct{})
	rg.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: bound(func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	})})
	rg.r.PostToolUse(t.Context(), post("busy", ""))
	<-started // the only worker is busy: what follows waits in the queue
	half := strings.Repeat("x", MaxBackgroundQueueBytes/2)
	rg.r.PostToolUse(t.Context(), post("a", half))
	rg.r.PostToolUse(t.Context(), post("b", half)) // at the cap
	if st := rg.r.BackgroundStats(); st.Queued != 2 || st.Dropped != 0 {
		t.Fatalf("at the cap: %+v, want 2 queued, none dropped", st)
	}
	res := rg.r.PostToolUse(t.Context(), post("c", "y")) // one byte past
	if st := rg.r.BackgroundStats(); st.Queued != 2 || st.Dropped != 1 || res.Trace[0].Skipped != SkipBackgroundDropped {
		t.Fatalf("one byte past the cap: %+v, trace %+v; want it dropped", st, res.Trace)
	}
	rg.r.PostToolUse(t.Context(), post("a", half+"z")) // a bigger replacement is past the cap too
	if st := rg.r.BackgroundStats(); st.Dropped != 2 || st.Coalesced != 0 {
		t.Fatalf("a replacement past the cap: %+v, want it dropped", st)
	}
	rg.r.PostToolUse(t.Context(), post("a", "small")) // a smaller one replaces the waiting payload
	if st := rg.r.BackgroundStats(); st.Queued != 2 || st.Coalesced != 1 {
		t.Fatalf("a replacement within the cap: %+v, want it coalesced", st)
	}
	close(release)
	rg.waitBackground()
}
