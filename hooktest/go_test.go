package hooktest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
)

// answer returns a Go hook that always answers o.
func answer(o *luahook.Outcome) luahook.Hook {
	return luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return o, nil })
}

// goFactory builds in-process Go hooks (luahook.HookFunc). They do not
// implement luahook.ContextBound, so the runner runs them on their own
// goroutine; the Hang hook ignores its context altogether, and the Crash
// hook panics.
func goFactory(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
	switch b {
	case hooktest.Allow:
		return answer(luahook.Allow())
	case hooktest.NoObjection:
		return answer(nil)
	case hooktest.Deny:
		return answer(luahook.Deny(hooktest.DenyReason))
	case hooktest.MutateEcho:
		return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			return luahook.Mutate(in.ToolInput), nil
		})
	case hooktest.AddContext:
		return answer(&luahook.Outcome{AdditionalContext: hooktest.ContextText, ContextAs: luahook.ContextSeparate})
	case hooktest.EchoPayload:
		return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			data, err := json.Marshal(in)
			if err != nil {
				return nil, err
			}
			return luahook.Context(string(data)), nil
		})
	case hooktest.VerifyRepeat:
		return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			var ri hooktest.RepeatInput
			if err := json.Unmarshal(in.ToolInput, &ri); err != nil {
				return nil, err
			}
			if why := ri.Check(); why != "" {
				return luahook.Deny(why), nil
			}
			return luahook.Context(ri.Block), nil
		})
	case hooktest.Hang:
		release := make(chan struct{})
		tb.Cleanup(func() { close(release) }) // lets the abandoned goroutine end with the test
		return luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			<-release
			return nil, nil
		})
	case hooktest.InvalidOutput:
		return answer(luahook.Mutate(json.RawMessage("hooktest: not json")))
	case hooktest.UnknownAction:
		return answer(&luahook.Outcome{Action: "block"})
	case hooktest.DenyWithoutReason:
		return answer(&luahook.Outcome{Action: luahook.ActionDeny})
	case hooktest.ArrayOutput:
		return answer(luahook.Mutate(json.RawMessage(`[{"action":"deny","reason":"` + hooktest.DenyReason + `"}]`)))
	case hooktest.Ask:
		return answer(luahook.Ask(hooktest.AskReason))
	case hooktest.Continue:
		return answer(luahook.Continue(hooktest.ContinueReason))
	case hooktest.RedactOutput:
		return answer(hooktest.RedactOutcome())
	case hooktest.ReplaceOutput:
		return answer(hooktest.ReplaceOutcome())
	case hooktest.Approve:
		return answer(hooktest.ApproveOutcome())
	case hooktest.Crash:
		return luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
			panic("hooktest: crash")
		})
	}
	tb.Fatalf("no Go hook for behaviour %s", b)
	return nil
}

func TestGoHooksKeepTheContract(t *testing.T) {
	hooktest.Run(t, goFactory, hooktest.Options{Kind: luahook.KindGo})
}

func BenchmarkGoHook(b *testing.B) {
	hooktest.Benchmark(b, goFactory, hooktest.Options{Kind: luahook.KindGo})
}
