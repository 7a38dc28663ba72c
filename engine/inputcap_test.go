package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

// recordingHook is a context-bound transport that holds a connection pool.
type recordingHook struct {
	calls  int
	closed bool
}

func (h *recordingHook) Call(context.Context, *luahook.Input) (*luahook.Outcome, error) {
	h.calls++
	return nil, nil
}
func (h *recordingHook) BoundByContext() bool { return true }
func (h *recordingHook) Close()               { h.closed = true }

func TestCappedHookRefusesOverCapInputAndKeepsTheTransportsInterfaces(t *testing.T) {
	inner := &recordingHook{}
	var limit atomic.Int64
	c := &cappedHook{hook: inner, limit: &limit}
	in := &luahook.Input{Event: luahook.PreToolUse, ToolInput: json.RawMessage(`{"command":"0123456789"}`)}
	tests := []struct {
		name  string
		limit int64
		ran   bool
	}{
		{"under the cap", 1 << 10, true},
		{"over the cap", 10, false},
		{"no cap", -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit.Store(tt.limit)
			before := inner.calls
			_, err := c.Call(context.Background(), in)
			if ran := inner.calls > before; ran != tt.ran {
				t.Errorf("the transport ran: %v, want %v", ran, tt.ran)
			}
			var f *luahook.Failure
			if !tt.ran && (!errors.As(err, &f) || f.Kind != luahook.FailRejected) {
				t.Errorf("error %v, want a rejection", err)
			}
		})
	}
	if !c.BoundByContext() {
		t.Error("the wrapper hides BoundByContext")
	}
	c.Close()
	if !inner.closed {
		t.Error("the wrapper does not close the transport")
	}
}

func BenchmarkCappedHookCall(b *testing.B) {
	var limit atomic.Int64
	limit.Store(8 << 20)
	c := &cappedHook{hook: &recordingHook{}, limit: &limit}
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls -la"}`),
		Cwd: "/work", SessionID: "s1", ToolCapabilities: []string{"exec", "read"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c.Call(ctx, in)
	}
}
