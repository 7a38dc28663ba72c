package runner

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type deadlineKey struct{}

// awaitDone fails the test with why unless ctx is done within 5 s.
func awaitDone(t *testing.T, ctx context.Context, why string) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal(why)
	}
}

func TestDeadlineContextExpiresLikeWithTimeout(t *testing.T) {
	parent := context.WithValue(context.Background(), deadlineKey{}, "v")
	start := time.Now()
	c := withDeadline(parent, time.Now(), 20*time.Millisecond)
	defer c.release()
	if d, ok := c.Deadline(); !ok || d.Before(start.Add(20*time.Millisecond)) || d.After(time.Now().Add(20*time.Millisecond)) {
		t.Errorf("deadline %v, %v; want 20ms after the call", d, ok)
	}
	if c.Err() != nil {
		t.Fatalf("fresh context has error %v", c.Err())
	}
	if got := c.Value(deadlineKey{}); got != "v" {
		t.Errorf("value %v, want the parent's", got)
	}
	derived, cancel := context.WithCancel(c)
	defer cancel()
	awaitDone(t, c, "deadline never fired")
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("err %v, want DeadlineExceeded", c.Err())
	}
	awaitDone(t, derived, "a context derived from it was not cancelled")
}

func TestDeadlineContextFollowsItsParent(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	c := withDeadline(parent, time.Now(), time.Minute)
	defer c.release()
	why := errors.New("the host gave up")
	cancel(why)
	awaitDone(t, c, "parent's cancellation did not reach the hook's context")
	if !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("err %v, want Canceled", c.Err())
	}
	if got := context.Cause(c); got != why {
		t.Errorf("cause %v, want the parent's", got)
	}
}

func TestDeadlineContextTakesTheEarlierDeadline(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	pd, _ := parent.Deadline()
	c := withDeadline(parent, time.Now(), time.Hour)
	defer c.release()
	if d, _ := c.Deadline(); !d.Equal(pd) {
		t.Errorf("deadline %v, want the parent's %v", d, pd)
	}
	<-c.Done()
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("err %v, want DeadlineExceeded", c.Err())
	}
}

// A recycled context starts open, and one that fired (deadline or parent) is
// never handed out again, whatever the order in which release and the timer
// race.
func TestDeadlineContextIsRecycledOnlyWhenUnfired(t *testing.T) {
	var mu sync.Mutex
	fired := map[*deadlineCtx]bool{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				parent, cancel := context.WithCancel(context.Background())
				d := time.Duration(i%3) * 50 * time.Microsecond // often fires while in use
				c := withDeadline(parent, time.Now(), d+time.Microsecond)
				mu.Lock()
				seen := fired[c]
				mu.Unlock()
				if seen {
					t.Errorf("worker %d: a fired context was handed out again", w)
				}
				if err := c.Err(); err != nil {
					select {
					case <-c.Done():
					default:
						t.Errorf("context has error %v but Done is open", err)
					}
				}
				if i%7 == 0 {
					cancel()
				}
				time.Sleep(time.Duration(i%2) * 100 * time.Microsecond)
				done := false
				select {
				case <-c.Done():
					done = true
				default:
				}
				if done {
					mu.Lock()
					fired[c] = true
					mu.Unlock()
				}
				c.release()
				cancel()
				select {
				case <-c.Done():
					mu.Lock()
					fired[c] = true
					mu.Unlock()
				default:
				}
			}
		})
	}
	wg.Wait()
}

// Nearly every call ends before its deadline: such a context is recycled.
func TestDeadlineContextRecyclesAnUnfiredContext(t *testing.T) {
	seen := map[*deadlineCtx]bool{}
	again := 0
	for range 100 {
		c := withDeadline(context.Background(), time.Now(), time.Minute)
		if seen[c] {
			again++
		}
		seen[c] = true
		c.release()
	}
	// sync.Pool may drop any Put (the race detector drops some on purpose);
	// most must come back.
	if again < 50 {
		t.Errorf("%d of 100 contexts were recycled", again)
	}
}

// A derived context may outlive the call: it is cancelled when the call
// ends, and its parent is never handed out again.
func TestDeadlineContextWithChildrenIsCancelledAndNotRecycled(t *testing.T) {
	c := withDeadline(context.Background(), time.Now(), time.Minute)
	child, cancel := context.WithCancel(c)
	defer cancel()
	grandchild, cancel2 := context.WithTimeout(child, time.Hour)
	defer cancel2()
	c.release()
	for _, ctx := range []context.Context{child, grandchild} {
		awaitDone(t, ctx, "a derived context was not cancelled when the call ended")
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("derived context err %v, want Canceled", ctx.Err())
		}
	}
	for range 100 {
		n := withDeadline(context.Background(), time.Now(), time.Minute)
		if n == c {
			t.Fatal("a context with children was recycled")
		}
		n.release()
	}
	// A child derived from a context whose deadline passed starts done.
	d := withDeadline(context.Background(), time.Now(), time.Millisecond)
	<-d.Done()
	late, cancel3 := context.WithCancel(d)
	defer cancel3()
	awaitDone(t, late, "a child of an expired context is not done")
	d.release()
}

