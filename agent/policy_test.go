package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// TestOnePolicyEveryAgent fires one set of hooks, matched by capability
// ("@shell"), on each agent's own payloads through the runner, and checks
// each agent's native answer: the force-push is denied, npm install is
// rewritten to pnpm add, and the session start gets context.
func TestOnePolicyEveryAgent(t *testing.T) {
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg})
	defer run.Close()
	command := func(in *luahook.Input) string {
		var v struct{ Command string }
		_ = json.Unmarshal(in.ToolInput, &v)
		return v.Command
	}
	for _, s := range []luahook.Spec{
		{Event: luahook.PreToolUse, Matcher: "@shell", Name: "no-force-push", Kind: luahook.KindGo,
			Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				if strings.Contains(command(in), "push --force") {
					return luahook.Deny("force-push is not allowed"), nil
				}
				return nil, nil
			})},
		{Event: luahook.PreToolUse, Matcher: "@shell", Name: "prefer-pnpm", Kind: luahook.KindGo,
			Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				if c := command(in); strings.HasPrefix(c, "npm install ") {
					return luahook.Mutate(json.RawMessage(`{"command":"pnpm add ` + strings.TrimPrefix(c, "npm install ") + `"}`)), nil
				}
				return nil, nil
			})},
		{Event: luahook.SessionStart, Name: "context", Kind: luahook.KindGo,
			Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
				return luahook.Context("This project uses pnpm."), nil
			})},
	} {
		if _, err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		agent             agent.Name
		file, event, want string
	}{
		{agent.Claude, "PreToolUse", "", `"permissionDecision":"deny","permissionDecisionReason":"force-push is not allowed"`},
		{agent.Claude, "PreToolUse-npm", "", `"permissionDecision":"ask","permissionDecisionReason":"luahook rewrote this call","updatedInput":{"command":"pnpm add left-pad"}`},
		{agent.Claude, "SessionStart", "", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"This project uses pnpm."}}`},
		{agent.Codex, "PreToolUse", "", `"permissionDecision":"deny","permissionDecisionReason":"force-push is not allowed"`},
		{agent.Codex, "PreToolUse-npm", "", `"permissionDecision":"allow","updatedInput":{"command":"pnpm add left-pad"}`},
		{agent.Codex, "SessionStart", "", `"additionalContext":"This project uses pnpm."`},
		{agent.Copilot, "preToolUse", "preToolUse", `{"permissionDecision":"deny","permissionDecisionReason":"force-push is not allowed"}`},
		{agent.Copilot, "preToolUse-object", "preToolUse", `{"modifiedArgs":{"command":"pnpm add left-pad"}}`},
		{agent.Copilot, "sessionStart", "sessionStart", `{"additionalContext":"This project uses pnpm."}`},
		{agent.Cursor, "preToolUse", "", `{"decision":"deny","reason":"force-push is not allowed"}`},
		{agent.Cursor, "beforeShellExecution", "", `{"permission":"deny","user_message":"force-push is not allowed","agent_message":"force-push is not allowed"}`},
		{agent.Cursor, "preToolUse-npm", "", `{"updated_input":{"command":"pnpm add left-pad"}}`},
		{agent.Cursor, "sessionStart", "", `{"additional_context":"This project uses pnpm."}`},
		{agent.Gemini, "BeforeTool", "", `{"decision":"deny","reason":"force-push is not allowed"}`},
		{agent.Gemini, "BeforeTool-npm", "", `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"pnpm add left-pad"}}}`},
		{agent.Gemini, "SessionStart", "", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"This project uses pnpm."}}`},
	} {
		a, req := decodeTestdata(t, c.agent, c.file, c.event)
		ans := a.Encode(req, agent.FromResult(run.Fire(context.Background(), req.Input)))
		if !strings.Contains(string(ans.Stdout), c.want) || ans.ExitCode != 0 {
			t.Errorf("%s %s: answered %q (exit %d), want %s", c.agent, c.file, ans.Stdout, ans.ExitCode, c.want)
		}
	}
}

// decodeTestdata decodes testdata/<agent>/<file>.native.json with the
// agent's adapter, for event.
func decodeTestdata(t *testing.T, name agent.Name, file, event string) (agent.Adapter, *agent.Request) {
	t.Helper()
	a, err := agent.Lookup(string(name))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", string(name), file+".native.json"))
	if err != nil {
		t.Fatal(err)
	}
	req, err := a.Decode(data, event)
	if err != nil {
		t.Fatal(err)
	}
	return a, req
}
