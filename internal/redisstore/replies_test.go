package redisstore_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/server"
)

const tib = "1099511627776" // 1 TiB, 2^40

// lie is a server's answer to one command that the store must refuse.
type lie struct {
	name   string
	to     string   // the command it answers: GETRANGE (store.get), EVALSHA (store.incr), HELLO (any call's handshake)
	chunks []string // what the server sends, in reads of their own
	want   string   // in the store's error
}

var lies = []lie{
	{"1 TiB string", "GETRANGE", []string{"$" + tib + "\r\n"},
		"refused the server's reply: at byte 0, a string of 1099511627776 bytes, more than the 1114114 bytes a reply may hold (max_value_bytes and 64 KiB)"},
	{"256 MiB string", "GETRANGE", []string{"$268435456\r\n"}, "a string of 268435456 bytes"},
	{"1 TiB verbatim string", "GETRANGE", []string{"=" + tib + "\r\n"}, "a verbatim string of 1099511627776 bytes"},
	{"1 TiB error", "GETRANGE", []string{"!" + tib + "\r\n"}, "an error of 1099511627776 bytes"},
	{"length split across packets", "GETRANGE", []string{"$10", "9951", "1627776\r", "\n"}, "a string of 1099511627776 bytes"},
	{"endless big number", "GETRANGE", []string{"(" + strings.Repeat("7", 2<<20)}, "a line longer than the 1114114 bytes"},
	{"attribute of 2^40 pairs", "GETRANGE", []string{"|" + tib + "\r\n"}, "an attribute of 1099511627776 pairs"},
	{"array of 2^40", "EVALSHA", []string{"*" + tib + "\r\n"}, "an array of 1099511627776 elements, more than the 1024 values a reply may hold"},
	{"array of 2^24", "EVALSHA", []string{"*16777216\r\n"}, "an array of 16777216 elements"},
	{"set of 2^40", "EVALSHA", []string{"~" + tib + "\r\n"}, "a set of 1099511627776 elements"},
	{"map of 2^40 pairs", "EVALSHA", []string{"%" + tib + "\r\n"}, "a map of 1099511627776 pairs"},
	{"map of 2^24 pairs", "EVALSHA", []string{"%16777216\r\n"}, "a map of 16777216 pairs"},
	{"string in an array", "EVALSHA", []string{"*2\r\n$4\r\ntype\r\n$268435456\r\n"}, "at byte 14, a string of 268435456 bytes"},
	{"deep nesting", "EVALSHA", []string{strings.Repeat("*1\r\n", 1<<20)}, "at byte 32, aggregates nested more than 8 deep"},
	{"not RESP", "EVALSHA", []string{"HTTP/1.1 400 Bad Request\r\n"}, `at byte 0, 'H' is no RESP type`},
	{"lie in the handshake", "HELLO", []string{"$" + tib + "\r\n"}, "a string of 1099511627776 bytes"},
}

// call makes the store call that sends l.to's command.
func (l lie) call(ctx context.Context, s *redisstore.Store) error {
	switch l.to {
	case "GETRANGE", "HELLO":
		_, _, err := s.Get(ctx, "k")
		return err
	}
	_, err := s.Incr(ctx, "k", 1, time.Minute)
	return err
}

// lyingServer starts a fake server that tells l and answers the rest as an
// empty server does.
func lyingServer(t testing.TB, l lie) *fakeRedis {
	return startFake(t, func(cmd []string) []string {
		if cmd[0] == l.to {
			return l.chunks
		}
		return nil
	})
}

