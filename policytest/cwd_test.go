package policytest

import (
	"os"
	"path/filepath"
	"testing"
)

// A test's payload with a relative cwd names a folder below the test
// file's, as an agent's absolute cwd would: rt.cwd and the fs module see
// that folder, wherever luahook test runs; no cwd is the test file's
// folder, and an absolute or Windows cwd stays as written.
func TestARelativeCwdIsBelowTheTestFilesFolder(t *testing.T) {
	dir := folder(t, map[string]string{
		"lock.lua": `
hook.register("PreToolUse", "bash", function(input, rt)
  if input.toolInput.command == "where" then return hook.deny("cwd=" .. rt.cwd) end
  if fs.exists("pnpm-lock.yaml") then return hook.deny("this project uses pnpm") end
end)`,
		"lock_test.lua": `
local function where(cwd)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = "where" }, cwd = cwd }).reason
end
local function npm(cwd)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = "npm i" }, cwd = cwd })
end
local function folder() return where(nil):sub(5) end
test("no cwd is the test file's folder", function()
  expect.truthy(folder():find("^/.*[^/]$"))
  expect.no_objection(npm(nil))
end)
test("a relative cwd is below it", function()
  local here = folder()
  expect.eq(where("app"), "cwd=" .. here .. "/app")
  expect.eq(where("./app/"), "cwd=" .. here .. "/app")
  expect.denied(npm("app"), "uses pnpm")
  expect.denied(npm("app/../app"), "uses pnpm")
end)
test("an absolute cwd stays", function()
  local here = folder()
  expect.eq(where(here .. "/app"), "cwd=" .. here .. "/app")
  expect.denied(npm(here .. "/app"), "uses pnpm")
end)
test("a Windows cwd stays as written", function()
  expect.eq(where("C:\\Users\\dev\\app"), "cwd=C:\\Users\\dev\\app")
  expect.eq(where("\\\\server\\share"), "cwd=\\\\server\\share")
end)
`,
	})
	if err := os.Mkdir(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "pnpm-lock.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, out := run(t, Options{Paths: []string{dir}})
	if sum != (Summary{Passed: 4}) {
		t.Fatalf("%v, want 4 passed:\n%s", sum, out)
	}
}
