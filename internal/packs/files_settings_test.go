package packs_test

import (
	"strings"
	"testing"
)

// filesAgentConfigCases fire a write, a delete and a mode change of coding
// agents' hooks and permission settings in the project, and a read of one,
// at the files pack with a changed SETTINGS.agent_config_action.
const filesAgentConfigCases = `
local CWD = "/home/dev/project"
local function tool(name, cap, args)
  return fire("PreToolUse", { toolName = name, toolCapabilities = { cap }, cwd = CWD, toolInput = args })
end
local function bash(command) return tool("Bash", "shell", { command = command }) end
local changes = {
  function() return tool("Write", "fs.write", { file_path = ".claude/settings.local.json", content = "{}" }) end,
  function() return bash("rm .claude/hooks/guard.sh") end,
  function() return bash("chmod -x .cursor/hooks/check.sh") end,
}
test("a read of one passes", function()
  expect.no_objection(tool("Read", "fs.read", { file_path = CWD .. "/.claude/settings.json" }))
end)
test("a write into .git/ is denied whatever the setting", function()
  expect.denied(bash("rm .git/HEAD"), "[rule git-internals]")
end)
`

// TestFilesPackDeniesAgentConfigWhenSetTo runs the files pack with
// SETTINGS.agent_config_action = "deny": every change of an agent's hooks
// or settings is denied for the agent-config rule, not asked about.
func TestFilesPackDeniesAgentConfigWhenSetTo(t *testing.T) {
	cases := filesAgentConfigCases + `
for i, f in ipairs(changes) do
  test("a change is denied " .. i, function() expect.denied(f(), "[rule agent-config]") end)
end
`
	sum, out := runWithSetting(t, "files", `agent_config_action = "ask",`, `agent_config_action = "deny",`, cases)
	if sum.Failed > 0 || sum.Passed != 5 {
		t.Errorf("files pack, agent_config_action = deny: %v\n%s", sum, out)
	}
}

// TestFilesPackAllowsAgentConfigWhenSetTo runs the files pack with
// SETTINGS.agent_config_action = "allow": the changes pass, and the other
// rules still hold.
func TestFilesPackAllowsAgentConfigWhenSetTo(t *testing.T) {
	cases := filesAgentConfigCases + `
for i, f in ipairs(changes) do
  test("a change passes " .. i, function() expect.no_objection(f()) end)
end
`
	sum, out := runWithSetting(t, "files", `agent_config_action = "ask",`, `agent_config_action = "allow",`, cases)
	if sum.Failed > 0 || sum.Passed != 5 {
		t.Errorf("files pack, agent_config_action = allow: %v\n%s", sum, out)
	}
}

// TestFilesPackRefusesAnUnknownAgentConfigSetting: a misspelt verdict is a
// load error naming the valid values, never a pack that silently judges
// nothing.
func TestFilesPackRefusesAnUnknownAgentConfigSetting(t *testing.T) {
	sum, out := runWithSetting(t, "files", `agent_config_action = "ask",`, `agent_config_action = "warn",`,
		filesAgentConfigCases)
	if sum.Passed != 0 || sum.Failed == 0 {
		t.Errorf("files pack, agent_config_action = warn: %v, want every case failing on the load error\n%s", sum, out)
	}
	if want := `SETTINGS.agent_config_action is warn; it must be "ask", "deny" or "allow"`; !strings.Contains(out, want) {
		t.Errorf("the report does not say %q:\n%s", want, out)
	}
}
