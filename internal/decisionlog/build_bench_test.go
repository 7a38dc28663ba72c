package decisionlog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// BenchmarkRecord measures the writer's work for one record: capture's
// copy, masking, the digest and the JSON line.
func BenchmarkRecord(b *testing.B) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Cwd: "/home/dev/project", SessionID: "sess-4f2a",
		ToolInput: json.RawMessage(`{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"}`)}
	res := &runner.Result{Event: luahook.PreToolUse, Trace: []runner.HookTrace{{Name: "guard", Source: "/x/hooks.d/10-guard.lua:1",
		Kind: luahook.KindLua, Version: "sha256:7e4614cf41d9f699c8ffa564797131abc87b98b0f0e4546c51eceaf32aa9083c", Duration: time.Microsecond}}}
	m := &masker{with: DefaultMaskWith, secrets: true}
	var bld builder
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		p := capture(in, res, DefaultMaxInputBytes)
		rec := bld.record(p, m)
		p.release()
		buf = AppendLine(buf[:0], rec)
	}
}

// BenchmarkCapture measures what a decision pays for the log when the
// record is queued: the copy of its payload and result (queueing is one
// channel send more).
func BenchmarkCapture(b *testing.B) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Cwd: "/home/dev/project", SessionID: "sess-4f2a",
		ToolInput: json.RawMessage(`{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"}`)}
	res := &runner.Result{Event: luahook.PreToolUse, Trace: []runner.HookTrace{{Name: "guard", Kind: luahook.KindLua}}}
	b.ReportAllocs()
	for b.Loop() {
		capture(in, res, DefaultMaxInputBytes).release()
	}
}
