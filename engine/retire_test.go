package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
)

// allowListFile is version v of a hook file that lets through only the
// bash commands of a list of n commands of its own, one per line in a long
// string, as a policy may carry a list of the commands a project allows:
// the list is a constant of the file's compiled chunk, so that every
// version loaded weighs what a real policy weighs (some 25 bytes a
// command). Its deny reasons start with v. A call of the tool "hold" is
// parked in the host function test.hold, so that a test can keep a call on
// this version running across a reload.
func allowListFile(v string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "local test = require(\"host.test\")\nlocal V = %q\nlocal allowed = [[\n", v)
	for i := range n {
		b.WriteString(v + "-allowed-" + strconv.Itoa(1e6 + i)[1:] + "\n")
	}
	b.WriteString(`]]
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("-allowed-", 1, true) and allowed:find("\n" .. cmd .. "\n", 1, true) then return end
  return hook.deny(V .. ": " .. cmd .. " is not on the list")
end, { name = "allow-list", stage = "validate" })
hook.register("PreToolUse", "hold", function()
  test.hold()
  return hook.deny(V .. " held")
end, { name = "hold", stage = "validate", timeout_ms = 60000 })
`)
	return b.String()
}

// holder is the host module test: hold parks the hook call that calls it
// until release, and tells held that it has.
type holder struct {
	held    chan struct{}
	release chan struct{}
}

func newHolder() *holder {
	return &holder{held: make(chan struct{}, 1), release: make(chan struct{})}
}

func (h *holder) module() host.Module {
	return host.Module{Name: "test", Members: map[string]any{
		"hold": func(ctx context.Context) bool {
			h.held <- struct{}{}
			select {
			case <-h.release:
				return true
			case <-ctx.Done():
				return false
			}
		},
	}}
}

// callLoad is calls fired at an engine from several goroutines, one call
// after the other in each, until stop.
type callLoad struct {
	calls atomic.Int64
	done  chan struct{}
	wg    sync.WaitGroup
}

// fireAway fires in at e from n goroutines until the load is stopped. Each
// goroutine calls under a context that can be cancelled, as a server calls
// under its request's.
func fireAway(e *Engine, n int, in *luahook.Input) *callLoad {
	l := &callLoad{done: make(chan struct{})}
	for range n {
		l.wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for {
				select {
				case <-l.done:
					return
				default:
				}
				e.Runner().PreToolUse(ctx, in)
				l.calls.Add(1)
			}
		})
	}
	return l
}

// settle lets the load make n more calls, so that the pools of the
// version in force grow to their size under it, as they had before the
// version was replaced.
func (l *callLoad) settle(n int64) {
	for want := l.calls.Load() + n; l.calls.Load() < want; {
		time.Sleep(time.Millisecond)
	}
}

// stop ends the load, waits for its calls to return and returns how many
// calls it made.
func (l *callLoad) stop() int64 {
	close(l.done)
	l.wg.Wait()
	return l.calls.Load()
}

// liveHeap returns the bytes of the objects alive after a full collection.
// Two collections: what a sync.Pool holds (and the pools themselves, which
// the runtime keeps a list of) goes only at the second.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// reloadUnderHold saves content, version v of the file at path, while a
// call on the version in force is parked in test.hold, waits until a bash
// call gets v's verdict, then lets the parked call go on and returns its
// verdict: each reload swaps the file out with a call still running on it.
func reloadUnderHold(tb testing.TB, e *Engine, h *holder, path, v, content string) (parked string) {
	tb.Helper()
	verdictc := make(chan string, 1)
	go func() {
		in := bashInput("/work")
		in.ToolName = "hold"
		verdictc <- describe(e.Runner().PreToolUse(context.Background(), in))
	}()
	<-h.held
	saveByRename(tb, path, content)
	deadline := time.Now().Add(30 * time.Second)
	for got := verdict(e); !strings.HasPrefix(got, v+": "); got = verdict(e) {
		if time.Now().After(deadline) {
			close(h.release)
			tb.Fatalf("after 30s the verdict is %q, want %s's (errors: %v)", got, v, e.Err())
		}
		time.Sleep(time.Millisecond)
	}
	h.release <- struct{}{}
	return <-verdictc
}

// churn is a hooks folder with one allow-list file (allowListFile) that
// reloadUnderHold rewrites again and again.
type churn struct {
	e        *Engine
	h        *holder
	path     string
	commands int
	version  int
}

func newChurn(tb testing.TB, commands int) *churn {
	tb.Helper()
	c := &churn{h: newHolder(), commands: commands}
	dir := hooksDir(tb, map[string]string{"10-allow-list.lua": allowListFile("v0", commands)})
	c.path = filepath.Join(dir, "10-allow-list.lua")
	c.e = openEngine(tb, Options{Dir: dir, Debounce: 5 * time.Millisecond, Host: []host.Module{c.h.module()}})
	if err := c.e.Err(); err != nil {
		tb.Fatal(err)
	}
	return c
}

// reload writes the next version with a call parked on the current one,
// and checks that the parked call ended on the version it started on.
func (c *churn) reload(tb testing.TB) {
	tb.Helper()
	old := fmt.Sprintf("v%d", c.version)
	c.version++
	v := fmt.Sprintf("v%d", c.version)
	if got := reloadUnderHold(tb, c.e, c.h, c.path, v, allowListFile(v, c.commands)); got != old+" held" {
		tb.Fatalf("the call parked across the reload to %s got %q, want %q", v, got, old+" held")
	}
}

// TestReloadUnderLoadReleasesWhatItReplaced: a hook file rewritten again
// and again through the watcher while calls run on all cores, each reload
// swapping the file out with a call still running on the version it
// replaces, leaves the live heap where it was before the rewrites once the
// calls have stopped: a replaced version, its pool and its states are
// released once its last call has returned. Each parked call still ends on
// the version it started on.
func TestReloadUnderLoadReleasesWhatItReplaced(t *testing.T) {
	const (
		commands = 20000 // some 450 KB a version
		warmup   = 3     // reloads before the heap is measured
		reloads  = 20
		settle   = 1000 // calls on the last version before the heap is measured
		// slack is what the live heap may grow by (a state more in a
		// pool, the runtime's caches; less than 1 MB here): keeping every
		// replaced version grows it by some 8 MB.
		slack = 3 << 20
	)
	c := newChurn(t, commands)
	callers := 2 * runtime.GOMAXPROCS(0)
	ls := bashInput("/work")

	// Warm up: the pools grow to their size under this load and the
	// runtime's caches fill, so that only what reloads keep is measured.
	load := fireAway(c.e, callers, ls)
	for range warmup {
		c.reload(t)
	}
	load.settle(settle)
	load.stop()
	before := liveHeap()

	load = fireAway(c.e, callers, ls)
	for range reloads {
		c.reload(t)
	}
	calls := load.calls.Load()
	load.settle(settle)
	load.stop()
	after := liveHeap()
	t.Logf("%d reloads, %d calls from %d goroutines: live heap %.1f MB before, %.1f MB after",
		reloads, calls, callers, float64(before)/(1<<20), float64(after)/(1<<20))
	if calls < reloads {
		t.Errorf("only %d calls ran during %d reloads", calls, reloads)
	}
	if after > before+slack {
		t.Errorf("live heap grew from %.1f MB to %.1f MB over %d reloads under load (at most %d MB allowed): replaced versions are kept",
			float64(before)/(1<<20), float64(after)/(1<<20), reloads, slack>>20)
	}
	if st := c.e.Stats(); st.Retired != 0 || st.Files != 1 {
		t.Errorf("stats %+v after the calls stopped, want 1 file and none retired", st)
	}
}
