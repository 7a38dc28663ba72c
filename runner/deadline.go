package runner

import (
	"context"
	"sync"
	"time"
)

// deadlineCtx is the context of one hook called on the caller's goroutine:
// its parent's values and cancellation, and the hook's own deadline. It does
// what context.WithTimeout does, but is recycled: a call that ends before its
// deadline (nearly every call) leaves the channel open and the timer
// stopped, so the next call reuses both instead of allocating a timer
// context, a timer and a channel each time. A context whose deadline passed
// or whose parent was cancelled is never reused.
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
	// stopParent undoes the watch on a cancellable parent (context.AfterFunc).
	stopParent func() bool

	mu  sync.Mutex
	err error
	// children is done when this context is; created by the first AfterFunc.
	children       context.Context
	cancelChildren context.CancelFunc
}

var deadlinePool sync.Pool

// withDeadline returns a context like context.WithTimeout(parent, d) for a
// call that started at now (the caller's clock reading, not taken again);
// its release ends the context and recycles it when it can.
func withDeadline(parent context.Context, now time.Time, d time.Duration) *deadlineCtx {
	c, _ := deadlinePool.Get().(*deadlineCtx)
	if c == nil {
		c = &deadlineCtx{done: make(chan struct{})}
		c.timer = time.AfterFunc(time.Hour, c.expire)
		c.timer.Stop()
	}
	c.parent = parent
	c.deadline = now.Add(d)
	if pd, ok := parent.Deadline(); ok && pd.Before(c.deadline) {
		c.deadline = pd
	}
	c.timer.Reset(d)
	if parent.Done() != nil {
		c.stopParent = context.AfterFunc(parent, c.parentDone)
	}
	return c
}

// release ends the context. It is recycled only when neither its timer nor
// the watch on its parent has fired (nor can fire any more), so its channel
// is still open and nothing refers to it.
func (c *deadlineCtx) release() {
	stopped := c.timer.Stop()
	if c.stopParent != nil {
		stopped = c.stopParent() && stopped
	}
	c.mu.Lock()
	derived := c.children != nil
	c.mu.Unlock()
	if !stopped || derived {
		c.finish(context.Canceled) // like a CancelFunc; no-op when already done
		return
	}
	c.parent, c.stopParent = nil, nil
	deadlinePool.Put(c)
}

func (c *deadlineCtx) expire()     { c.finish(context.DeadlineExceeded) }
func (c *deadlineCtx) parentDone() { c.finish(c.parent.Err()) }

func (c *deadlineCtx) finish(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		close(c.done)
		if c.cancelChildren != nil {
			c.cancelChildren()
		}
	}
	c.mu.Unlock()
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
