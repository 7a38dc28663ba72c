package luabind_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/runner"
)

// The deny path through FireInto with a recycled Result allocates what it
// returns and nothing more: the Outcome in the trace (one allocation), and
// a reason built per call (its bytes and its box as a Lua string). The
// payload's tables, hook.deny's table, string.find's positions and the
// payload's numbers all come from what the state kept of earlier calls.
// (Counts are checked without the race detector, whose sync.Pool drops
// what is put back, and on gopher-lua's known table layout.)
func TestDenyPathFireIntoAllocatesOnlyWhatItReturns(t *testing.T) {
	want := map[string]float64{"Constant": 1, "Concat": 3}
	ctx := context.Background()
	in := denyInput()
	for _, c := range denyCases {
		n, ok := want[c.name]
		if !ok {
			continue
		}
		r := luaRunnerOf(t, c.src)
		var res runner.Result
		if r.FireInto(ctx, in, &res); !denied(&res, c.reason) {
			t.Fatalf("%s: %+v", c.name, res)
		}
		if got := testing.AllocsPerRun(200, func() { r.FireInto(ctx, in, &res) }); got > n && !luabind.RaceEnabled && codec.DirectTables {
			t.Errorf("%s reason: %v allocations per call, want at most %v", c.name, got, n)
		}
		if !denied(&res, c.reason) {
			t.Fatalf("%s: %+v", c.name, res)
		}
	}
}
