package stress

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

var duration = flag.Duration("stress.duration", 3*time.Second, "how long the stress test fires events (e.g. 3m for a soak)")

const denyLua = `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("deny-lua", 1, true) then return hook.deny("lua %s") end
  if cmd:find("loop", 1, true) then while true do end end
  if cmd:find("boom", 1, true) then error("boom") end
end, { name = "reloaded", stage = "validate", timeout_ms = 50, failure_policy = "closed" })
hook.register("PostToolUse", nil, function(input) return hook.context("post %s") end)
hook.register("UserPromptSubmit", nil, function(input)
  if (input.prompt or ""):find("block", 1, true) then return hook.deny("blocked %s") end
  return hook.context("prompt %s")
end)
`

const mutateLua = `hook.register("PreToolUse", "bash", function(input)
  local t = input.toolInput
  t.seen = (t.seen or 0) + 1
  return hook.mutate(t)
end, { name = "mutator" })
hook.register("Stop", nil, function() store.incr("stops", 1) end)
hook.register("Notification", nil, function() return nil end)
`

func configText(url string, timeoutMs int) string {
	return fmt.Sprintf(`
[[hooks.PreToolUse]]
name = "cmd-deny"
matcher = "bash"
command = "sh -c 'case \"$(cat)\" in *deny-cmd*) echo denied by command >&2; exit 2;; esac'"
timeout_ms = %d

[[hooks.PreToolUse]]
type = "http"
name = "http-deny"
matcher = "bash"
url = %q
timeout_ms = 2000

[[hooks.SessionStart]]
command = "sh -c 'cat >/dev/null; echo {\"additionalContext\":\"hello\"}'"
`, timeoutMs, url)
}

type counts struct {
	started, finished, denied, cancelled atomic.Int64
	timedOut                             atomic.Int64 // deny hooks skipped at their own deadline
	reloads, scopes                      atomic.Int64
}

// timedOut reports whether a hook of res failed on its own deadline.
func timedOut(res runner.Result) bool {
	for _, tr := range res.Trace {
		if tr.Failure != nil && tr.Failure.Kind == luahook.FailTimeout {
			return true
		}
	}
	return false
}

// traceText renders res's trace in one line, for a failure message.
func traceText(res runner.Result) string {
	var b strings.Builder
	for _, tr := range res.Trace {
		fmt.Fprintf(&b, "[%s %s", tr.Name, tr.Duration.Round(time.Millisecond))
		if tr.Failure != nil {
			fmt.Fprintf(&b, " %s", tr.Failure.Error())
		}
		if tr.Skipped != "" {
			fmt.Fprintf(&b, " skipped: %s", tr.Skipped)
		}
		b.WriteString("]")
	}
	return b.String()
}

func fdCount(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("cannot count file descriptors: %v", err)
	}
	return len(ents)
}

