// Package hostcall carries what a host function learns of the hook call
// that called it: the luabind bridge puts a Call in the context it passes
// to a host function, and package host reads it back. It is internal so
// that only the bridge can make one.
package hostcall

import (
	"context"
	"sync"

	"github.com/luahook/luahook"
)

// Call is one hook call, as the host functions it calls see it.
type Call struct {
	// Hook is the name of the hook being called, File the hook file.
	Hook, File string
	// Input is the payload the hook was called with: the host functions'
	// own copy, theirs to read for as long as they run.
	Input *luahook.Input

	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

type ctxKey struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// From returns the call ctx carries, or nil.
func From(ctx context.Context) *Call {
	c, _ := ctx.Value(ctxKey{}).(*Call)
	return c
}

// Memo returns fn's result under key, running fn at most once per call:
// the first caller runs it, later callers (and callers that arrive while it
// runs) get its result, error included.
func (c *Call) Memo(key string, fn func() (any, error)) (any, error) {
	c.mu.Lock()
	if c.memo == nil {
		c.memo = make(map[string]*memoEntry)
	}
	e, ok := c.memo[key]
	if !ok {
		e = &memoEntry{}
		c.memo[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fn() })
	return e.v, e.err
}
