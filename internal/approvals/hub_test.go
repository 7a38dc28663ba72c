package approvals

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/runner"
)

func request(digest string, approvers ...string) runner.ApprovalRequest {
	return runner.ApprovalRequest{Digest: digest, Tool: "bash", Input: []byte(`{"command":"x"}`),
		Reasons: []string{"why"}, Approvers: approvers, Timeout: time.Minute, Hooks: []string{"h"}}
}

// waitLen waits until the hub holds n approvals.
func waitLen(t *testing.T, h *Hub, n int) []Pending {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if l := h.List(); len(l) == n {
			return l
		}
	}
	t.Fatalf("hub holds %d approvals, want %d", h.Len(), n)
	return nil
}

type awaited struct {
	d   runner.ApprovalDecision
	err error
}

func await(h *Hub, ctx context.Context, req runner.ApprovalRequest) <-chan awaited {
	c := make(chan awaited, 1)
	go func() {
		d, err := h.Await(ctx, req)
		c <- awaited{d, err}
	}()
	return c
}

// Each approval is decided once: a second decision is refused, as are a
// decider not among the approvers, a digest of another call and an id the
// hub never had; a refused decision decides nothing.
func TestDecideIsSingleUseAndChecked(t *testing.T) {
	h := New(Options{})
	done := await(h, context.Background(), request("d1", "alice"))
	p := waitLen(t, h, 1)[0]
	if len(p.ID) != 32 {
		t.Fatalf("id %q: want 128 random bits in hex", p.ID)
	}
	for _, c := range []struct {
		id, who, digest string
		want            error
	}{
		{p.ID, "mallory", "d1", ErrNotApprover},
		{p.ID, "alice", "d2", ErrDigest},
		{p.ID, "alice", "", ErrDigest},
		{"0123", "alice", "d1", ErrNotPending},
	} {
		if _, err := h.Decide(c.id, c.who, true, "", c.digest); !errors.Is(err, c.want) {
			t.Fatalf("Decide(%q, %q, digest %q) = %v, want %v", c.id, c.who, c.digest, err, c.want)
		}
	}
	if h.Len() != 1 {
		t.Fatal("a refused decision took the approval down")
	}
	if _, err := h.Decide(p.ID, "alice", false, "no", "d1"); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.d.Approved || got.d.By != "alice" || got.d.Reason != "no" || got.d.ID != p.ID {
		t.Fatalf("Await = %+v", got)
	}
	if _, err := h.Decide(p.ID, "alice", true, "", "d1"); !errors.Is(err, ErrDecided) {
		t.Fatalf("second decision: %v, want ErrDecided", err)
	}
}

// Many waiters and deciders racing on them: every approval is decided
// exactly once, each waiter gets the one decision made on it, and nothing
// is left waiting.
func TestConcurrentWaitersAndRacingDecisions(t *testing.T) {
	const n, deciders = 100, 4
	h := New(Options{})
	var wg sync.WaitGroup
	results := make([]awaited, n)
	for i := range n {
		wg.Go(func() {
			d, err := h.Await(context.Background(), request("d"))
			results[i] = awaited{d, err}
		})
	}
	list := waitLen(t, h, n)
	var won atomic.Int32
	winner := sync.Map{} // id -> who won it
	var dwg sync.WaitGroup
	for k := range deciders {
		dwg.Go(func() {
			who := string(rune('a' + k))
			for _, p := range list {
				if _, err := h.Decide(p.ID, who, k%2 == 0, "", p.Digest); err == nil {
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
	if h.Len() != 0 || h.bytes != 0 {
		t.Fatalf("left: %d approvals, %d bytes", h.Len(), h.bytes)
	}
}

// A waiter whose context ends (timeout or cancel) is taken down, racing a
// decision: either the decision reaches it or the approval is gone, never
// both, never neither.
func TestEndedWaitersAreRemovedRacingDecisions(t *testing.T) {
	h := New(Options{})
	const n = 200
	var wg sync.WaitGroup
	var decided, gone atomic.Int32
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%5)*time.Millisecond)
			defer cancel()
			d, err := h.Await(ctx, request("d"))
			switch {
			case err == nil && d.By == "x":
				decided.Add(1)
			case errors.Is(err, context.DeadlineExceeded):
				gone.Add(1)
			default:
				t.Errorf("Await = %+v, %v", d, err)
			}
		})
	}
	stop := make(chan struct{})
	var refusedLate atomic.Int32
	dwg := sync.WaitGroup{}
	dwg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range h.List() {
				if _, err := h.Decide(p.ID, "x", true, "", p.Digest); errors.Is(err, ErrNotPending) {
					refusedLate.Add(1)
				}
			}
		}
	})
	wg.Wait()
	close(stop)
	dwg.Wait()
	if decided.Load()+gone.Load() != n || h.Len() != 0 || h.bytes != 0 {
		t.Fatalf("decided %d + gone %d != %d, or left %d approvals (%d bytes)", decided.Load(), gone.Load(), n, h.Len(), h.bytes)
	}
	// With nobody deciding, each ended waiter takes its approval down itself.
	for range 20 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			h.Await(ctx, request("d"))
		})
	}
	wg.Wait()
	if h.Len() != 0 || h.bytes != 0 {
		t.Fatalf("ended waiters left %d approvals (%d bytes)", h.Len(), h.bytes)
	}
}

