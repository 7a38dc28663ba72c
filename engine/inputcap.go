package engine

import (
	"context"
	"sync/atomic"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/config"
)

// maxInputBytes returns the cap on hook input: the option, else the
// config's, else the default; negative means none.
func maxInputBytes(opt, cfg int) int {
	switch {
	case opt != 0:
		return opt
	case cfg != 0:
		return cfg
	}
	return config.DefaultMaxInputBytes
}

// cappedHook refuses a payload over the engine's input cap before a command
// or HTTP hook is called with it: a child process or an endpoint has no use
// for a payload that a Lua hook would refuse, and the refusal must not
// depend on the transport. Lua hooks apply the same cap themselves
// (luabind.Options.MaxInputBytes).
type cappedHook struct {
	hook  luahook.Hook
	limit *atomic.Int64
}

var (
	_ luahook.Hook         = (*cappedHook)(nil)
	_ luahook.ContextBound = (*cappedHook)(nil)
	_ closer               = (*cappedHook)(nil)
)

// Call refuses an over-cap payload with a FailRejected failure, and calls
// the hook with any other.
func (c *cappedHook) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	if limit := c.limit.Load(); limit > 0 && in != nil {
		if n := in.Size(); int64(n) > limit {
			return nil, luahook.Failf(luahook.FailRejected,
				"the payload is %d bytes, over the cap of %d bytes on hook input (max_input_bytes)", n, limit)
		}
	}
	return c.hook.Call(ctx, in)
}

// BoundByContext reports whether the wrapped hook is.
func (c *cappedHook) BoundByContext() bool {
	cb, ok := c.hook.(luahook.ContextBound)
	return ok && cb.BoundByContext()
}

// ScopedToCall reports whether the wrapped hook is.
func (c *cappedHook) ScopedToCall() bool {
	s, ok := c.hook.(luahook.CallScoped)
	return ok && s.ScopedToCall()
}

// Close closes the wrapped transport, if it holds resources.
func (c *cappedHook) Close() {
	if cl, ok := c.hook.(closer); ok {
		cl.Close()
	}
}
