package packs_test

import "testing"

// shellComputedCases are lines whose script or path is computed when they
// run, for the shell pack with SETTINGS.computed_scripts changed; verdict
// is the expect function the setting must give.
func shellComputedCases(verdict string) string {
	return `
local function bash(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = command } })
end
local computed = {
  { [[eval "$CMD"]], "a script computed at run time" },
  { [[echo ok | xargs bash -c]], "what xargs reads from its input" },
  { [[ls | parallel sh -c {}]], "a script computed at run time" },
  { [[rm -rf $BUILD_ROOT/junk]], "[rule unset-var]" },
  { [[find "$WORK/objs" -delete]], "[rule unset-var]" },
}
for _, c in ipairs(computed) do
  test("answers as set: " .. c[1], function()
    local r = bash(c[1])
    expect.` + verdict + `
    if (r.reason or "") ~= "" then expect.contains(r.reason, c[2]) end
  end)
end
test("the safe spelling of a variable's path passes", function()
  expect.no_objection(bash([[rm -rf ${BUILD_ROOT:?}/junk]]))
end)
test("a script written out is read whatever the setting", function()
  expect.denied(bash([[bash -c 'rm -rf ~']]), "home folder")
end)
`
}

// TestShellPackAnswersComputedScriptsAsSetTo runs the shell pack with
// SETTINGS.computed_scripts = "deny" and = "allow": scripts computed at run
// time (eval of a variable, a script xargs or parallel read from their
// input) and recursive deletes of a path led by a variable the line does
// not set [rule unset-var] are denied, or pass, as the setting says, with
// the reason of the rule; the safe spelling ${X:?} passes, and a script
// written out on the line is still read and denied by the rule it breaks.
func TestShellPackAnswersComputedScriptsAsSetTo(t *testing.T) {
	for _, c := range []struct{ setting, verdict string }{
		{"deny", `denied(r, "shell pack")`},
		{"allow", `no_objection(r)`},
	} {
		sum, out := runWithSetting(t, "shell", `computed_scripts = "ask",`, `computed_scripts = "`+c.setting+`",`,
			shellComputedCases(c.verdict))
		if sum.Failed > 0 || sum.Passed != 7 {
			t.Errorf("shell pack, computed_scripts = %s: %v\n%s", c.setting, sum, out)
		}
	}
}
