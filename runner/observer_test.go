package runner

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/luahook/luahook"
)

// The decision observer sees every decided event once, with the payload
// and the Result the caller gets, whichever method fired it; background
// hooks decide nothing and are not observed.
func TestOnDecisionSeesEveryDecidedEventOnce(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	observe := func(in *luahook.Input, res *Result) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, string(in.Event)+"/"+string(res.Event)+"/"+res.Reason)
	}
	g := newRig(t, Options{OnDecision: observe})
	g.add(luahook.Spec{Name: "deny", Event: luahook.PreToolUse, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return luahook.Deny("no"), nil
	})})
	g.add(luahook.Spec{Name: "late", Event: luahook.PostToolUse, Background: true, Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
		return nil, nil
	})})
	ctx := context.Background()
	pre := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: []byte(`{}`)}
	post := &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: []byte(`{}`)}
	var res Result
	g.r.Fire(ctx, pre)
	g.r.FireInto(ctx, pre, &res)
	g.r.PreToolUse(ctx, pre)
	g.r.Fire(ctx, post)
	g.r.UserPromptSubmit(ctx, &luahook.Input{Event: luahook.UserPromptSubmit})
	g.r.SessionStart(ctx, &luahook.Input{Event: luahook.SessionStart})
	g.r.Stop(ctx, &luahook.Input{Event: luahook.Stop})
	g.r.Observe(ctx, &luahook.Input{Event: luahook.Notification})
	g.waitBackground()
	want := []string{"PreToolUse/PreToolUse/no", "PreToolUse/PreToolUse/no", "PreToolUse/PreToolUse/no", "PostToolUse/PostToolUse/",
		"UserPromptSubmit/UserPromptSubmit/", "SessionStart/SessionStart/", "Stop/Stop/", "Notification/Notification/"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) {
		t.Errorf("observed %q, want %q", seen, want)
	}
}

func TestSetOnDecisionReplacesAndRemovesTheObserver(t *testing.T) {
	g := newRig(t, Options{})
	in := &luahook.Input{Event: luahook.Stop}
	var a, b int
	g.r.SetOnDecision(func(*luahook.Input, *Result) { a++ })
	g.r.Fire(context.Background(), in)
	g.r.SetOnDecision(func(*luahook.Input, *Result) { b++ })
	g.r.Fire(context.Background(), in)
	g.r.SetOnDecision(nil)
	g.r.Fire(context.Background(), in)
	if a != 1 || b != 1 {
		t.Errorf("first observer saw %d, second %d; want 1 and 1", a, b)
	}
}
