package packs_test

import "testing"

// shellUnreadableCases are lines the shell refuses to read, or scripts a
// line hands to a shell that refuses them, each with what the reason must
// say of it, for the shell pack with SETTINGS.unreadable changed from its
// default ("deny", checked by shell_test.lua); verdict is the expect
// function the setting gives each line.
func shellUnreadableCases(verdict string) string {
	check := `
    expect.` + verdict + `(r, "shell pack: a command line that cannot be parsed")
    expect.contains(r.reason, c[2])
    expect.contains(r.reason, "[rule parse]")`
	if verdict == "no_objection" {
		check = `
    expect.no_objection(r)`
	}
	return `
local function bash(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = command } })
end
local unreadable = {
  { [[chmod 600 "no end]], [[a " that is not closed, at byte 11]] },
  { [[find . -name 'pattern src/]], [[a ' that is not closed, at byte 14]] },
  { [[ls $(make clean]], [[a $( that is not closed]] },
  { [[echo ` + "`" + `mv a b]], [[a ` + "`" + ` that is not closed]] },
  { [[chown dev ${HOME]], [[a ${ that is not closed]] },
  { [[kill $((1 + 2]], [[a $(( that is not closed]] },
  { [[(cd src && make]], [[a ( that is not closed, at byte 1]] },
  { [[chmod $'600\t]], [[a $' that is not closed]] },
  { [[make build |]], [[a | with no command after it]] },
  { [[make && ]], [[a && with no command after it]] },
  { [[make test ||]], [[a || with no command after it]] },
  { [[bash -c "mv 'x"]], [[a ' that is not closed, at byte 4 of the script bash -c runs]] },
}
for _, c in ipairs(unreadable) do
  test("the setting's verdict on a line the shell cannot read: " .. c[1], function()
    local r = bash(c[1])` + check + `
  end)
end
test("a line whose quotes are closed still passes", function()
  expect.no_objection(bash([[echo "it's" 'a"b' $(date) ${HOME}]]))
end)
test("what the reader makes of an unreadable line is judged first", function()
  expect.denied(bash([[rm -rf / 'x]]), "recursive delete")
end)
`
}

// TestShellPackUnreadableLinesFollowTheSetting runs the shell pack with
// SETTINGS.unreadable = "ask" and = "allow", as an operator who wants
// such lines asked about, or left to the shell that refuses them, would:
// each such line (or script a line hands to a shell) is asked about with
// the reason saying what could not be read and where, or passes; a line
// that reads passes, and a destructive line that does not read is still
// denied by the rule it breaks. (One whose every reading is harmless, echo
// "no end, passes whatever the setting: shell_test.lua.)
func TestShellPackUnreadableLinesFollowTheSetting(t *testing.T) {
	for _, c := range []struct{ setting, verdict string }{{"ask", "asked"}, {"allow", "no_objection"}} {
		sum, out := runWithSetting(t, "shell", `unreadable = "deny",`, `unreadable = "`+c.setting+`",`,
			shellUnreadableCases(c.verdict))
		if sum.Failed > 0 || sum.Passed != 14 {
			t.Errorf("shell pack, unreadable = %s: %v\n%s", c.setting, sum, out)
		}
	}
}
