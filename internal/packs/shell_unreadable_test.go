package packs_test

import "testing"

// shellUnreadableCases are lines the shell refuses to read, each with what
// the reason must say of it, for the shell pack with SETTINGS.unreadable
// changed; verdict is the expect function the setting must give.
func shellUnreadableCases(verdict string) string {
	return `
local function bash(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = command } })
end
local unreadable = {
  { [[echo "no end]], [[a " that is not closed, at byte 6]] },
  { [[grep 'pattern src/]], [[a ' that is not closed, at byte 6]] },
  { [[ls $(pwd]], [[a $( that is not closed]] },
  { [[echo ` + "`" + `date]], [[a ` + "`" + ` that is not closed]] },
  { [[echo ${HOME]], [[a ${ that is not closed]] },
  { [[echo $((1 + 2]], [[a $(( that is not closed]] },
  { [[(cd src && make]], [[a ( that is not closed, at byte 1]] },
  { [[printf $'tab\t]], [[a $' that is not closed]] },
  { [[make build |]], [[a | with no command after it]] },
  { [[make && ]], [[a && with no command after it]] },
  { [[test -f x ||]], [[a || with no command after it]] },
}
for _, c in ipairs(unreadable) do
  test("stops a line the shell cannot read: " .. c[1], function()
    local r = bash(c[1])
    expect.` + verdict + `(r, "shell pack: a line the shell cannot read")
    expect.contains(r.reason, c[2])
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

// TestShellPackStopsUnreadableLinesWhenSetTo runs the shell pack with
// SETTINGS.unreadable = "ask" and = "deny", as an operator who wants every
// line luahook cannot read stopped would: each such line is asked about
// (denied), the reason saying what could not be read and where; a line
// that reads passes, and a destructive line that does not read is still
// denied by the rule it breaks.
func TestShellPackStopsUnreadableLinesWhenSetTo(t *testing.T) {
	for _, c := range []struct{ setting, verdict string }{{"ask", "asked"}, {"deny", "denied"}} {
		sum, out := runWithSetting(t, "shell", `unreadable = "allow",`, `unreadable = "`+c.setting+`",`,
			shellUnreadableCases(c.verdict))
		if sum.Failed > 0 || sum.Passed != 13 {
			t.Errorf("shell pack, unreadable = %s: %v\n%s", c.setting, sum, out)
		}
	}
}
