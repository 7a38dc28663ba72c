package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// versionFile has two hooks: a mutator that stamps its version into the
// input and a validator that denies with its version and the stamp it saw,
// so that a call mixing two versions of the file shows as "v1 saw v2".
func versionFile(v string) string {
	return fmt.Sprintf(`local V = %q
hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  ti.stamp = V
  return hook.mutate(ti)
end, { name = "stamp", stage = "mutate" })
hook.register("PreToolUse", "bash", function(input)
  return hook.deny(V .. " saw " .. tostring(input.toolInput.stamp))
end, { name = "check", stage = "validate" })
`, v)
}

func TestReloadUnderLoadNeverFailsNorMixesVersions(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": versionFile("v1")})
	e := openEngine(t, Options{Dir: dir, Debounce: 5 * time.Millisecond})
	path := filepath.Join(dir, "10-ver.lua")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var calls atomic.Int64
	errs := make(chan string, 4)
	for range 4 {
		wg.Go(func() {
			in := bashInput(dir)
			for {
				select {
				case <-stop:
					return
				default:
				}
				res := e.Runner().PreToolUse(context.Background(), in)
				calls.Add(1)
				got := describe(res)
				if got != "v1 saw v1" && got != "v2 saw v2" {
					errs <- fmt.Sprintf("%s (trace %+v)", got, res.Trace)
					return
				}
				runtime.Gosched() // let the writer and the watcher in: 2 cores, 4 callers
			}
		})
	}
	reloads := e.Stats().Reloads
	for i := range 100 {
		v := []string{"v1", "v2"}[(i+1)%2]
		// Saved by rename, never empty: a write in place truncates the file
		// first, and a writer that a busy machine holds between the two for
		// longer than the settle window has emptied the file on purpose, as
		// far as the engine can tell (TestFreshlyEmptiedFileIsLeftForLater
		// covers writes in place).
		saveByRename(t, path, versionFile(v))
		// Wait for the version to be live, so that each write is a reload.
		deadline := time.Now().Add(5 * time.Second)
		for verdict(e) != v+" saw "+v {
			if time.Now().After(deadline) {
				t.Fatalf("write %d: version %s not live after 5s", i, v)
			}
			time.Sleep(time.Millisecond)
		}
		select {
		case msg := <-errs:
			close(stop)
			wg.Wait()
			t.Fatalf("write %d: a call returned %s", i, msg)
		default:
		}
	}
	close(stop)
	wg.Wait()
	select {
	case msg := <-errs:
		t.Fatalf("a call returned %s", msg)
	default:
	}
	eventually(t, "the last reload published", func() bool { return e.Stats().Reloads >= reloads+100 })
	t.Logf("%d calls across %d reloads", calls.Load(), e.Stats().Reloads-reloads)
	if calls.Load() < 100 {
		t.Errorf("only %d calls ran during the reloads", calls.Load())
	}
}

func TestCallOnAReplacedVersionStillRunsOnIt(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": versionFile("v1")})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	// A caller that read the registry snapshot just before a reload.
	old := e.Registry().Entries(luahook.PreToolUse)
	writeFile(t, filepath.Join(dir, "10-ver.lua"), versionFile("v2"))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := verdict(e); got != "v2 saw v2" {
		t.Fatalf("verdict %q after the reload", got)
	}
	in := bashInput(dir)
	in.ToolInput = json.RawMessage(`{"command":"ls","stamp":"v1"}`)
	out, err := old[1].Hook.Call(context.Background(), in)
	if err != nil || out == nil || out.Reason != "v1 saw v1" {
		t.Fatalf("call on the replaced version = %+v, %v; want its own deny", out, err)
	}
	if st := e.Stats(); st.States != 1 || st.Retired != 0 {
		t.Errorf("stats %+v: the replaced version's state must be closed once its call returned", st)
	}
}

func TestCloseLeavesNoGoroutineAndNoState(t *testing.T) {
	before := runtime.NumGoroutine()
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, `
[[hooks.PostToolUse]]
command = "sh -c 'cat >/dev/null'"
background = true
`)
	writeFile(t, filepath.Join(root, "hooks.d", "10-ver.lua"), versionFile("v1"))
	writeFile(t, filepath.Join(root, "hooks.d", "20-bg.lua"),
		`hook.register("PostToolUse", nil, function() return hook.context("bg") end, { background = true })`)
	e, err := Open(context.Background(), Options{ConfigPath: cfg, Debounce: testDebounce})
	if err != nil {
		t.Fatal(err)
	}
	// Use it: concurrent calls grow the pools, background hooks start, a
	// reload retires a version.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				verdict(e)
			}
		})
	}
	e.Runner().PostToolUse(context.Background(), &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{}`), ToolResult: &luahook.ToolResult{}, Cwd: root})
	writeFile(t, filepath.Join(root, "hooks.d", "10-ver.lua"), versionFile("v2"))
	waitVerdict(t, e, "v2 saw v2")
	wg.Wait()
	if st := e.Stats(); st.States == 0 {
		t.Fatalf("stats %+v: no state alive before Close", st)
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if st := e.Stats(); st.States != 0 || st.Retired != 0 {
		t.Errorf("stats after Close %+v, want no state left", st)
	}
	var after int
	eventually(t, "goroutines back to their number before Open", func() bool {
		after = runtime.NumGoroutine()
		return after <= before
	})
	if err := e.Reload(context.Background()); err != ErrClosed {
		t.Errorf("Reload after Close = %v, want ErrClosed", err)
	}
}

func TestCallAfterCloseStillRunsAndKeepsNoState(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": versionFile("v1")})
	e := openEngine(t, Options{Dir: dir})
	e.Close()
	if got := verdict(e); !strings.HasPrefix(got, "v1 saw v1") {
		t.Errorf("verdict after Close %q, want the hooks still run", got)
	}
	if st := e.Stats(); st.States != 0 {
		t.Errorf("stats %+v: a call after Close left a state", st)
	}
}
