package decisionlog

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// BenchmarkChainCost writes a typical record (a 1 KiB payload, two hooks)
// to a Writer sink on io.Discard without the chain ("plain", the line
// alone) and with it ("chained": seq, log id, prev and the SHA-256 of the
// line), in the same run: the ratio chained/plain is what the chain adds
// on the writer's goroutine, per record.
//
//	go test -run '^$' -bench ChainCost -benchmem -benchtime 200ms ./internal/decisionlog
func BenchmarkChainCost(b *testing.B) {
	payload, _ := json.Marshal(map[string]any{"toolInput": map[string]string{"command": "git status && " + strings.Repeat("x", 1000)}})
	rec := &Record{Time: time.Now().UTC(), LuahookVersion: luahook.Version, Event: luahook.PreToolUse, ToolName: "Bash",
		InputDigest: digest(payload), Input: payload, SessionID: "0f6b2e9c-4d1a-4e0b-9a53-6f4c1d7e2b10",
		Hooks: []Hook{{Name: "guard", Source: "10-guard.lua:3", Kind: "lua", DurationMs: 0.012},
			{Name: "npm", Source: "10-guard.lua:12", Kind: "lua", DurationMs: 0.004}},
		Decision: Decision{Action: "allow", Outcome: &luahook.Outcome{Action: "allow"}}}
	for _, c := range []struct {
		name string
		sink Sink
	}{
		{"plain", &writerSink{w: io.Discard}},
		{"chained", Writer(io.Discard)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.sink.Write(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
