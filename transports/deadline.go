package transports

import (
	"context"
	"fmt"
	"time"

	"github.com/luahook/luahook"
)

// contextFailure reports a call that its context stopped
// (luahook.ContextFailure): "timed out after <ms>ms", the budget the call
// had when it started at start, or "hook invocation aborted" with the
// cancellation's cause.
func contextFailure(ctx context.Context, who string, start time.Time) *luahook.Failure {
	timedOut := "timed out"
	if d, ok := ctx.Deadline(); ok {
		if b := d.Sub(start).Round(time.Millisecond); b > 0 {
			timedOut = fmt.Sprintf("timed out after %dms", b.Milliseconds())
		} else {
			timedOut = "timed out before it started: the deadline had already passed"
		}
	}
	cancelled := "hook invocation aborted"
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		cancelled += ": " + cause.Error()
	}
	return luahook.ContextFailure(ctx, who+": "+timedOut, who+": "+cancelled)
}
