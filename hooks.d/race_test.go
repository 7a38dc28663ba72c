//go:build race

package hooksd_test

// raceEnabled: the race detector makes sync.Pool drop what is put back at
// random, so allocation counts are checked only without it (.ci/run runs
// the allocation tests again without -race).
const raceEnabled = true
