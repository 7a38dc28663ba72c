package ledger_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

// oneByOne hides the in-process store's LedgerCounts: a ledger over it
// runs the generic code a Get, Set or Incr at a time, each under its own
// lock.
type oneByOne struct{ store.Backend }

// BenchmarkCounts measures what the budget pack asks of the ledger on a
// shell call (two counters counted, one read, the last two calls read) and
// what floor-ledger asks (one count), over the in-process store, whole
// through its LedgerCounts ("whole") and a call at a time ("one-by-one").
// A session takes 20 calls, as in BenchmarkPack (over 2000 sessions in
// turn, so that the store's keys stay bounded).
func BenchmarkCounts(b *testing.B) {
	ops := []ledger.CountOp{{Name: "budget:tool-calls", Delta: 1}, {Name: "budget:start-ms"},
		{Name: "budget:shell-commands", Delta: 1}}
	for _, kind := range []string{"whole", "one-by-one"} {
		for _, what := range []string{"counts", "count"} {
			b.Run(kind+"/"+what, func(b *testing.B) {
				s := luabind.NewStore()
				b.Cleanup(s.Close)
				var backend store.Backend = s
				if kind == "one-by-one" {
					backend = oneByOne{s}
				}
				lg := ledger.New(backend, ledger.Limits{})
				ctx := context.Background()
				n, session := 0, "bench-0"
				b.ReportAllocs()
				for b.Loop() {
					if n++; n%20 == 0 {
						session = "bench-" + strconv.Itoa(n/20%2000) // the store keeps every session
					}
					var err error
					if what == "counts" {
						_, _, err = lg.Counts(ctx, session, ops, 2)
					} else {
						_, err = lg.Count(ctx, session, "floor:calls", 0, 1)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
