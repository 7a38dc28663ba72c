package redisstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/luabind"
)

func newStore(t *testing.T, srv *redistest.Server, lim luabind.StoreLimits) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(redisstore.Options{Address: srv.Addr(), KeyPrefix: "lh:", Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// store.incr is one round trip once the server knows the script: a single
// EVALSHA, and no other command from the client.
func TestIncrIsOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, srv, luabind.StoreLimits{})
	ctx := context.Background()
	if _, err := s.Incr(ctx, "warm", 1, time.Minute); err != nil { // loads the script (EVALSHA, then EVAL)
		t.Fatal(err)
	}
	c := srv.Client()
	defer c.Close()
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Incr(ctx, "k", 2, time.Minute); err != nil || n != 2 {
		t.Fatalf("Incr = %v, %v", n, err)
	}
	stats, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string // sorted below
	for _, line := range strings.Split(stats, "\n") {
		if strings.HasPrefix(line, "cmdstat_") && !strings.HasPrefix(line, "cmdstat_info:") && !strings.HasPrefix(line, "cmdstat_config|resetstat:") {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	slices.Sort(cmds)
	// The script's own GET and SET count too.
	want := []string{"cmdstat_evalsha:calls=1,", "cmdstat_get:calls=1,", "cmdstat_set:calls=1,"}
	ok := len(cmds) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(cmds[i], want[i])
	}
	if !ok {
		t.Errorf("one incr ran %q, want one EVALSHA (and the script's GET and SET)", cmds)
	}
	if ttl := c.PTTL(ctx, "lh:k").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the counter's TTL is %v, want at most a minute", ttl)
	}
}

// Keys carry the prefix; a value luahook did not write, or one longer than
// the value limit, is an error rather than a wrong answer or an unbounded
// read.
func TestForeignAndOversizeValuesAreErrors(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, srv, luabind.StoreLimits{MaxValueBytes: 10})
	ctx := context.Background()
	c := srv.Client()
	defer c.Close()
	if err := s.Set(ctx, "mine", "v", 0); err != nil {
		t.Fatal(err)
	}
	if got := c.Get(ctx, "lh:mine").Val(); got != "sv" {
		t.Errorf("lh:mine holds %q, want the tagged \"sv\"", got)
	}
	c.Set(ctx, "lh:foreign", "hello", 0)
	if _, _, err := s.Get(ctx, "foreign"); err == nil || !strings.Contains(err.Error(), `the value of "foreign" in redis at `+srv.Addr()+" was not written by luahook") {
		t.Errorf("Get of a foreign value: %v", err)
	}
	if _, err := s.Incr(ctx, "foreign", 1, 0); err == nil || !strings.Contains(err.Error(), "is a value not written by luahook, not a number") {
		t.Errorf("Incr of a foreign value: %v", err)
	}
	c.Set(ctx, "lh:big", "s"+strings.Repeat("x", 1000), 0)
	if _, _, err := s.Get(ctx, "big"); err == nil || !strings.Contains(err.Error(), "over the limit of 10 bytes on a value") {
		t.Errorf("Get of a value over the limit: %v", err)
	}
	c.Set(ctx, "lh:edge", "s"+strings.Repeat("x", 10), 0)
	if v, ok, err := s.Get(ctx, "edge"); err != nil || !ok || v != strings.Repeat("x", 10) {
		t.Errorf("Get of a value at the limit: %v %v %v", v, ok, err)
	}
}
