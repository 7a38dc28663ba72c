package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func postInput(content string) *luahook.Input {
	return &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"env"}`),
		ToolResult: &luahook.ToolResult{Content: content}, Cwd: "/tmp", SessionID: "s1"}
}

const secretOutput = "HOME=/home/dev\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\nAWS=AKIAIOSFODNN7EXAMPLE\n"

func TestTheMutateStageChainsEachHookOnTheOutputThePreviousLeft(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var saw []string
	see := func(name string, out func(string) *luahook.Outcome) luahook.HookFunc {
		return func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			mu.Lock()
			saw = append(saw, name+": "+in.ToolResult.Content)
			mu.Unlock()
			return out(in.ToolResult.Content), nil
		}
	}
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "tokens", Stage: luahook.StageMutate,
		Hook: see("tokens", func(string) *luahook.Outcome {
			return luahook.Redact(luahook.Redaction{Pattern: `ghp_[A-Za-z0-9]{36}`, Label: "a GitHub token"})
		})})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "fence", Stage: luahook.StageMutate,
		Hook: see("fence", func(c string) *luahook.Outcome {
			raw, _ := json.Marshal("<output>\n" + c + "</output>")
			return luahook.ReplaceOutput(raw)
		})})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "after", Hook: see("after", func(string) *luahook.Outcome { return nil })})
	in := postInput(secretOutput)
	res := g.r.PostToolUse(context.Background(), in)
	if len(saw) != 3 || !strings.HasPrefix(saw[0], "tokens: ") || !strings.Contains(saw[1], "fence: HOME=/home/dev\nGITHUB_TOKEN=[redacted: a GitHub token]") ||
		!strings.HasPrefix(saw[2], "after: <output>") {
		t.Fatalf("the hooks saw, in order:\n%s", strings.Join(saw, "\n"))
	}
	want := "<output>\nHOME=/home/dev\nGITHUB_TOKEN=[redacted: a GitHub token]\nAWS=AKIAIOSFODNN7EXAMPLE\n</output>"
	if res.Output == nil || res.Output.Content != want {
		t.Fatalf("Output = %+v, want content %q", res.Output, want)
	}
	if in.ToolResult.Content != secretOutput {
		t.Fatal("the chain wrote through the caller's payload")
	}
	if o := res.Outcome(); o.Action != luahook.ActionReplaceOutput || !strings.Contains(string(o.Output), "[redacted: a GitHub token]") || !strings.Contains(o.Reason, "a GitHub token") {
		t.Fatalf("Outcome = %+v", o)
	}
}

func TestParallelRewritesApplyInRegistrationOrderNotFinishingOrder(t *testing.T) {
	for _, slowFirst := range []bool{true, false} {
		g := newRig(t, Options{})
		hook := func(slow bool, out *luahook.Outcome) bound {
			return func(ctx context.Context, _ *luahook.Input) (*luahook.Outcome, error) {
				if slow {
					select {
					case <-time.After(30 * time.Millisecond):
					case <-ctx.Done():
					}
				}
				return out, nil
			}
		}
		g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "first", Hook: hook(slowFirst, luahook.ReplaceOutput(json.RawMessage(`"first"`)))})
		g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "second", Hook: hook(!slowFirst, luahook.ReplaceOutput(json.RawMessage(`"second"`)))})
		res := g.r.PostToolUse(context.Background(), postInput("x"))
		if res.Output == nil || res.Output.Content != "second" {
			t.Fatalf("slow first %v: Output = %+v, want the later registration's", slowFirst, res.Output)
		}
	}
}

func TestAFailClosedOutputHookThatFailsWithholdsTheOutput(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "scanner", FailurePolicy: luahook.FailClosed,
		Hook: fixedErr(errors.New("scanner crashed"))})
	res := g.r.PostToolUse(context.Background(), postInput(secretOutput))
	if res.Output == nil || !res.Output.Replaced || strings.Contains(res.Output.Content, "ghp_") ||
		!strings.Contains(res.Output.Content, `the hook "scanner", which checks it and fails closed, failed`) {
		t.Fatalf("Output = %+v", res.Output)
	}
	// fail open: the tool's output stands
	g2 := newRig(t, Options{})
	g2.add(luahook.Spec{Event: luahook.PostToolUse, Name: "scanner", Hook: fixedErr(errors.New("scanner crashed"))})
	if res := g2.r.PostToolUse(context.Background(), postInput(secretOutput)); res.Output != nil {
		t.Fatalf("a fail-open hook's failure rewrote the output: %+v", res.Output)
	}
}

func TestARewriteThatCannotBeAppliedWithholdsTheOutput(t *testing.T) {
	g := newRig(t, Options{})
	end := 10_000
	start := 1
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "spans", Hook: fixed(luahook.Redact(luahook.Redaction{Start: &start, End: &end}))})
	res := g.r.PostToolUse(context.Background(), postInput(secretOutput))
	if res.Output == nil || !strings.Contains(res.Output.Content, "could not be applied") || res.Trace[0].Failure == nil {
		t.Fatalf("Output = %+v, trace %+v", res.Output, res.Trace[0])
	}
}

func TestShadowAndBackgroundHooksNeverRewriteTheOutput(t *testing.T) {
	g := newRig(t, Options{})
	red := luahook.Redact(luahook.Redaction{Text: "ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "shadow", Mode: luahook.ModeShadow, Hook: fixed(red)})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "bg", Background: true, Hook: fixed(red)})
	res := g.r.PostToolUse(context.Background(), postInput(secretOutput))
	g.waitBackground()
	if res.Output != nil {
		t.Fatalf("Output = %+v", res.Output)
	}
}

func TestACutOutputIsAnsweredCutEvenWithoutARewrite(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "looks"})
	in := postInput("head" + luahook.CutMarker(1234))
	in.ToolResult.Cut = 1234
	res := g.r.PostToolUse(context.Background(), in)
	if res.Output == nil || res.Output.Content != in.ToolResult.Content {
		t.Fatalf("Output = %+v", res.Output)
	}
}

func TestTracesAndRenderingsNeverShowARedactedText(t *testing.T) {
	g := newRig(t, Options{})
	g.add(luahook.Spec{Event: luahook.PostToolUse, Name: "lit", Hook: fixed(luahook.Redact(luahook.Redaction{Text: "AKIAIOSFODNN7EXAMPLE", Label: "an AWS key"}))})
	res := g.r.PostToolUse(context.Background(), postInput(secretOutput))
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "AKIAIOSFODNN7EXAMPLE") {
		t.Fatalf("the result's JSON carries the secret: %s", raw)
	}
	for _, opts := range []TraceOptions{{}, {OutcomeJSON: true}} {
		var b strings.Builder
		if err := res.RenderTrace(&b, opts); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(b.String(), "an AWS key") {
			t.Fatalf("the rendered trace (%+v):\n%s", opts, b.String())
		}
	}
}

func fixedErr(err error) luahook.HookFunc {
	return func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, err }
}
