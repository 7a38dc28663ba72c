package runner

import (
	"context"
	"sync"
	"time"
)

// deadlineCtx is the context of one hook called on the caller's goroutine:
// its parent's values and cancellation, and the hook's own deadline. It does
// what context.WithTimeout does, but is recycled: a call that ends before its
// deadline (nearly every call) leaves the channel open, so the next call
// reuses context, timer and channel instead of allocating them each time. A
// context whose deadline passed or whose parent was cancelled is never
// reused.
//
// The timer is not reset and stopped around every call either (a tenth of a
// Lua hook call went to that): it stays armed for the deadline of an earlier
// call, and is reset only when a call's deadline comes before that. When it
// fires, tick looks at the call in progress, if any: past its deadline, the
// context expires; before it, the timer is armed again for what is left. So
// a context in use always has its timer armed for its deadline or earlier.
//
// A parent that can be cancelled is followed the same way, by the timer,
// not by context.AfterFunc (three allocations per call, and a registration
// in the parent): while a call runs, the timer fires at least every
// parentPoll, and tick ends the context with the parent's error once the
// parent is done. A cancelled parent thus reaches a running hook within
// parentPoll; calls shorter than that never see a tick.
//
// Only hooks that keep the context no longer than Call runs, on the
// caller's goroutine (luahook.CallScoped and ContextBound), get one. A context
// derived from it through the context package may outlive the call (net/http
// and Lua coroutines derive them): the package registers such children
// through AfterFunc, and a context that had any is cancelled at release, as
// WithTimeout's would be, and never recycled.
type deadlineCtx struct {
	parent   context.Context
	deadline time.Time
	done     chan struct{}
	timer    *time.Timer

	mu  sync.Mutex
	err error
	// inUse: a call holds the context; watch: its parent can be cancelled.
	// armedFor: the timer is armed to fire at this time or earlier (zero:
	// not armed, or not known to be).
	inUse, watch bool
	armedFor     time.Time
	// children is done when this context is; created by the first AfterFunc.
	children       context.Context
	cancelChildren context.CancelFunc
}

var deadlinePool sync.Pool

// parentPoll is how often a running call looks at a parent that can be
// cancelled.
const parentPoll = 10 * time.Millisecond

// withDeadline returns a context like context.WithTimeout(parent, d) for a
// call that started at now (the caller's clock reading, not taken again);
// its release ends the context and recycles it when it can.
func withDeadline(parent context.Context, now time.Time, d time.Duration) *deadlineCtx {
	c, _ := deadlinePool.Get().(*deadlineCtx)
	if c == nil {
		c = &deadlineCtx{done: make(chan struct{})}
		c.timer = time.AfterFunc(time.Hour, c.tick)
		c.timer.Stop()
	}
	c.start(parent, now, d)
	return c
}

// start readies c (new, or released and not done) for a call.
func (c *deadlineCtx) start(parent context.Context, now time.Time, d time.Duration) {
	deadline := now.Add(d)
	if pd, ok := parent.Deadline(); ok && pd.Before(deadline) {
		deadline = pd
	}
	watch := parent.Done() != nil
	due := deadline
	if poll := now.Add(parentPoll); watch && poll.Before(due) {
		due = poll
	}
	c.mu.Lock()
	c.parent, c.deadline, c.inUse, c.watch = parent, deadline, true, watch
	if c.armedFor.IsZero() || c.armedFor.After(due) {
		c.armedFor = due
		c.timer.Reset(due.Sub(now))
	}
	c.mu.Unlock()
}

// release ends the context. It is recycled only when it is not done and had
// no child derived from it, so its channel is still open and nothing refers
// to it; its timer may still fire, and tick then finds it idle or serving a
// later call.
func (c *deadlineCtx) release() {
	c.mu.Lock()
	c.inUse = false
	if c.err != nil || c.children != nil {
		c.finishLocked(context.Canceled) // like a CancelFunc; no-op when already done
		c.timer.Stop()
		c.mu.Unlock()
		return
	}
	c.parent = nil
	c.mu.Unlock()
	deadlinePool.Put(c)
}

// tick runs when the timer fires: the call in progress ends if its parent
// is done or its deadline has passed, and the timer is armed again for it
// if not.
func (c *deadlineCtx) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armedFor = time.Time{}
	if !c.inUse || c.err != nil {
		return
	}
	if c.watch {
		if err := c.parent.Err(); err != nil {
			c.finishLocked(err)
			return
		}
	}
	now := time.Now()
	left := c.deadline.Sub(now)
	if left <= 0 {
		c.finishLocked(context.DeadlineExceeded)
		return
	}
	if c.watch && left > parentPoll {
		left = parentPoll
	}
	c.armedFor = now.Add(left)
	c.timer.Reset(left)
}

func (c *deadlineCtx) finishLocked(err error) {
	if c.err == nil {
		c.err = err
		close(c.done)
		if c.cancelChildren != nil {
			c.cancelChildren()
		}
	}
}

// AfterFunc arranges for f to run in its own goroutine once the context is
// done, and returns a function that cancels that. The context package uses
// it for the contexts derived from this one (see context.AfterFunc), instead
// of a goroutine watching Done per child.
func (c *deadlineCtx) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	if c.children == nil {
		c.children, c.cancelChildren = context.WithCancel(context.Background())
		if c.err != nil {
			c.cancelChildren()
		}
	}
	children := c.children
	c.mu.Unlock()
	return context.AfterFunc(children, f)
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineCtx) Done() <-chan struct{}       { return c.done }

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *deadlineCtx) Value(key any) any { return c.parent.Value(key) }

func (c *deadlineCtx) String() string { return "runner.hookContext" }
