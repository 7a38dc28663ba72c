package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// TestRecycledResultIsNeverReadAfterReuse guards the Result pool: many
// clients at once, each payload denied with its own reason, with a decision
// log observer and a shadow set reading every decision. Every answer, every
// observed decision and every shadow comparison must be its own payload's;
// under -race, a recycled Result read after its reuse is a reported race.
func TestRecycledResultIsNeverReadAfterReuse(t *testing.T) {
	echo := luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		var ti struct{ Command string }
		if err := json.Unmarshal(in.ToolInput, &ti); err != nil {
			return nil, err
		}
		if strings.HasSuffix(ti.Command, "0") {
			return luahook.Allow(), nil
		}
		return luahook.Deny("denied " + ti.Command), nil
	})
	newRunner := func() *runner.Runner {
		reg := registry.New()
		run := runner.New(runner.Options{Registry: reg})
		t.Cleanup(run.Close)
		for _, name := range []string{"a", "b"} {
			if _, err := reg.Register(luahook.Spec{Event: luahook.PreToolUse, Kind: luahook.KindGo, Name: name,
				Stage: luahook.StageValidate, Hook: echo}); err != nil {
				t.Fatal(err)
			}
		}
		return run
	}
	live := newRunner()
	var mismatches sync.Map
	live.SetOnDecision(func(in *luahook.Input, res *runner.Result) {
		var ti struct{ Command string }
		json.Unmarshal(in.ToolInput, &ti)
		if res.Denied() && res.Reason != "denied "+ti.Command {
			mismatches.Store(ti.Command, res.Reason)
		}
	})
	h := New(live, Options{Shadow: &ShadowOptions{Firer: newRunner(), Name: "same", Slots: 64}})
	t.Cleanup(h.Close)
	g := &rig{t: t}
	g.srv = httptest.NewServer(h)
	t.Cleanup(g.srv.Close)
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for i := range 50 {
				cmd := fmt.Sprintf("c%d-%d", c, i)
				code, body := g.post("/hook", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"`+cmd+`"},"cwd":"/w"}`)
				want := `{"action":"deny","reason":"denied ` + cmd + `"}`
				if i%10 == 0 {
					want = `{"action":"allow"}`
				}
				if code != http.StatusOK || strings.TrimSpace(body) != want {
					t.Errorf("%s: %d %s, want %s", cmd, code, body, want)
				}
			}
		})
	}
	wg.Wait()
	h.Close()
	mismatches.Range(func(k, v any) bool {
		t.Errorf("decision log saw %v decided as %q", k, v)
		return true
	})
	m := scrape(t, g.srv.URL)
	if agree, disagree := m[series("luahook_shadow_decisions_total", "hook", "dir:same", "agrees", "true")],
		m[series("luahook_shadow_decisions_total", "hook", "dir:same", "agrees", "false")]; agree == 0 || disagree != 0 {
		t.Errorf("the shadow set, the same hooks: %v agree, %v disagree", agree, disagree)
	}
}
