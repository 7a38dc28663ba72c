package packs_test

import "testing"

// cloudObjectDeleteCases are deletes of one named object of a remote
// store, for the cloud pack with SETTINGS.object_deletes changed; verdict
// is the expect function the setting gives them ("" for no objection).
func cloudObjectDeleteCases(verdict string) string {
	check := `expect.` + verdict + `(r, "of one object")
    expect.contains(r.reason, "[rule object-delete]")`
	if verdict == "" {
		check = `expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")`
	}
	return `
local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = command } })
end
for _, cmd in ipairs({ "aws s3 rm s3://acme/logs/a.gz", "gsutil rm gs://acme/index.html", "mc rm local/acme/x.txt" }) do
  test("the setting answers " .. cmd, function()
    local r = sh(cmd)
    ` + check + `
  end)
end
test("a recursive delete stays denied whatever the setting", function()
  expect.denied(sh("aws s3 rm s3://acme/logs --recursive"), "aws s3 rm --recursive")
end)
`
}

// TestCloudPackAnswersObjectDeletesAsSetTo runs the cloud pack with
// SETTINGS.object_deletes = "deny" and = "allow", as an operator who wants
// one-object deletes refused, or left to the agent, would: each delete of
// one named object gets that answer, and a recursive delete stays denied.
func TestCloudPackAnswersObjectDeletesAsSetTo(t *testing.T) {
	for _, c := range []struct{ setting, verdict string }{{"deny", "denied"}, {"allow", ""}} {
		sum, out := runWithSetting(t, "cloud", `object_deletes = "ask",`, `object_deletes = "`+c.setting+`",`,
			cloudObjectDeleteCases(c.verdict))
		if sum.Failed > 0 || sum.Passed != 4 {
			t.Errorf("cloud pack, object_deletes = %s: %v\n%s", c.setting, sum, out)
		}
	}
}

// cloudGrantCases are new credentials and role grants, for the cloud pack
// with SETTINGS.grants changed; verdict is the expect function the setting
// gives them ("" for no objection).
func cloudGrantCases(verdict string) string {
	check := `expect.` + verdict + `(r, "aws iam create-access-key")
    expect.contains(r.reason, "[rule grants]")`
	if verdict == "" {
		check = `expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")`
	}
	return `
local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = command } })
end
for _, cmd in ipairs({ "aws iam create-access-key --user-name deploy", "sudo aws iam create-access-key" }) do
  test("the setting answers " .. cmd, function()
    local r = sh(cmd)
    ` + check + `
  end)
end
test("a teardown stays denied whatever the setting", function()
  expect.denied(sh("aws iam delete-user --user-name eve"), "delete-user")
end)
`
}

// TestCloudPackAnswersGrantsAsSetTo runs the cloud pack with
// SETTINGS.grants = "deny" and = "allow", as an operator who wants new
// credentials refused outright, or left to the agent, would: each gets that
// answer, and a delete verb of the same CLI stays denied.
func TestCloudPackAnswersGrantsAsSetTo(t *testing.T) {
	for _, c := range []struct{ setting, verdict string }{{"deny", "denied"}, {"allow", ""}} {
		sum, out := runWithSetting(t, "cloud", `grants = "ask",`, `grants = "`+c.setting+`",`,
			cloudGrantCases(c.verdict))
		if sum.Failed > 0 || sum.Passed != 3 {
			t.Errorf("cloud pack, grants = %s: %v\n%s", c.setting, sum, out)
		}
	}
}
