package hooksd_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/luabind"
)

func BenchmarkExp(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob("/tmp/var/*.lua")
	sort.Strings(files)
	in := shippedCases()[1].in
	mk := func(b *testing.B, f string) func() {
		src, _ := os.ReadFile(f)
		name := "exp-" + filepath.Base(f)
		os.WriteFile(filepath.Join(dir, name), src, 0o644)
		r := policyRunner(b, dir, luabind.NewStore(), name)
		ctx := context.Background()
		return func() {
			res := r.Fire(ctx, &in)
			if res.Denied || res.Trace[0].Failure != nil {
				b.Fatal(res.Trace[0].Failure)
			}
		}
	}
	for _, f := range files {
		if filepath.Base(f) == "floor.lua" {
			continue
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			calls := [2]func(){mk(b, "/tmp/var/floor.lua"), mk(b, f)}
			var turns [2][]float64
			round := 0
			for b.Loop() {
				for k := range calls {
					i := (round + k) % 2
					start := time.Now()
					for range policyBlock {
						calls[i]()
					}
					turns[i] = append(turns[i], float64(time.Since(start))/policyBlock)
				}
				round++
			}
			b.ReportMetric(median(turns[1])/median(turns[0]), "x_floor")
			b.ReportMetric(median(turns[1])-median(turns[0]), "ns_extra")
		})
	}
}
