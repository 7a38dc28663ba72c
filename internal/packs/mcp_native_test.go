package packs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook/policytest"
)

// mcpNativeSuite holds the mcp pack's cases that name the agent or carry
// its native payload, which the pack's own suite cannot (it also runs
// through the agents' payloads, which set both).
const mcpNativeSuite = `
local function call(tool, extra)
  local p = { toolName = tool, toolCapabilities = { "mcp" }, toolInput = {}, cwd = "/home/dev/app", sessionId = "t" }
  for k, v in pairs(extra or {}) do p[k] = v end
  return fire("PreToolUse", p)
end

local function gemini(server, tool)
  return { agent = "gemini", native = { mcp_context = { server_name = server, tool_name = tool, command = "/bin/s" } } }
end

test("mcp_context names a server with a _ apart from the allowed server it starts with", function()
  local r = call("mcp_context7_evil_query", gemini("context7_evil", "query"))
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
end)

test("without mcp_context the name is read every way: context7_evil may be context7", function()
  local r = call("mcp_context7_evil_query")
  expect.no_objection(r)
  expect.eq(r.asked, nil, "asked")
end)

test("mcp_context keeps a wrong split of the name off the deny list", function()
  local r = call("mcp_files_purge_list", gemini("files_purge", "list"))
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
  expect.denied(call("mcp_files_purge_list"), "deny list")
end)

test("mcp_context's server and tool are denied by the deny list", function()
  expect.denied(call("mcp_my_server_delete_all", gemini("my_server", "delete_all")), "deny list")
end)

test("mcp_context that is not strings falls back to the name", function()
  expect.denied(call("mcp_files_purge_list", { agent = "gemini", native = { mcp_context = { server_name = 7 } } }), "deny list")
end)

test("Copilot's server-tool names are read as servers and tools", function()
  local r = call("context7-query", { agent = "copilot" })
  expect.no_objection(r)
  expect.eq(r.asked, nil, "asked")
end)

test("Cursor's names carry no server, even with a -", function()
  local r = call("context7-query", { agent = "cursor" })
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
end)
`

// TestMCPPackReadsTheServerTheAgentNamed runs mcpNativeSuite against the
// mcp pack as shipped.
func TestMCPPackReadsTheServerTheAgentNamed(t *testing.T) {
	dir := hooksFolder(t, "mcp.lua")
	if err := os.WriteFile(filepath.Join(dir, "mcp_native_test.lua"), []byte(mcpNativeSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{dir}, Out: &out})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if sum.Failed != 0 || sum.Passed != 7 {
		t.Errorf("%v, want the 7 cases to pass:\n%s", sum, out.String())
	}
}
