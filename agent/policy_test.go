package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// onePolicy denies a force-push, rewrites npm install to pnpm add (shell
// tools, named by capability) and adds context at session start.
const onePolicy = `
hook.register("PreToolUse", "@shell", function(input)
  if (input.toolInput.command or ""):find("push --force", 1, true) then
    return hook.deny("force-push is not allowed")
  end
end, { name = "no-force-push" })
hook.register("PreToolUse", "@shell", function(input)
  local pkg = (input.toolInput.command or ""):match("^npm install (.+)$")
  if pkg then return hook.mutate({ command = "pnpm add " .. pkg }) end
end, { name = "prefer-pnpm" })
hook.register("SessionStart", nil, function() return hook.context("This project uses pnpm.") end)
`

// TestOnePolicyEveryAgent fires one Lua policy file, its tool hooks matched
// by capability ("@shell"), on each agent's own payloads through the
// runner, and checks each agent's native answer: the force-push is denied,
// npm install is rewritten to pnpm add, and the session start gets context.
func TestOnePolicyEveryAgent(t *testing.T) {
	run := luaRunner(t, "hooks.d/policy.lua", onePolicy)
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

// luaRunner loads the Lua hook file src (named path) into a runner of its
// own.
func luaRunner(t *testing.T, path, src string) *runner.Runner {
	t.Helper()
	c, err := luabind.Compile(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	reg := registry.New()
	for _, s := range luabind.Specs(f.Registrations()) {
		if _, err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	run := runner.New(runner.Options{Registry: reg})
	t.Cleanup(run.Close)
	return run
}
