package luabind_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/runner"
)

// The deny path through FireInto with a recycled Result allocates what it
// returns and nothing more: a reason built per call (its bytes and its box
// as a Lua string). The Outcome is written into the trace's entry
// (luahook.PreparedInto); the payload's tables, hook.deny's table,
// string.find's positions and the payload's numbers all come from what the
// state kept of earlier calls.
func TestDenyPathFireIntoAllocatesOnlyWhatItReturns(t *testing.T) {
	want := map[string]float64{"Constant": 0, "Concat": 2}
	for _, c := range denyCases {
		if n, ok := want[c.name]; ok {
			checkAllocs(t, c.name+" reason", c.src, n, func(res *runner.Result) bool { return denied(res, c.reason) })
		}
	}
}

// The mutate path through FireInto allocates its input's JSON text and the
// rewritten command (its bytes and its box): the Outcome is the trace
// entry's, hook.mutate's table comes from the stock, and the rewrite is
// told apart from the payload's text without decoding either.
func TestMutatePathFireIntoAllocatesOnlyWhatItReturns(t *testing.T) {
	checkAllocs(t, "hook.mutate", mutateCases[0].src, 3, mutated)
}

// checkAllocs fires denyInput at the hook src registers through FireInto
// and fails when a call allocates more than n times. Counts are checked
// without the race detector (its sync.Pool drops what is put back) and on
// gopher-lua's known table layout (codec.DirectTables).
func checkAllocs(t *testing.T, name, src string, n float64, ok func(*runner.Result) bool) {
	t.Helper()
	ctx := context.Background()
	in := denyInput()
	r := luaRunnerOf(t, src)
	var res runner.Result
	fire := func() { r.FireInto(ctx, in, &res) }
	if fire(); !ok(&res) {
		t.Fatalf("%s: %+v", name, res)
	}
	got := testing.AllocsPerRun(200, fire)
	if !ok(&res) {
		t.Fatalf("%s: %+v", name, res)
	}
	if got > n && !luabind.RaceEnabled && codec.DirectTables {
		t.Errorf("%s: %v allocations per call, want at most %v", name, got, n)
	}
}
