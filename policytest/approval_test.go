package policytest

import (
	"strings"
	"testing"
)

// A policy test answers a web approval through fire's third argument:
// approve makes the call an allow, deny a deny naming the decider, and
// no answer (or "timeout") lets it time out, without the wait; a bad
// answer is an error naming the option.
func TestPolicyTestsAnswerWebApprovals(t *testing.T) {
	dir := folder(t, map[string]string{
		"prod.lua": `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("^deploy") then
    return hook.approve{reason = "a production deploy", approvers = {"alice"}, timeout_ms = 600000}
  end
end)`,
		"prod_test.lua": `local deploy = { toolName = "bash", toolInput = { command = "deploy prod" } }
test("approved", function()
  local r = fire("PreToolUse", deploy, { approval = "approve", by = "alice" })
  expect.allowed(r)
  expect.eq(r.approval.verdict, "approved")
  expect.eq(r.approval.by, "alice")
end)
test("denied", function()
  local r = fire("PreToolUse", deploy, { approval = "deny", by = "bob", reason = "not today" })
  expect.denied(r, "denied by bob on the web approval: not today")
end)
test("nobody decides", function()
  local r = fire("PreToolUse", deploy)
  expect.denied(r, "no one decided")
  expect.eq(r.approval.verdict, "timeout")
end)
test("a bad answer", function()
  local ok, err = pcall(fire, "PreToolUse", deploy, { approval = "maybe" })
  expect.eq(ok, false)
  expect.truthy(tostring(err):find("approval must be", 1, true))
end)`,
	})
	sum, out := run(t, Options{Paths: []string{dir}})
	if sum != (Summary{Passed: 4}) {
		t.Fatalf("summary %v:\n%s", sum, out)
	}
	if strings.Contains(out, "FAIL") {
		t.Fatal(out)
	}
}