// reused returns a context released by a call with deadline first and
// started again, as the pool would hand it out, for a call with deadline then.
func reused(t *testing.T, first, then time.Duration) *deadlineCtx {
	t.Helper()
	c := withDeadline(context.Background(), time.Now(), first)
	c.release()
	if c.Err() != nil {
		t.Fatalf("released context is done: %v", c.Err())
	}
	for deadlinePool.Get() != nil {
		// Take c back out of the pool: this test hands it out itself.
	}
	c.start(context.Background(), time.Now(), then)
	return c
}

// The timer stays armed for an earlier call's deadline; a call whose own
// deadline comes sooner still expires on time.
func TestDeadlineContextReusedWithAnEarlierDeadlineExpiresOnTime(t *testing.T) {
	c := reused(t, time.Hour, 30*time.Millisecond)
	defer c.release()
	awaitDone(t, c, "the shorter deadline never fired: the timer stayed armed for the earlier call's hour")
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("err %v, want DeadlineExceeded", c.Err())
	}
}

// When the timer fires for an earlier call's deadline while a later call
// with a later deadline holds the context, the context does not expire: the
// timer is armed again, and the context expires at its own deadline, never
// before.
func TestDeadlineContextReusedWithALaterDeadlineExpiresAtItsOwn(t *testing.T) {
	start := time.Now()
	c := reused(t, 20*time.Millisecond, 150*time.Millisecond)
	defer c.release()
	awaitDone(t, c, "the later deadline never fired: the timer was not armed again")
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("expired after %v, before its deadline (150ms): the earlier call's timer ended it", took)
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("err %v, want DeadlineExceeded", c.Err())
	}

	long := reused(t, 20*time.Millisecond, time.Hour)
	defer long.release()
	time.Sleep(100 * time.Millisecond) // the first call's timer fires meanwhile
	// A machine busy with other work may run the timer's function late:
	// wait for it to arm the timer again, for at most 5 s.
	d, _ := long.Deadline()
	var armed time.Time
	for wait := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		long.mu.Lock()
		armed = long.armedFor
		long.mu.Unlock()
		if armed.Equal(d) || time.Now().After(wait) {
			break
		}
	}
	if err := long.Err(); err != nil {
		t.Fatalf("a call with an hour left is done after 100ms: %v", err)
	}
	if !armed.Equal(d) {
		t.Errorf("timer armed for %v after it fired early, want the call's deadline %v", armed, d)
	}
}

// A parent that can be cancelled is followed by the timer: no registration
// in the parent, no allocation, and its cancellation still reaches a call in
// progress, within parentPoll.
func TestDeadlineContextFollowsACancellableParentWithoutAllocating(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	if n := testing.AllocsPerRun(100, func() { withDeadline(parent, time.Now(), time.Minute).release() }); n != 0 && !raceEnabled {
		t.Errorf("%v allocations per call under a cancellable parent, want 0", n)
	}
	c := withDeadline(parent, time.Now(), time.Minute)
	defer c.release()
	time.Sleep(3 * parentPoll) // a few ticks while the parent is alive
	if err := c.Err(); err != nil {
		t.Fatalf("done while the parent is alive: %v", err)
	}
	cancelled := time.Now()
	cancel()
	awaitDone(t, c, "the parent's cancellation never reached the call")
	if took := time.Since(cancelled); took > 50*parentPoll {
		t.Errorf("the parent's cancellation took %v to reach the call (poll every %v)", took, parentPoll)
	}
	if !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("err %v, want Canceled", c.Err())
	}
}

// A parent cancelled after its call ended does not end a later call that
// reuses the context under another parent.
func TestDeadlineContextForgetsAnEarlierCallsParent(t *testing.T) {
	first, cancel := context.WithCancel(context.Background())
	c := withDeadline(first, time.Now(), time.Hour)
	c.release()
	for deadlinePool.Get() != nil {
		// Take c back out of the pool: this test hands it out itself.
	}
	cancel()
	time.Sleep(3 * parentPoll) // the timer fires while c is idle
	live, stop := context.WithCancel(context.Background())
	defer stop()
	c.start(live, time.Now(), time.Hour)
	defer c.release()
	time.Sleep(3 * parentPoll) // ticks, looking at the parent
	if err := c.Err(); err != nil {
		t.Fatalf("a call under a live parent was ended by an earlier call's parent: %v", err)
	}
}
