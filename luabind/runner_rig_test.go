package luabind_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// The tests in runner_*_test.go prove the runner's rules again with real Lua
// hooks: files compiled and loaded by luabind, registered the way the engine
// registers them (one owner per file, named after the file), fired through a
// real runner.

// luaRig is a registry, a runner over it, the runner's log records, and the
// store shared by every Lua file the rig loads.
type luaRig struct {
	t     testing.TB
	reg   *registry.Registry
	r     *runner.Runner
	log   *logRecorder
	store *luabind.Store
	files map[string]*luabind.File
}

func newLuaRig(t testing.TB, opts runner.Options) *luaRig {
	t.Helper()
	g := &luaRig{t: t, reg: registry.New(), log: &logRecorder{}, store: luabind.NewStore(), files: map[string]*luabind.File{}}
	opts.Registry, opts.Logger = g.reg, slog.New(g.log)
	g.r = runner.New(opts)
	t.Cleanup(func() {
		g.r.Close()
		for _, f := range g.files {
			f.Close()
		}
	})
	return g
}

// load loads src as the hook file name (say "10-a.lua") with the rig's store.
func (g *luaRig) load(name, src string) *luabind.File {
	g.t.Helper()
	return g.loadWith(name, src, luabind.Options{})
}

// loadWith loads src as the hook file name and swaps its hooks into the
// registry under the owner name, closing the file it replaces, as the
// engine does. A nil opts.Store becomes the rig's store.
func (g *luaRig) loadWith(name, src string, opts luabind.Options) *luabind.File {
	g.t.Helper()
	if opts.Store == nil {
		opts.Store = g.store
	}
	c, err := luabind.Compile(name, []byte(src))
	if err != nil {
		g.t.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, opts)
	if err != nil {
		g.t.Fatal(err)
	}
	if err := g.reg.ReplaceOwner(name, luabind.Specs(f.Registrations())); err != nil {
		f.Close()
		g.t.Fatal(err)
	}
	if old := g.files[name]; old != nil {
		old.Close()
	}
	g.files[name] = f
	return f
}

// count returns the number the Lua hooks keep under key with store.incr (0 if absent).
func (g *luaRig) count(key string) int {
	g.t.Helper()
	v, ok, _ := g.store.Get(context.Background(), key)
	if !ok {
		return 0
	}
	n, ok := v.(float64)
	if !ok {
		g.t.Fatalf("store[%q] = %v (%T), want a number", key, v, v)
	}
	return int(n)
}

// text returns the string the Lua hooks keep under key ("" if absent).
func (g *luaRig) text(key string) string {
	g.t.Helper()
	v, _, _ := g.store.Get(context.Background(), key)
	s, _ := v.(string)
	return s
}

// pre fires PreToolUse for the bash tool with the given toolInput JSON.
func (g *luaRig) pre(toolInput string) runner.Result {
	return g.r.PreToolUse(context.Background(), bashCall(toolInput))
}

func bashCall(toolInput string) *luahook.Input {
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(toolInput), Cwd: "/work", SessionID: "s1"}
}

// fire fires ev with a payload fit for every event.
func (g *luaRig) fire(ctx context.Context, ev luahook.Event) runner.Result {
	return g.r.Fire(ctx, &luahook.Input{Event: ev, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`),
		ToolResult: &luahook.ToolResult{Content: "ok"}, Prompt: "hello", Cwd: "/work", SessionID: "s1",
		Notification: &luahook.NotificationInfo{Kind: "input", Message: "?"}})
}

// failClosedReason is the denial of the contract for a fail-closed hook, up
// to the cause that follows it.
func failClosedReason(ev luahook.Event, name string, kind luahook.FailureKind) string {
	return string(ev) + ` policy hook "` + name + `" failed (` + string(kind) +
		"); the action was denied by fail-closed policy. This is not an approval request."
}

func traceNames(res runner.Result) []string {
	var out []string
	for _, tr := range res.Trace {
		out = append(out, tr.Name)
	}
	return out
}

// outcomeJSON is what `luahook fire` prints for res.
func outcomeJSON(t testing.TB, res runner.Result) string {
	t.Helper()
	b, err := json.Marshal(res.Outcome())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// within fails the test when f does not return within d, rather than hang.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// logRecorder is a slog.Handler that keeps every record's message.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.msgs = append(h.msgs, r.Message)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) has(substr string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		if strings.Contains(m, substr) {
			return true
		}
	}
	return false
}

// signalHandler is a slog.Handler that sends each record's message to ch,
// so that a test can wait until a Lua hook has reached a log call.
type signalHandler struct{ ch chan string }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	h.ch <- r.Message
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }
