package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/filestore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// parityExpiryWithin bounds the wait for 60 ms TTLs to pass (generous for a
// loaded machine; it is a bound on waiting, not a measure of speed).
const parityExpiryWithin = 10 * time.Second

// storeBackends are the [store] sections of every store backend, each
// opened for t: the in-process store, a real redis-server, a file.
func storeBackends() map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"memory": func(*testing.T) string { return "[store]\n" },
		"redis": func(t *testing.T) string {
			srv := redistest.Start(t)
			return "[store]\nbackend = \"redis\"\naddress = \"" + srv.Addr() + "\"\nkey_prefix = \"parity:\"\n"
		},
		"file": func(t *testing.T) string {
			return "[store]\nbackend = \"file\"\npath = \"" + filepath.Join(t.TempDir(), "store.db") + "\"\n"
		},
	}
}

// The same Lua file (testdata/storeparity.lua) passes against every store
// backend: get/set/incr/delete, types kept, tables as JSON, incr's TTL set
// only when the key is created, expiry, and the errors for limits, word for
// word.
func TestSameLuaStoreSemanticsOnEveryBackend(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "storeparity.lua"))
	if err != nil {
		t.Fatal(err)
	}
	backends := storeBackends()
	for _, name := range []string{"memory", "redis", "file"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "luahook.toml")
			writeFile(t, cfg, backends[name](t)+"max_key_bytes = 64\nmax_value_bytes = 100\n")
			writeFile(t, filepath.Join(root, "hooks.d", "50-parity.lua"), string(src))
			e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
			if errs := e.Errors(); len(errs) > 0 {
				t.Fatalf("did not load: %v", errs)
			}
			phase := func(p string) (denied bool) {
				t.Helper()
				cmd, _ := json.Marshal(map[string]string{"command": p})
				in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: cmd, Cwd: os.TempDir(), SessionID: "s1"}
				res := e.Runner().PreToolUse(context.Background(), in)
				if d := describe(res); strings.HasPrefix(d, "failure: ") {
					t.Fatalf("phase %s: %s", p, d)
				}
				return res.Denied()
			}
			if phase("basic") {
				t.Fatal("phase basic denied")
			}
			phase("expiry_start")
			deadline := time.Now().Add(parityExpiryWithin)
			for phase("expiry_wait") {
				if time.Now().After(deadline) {
					t.Fatalf("keys with a 60 ms TTL still there after %v", parityExpiryWithin)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// The store backend an engine keeps: [store] backend, and with no backend
// line the in-process store, or a file store under $XDG_STATE_HOME with
// Options.KeepStore (luahook fire's); a written-out "memory" stays in the
// process even then.
func TestKeepStoreMakesTheDefaultAFileStore(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	tests := []struct {
		name   string
		config string
		keep   bool
		want   string // "memory", or the file store's path
	}{
		{"no backend", "[store]\n", false, "memory"},
		{"no backend, kept", "[store]\n", true, filepath.Join(state, "luahook", "store.db")},
		{"no [store], kept", "", true, filepath.Join(state, "luahook", "store.db")},
		{"memory written out, kept", "[store]\nbackend = \"memory\"\n", true, "memory"},
		{"path without a backend, kept", "[store]\npath = \"s/x.db\"\n", true, "s/x.db"},
		{"file", "[store]\nbackend = \"file\"\npath = \"y.db\"\n", false, "y.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "luahook.toml")
			writeFile(t, cfg, tt.config)
			e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), ConfigPath: cfg, NoWatch: true, KeepStore: tt.keep})
			got := "memory"
			if fs, ok := e.store.(*filestore.Store); ok {
				got = fs.Path()
			}
			want := tt.want
			if want != "memory" && !filepath.IsAbs(want) {
				want = filepath.Join(root, want)
			}
			if got != want {
				t.Errorf("store = %s, want %s", got, want)
			}
		})
	}
}

// A reload that writes out the backend in force, or changes the file
// store's settings under another backend, is no change of store; a
// reload that moves the store is, and is logged.
func TestReloadWarnsOnlyWhenTheStoreMoves(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[store]\n")
	var logs syncBuffer
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), ConfigPath: cfg, NoWatch: true,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	for _, same := range []string{"[store]\nbackend = \"memory\"\n", "[store]\nlock_timeout_ms = 9\n"} {
		writeFile(t, cfg, same)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logs.String(), "backend settings changed") {
			t.Fatalf("%q is the same store, yet:\n%s", same, logs.String())
		}
	}
	writeFile(t, cfg, "[store]\nbackend = \"file\"\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "backend settings changed") {
		t.Errorf("a move to a file store was not logged:\n%s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A file store the engine cannot use fails the calls that use it, naming
// the file, and a fail-closed hook denies: the engine itself opens, and
// hooks that do not use the store run as usual.
func TestAFileStoreThatCannotBeUsedFailsClosed(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "store.db")
	writeFile(t, path, strings.Repeat("not a store\n", 500))
	os.Chmod(path, 0o600)
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[store]\nbackend = \"file\"\npath = \"store.db\"\n")
	writeFile(t, filepath.Join(root, "hooks.d", "50-count.lua"), `
hook.register("PreToolUse", "bash", function(input)
  store.incr("n")
end, { name = "count", failure_policy = "closed" })`)
	e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
	got := verdict(e)
	if !strings.Contains(got, "store.incr: "+path+" is not a luahook store") {
		t.Errorf("verdict: %s", got)
	}
	if err := e.StoreCheck(context.Background()); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("StoreCheck: %v", err)
	}
}

// BenchmarkShippedRateLimitStore is one shell command through the shipped
// rate limit (hooks.d/50-rate-limit.lua: a get and two incr per call) with
// the store in the process and in a file: the difference is what the file
// store adds to a call, and so to a one-shot fire (the file store keeps
// nothing open between calls). Each call is another client's session, so
// that no budget runs out.
func BenchmarkShippedRateLimitStore(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "hooks.d", "50-rate-limit.lua"))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"memory", "file"} {
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			b.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
			writeFile(b, filepath.Join(root, "hooks.d", "50-rate-limit.lua"), string(src))
			cfg := filepath.Join(root, "luahook.toml")
			writeFile(b, cfg, "[store]\nmax_keys = 100000000\nmax_bytes = 1000000000\n")
			e := openEngine(b, Options{Dir: filepath.Join(root, "hooks.d"), ConfigPath: cfg, NoWatch: true, KeepStore: name == "file"})
			in := bashInput(os.TempDir())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				in.Client = "client-" + strconv.Itoa(i)
				if res := e.Runner().PreToolUse(context.Background(), in); res.Denied() || len(res.Trace) != 1 || res.Trace[0].Failure != nil {
					b.Fatalf("call %d: %s", i, describe(res))
				}
			}
		})
	}
}
