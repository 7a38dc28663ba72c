package approvals

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/runner"
)

// syncBuffer is a log's buffer, safe for the hub's goroutines and the test.
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

// replicaHub opens a hub in shared mode on srv as the replica name, closed
// when the test ends; its log goes to the returned buffer.
func replicaHub(t *testing.T, srv *redistest.Server, name string, opts Options) (*Hub, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	opts.Redis, opts.Instance = "redis://"+srv.Addr()+"/0", name
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, log
}

// fleet is two replicas, a and b, on one fresh redis-server.
func fleet(t *testing.T, opts Options) (srv *redistest.Server, a, b *Hub) {
	t.Helper()
	srv = redistest.Start(t)
	a, _ = replicaHub(t, srv, "a", opts)
	b, _ = replicaHub(t, srv, "b", opts)
	return srv, a, b
}

// within waits for c's result for at most d.
func within(t *testing.T, c <-chan awaited, d time.Duration, what string) awaited {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(d):
		t.Fatalf("%s: Await did not return within %v", what, d)
	}
	return awaited{}
}

// A call waiting on replica a is listed on b and decided there: a's Await
// returns b's decision. Refused decisions on b (another digest, a decider
// not among the approvers, an unknown id) decide nothing; a second
// decision, on either replica, is ErrDecided, including after a decision
// made on the replica the call waits on.
func TestSharedDecisionOnAnotherReplicaEndsTheWait(t *testing.T) {
	_, a, b := fleet(t, Options{})
	done := await(a, context.Background(), request("d1", "alice"))
	p := waitLen(t, b, 1)[0]
	if p.Instance != "a" || p.Digest != "d1" || p.Tool != "bash" || string(p.Input) != `{"command":"x"}` || p.Reasons[0] != "why" {
		t.Fatalf("b lists %+v", p)
	}
	for _, c := range []struct {
		id, who, digest string
		want            error
	}{
		{p.ID, "mallory", "d1", ErrNotApprover},
		{p.ID, "alice", "d2", ErrDigest},
		{p.ID, "alice", "", ErrDigest},
		{strings.Repeat("0", 32), "alice", "d1", ErrNotPending},
		{"not-an-id", "alice", "d1", ErrNotPending},
	} {
		if _, err := b.Decide(c.id, c.who, true, "", c.digest); !errors.Is(err, c.want) {
			t.Fatalf("b.Decide(%q, %q, digest %q) = %v, want %v", c.id, c.who, c.digest, err, c.want)
		}
	}
	if l := b.List(); len(l) != 1 || a.Len() != 1 {
		t.Fatalf("a refused decision took the approval down: b lists %d, a holds %d", len(l), a.Len())
	}
	select {
	case r := <-done:
		t.Fatalf("a refused decision ended the wait: %+v", r)
	default:
	}
	if _, err := b.Decide(p.ID, "alice", false, "no", "d1"); err != nil {
		t.Fatal(err)
	}
	got := within(t, done, 10*time.Second, "decided on b")
	if got.err != nil || got.d.Approved || got.d.By != "alice" || got.d.Reason != "no" || got.d.ID != p.ID {
		t.Fatalf("a's Await = %+v, %v", got.d, got.err)
	}
	for _, h := range []*Hub{a, b} {
		if _, err := h.Decide(p.ID, "alice", true, "", "d1"); !errors.Is(err, ErrDecided) {
			t.Fatalf("second decision on %s: %v, want ErrDecided", h.opts.Instance, err)
		}
	}
	if len(a.List()) != 0 || len(b.List()) != 0 || a.Len() != 0 {
		t.Fatal("a decided approval is still listed")
	}

	// Decided on the replica it waits on: single-use fleet-wide too.
	done = await(a, context.Background(), request("d3"))
	p = waitLen(t, b, 1)[0]
	if _, err := a.Decide(p.ID, "carol", true, "", "d3"); err != nil {
		t.Fatal(err)
	}
	if got := within(t, done, 10*time.Second, "decided on a"); got.err != nil || !got.d.Approved || got.d.By != "carol" {
		t.Fatalf("a's Await = %+v, %v", got.d, got.err)
	}
	if _, err := b.Decide(p.ID, "carol", false, "", "d3"); !errors.Is(err, ErrDecided) {
		t.Fatalf("a decision on b after one on a: %v, want ErrDecided", err)
	}
}

