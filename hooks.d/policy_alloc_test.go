package hooksd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/luabind"
)

// TestEveryShippedPolicyAllocatesNothingBeyondTheFloor: each shipped policy's
// typical call (shippedCases), fired through the runner as a host fires it,
// allocates no more than the lean floor on the same payload: a hook that
// only reads its input (and returns what it builds from the stock, as
// session-context's context) adds no allocation of its own. Counts are
// checked without the race detector (its sync.Pool drops what is put back;
// .ci/run runs this test without it).
func TestEveryShippedPolicyAllocatesNothingBeyondTheFloor(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range shippedCases() {
		floorFile := "floor-" + c.name + ".lua"
		if err := os.WriteFile(filepath.Join(dir, floorFile), []byte(c.floor), 0o644); err != nil {
			t.Fatal(err)
		}
		var allocs [2]float64
		for i, file := range []string{floorFile, c.file} {
			store := luabind.NewStore()
			r := policyRunner(t, dir, store, file)
			in := c.in
			fire := func() {
				if res := r.Fire(ctx, &in); res.Denied() || len(res.Trace) == 0 || res.Trace[0].Failure != nil {
					t.Fatalf("%s: denied or failed: %s %+v", file, res.Reason, res.Trace)
				}
			}
			fire()
			// under the rate limit's 60 calls a session: 1 + 50
			allocs[i] = testing.AllocsPerRun(50, fire)
		}
		if allocs[1] > allocs[0] && !raceEnabled {
			t.Errorf("%s: %v allocations per call, the floor %v", c.name, allocs[1], allocs[0])
		}
	}
}
