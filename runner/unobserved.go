package runner

import (
	"context"

	"github.com/luahook/luahook"
)

// FireUnobserved is FireInto without the decision observer: for a caller
// that records the decision itself once it knows what was answered with
// it (the pipeline every door takes writes the decision log's record
// after rendering, so that the record says what the agent received).
func (r *Runner) FireUnobserved(ctx context.Context, in *luahook.Input, res *Result) {
	buf := res.Trace[:0]
	*res = r.fire(ctx, in, buf)
	if res.Trace == nil {
		res.Trace = buf
	}
}
