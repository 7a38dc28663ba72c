package agent_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook/agent"
)

// verdictPolicy asks before a force-push, approves npm install explicitly
// and keeps the agent going at Stop, naming the agent that sent the
// payload (input.agent).
const verdictPolicy = `
hook.register("PreToolUse", "@shell", function(input)
  local c = input.toolInput.command or ""
  if c:find("push --force", 1, true) then
    return hook.ask("force-push from " .. input.agent .. ": confirm")
  end
  if c:find("npm install ", 1, true) == 1 then return hook.allow() end
end)
hook.register("Stop", nil, function(input)
  return hook.continue("run the tests (" .. input.agent .. ")")
end)
`

// TestLuaAskAllowAndContinueReachEveryAgent fires a Lua policy that uses
// hook.ask, hook.allow and hook.continue through the runner on each
// agent's own payloads, and checks that FromResult gives each agent its
// native ask (or the deny that stands for it), explicit allow (Codex's
// with the call's own input, as Codex approves only with updatedInput) and
// Stop continuation, and that a call no hook objects to answers nothing.
func TestLuaAskAllowAndContinueReachEveryAgent(t *testing.T) {
	ctx := context.Background()
	run := luaRunner(t, "hooks.d/verdicts.lua", verdictPolicy)
	for _, c := range []struct {
		agent             agent.Name
		file, event, want string
	}{
		{agent.Claude, "PreToolUse", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"force-push from claude: confirm"}}`},
		{agent.Claude, "PreToolUse-npm", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{agent.Claude, "PreToolUse-mcp", "", ``},
		{agent.Claude, "Stop", "", `{"decision":"block","reason":"run the tests (claude)"}`},
		{agent.Codex, "PreToolUse", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"force-push from codex: confirm"}}`},
		{agent.Codex, "PreToolUse-npm", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm install left-pad"}}}`},
		{agent.Codex, "Stop", "", `{"decision":"block","reason":"run the tests (codex)"}`},
		{agent.Copilot, "PreToolUse-pascal", "", `{"permissionDecision":"ask","permissionDecisionReason":"force-push from copilot: confirm"}`},
		{agent.Copilot, "preToolUse-object", "preToolUse", `{"permissionDecision":"allow"}`},
		{agent.Copilot, "agentStop", "agentStop", `{"decision":"block","reason":"run the tests (copilot)"}`},
		{agent.Cursor, "preToolUse", "", `{"decision":"deny","reason":"force-push from cursor: confirm"}`},
		{agent.Cursor, "beforeShellExecution", "", `{"permission":"ask","user_message":"force-push from cursor: confirm","agent_message":"force-push from cursor: confirm"}`},
		{agent.Cursor, "preToolUse-npm", "", `{"decision":"allow"}`},
		{agent.Cursor, "stop", "", `{"followup_message":"run the tests (cursor)"}`},
		{agent.Gemini, "BeforeTool", "", `{"decision":"ask","reason":"force-push from gemini: confirm","systemMessage":"force-push from gemini: confirm"}`},
		{agent.Gemini, "BeforeTool-npm", "", `{"decision":"allow"}`},
		{agent.Gemini, "AfterAgent", "", `{"decision":"deny","reason":"run the tests (gemini)"}`},
	} {
		a, req := decodeTestdata(t, c.agent, c.file, c.event)
		res := run.Fire(ctx, req.Input)
		for _, tr := range res.Trace {
			if tr.Failure != nil {
				t.Errorf("%s %s: hook %s failed: %v", c.agent, c.file, tr.Name, tr.Failure)
			}
		}
		want := c.want
		if want != "" {
			want += "\n"
		}
		ans := a.Encode(req, agent.FromResult(res))
		if string(ans.Stdout) != want || ans.ExitCode != 0 {
			t.Errorf("%s %s: answered %q (exit %d), want %q", c.agent, c.file, ans.Stdout, ans.ExitCode, want)
		}
	}
}
