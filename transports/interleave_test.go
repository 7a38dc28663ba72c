package transports

import (
	"slices"
	"testing"
	"time"
)

// interleave measures two paths in alternating turns of block calls each,
// the first turn of each round alternating too, and reports the ratio of
// their median turns as metric: two paths measured seconds apart on a
// shared machine differ by the machine's load as much as by their code
// (the command and HTTP ratios read 1.16x and 1.32x in one report, 0.92x
// and 1.02x in others, with no change to either path).
func interleave(b *testing.B, metric string, block int, path, floor func()) {
	var turns [2][]float64
	calls := [2]func(){path, floor}
	round := 0
	for b.Loop() {
		for k := range 2 {
			i := (round + k) % 2
			start := time.Now()
			for range block {
				calls[i]()
			}
			turns[i] = append(turns[i], float64(time.Since(start))/float64(block))
		}
		round++
	}
	b.ReportMetric(median(turns[0])/median(turns[1]), metric)
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	return vs[len(vs)/2]
}
