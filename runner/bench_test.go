package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

func benchRig(b *testing.B) (*Runner, *registry.Registry) {
	reg := registry.New()
	r := New(Options{Registry: reg})
	b.Cleanup(r.Close)
	return r, reg
}

func mustRegister(b *testing.B, reg *registry.Registry, spec luahook.Spec) {
	if _, err := reg.Register(spec); err != nil {
		b.Fatal(err)
	}
}

// benchBash is a typical bash tool call as a host sends it.
var benchBash = &luahook.Input{
	Event:            luahook.PreToolUse,
	ToolName:         "bash",
	ToolInput:        json.RawMessage(`{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"}`),
	ToolCapabilities: []string{"exec", "network"},
	Cwd:              "/home/dev/project",
	SessionID:        "sess-4f2a",
}

// rmGuard is the Go policy of the benchmarks: decode the command, refuse rm -rf.
func rmGuard(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(in.ToolInput, &args); err != nil {
		return nil, err
	}
	if strings.Contains(args.Command, "rm -rf") {
		return luahook.Deny("rm -rf is not allowed"), nil
	}
	return nil, nil
}

func BenchmarkHas(b *testing.B) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Hook: luahook.HookFunc(rmGuard)})
	b.ReportAllocs()
	for b.Loop() {
		r.Has(luahook.PreToolUse)
		r.Has(luahook.PostToolUse)
	}
}

func BenchmarkPreToolUseNoHooks(b *testing.B) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PostToolUse, Hook: luahook.HookFunc(rmGuard)})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r.PreToolUse(ctx, benchBash)
	}
}

func BenchmarkPostToolUseNoHooks(b *testing.B) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Hook: luahook.HookFunc(rmGuard)})
	in := &luahook.Input{ToolName: "bash", ToolResult: &luahook.ToolResult{Content: "ok"}, SessionID: "s"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r.PostToolUse(ctx, in)
	}
}

func BenchmarkPreToolUseOneGoHook(b *testing.B) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Stage: luahook.StageValidate, Hook: luahook.HookFunc(rmGuard)})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.PreToolUse(ctx, benchBash); res.Denied() {
			b.Fatal(res.Reason)
		}
	}
}

// BenchmarkPreToolUseOneBoundHook is the same policy on the caller's
// goroutine: the path of Lua, command and HTTP hooks.
func BenchmarkPreToolUseOneBoundHook(b *testing.B) {
	r, reg := benchRig(b)
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Stage: luahook.StageValidate, Hook: bound(rmGuard)})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.PreToolUse(ctx, benchBash); res.Denied() {
			b.Fatal(res.Reason)
		}
	}
}

func BenchmarkPreToolUseTenHooksOneMatches(b *testing.B) {
	r, reg := benchRig(b)
	for i := range 9 {
		mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: fmt.Sprintf("edit%d|write%d", i, i), Hook: luahook.HookFunc(rmGuard)})
	}
	mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Hook: luahook.HookFunc(rmGuard)})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.PreToolUse(ctx, benchBash); len(res.Trace) != 1 {
			b.Fatalf("%d hooks ran", len(res.Trace))
		}
	}
}

func BenchmarkPostToolUseFanOut4(b *testing.B) {
	r, reg := benchRig(b)
	for i := range 4 {
		text := fmt.Sprint("context ", i)
		mustRegister(b, reg, luahook.Spec{Event: luahook.PostToolUse, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			return luahook.Context(text), nil
		})})
	}
	in := &luahook.Input{ToolName: "bash", ToolInput: benchBash.ToolInput, ToolResult: &luahook.ToolResult{Content: "PASS"}, Cwd: "/p", SessionID: "s"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.PostToolUse(ctx, in); res.AdditionalContext == "" {
			b.Fatal("no context")
		}
	}
}

// BenchmarkPreToolUseNonMatching: 0, 10 and 100 hooks on PreToolUse, none of
// which matches the tool. (hooks=N - hooks=0) / N is what each non-matching
// hook costs a call; hooks=0 is the empty path.
func BenchmarkPreToolUseNonMatching(b *testing.B) {
	for _, n := range []int{0, 10, 100} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			r, reg := benchRig(b)
			mustRegister(b, reg, luahook.Spec{Event: luahook.PostToolUse, Hook: luahook.HookFunc(rmGuard)})
			for i := range n {
				mustRegister(b, reg, luahook.Spec{Event: luahook.PreToolUse, Matcher: fmt.Sprintf("edit%d|write%d", i, i), Hook: luahook.HookFunc(rmGuard)})
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res := r.PreToolUse(ctx, benchBash); res.Trace != nil {
					b.Fatal("a hook ran")
				}
			}
		})
	}
}