// A waiter whose time runs out takes its approval down fleet-wide: b no
// longer lists it nor may decide it, and Redis keeps nothing of it.
func TestSharedTimeoutTakesTheApprovalDown(t *testing.T) {
	srv, a, b := fleet(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := await(a, ctx, request("d"))
	p := waitLen(t, b, 1)[0]
	cancel()
	if got := within(t, done, 10*time.Second, "cancelled"); !errors.Is(got.err, context.Canceled) || got.d.Approved {
		t.Fatalf("a's Await = %+v, %v; want context.Canceled", got.d, got.err)
	}
	waitLen(t, b, 0)
	if _, err := b.Decide(p.ID, "x", true, "", "d"); !errors.Is(err, ErrNotPending) {
		t.Fatalf("deciding a cancelled approval: %v, want ErrNotPending", err)
	}

	tctx, tcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer tcancel()
	if _, err := a.Await(tctx, request("d")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed out: %v", err)
	}
	if l := b.List(); len(l) != 0 {
		t.Fatalf("b lists a timed-out approval: %+v", l)
	}
	c := srv.Client()
	defer c.Close()
	keys, err := c.Keys(context.Background(), DefaultRedisPrefix+"*").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("Redis keeps %v (%v) of approvals no one waits for", keys, err)
	}
}

// Each replica's subscribers see the whole fleet's events, each once and
// in order: a's pending call, b's decision on it, a's next call, its end.
func TestSharedSubscribersSeeTheFleetsEvents(t *testing.T) {
	_, a, b := fleet(t, Options{})
	subA, subB := a.Subscribe(16), b.Subscribe(16)
	done := await(a, context.Background(), request("d"))
	p := waitLen(t, b, 1)[0]
	if _, err := b.Decide(p.ID, "x", true, "", "d"); err != nil {
		t.Fatal(err)
	}
	within(t, done, 10*time.Second, "decided")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a.Await(ctx, request("d"))
	for name, sub := range map[string]*Subscription{"a": subA, "b": subB} {
		var kinds []string
		for range 4 {
			select {
			case e := <-sub.C():
				kinds = append(kinds, e.Kind)
				if e.Approval.Instance != "a" || e.Approval.Digest != "d" {
					t.Fatalf("%s's subscriber got %+v", name, e)
				}
				if e.Kind == EventDecided && (e.Decision == nil || e.Decision.ID != p.ID || !e.Decision.Approved) {
					t.Fatalf("%s's subscriber got decision %+v", name, e.Decision)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s's subscriber got %v, then nothing", name, kinds)
			}
		}
		if strings.Join(kinds, ",") != "pending,decided,pending,gone" {
			t.Fatalf("%s's subscriber got %v", name, kinds)
		}
	}
	subA.Cancel()
	b.Close()
	if _, ok := <-subB.C(); ok {
		t.Fatal("a closed hub's subscription is open")
	}
}

// A decision whose message a replica missed still reaches its waiter:
// the replica reads its approvals in Redis while they wait.
func TestSharedMissedMessageIsPolled(t *testing.T) {
	srv, a, b := fleet(t, Options{})
	done := await(a, context.Background(), request("d"))
	p := waitLen(t, b, 1)[0]
	c := srv.Client()
	defer c.Close()
	// The decision as decideScript stores it, without its message.
	dec := fmt.Sprintf(`{"id":%q,"approved":true,"by":"quiet","at":"2026-01-01T00:00:00Z"}`, p.ID)
	if err := c.HSet(context.Background(), DefaultRedisPrefix+"a:"+p.ID, "decision", dec).Err(); err != nil {
		t.Fatal(err)
	}
	if got := within(t, done, 10*time.Second, "decided without a message"); got.err != nil || !got.d.Approved || got.d.By != "quiet" {
		t.Fatalf("a's Await = %+v, %v", got.d, got.err)
	}
}

// Redis failing while calls wait or are put up never approves them and
// never holds them to their deadline: a killed server, a hung one and one
// restarted empty each end the wait with an error naming Redis well before
// the call's minute; a decision then fails, saying Redis did not answer.
func TestSharedRedisFailureEndsTheWaitUnapproved(t *testing.T) {
	long := func() runner.ApprovalRequest {
		r := request("d")
		r.Timeout = time.Minute
		return r
	}
	const bound = 20 * time.Second // the call's own deadline is a minute
	check := func(t *testing.T, what string, got awaited) {
		t.Helper()
		if got.err == nil || got.d.Approved || errors.Is(got.err, context.DeadlineExceeded) || !strings.Contains(got.err.Error(), "redis") {
			t.Fatalf("%s: Await = %+v, %v; want an error naming redis, never an approval", what, got.d, got.err)
		}
	}
	t.Run("killed", func(t *testing.T) {
		srv, a, b := fleet(t, Options{})
		done := await(a, context.Background(), long())
		p := waitLen(t, b, 1)[0]
		srv.Stop()
		check(t, "waiting as the server died", within(t, done, bound, "server killed"))
		check(t, "put up to a dead server", within(t, await(a, context.Background(), long()), bound, "put up"))
		if _, err := b.Decide(p.ID, "x", true, "", "d"); err == nil || !strings.Contains(err.Error(), "did not answer") || !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Decide with the server dead: %v, want an error saying redis did not answer", err)
		}
		if a.Len() != 0 {
			t.Fatalf("a holds %d approvals", a.Len())
		}
	})
	t.Run("hung", func(t *testing.T) {
		srv, a, b := fleet(t, Options{RedisTimeout: 300 * time.Millisecond})
		done := await(a, context.Background(), long())
		waitLen(t, b, 1)
		srv.Suspend()
		defer srv.Resume()
		check(t, "waiting as the server hung", within(t, done, bound, "server hung"))
		check(t, "put up to a hung server", within(t, await(a, context.Background(), long()), bound, "put up"))
	})
	t.Run("restarted empty", func(t *testing.T) {
		srv, a, b := fleet(t, Options{})
		done := await(a, context.Background(), long())
		waitLen(t, b, 1)
		srv.Restart()
		got := within(t, done, bound, "server restarted")
		check(t, "waiting as the server restarted", got)
	})
}

