package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// The password comes from the environment variable password_env names; a
// wrong one is the hook's error, naming the server, and an unset variable
// stops Open with the file, line and key.
func TestRedisPasswordComesFromTheNamedVariable(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "s3cret")
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	cfg := filepath.Join(root, "luahook.toml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "50-count.lua"), []byte(counter("count", "closed", 2000)), 0o644)
	os.WriteFile(cfg, []byte(redisConfig(srv.Addr(), "password_env = \"LH_REDIS_PW\"\n")), 0o644)
	open := func(env map[string]string) (*engine.Engine, error) {
		e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true,
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		if err == nil {
			t.Cleanup(func() { e.Close() })
		}
		return e, err
	}
	if _, err := open(nil); err == nil || err.Error() != cfg+":1: store.password_env: the environment variable LH_REDIS_PW is not set" {
		t.Errorf("Open without the variable: %v", err)
	}
	e, err := open(map[string]string{"LH_REDIS_PW": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if res := bash(e, context.Background(), "s1", "ls"); res.Denied() || failure(res) != nil {
		t.Fatalf("with the password: denied %v, failure %v", res.Denied(), failure(res))
	}
	e, err = open(map[string]string{"LH_REDIS_PW": "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	res := bash(e, context.Background(), "s1", "ls")
	if f := failure(res); !res.Denied() || f == nil || !strings.Contains(f.Message, "store.incr: redis at "+srv.Addr()+": WRONGPASS") {
		t.Errorf("with a wrong password: denied %v, failure %+v", res.Denied(), f)
	}
}

// A reload keeps the store in force: new bounds apply at once, a change of
// backend is logged as needing a restart (on every reload that changes the
// file, until then), and
// the counters stay where they are.
func TestReloadKeepsTheStoreAndSaysABackendChangeNeedsARestart(t *testing.T) {
	srv := redistest.Start(t)
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	cfg := filepath.Join(root, "luahook.toml")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "50-count.lua"), []byte(`hook.register("PreToolUse", "bash", function(input, rt)
  local n = store.incr("calls", 1)
  if input.toolInput.command == "long key" then store.set(string.rep("k", 100), "v") end
  return hook.deny("call " .. n)
end, { name = "count", failure_policy = "closed" })`), 0o644)
	os.WriteFile(cfg, []byte(redisConfig(srv.Addr(), "")), 0o644)
	var logs syncBuffer
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if res := bash(e, ctx, "s1", "ls"); res.Reason != "call 1" {
		t.Fatalf("first call: %q %v", res.Reason, failure(res))
	}
	for i := range 2 {
		// back to the in-process store, and a bound; another comment each time, so the file changes
		os.WriteFile(cfg, []byte(fmt.Sprintf("# edit %d\n[store]\nmax_key_bytes = 50\n", i)), 0o644)
		if err := e.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(logs.String(), "[store] backend settings changed; they apply when luahook restarts"); n != i+1 {
			t.Errorf("after reload %d the restart warning was logged %d times:\n%s", i+1, n, logs.String())
		}
	}
	if res := bash(e, ctx, "s1", "ls"); res.Reason != "call 2" {
		t.Errorf("after the reloads the counter went on in Redis: %q %v", res.Reason, failure(res))
	}
	if f := failure(bash(e, ctx, "s1", "long key")); f == nil || !strings.Contains(f.Message, "exceeds the 50 bytes limit on a key") {
		t.Errorf("max_key_bytes = 50 after a reload: %+v", f)
	}
	if _, ok := e.StoreMetrics(); !ok {
		t.Error("the Redis store in force reports no metrics")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
