package packs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/policytest"
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

// filesProjectDumpCases delete a file that defines the project and read,
// write and delete a database dump, beside calls no setting changes.
const filesProjectDumpCases = `
local CWD = "/home/dev/project"
local function tool(name, cap, args)
  return fire("PreToolUse", { toolName = name, toolCapabilities = { cap }, cwd = CWD, toolInput = args })
end
local function bash(command) return tool("Bash", "shell", { command = command }) end
local project = {
  function() return bash("rm README.md") end,
  function() return bash("git rm -f LICENSE") end,
  function() return bash("rm -rf .claude/commands") end,
}
local dumps = {
  function() return bash("cat dump.sql") end,
  function() return tool("Write", "fs.write", { file_path = "backup.sql", content = "x" }) end,
  function() return bash("rm prod.dump") end,
}
test("a README edit passes whatever the setting", function()
  expect.no_objection(tool("Edit", "fs.write", { file_path = "README.md", old_string = "a", new_string = "b" }))
end)
test("a dump made by pg_dump passes whatever the setting", function()
  expect.no_objection(bash("pg_dump app > dump.sql"))
end)
`

// filesActionCase is the Lua of a case that expects each call of list to
// be denied ("deny"), asked about ("ask") or let through ("allow") for rule.
func filesActionCase(list, verdict, rule string) string {
	check := map[string]string{
		"deny":  `expect.denied(f(), "[rule ` + rule + `]")`,
		"ask":   `local r = f(); expect.eq(r.asked, true, "asked"); expect.contains(r.reason, "[rule ` + rule + `]")`,
		"allow": `expect.no_objection(f())`,
	}[verdict]
	return `
for i, f in ipairs(` + list + `) do
  test("` + list + ` ` + verdict + ` " .. i, function() ` + check + ` end)
end
`
}

// TestFilesPackProjectFilesAndDumpsFollowTheirSettings runs the files pack
// with project_files_action and data_dump_action set to deny and to allow:
// the deletes of project files and the reads, hand writes and deletes of
// dumps follow their own setting, and the other one keeps asking.
func TestFilesPackProjectFilesAndDumpsFollowTheirSettings(t *testing.T) {
	for _, c := range []struct {
		setting, verdict string
		changed, kept    string // the list the setting changes, the one it keeps asked
		changedRule      string
		keptRule         string
	}{
		{"project_files_action", "deny", "project", "dumps", "project-files", "data-dump"},
		{"project_files_action", "allow", "project", "dumps", "project-files", "data-dump"},
		{"data_dump_action", "deny", "dumps", "project", "data-dump", "project-files"},
		{"data_dump_action", "allow", "dumps", "project", "data-dump", "project-files"},
	} {
		cases := filesProjectDumpCases + filesActionCase(c.changed, c.verdict, c.changedRule) +
			filesActionCase(c.kept, "ask", c.keptRule)
		sum, out := runWithSetting(t, "files", c.setting+` = "ask",`, c.setting+` = "`+c.verdict+`",`, cases)
		if sum.Failed > 0 || sum.Passed != 8 {
			t.Errorf("files pack, %s = %s: %v\n%s", c.setting, c.verdict, sum, out)
		}
	}
}

// TestFilesPackRefusesAnUnknownProjectFilesSetting: a misspelt verdict of
// the new settings is a load error naming the setting and the valid values.
func TestFilesPackRefusesAnUnknownProjectFilesSetting(t *testing.T) {
	for _, setting := range []string{"project_files_action", "data_dump_action"} {
		sum, out := runWithSetting(t, "files", setting+` = "ask",`, setting+` = "warn",`, filesProjectDumpCases)
		if sum.Passed != 0 || sum.Failed == 0 {
			t.Errorf("files pack, %s = warn: %v, want every case failing on the load error\n%s", setting, sum, out)
		}
		if want := `SETTINGS.` + setting + ` is warn; it must be "ask", "deny" or "allow"`; !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
}

// TestFilesPackEmptyListsTurnTheirRulesOff: a config setting project_files
// and data_dumps to [] and every deploy_state folder to "" turns those
// rules off (an empty list of globs must not compile to one that matches
// every path), and the secret-read rule still holds.
func TestFilesPackEmptyListsTurnTheirRulesOff(t *testing.T) {
	cases := `
local CWD = "/home/dev/project"
local function tool(name, cap, args)
  return fire("PreToolUse", { toolName = name, toolCapabilities = { cap }, cwd = CWD, toolInput = args })
end
local function bash(command) return tool("Bash", "shell", { command = command }) end
test("a README deleted passes", function() expect.no_objection(bash("rm README.md")) end)
test("a dump read passes", function() expect.no_objection(bash("cat dump.sql")) end)
test("a dump read by a file tool passes", function() expect.no_objection(tool("Read", "fs.read", { file_path = "x.dump" })) end)
test("a deploy state read passes", function() expect.no_objection(bash("cat .vercel/project.json")) end)
test("an ordinary read passes", function() expect.no_objection(tool("Read", "fs.read", { file_path = "src/a.go" })) end)
test("a file deleted passes", function() expect.no_objection(bash("rm src/old.go")) end)
test(".env is still a secret", function() expect.denied(bash("cat .env"), "[rule secret-read]") end)
`
	dir := hooksFolder(t, "files.lua")
	if err := os.WriteFile(filepath.Join(dir, "files_test.lua"), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	conf := "[packs.files]\nproject_files = []\ndata_dumps = []\n" +
		`deploy_state = { ".terraform/" = "", ".vercel/" = "", ".netlify/" = "", ".supabase/" = "", ` +
		`"supabase/.temp/" = "", ".pulumi/" = "", ".serverless/" = "" }` + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{dir}, ConfigPath: cfg, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed > 0 || sum.Passed != 7 {
		t.Errorf("files pack with empty lists: %v\n%s", sum, out.String())
	}
}
