package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/pipeline"
)

// answers collects what a Gate's Record receives.
type answers struct {
	mu  sync.Mutex
	got []pipeline.Answered
}

func (a *answers) record(ans *pipeline.Answered) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, *ans)
}

func (a *answers) list() []pipeline.Answered {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]pipeline.Answered(nil), a.got...)
}

// TestAnAgentBlockedForOverloadIsLogged: a request that waited in vain for
// its turn on an agent's route is answered with the agent's block signal,
// and that answer reaches the decision log (the gate's Record) with its
// cause; no hook ran for it.
func TestAnAgentBlockedForOverloadIsLogged(t *testing.T) {
	var log answers
	release, holding := make(chan struct{}), make(chan struct{})
	g := newRig(t, Options{Limits: Limits{MaxClientRequests: 1, ReadTimeout: 200 * time.Millisecond},
		FailClosed: FailClosed{Record: log.record}})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "slow", Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		if in.ToolName == "slow" {
			close(holding)
			<-release
		}
		return nil, nil
	})})
	var wg sync.WaitGroup
	wg.Go(func() {
		g.post("/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"slow","tool_input":{}}`)
	})
	select { // the slow request holds the client's only slot
	case <-holding:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the slow request never reached its hook")
	}
	code, body := g.post("/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	close(release)
	wg.Wait()
	if code != 200 || !strings.Contains(body, `"decision":"block"`) || !strings.Contains(body, "overloaded") {
		t.Fatalf("= %d %s; want Claude's block naming the overload", code, body)
	}
	var blocked []pipeline.Answered
	for _, a := range log.list() {
		if a.Delivered.Cause != "" {
			blocked = append(blocked, a)
		}
	}
	if len(blocked) != 1 {
		t.Fatalf("%d answers logged with a cause, want the overload's one: %+v", len(blocked), log.list())
	}
	d := blocked[0].Delivered
	if d.Cause != "overloaded" || d.Verdict != "block" || d.ExitCode != 2 || d.Agent != "claude" || !strings.Contains(d.Reason, "luahook serve could not decide: overloaded") ||
		blocked[0].Res != nil || blocked[0].In != nil {
		t.Errorf("logged %+v (result %v, input %v); want Claude's block (exit 2) of cause overloaded, no hook run", d, blocked[0].Res, blocked[0].In)
	}
}

// TestAnAgentRefusedForItsCredentialsIsNotLogged: a request without the
// token is blocked, but not logged: a client without credentials must not
// be able to write the decision log.
func TestAnAgentRefusedForItsCredentialsIsNotLogged(t *testing.T) {
	var log answers
	g := newRig(t, Options{Auth: &Auth{Tokens: teamTokens(t)}, FailClosed: FailClosed{Record: log.record}})
	resp, body := g.send("POST", "/agent/claude", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 200 || resp.Header.Get(ExitCodeHeader) != "2" || !strings.Contains(body, "no bearer token") {
		t.Fatalf("= %d exit %s %s; want Claude's block naming the missing token", resp.StatusCode, resp.Header.Get(ExitCodeHeader), body)
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("a refused client's request was logged: %+v", got)
	}
}