// Nothing a server sends makes the store allocate what it announces: each
// lie is an error naming what was refused, the process allocates less than
// 64 MiB for the call, and the call ends without waiting out its timeout.
// Without the guard, the 1 TiB lies ended the process (fatal error:
// runtime: out of memory), the 256 MiB and 2^24 ones allocated that much.
func TestALyingServerIsAnErrorNotAnAllocation(t *testing.T) {
	for _, l := range lies {
		t.Run(l.name, func(t *testing.T) {
			f := lyingServer(t, l)
			s, err := redisstore.New(redisstore.Options{Address: f.addr(), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err = l.call(context.Background(), s)
			runtime.ReadMemStats(&after)
			prefix := "store: redis at " + f.addr() + ": refused the server's reply: at byte "
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), l.want) {
				t.Errorf("error %v; want one starting %q and holding %q", err, prefix, l.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the call allocated %d MiB", grew>>20)
			}
			if m := s.Metrics(); m.Ops[0].Timeouts+m.Ops[2].Timeouts != 0 {
				t.Errorf("the lie was found by a timeout, not by reading it: %+v", m.Ops)
			}
		})
	}
}

// Replies the store reads pass the guard however the reads cut them, and
// the connection stays in step: a value sent one byte per read, an incr's
// answer behind a RESP3 attribute (which go-redis skips), then more calls
// on the same connection.
func TestRepliesCutAnywhereAndAttributesPass(t *testing.T) {
	value := "$6\r\nshello\r\n"
	f := startFake(t, func(cmd []string) []string {
		switch cmd[0] {
		case "GETRANGE":
			return strings.Split(value, "")
		case "EVALSHA":
			return []string{"|1\r\n+ttl\r\n*2\r\n:1\r\n:2\r\n$1\r\n7\r\n"}
		}
		return nil
	})
	s, err := redisstore.New(redisstore.Options{Address: f.addr(), PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for range 2 {
		if v, ok, err := s.Get(ctx, "k"); err != nil || !ok || v != "hello" {
			t.Fatalf("Get of a value sent byte by byte = %v, %v, %v", v, ok, err)
		}
		if n, err := s.Incr(ctx, "k", 1, 0); err != nil || n != 7 {
			t.Fatalf("Incr answered behind an attribute = %v, %v", n, err)
		}
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// rateLimit is the shipped rate limit's source.
func rateLimit(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "hooks.d", "50-rate-limit.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// A lying server fails the hook that reads the store, and its failure
// policy decides: the shipped rate limit (fail closed) denies with the
// store's error; a fail-open hook is skipped.
func TestALyingServerFailsTheHookAndItsPolicyDecides(t *testing.T) {
	l := lies[0] // the 1 TiB string, to store.get
	f := lyingServer(t, l)
	e := openEngine(t, redisConfig(f.addr(), ""), map[string]string{"50-rate-limit.lua": rateLimit(t)})
	res := bash(e, context.Background(), "s1", "ls")
	if !res.Denied() || len(res.Trace) != 1 {
		t.Fatalf("denied %v, trace %+v: want the rate limit's fail-closed denial", res.Denied(), res.Trace)
	}
	f0 := res.Trace[0].Failure
	if f0 == nil || f0.Kind != luahook.FailError || !strings.Contains(f0.Message, "store.get: redis at "+f.addr()+": refused the server's reply: at byte 0, a string of "+tib+" bytes") ||
		!strings.Contains(res.Reason, "bash-rate-limit") || !strings.Contains(res.Reason, "fail-closed") {
		t.Errorf("failure %+v, reason %q", f0, res.Reason)
	}

	open := openEngine(t, redisConfig(f.addr(), ""), map[string]string{"60-open.lua": `hook.register("PreToolUse", "bash", function(input)
  store.get("seen:" .. (input.sessionId or ""))
end, { name = "open-reader" })`})
	res = bash(open, context.Background(), "s1", "ls")
	if f := failure(res); res.Denied() || f == nil || !strings.Contains(f.Message, "refused the server's reply") {
		t.Errorf("fail-open hook over a lying server: denied %v, failure %+v; want it skipped with the store's error", res.Denied(), f)
	}
}

// /readyz answers 503 naming the store's problem, in the store's words
// only (no client library's text, nothing the server sent), and after
// enough failed calls, that the breaker is open.
func TestReadyzNamesALyingStore(t *testing.T) {
	f := startFake(t, func(cmd []string) []string {
		switch cmd[0] {
		case "PING":
			return []string{"$" + tib + "\r\n"}
		case "GETRANGE":
			return []string{"*3\r\n*3\r\n*3\r\n*3\r\n*3\r\n*3\r\n*3\r\n*3\r\n*3\r\n"}
		}
		return nil
	})
	e := openEngine(t, redisConfig(f.addr(), ""), map[string]string{"50-rate-limit.lua": rateLimit(t)})
	srv := httptest.NewServer(server.New(e.Runner(), server.Options{StoreCheck: e.StoreCheck, StoreCheckEvery: time.Nanosecond}))
	defer srv.Close()
	get := func() (int, string) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, resp.Body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, strings.TrimSpace(b.String())
	}
	want := `{"status":"unready","store":"store: redis at ` + f.addr() +
		`: refused the server's reply: at byte 0, a string of 1099511627776 bytes, more than the 1114114 bytes a reply may hold (max_value_bytes and 64 KiB)"}`
	if code, body := get(); code != http.StatusServiceUnavailable || body != want {
		t.Errorf("/readyz = %d %s, want 503 %s", code, body, want)
	}
	for range 2 { // with the probe's failure, three in a row
		if res := bash(e, context.Background(), "s1", "ls"); !res.Denied() {
			t.Fatalf("the rate limit over a lying server did not deny: %+v", res.Trace)
		}
	}
	code, body := get()
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store":"store: redis at `+f.addr()+`: unavailable: the breaker is open for `) ||
		!strings.HasSuffix(body, ` more, after 3 failed calls in a row (the last: refused the server's reply: at byte 32, aggregates nested more than 8 deep)"}`) {
		t.Errorf("/readyz after three failed calls = %d %s, want 503 saying the breaker is open", code, body)
	}
	if m, _ := e.StoreMetrics(); m.Breaker != "open" || m.BreakerTrips != 1 || m.Ops[4].Unavailable != 1 {
		t.Errorf("metrics after the breaker opened: breaker %q, trips %d, ping %+v", m.Breaker, m.BreakerTrips, m.Ops[4])
	}
}