// children lists the processes whose parent is this process.
func children() []string {
	var out []string
	me := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[1] == me {
				out = append(out, e.Name()+" "+s[:i+1])
			}
		}
	}
	return out
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestStressEverythingAtOnce fires every event from many goroutines across Lua,
// command, HTTP and Go hooks while a Lua file is rewritten, the config is
// rewritten, plugin scopes open and close, callers cancel at random and hooks
// time out, fail and panic. It checks that every call returns exactly once,
// every deny is honoured, and nothing leaks: goroutines, child processes,
// file descriptors, heap. Run longer with -stress.duration=3m.
func TestStressEverythingAtOnce(t *testing.T) {
	baseGoroutines := runtime.NumGoroutine()
	baseFDs := fdCount(t)
	baseHeap := heapInuse()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in luahook.Input
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if strings.Contains(string(in.ToolInput), "deny-http") {
			w.Write([]byte(`{"action":"deny","reason":"denied by http"}`))
		}
	}))

	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.d")
	os.Mkdir(hooks, 0o755)
	write := func(name, body string) {
		tmp := filepath.Join(hooks, "."+name+".tmp")
		if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
			t.Error(err)
			return
		}
		if err := os.Rename(tmp, filepath.Join(hooks, name)); err != nil {
			t.Error(err)
		}
	}
	write("10-reloaded.lua", strings.ReplaceAll(denyLua, "%s", "v1"))
	write("20-mutate.lua", mutateLua)
	cfg := filepath.Join(dir, "luahook.toml")
	os.WriteFile(cfg, []byte(configText(srv.URL, 3000)), 0o644)

	eng, err := engine.Open(context.Background(), engine.Options{Dir: hooks, ConfigPath: cfg, Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Err(); err != nil {
		t.Fatal(err)
	}
	run := eng.Runner()

	var c counts
	stop := make(chan struct{})
	release := make(chan struct{}) // frees the Go hooks that ignore their context
	var wg sync.WaitGroup

	// Reloaders: a Lua file between two versions, the config between two timeouts.
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(15 * time.Millisecond):
			}
			write("10-reloaded.lua", strings.ReplaceAll(denyLua, "%s", []string{"v1", "v2"}[i%2]))
			c.reloads.Add(1)
		}
	})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
			}
			os.WriteFile(cfg, []byte(configText(srv.URL, 3000+i%2)), 0o644)
		}
	})
	// Plugin scopes open and close, their hooks deny, panic and ignore cancellation.
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			scope, err := eng.Registry().Install(fmt.Sprintf("plugin-%d", i%3), registry.ScopeOptions{}, func(s *registry.Scope) error {
				_, err := s.RegisterFunc(luahook.PreToolUse, "bash", func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
					cmd := string(in.ToolInput)
					switch {
					case strings.Contains(cmd, "deny-go"):
						return luahook.Deny("denied by go"), nil
					case strings.Contains(cmd, "panic"):
						panic("plugin panic")
					case strings.Contains(cmd, "stuck"):
						<-release // ignores its context: the runner must abandon it
					}
					return nil, nil
				}, luahook.Spec{Stage: luahook.StageValidate, Timeout: 30 * time.Millisecond})
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(5 * time.Millisecond)
			scope.Close()
			c.scopes.Add(1)
		}
	})

	commands := []struct {
		cmd    string
		denied string // a deny that must be honoured ("" = no deny expected)
	}{
		{"ls", ""}, {"echo deny-lua", "lua v"}, {"echo deny-cmd", "denied by command"},
		{"echo deny-http", "denied by http"}, {"loop", ""}, {"boom", ""}, {"panic", ""}, {"stuck", ""},
	}
	var fails sync.Map
	fail := func(format string, args ...any) { fails.LoadOrStore(fmt.Sprintf(format, args...), true) }

	deadline := time.Now().Add(*duration)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			session := fmt.Sprintf("s%d", g)
			for time.Now().Before(deadline) {
				ctx, cancel := context.WithCancel(context.Background())
				cancelled := false
				if rng.IntN(10) == 0 {
					cancelled = true
					time.AfterFunc(time.Duration(rng.IntN(3000))*time.Microsecond, cancel)
				}
				c.started.Add(1)
				switch n := rng.IntN(10); {
				case n < 6:
					k := commands[rng.IntN(len(commands))]
					in, _ := json.Marshal(map[string]string{"command": k.cmd})
					res := run.PreToolUse(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: in, Cwd: dir, SessionID: session})
					if res.Denied() {
						c.denied.Add(1)
					}
					if k.denied != "" && !cancelled && ctx.Err() == nil {
						// A deny from the Go plugin may race with its scope; the
						// others are always registered.
						// The Lua hook is fail-closed: when looping calls hold every
						// state until its deadline, its deny comes as a fail-closed one.
						honoured := res.Denied() && (strings.Contains(res.Reason, k.denied) ||
							k.denied == "lua v" && strings.Contains(res.Reason, "fail-closed"))
						if !honoured && timedOut(res) {
							// A fail-open deny hook that hit its own deadline on an
							// overloaded machine is skipped, as documented.
							c.timedOut.Add(1)
						} else if !honoured {
							fail("%q: denied=%v reason=%q trace=%s, want a deny containing %q", k.cmd, res.Denied(), res.Reason, traceText(res), k.denied)
						}
					}
				case n < 7:
					run.PostToolUse(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "edit", ToolInput: json.RawMessage(`{}`),
						ToolResult: &luahook.ToolResult{Content: "ok"}, Cwd: dir, SessionID: session})
				case n < 8:
					prompt := "hello"
					if rng.IntN(2) == 0 {
						prompt = "please block"
					}
					res := run.UserPromptSubmit(ctx, &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: prompt, Cwd: dir, SessionID: session})
					if prompt == "please block" && !cancelled && ctx.Err() == nil && !res.Denied() {
						fail("prompt %q not blocked: %+v", prompt, res)
					}
				case n < 9:
					run.SessionStart(ctx, &luahook.Input{Event: luahook.SessionStart, Cwd: dir, SessionID: session})
				default:
					run.Fire(ctx, &luahook.Input{Event: []luahook.Event{luahook.Stop, luahook.Notification, luahook.SessionEnd}[rng.IntN(3)],
						Notification: &luahook.NotificationInfo{Kind: "input"}, Cwd: dir, SessionID: session})
				}
				c.finished.Add(1)
				if cancelled {
					c.cancelled.Add(1)
				}
				cancel()
			}
		})
	}
	time.Sleep(time.Until(deadline))
	close(stop)
	wg.Wait()
	peakHeap := heapInuse()
	eng.Close()
	srv.Close()
	close(release)

	fails.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	if c.started.Load() != c.finished.Load() {
		t.Errorf("calls started %d, finished %d", c.started.Load(), c.finished.Load())
	}
	t.Logf("%v: %d calls (%d denied, %d cancelled by the caller, %d deny hooks past their own deadline), %d file rewrites, %d plugin scopes, heap %d MiB after the run",
		*duration, c.finished.Load(), c.denied.Load(), c.cancelled.Load(), c.timedOut.Load(), c.reloads.Load(), c.scopes.Load(), peakHeap>>20)

	// Nothing leaks: goroutines (the abandoned Go hooks were released above),
	// child processes, file descriptors, heap.
	settle := time.Now().Add(5 * time.Second)
	for {
		kids := children()
		fds := fdCount(t)
		gs := runtime.NumGoroutine()
		if len(kids) == 0 && fds <= baseFDs+2 && gs <= baseGoroutines+2 || time.Now().After(settle) {
			if gs > baseGoroutines+2 {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines: %d before, %d after\n%s", baseGoroutines, gs, buf[:runtime.Stack(buf, true)])
			}
			if len(kids) != 0 {
				t.Errorf("child processes left: %v", kids)
			}
			if fds > baseFDs+2 {
				t.Errorf("file descriptors: %d before, %d after", baseFDs, fds)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if h := heapInuse(); h > baseHeap+256<<20 {
		t.Errorf("heap in use grew from %d MiB to %d MiB", baseHeap>>20, h>>20)
	}
}
