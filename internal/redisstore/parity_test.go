package redisstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// expiryWithin bounds the wait for 60 ms TTLs to pass (generous for a
// loaded machine; it is a bound on waiting, not a measure of speed).
const expiryWithin = 10 * time.Second

// The same Lua file (testdata/parity.lua) passes against the in-process
// store and against a real Redis: get/set/incr/delete, types kept, tables as
// JSON, incr's TTL set only when the key is created, expiry, and the errors
// for limits, word for word.
func TestSameLuaStoreSemanticsOnEveryBackend(t *testing.T) {
	src, err := os.ReadFile("testdata/parity.lua")
	if err != nil {
		t.Fatal(err)
	}
	limits := "max_key_bytes = 64\nmax_value_bytes = 100\n"
	backends := map[string]func(t *testing.T) string{
		"memory": func(*testing.T) string { return "[store]\n" + limits },
		"redis": func(t *testing.T) string {
			srv := redistest.Start(t)
			return "[store]\n" + limits + "backend = \"redis\"\naddress = \"" + srv.Addr() + "\"\nkey_prefix = \"parity:\"\n"
		},
	}
	for _, name := range []string{"memory", "redis"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, backends[name](t), map[string]string{"50-parity.lua": string(src)})
			phase := func(p string) (denied bool) {
				t.Helper()
				res := bash(e, context.Background(), "s1", p)
				if f := failure(res); f != nil {
					t.Fatalf("phase %s: %s", p, f.Message)
				}
				return res.Denied()
			}
			if phase("basic") {
				t.Fatal("phase basic denied")
			}
			phase("expiry_start")
			deadline := time.Now().Add(expiryWithin)
			for phase("expiry_wait") {
				if time.Now().After(deadline) {
					t.Fatalf("keys with a 60 ms TTL still there after %v", expiryWithin)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
