package transports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/luahook/luahook"
)

// contextFailure classifies a call that its context stopped: a passed deadline
// is FailTimeout ("timed out after <ms>ms", the budget the call had when it
// started at start), anything else, a caller that cancelled, is FailAborted.
func contextFailure(ctx context.Context, who string, start time.Time) *luahook.Failure {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		msg := "timed out"
		if d, ok := ctx.Deadline(); ok {
			if b := d.Sub(start).Round(time.Millisecond); b > 0 {
				msg = fmt.Sprintf("timed out after %dms", b.Milliseconds())
			} else {
				msg = "timed out before it started: the deadline had already passed"
			}
		}
		return &luahook.Failure{Kind: luahook.FailTimeout, Message: who + ": " + msg, Err: err}
	}
	msg := "hook invocation aborted"
	if cause := context.Cause(ctx); cause != nil && cause != err {
		msg += ": " + cause.Error()
	}
	return &luahook.Failure{Kind: luahook.FailAborted, Message: who + ": " + msg, Err: err}
}