// Values under the prefix that are no approval (not JSON, past the record
// bound, another id, a key of another type) are skipped by List and
// logged; the real approval is still listed.
func TestSharedListSkipsBadValues(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := replicaHub(t, srv, "a", Options{MaxInputBytes: 1024})
	b, log := replicaHub(t, srv, "b", Options{MaxInputBytes: 1024})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	await(a, ctx, request("real"))
	waitLen(t, b, 1)
	c := srv.Client()
	defer c.Close()
	bg := context.Background()
	plant := func(id, p string) {
		t.Helper()
		if err := c.HSet(bg, DefaultRedisPrefix+"a:"+id, "p", p, "digest", "x").Err(); err != nil {
			t.Fatal(err)
		}
		c.ZAdd(bg, DefaultRedisPrefix+"due", redisZ(id))
	}
	corrupt, huge, other, str := strings.Repeat("1", 32), strings.Repeat("2", 32), strings.Repeat("3", 32), strings.Repeat("4", 32)
	plant(corrupt, "{not json")
	plant(huge, `{"id":"`+huge+`","reasons":["`+strings.Repeat("r", b.shared.recordCap)+`"]}`)
	plant(other, `{"id":"`+corrupt+`"}`)
	c.Set(bg, DefaultRedisPrefix+"a:"+str, "a string", 0)
	c.ZAdd(bg, DefaultRedisPrefix+"due", redisZ(str), redisZ("not an id"))
	l, err := b.ListContext(bg)
	if err != nil || len(l) != 1 || l[0].Digest != "real" {
		t.Fatalf("List = %+v, %v; want only the real approval", l, err)
	}
	for _, id := range []string{corrupt, huge, other, str, "not an id"} {
		if !strings.Contains(log.String(), id) {
			t.Errorf("the skipped %s is not logged:\n%s", id, log)
		}
	}
	if !strings.Contains(log.String(), "past the bound") {
		t.Errorf("the huge value is not logged as past its bound:\n%s", log)
	}
	// Planted events are skipped too: b follows on.
	c.Publish(bg, DefaultRedisPrefix+"events", "{not json")
	c.Publish(bg, DefaultRedisPrefix+"events", strings.Repeat("x", b.shared.recordCap+eventSlack+1))
	p := l[0]
	sub := b.Subscribe(4)
	defer sub.Cancel()
	if _, err := b.Decide(p.ID, "x", true, "", "real"); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.C():
		if e.Kind != EventDecided || e.Approval.ID != p.ID {
			t.Fatalf("b's subscriber got %+v after planted events", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after planted ones")
	}
}

// redisZ is id in the due set, due in a minute.
func redisZ(id string) redis.Z {
	return redis.Z{Score: float64(time.Now().Add(time.Minute).UnixMilli()), Member: id}
}

// Many approvals on both replicas, decided by racing deciders on both:
// each is decided exactly once fleet-wide, and each waiter gets the one
// decision that won.
func TestSharedRacingDecisionsOneWins(t *testing.T) {
	const n, deciders = 40, 4
	_, a, b := fleet(t, Options{})
	hubs := []*Hub{a, b}
	results := make([]awaited, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, err := hubs[i%2].Await(context.Background(), request("d"))
			results[i] = awaited{d, err}
		})
	}
	list := waitLen(t, a, n)
	var won atomic.Int32
	var winner sync.Map
	var dwg sync.WaitGroup
	for k := range deciders {
		dwg.Go(func() {
			who := string(rune('a' + k))
			for _, p := range list {
				if _, err := hubs[k%2].Decide(p.ID, who, k < 2, "", p.Digest); err == nil {
					won.Add(1)
					winner.Store(p.ID, who)
				} else if !errors.Is(err, ErrDecided) {
					t.Errorf("losing decision: %v, want ErrDecided", err)
				}
			}
		})
	}
	dwg.Wait()
	wg.Wait()
	if won.Load() != n {
		t.Fatalf("%d decisions won, want exactly %d", won.Load(), n)
	}
	for _, r := range results {
		w, _ := winner.Load(r.d.ID)
		if r.err != nil || r.d.By != w {
			t.Fatalf("waiter got %+v (%v), the decision was %v's", r.d, r.err, w)
		}
	}
	if a.Len() != 0 || b.Len() != 0 || a.bytes != 0 || b.bytes != 0 {
		t.Fatal("decided approvals are left")
	}
}

