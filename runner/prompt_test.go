package runner

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
)

func TestUserPromptSubmitDenyEndsTheTurnAndDropsContext(t *testing.T) {
	g := newRig(t, Options{})
	var later atomic.Int32
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "ctx", Hook: fixed(luahook.Context("collected"))})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "guard", Hook: fixed(&luahook.Outcome{Action: luahook.ActionDeny, Reason: "secrets in prompt", AdditionalContext: "also dropped"})})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Name: "later", Hook: counting(&later, nil)})
	res := g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "my key is sk-123"})
	if !res.Denied() || res.Reason != "secrets in prompt" {
		t.Fatalf("denied=%v reason %q", res.Denied(), res.Reason)
	}
	if res.AdditionalContext != "" || res.ContextAs != "" {
		t.Errorf("context kept on a blocked prompt: %q %q", res.AdditionalContext, res.ContextAs)
	}
	if later.Load() != 0 || res.Trace[2].Skipped != SkipNotReached {
		t.Errorf("later hook called %d times, trace %+v", later.Load(), res.Trace[2])
	}
}

func TestUserPromptSubmitRunsSequentiallyJoinsContextsAndIgnoresMutate(t *testing.T) {
	g := newRig(t, Options{})
	var mu sync.Mutex
	var calls []string
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: recording(&mu, &calls, "1", luahook.Context("first"))})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: recording(&mu, &calls, "2", luahook.Mutate(json.RawMessage(`{"prompt":"x"}`)))})
	g.add(luahook.Spec{Event: luahook.UserPromptSubmit, Hook: recording(&mu, &calls, "3", &luahook.Outcome{Action: luahook.ActionAllow, AdditionalContext: "third"})})
	res := g.r.UserPromptSubmit(t.Context(), &luahook.Input{Prompt: "hello"})
	if !slices.Equal(calls, []string{"1", "2", "3"}) {
		t.Errorf("calls %v", calls)
	}
	if res.Denied() || res.Input != nil || res.AdditionalContext != "first\nthird" || res.ContextAs != luahook.ContextInline {
		t.Errorf("result %+v", res)
	}
}
