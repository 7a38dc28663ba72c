package server

import (
	"container/list"
	"context"
	"sync"
)

// budget is a weighted semaphore served in arrival order: a large
// reservation at the head of the queue is not overtaken by smaller ones
// behind it, so no request waits forever.
type budget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters list.List // of *budgetWaiter, oldest first
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once n is granted
}

func newBudget(size int64) *budget { return &budget{size: size} }

// tryAcquire reserves n (at most the budget's size) when it is free and
// nobody waits in line before it, and reports whether it did.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	ok := b.size-b.used >= n && b.waiters.Len() == 0
	if ok {
		b.used += n
	}
	b.mu.Unlock()
	return ok
}

// acquire reserves n (at most the budget's size), waiting in line until it
// is free or ctx is done.
func (b *budget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if b.size-b.used >= n && b.waiters.Len() == 0 {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	elem := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted as the wait ended: give it back.
			b.used -= n
		default:
			b.waiters.Remove(elem)
		}
		b.grant()
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release gives back n reserved by acquire.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.grant()
	b.mu.Unlock()
}

// inUse returns what is reserved now.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// grant serves the waiters at the head of the line that now fit.
func (b *budget) grant() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if b.size-b.used < w.n {
			return
		}
		b.used += w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}