// Past MaxPending, or past MaxBytes, a request is refused at once, and the
// approvals waiting are untouched; taking one down makes room.
func TestBoundsRefuseAtOnce(t *testing.T) {
	h := New(Options{MaxPending: 3})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 3 {
		await(h, ctx, request("d"))
	}
	waitLen(t, h, 3)
	// A bounded wait: past the cap the answer is at once, and a hub that
	// let the request wait fails here rather than hanging.
	bounded, cancelBounded := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelBounded()
	if _, err := h.Await(bounded, request("d")); !errors.Is(err, ErrFull) {
		t.Fatalf("past MaxPending: %v, want ErrFull", err)
	}
	p := h.List()[0]
	h.Decide(p.ID, "x", true, "", p.Digest)
	next := await(h, ctx, request("d"))
	waitLen(t, h, 3)
	cancel()
	<-next

	small := New(Options{MaxBytes: 2000})
	big := request("d")
	big.Reasons = []string{strings.Repeat("r", 1500)}
	c2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	await(small, c2, big)
	waitLen(t, small, 1)
	if _, err := small.Await(bounded, big); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("past MaxBytes: %v, want ErrFull naming bytes", err)
	}
}

// An input over MaxInputBytes is left out of what the approval shows,
// its size kept.
func TestLargeInputIsLeftOut(t *testing.T) {
	h := New(Options{MaxInputBytes: 10})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	await(h, ctx, request("d"))
	p := waitLen(t, h, 1)[0]
	if p.Input != nil || p.InputBytes != len(`{"command":"x"}`) {
		t.Fatalf("input %s (%d bytes), want left out with its size", p.Input, p.InputBytes)
	}
	b, err := p.MarshalJSON()
	if err != nil || strings.Contains(string(b), `"input":`) {
		t.Fatalf("JSON %s (%v)", b, err)
	}
}

// Subscribers see pending, decided and gone events; a subscriber that does
// not read loses events, counted, and never holds a decision.
func TestSubscribersAreNotBlocking(t *testing.T) {
	h := New(Options{})
	fast := h.Subscribe(16)
	slow := h.Subscribe(1) // cancelled at the end, not deferred: a failure must not wait for a held hub
	// A subscriber that held the hub would hang these calls: run them
	// bounded, to fail instead.
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done := await(h, context.Background(), request("d"))
		p := waitLen(t, h, 1)[0]
		if _, err := h.Decide(p.ID, "x", true, "", p.Digest); err != nil {
			t.Error(err)
		}
		<-done
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		h.Await(ctx, request("d"))
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("a subscriber that does not read held the hub")
	}
	var kinds []string
	for range 4 {
		kinds = append(kinds, (<-fast.C()).Kind)
	}
	if strings.Join(kinds, ",") != "pending,decided,pending,gone" {
		t.Fatalf("events %v", kinds)
	}
	if slow.Dropped() != 3 {
		t.Fatalf("the slow subscriber dropped %d events, want 3", slow.Dropped())
	}
	slow.Cancel()
	fast.Cancel()
	fast.Cancel()
	if _, ok := <-fast.C(); ok {
		t.Fatal("a cancelled subscription's channel is open")
	}
}

// Close ends every waiting approval with ErrClosed and refuses new ones.
func TestCloseEndsWaiters(t *testing.T) {
	h := New(Options{})
	done := await(h, context.Background(), request("d"))
	waitLen(t, h, 1)
	h.Close()
	h.Close()
	if got := <-done; !errors.Is(got.err, ErrClosed) {
		t.Fatalf("waiter got %v, want ErrClosed", got.err)
	}
	if _, err := h.Await(context.Background(), request("d")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}
