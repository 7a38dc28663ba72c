package policytest

import (
	"strings"
	"testing"
)

// mcpGuard denies every MCP tool but those of the server "github".
const mcpGuard = `
hook.register("PreToolUse", "@mcp", function(input)
  if not input.toolName:lower():find("github") then return hook.deny("not github: " .. input.toolName) end
end, { name = "mcp-guard" })
`

// TestCasesAnAgentCannotSendFailSayingSo: a case that fires a payload the
// agent of Options.Agent cannot send (here an MCP tool named with its
// server, through Cursor, which names MCP tools MCP:tool) fails with the
// reason, is counted apart in the summary, and fails even when the test
// caught fire's error; a case whose assertion fails is not counted so, and
// every case passes through an agent that can send them.
func TestCasesAnAgentCannotSendFailSayingSo(t *testing.T) {
	dir := folder(t, map[string]string{
		"mcp.lua": mcpGuard,
		"mcp_test.lua": `
test("github's tools run", function()
  expect.no_objection(fire("PreToolUse", { toolName = "mcp__github__get_issue", toolInput = {} }))
end)
test("the error is caught", function()
  local ok = pcall(fire, "PreToolUse", { toolName = "mcp__github__get_issue", toolInput = {} })
  expect.eq(ok, false)
end)
test("other servers' tools are denied", function()
  expect.denied(fire("PreToolUse", { toolName = "mcp__slack__post", toolInput = {} }), "not github")
end)
test("a server-less tool is denied", function()
  expect.denied(fire("PreToolUse", { toolName = "MCP:post", toolInput = {} }), "not github")
end)
test("a wrong expectation", function()
  expect.no_objection(fire("PreToolUse", { toolName = "MCP:post", toolInput = {} }))
end)
`,
	})
	sum, out := run(t, Options{Paths: []string{dir}, Agent: "cursor"})
	if sum != (Summary{Passed: 1, Failed: 4, Unsent: 3}) {
		t.Errorf("through cursor: %+v, want 1 passed, 4 failed, 3 of them unsent:\n%s", sum, out)
	}
	for _, name := range []string{"github's tools run", "the error is caught", "other servers' tools are denied"} {
		i := strings.Index(out, "FAIL "+dir+"/mcp_test.lua "+name+"\n")
		if i < 0 || !strings.HasPrefix(out[strings.IndexByte(out[i:], '\n')+i+1:], "    ") ||
			!strings.Contains(strings.SplitN(out[i:], "\n", 3)[1], "cursor names an MCP tool MCP:<tool>, without its server") {
			t.Errorf("no FAIL line for %q saying cursor cannot send it:\n%s", name, out)
		}
	}
	if !strings.HasSuffix(out, "\n1 passed, 4 failed (3 of them: payloads the agent cannot send)\n") {
		t.Errorf("summary line:\n%s", out)
	}
	sum, out = run(t, Options{Paths: []string{dir}, Agent: "copilot"})
	if sum != (Summary{Passed: 3, Failed: 2}) || !strings.HasSuffix(out, "\n3 passed, 2 failed\n") {
		t.Errorf("through copilot: %+v, want the caught error and the wrong expectation to fail alone:\n%s", sum, out)
	}
}
