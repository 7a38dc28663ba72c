package runner

import (
	"context"

	"github.com/luahook/luahook"
)

// FireUnobserved is FireInto without the decision observer: for a caller
// that records the decision itself once it knows what was answered with
// it (the pipeline every door takes writes the decision log's record
// after rendering, so that the record says what the agent received). Like
// an observed decision it keeps a journal of its hooks' ledger calls
// (res.Ledger): the journal ctx carries, else one of its own.
func (r *Runner) FireUnobserved(ctx context.Context, in *luahook.Input, res *Result) {
	buf := res.Trace[:0]
	ctx, j := journaled(ctx)
	*res = r.fire(ctx, in, buf)
	if res.Trace == nil {
		res.Trace = buf
	}
	res.Ledger = j.Entries()
}
