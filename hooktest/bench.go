package hooktest

import (
	"context"
	"testing"

	"github.com/luahook/luahook"
)

// benchBehaviours are the answers Benchmark measures: the smallest round
// trip, and one that carries the tool input there and back.
var benchBehaviours = [...]Behaviour{Allow, MutateEcho}

// Benchmark measures one PreToolUse call through a runner whose only hook
// is built by f, for a few behaviours, each as a sub-benchmark. It reports
// allocations, so that transports can be compared with -benchmem.
func Benchmark(b *testing.B, f Factory, opts Options) {
	s := &suite{factory: f, opts: opts.withDefaults()}
	for _, bh := range benchBehaviours {
		b.Run(bh.String(), func(b *testing.B) {
			g := s.rig(b, bh, luahook.Spec{Event: luahook.PreToolUse})
			in := payloadFor(luahook.PreToolUse, b.TempDir())
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res := g.runner.PreToolUse(ctx, in)
				if len(res.Trace) != 1 || res.Trace[0].Failure != nil || res.Denied() {
					b.Fatalf("the %s hook did not answer: %+v", bh, res)
				}
			}
		})
	}
}
