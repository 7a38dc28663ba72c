package server

import (
	"sync"

	"github.com/luahook/luahook/runner"
)

// maxPooledTrace is the longest trace array a recycled Result keeps.
const maxPooledTrace = 64

// resultPool recycles the Results of answered hook requests. A Result is
// put back only after the answer is written and every reader in the request
// (metrics, the debug log, the shadow set's offer, which copies what it
// compares) is done with it; the decision log copies what it keeps while
// the Result is being filled.
type resultPool struct{ p sync.Pool }

func (rp *resultPool) get() *runner.Result {
	if res, ok := rp.p.Get().(*runner.Result); ok {
		return res
	}
	return new(runner.Result)
}

// put keeps res's trace array, cleared so that it holds on to no outcome,
// for the next request.
func (rp *resultPool) put(res *runner.Result) {
	if cap(res.Trace) > maxPooledTrace {
		return
	}
	clear(res.Trace)
	*res = runner.Result{Trace: res.Trace[:0]}
	rp.p.Put(res)
}