// The bounds stay per replica: past MaxPending a call is refused at once,
// and so is one whose record is past what Redis may hold of it.
// Close ends the replica's waiters with ErrClosed and takes their
// approvals out of the fleet.
func TestSharedBoundsAndClose(t *testing.T) {
	_, a, b := fleet(t, Options{MaxPending: 2})
	first, second := await(a, context.Background(), request("d")), await(a, context.Background(), request("d"))
	waitLen(t, b, 2)
	bounded, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := a.Await(bounded, request("d")); !errors.Is(err, ErrFull) {
		t.Fatalf("past MaxPending: %v, want ErrFull", err)
	}
	// A record past what a shared approval may hold (reasons of control
	// characters, each six bytes in JSON) is refused at once, sharing
	// nothing.
	huge := request("d")
	huge.Reasons = slices.Repeat([]string{strings.Repeat("\x01", 8000)}, maxReasons)
	if _, err := b.Await(bounded, huge); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "shared approval") {
		t.Fatalf("a record past its bound: %v, want ErrFull", err)
	}
	if l := a.List(); len(l) != 2 || b.Len() != 0 {
		t.Fatalf("after a refused record: a lists %d, b holds %d", len(l), b.Len())
	}
	a.Close()
	for _, c := range []<-chan awaited{first, second} {
		if got := within(t, c, 10*time.Second, "closed"); !errors.Is(got.err, ErrClosed) || got.d.Approved {
			t.Fatalf("a waiter at Close: %+v, %v", got.d, got.err)
		}
	}
	if l := b.List(); len(l) != 0 {
		t.Fatalf("b lists %d approvals of a closed replica", len(l))
	}
	if _, err := a.Await(bounded, request("d")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// Open fails when the server does not answer, naming the URL without its
// password; a URL that does not parse is not repeated.
func TestOpenErrorsHideThePassword(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, u := range []string{"redis://user:hunter2@" + addr + "/0", "http://user:hunter2@" + addr, "redis://user:hunter2@[::1"} {
		h, err := Open(ctx, Options{Redis: u})
		if err == nil {
			h.Close()
			t.Fatalf("Open(%s) succeeded", u)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("Open(%s) = %v: the password shows", u, err)
		}
	}
	if _, err := Open(ctx, Options{Redis: "redis://user:hunter2@" + addr}); !strings.Contains(err.Error(), addr) {
		t.Fatalf("Open's error does not name the server: %v", err)
	}
}
