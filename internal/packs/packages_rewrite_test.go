package packs_test

import "testing"

// rewriteCases are the packages pack's cases with SETTINGS.rewrite set to
// npm -> pnpm, the opt-in a pnpm project makes: npm and npx lines become
// pnpm lines, and the rewritten line is still judged by the rules.
const rewriteCases = `
local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/project", sessionId = "t" })
end

test("allows a pinned npx, rewritten to pnpm dlx", function()
  expect.mutated(sh("npx eslint@9.1.0 ."), { command = "pnpm dlx eslint@9.1.0 ." })
  expect.mutated(sh("npx --package=@angular/cli@17.3.8 ng new app"),
    { command = "pnpm dlx --package=@angular/cli@17.3.8 ng new app" })
end)

test("rewrites npm install into pnpm install", function()
  expect.mutated(sh("npm install"), { command = "pnpm install" })
end)

test("rewrites npm install x into pnpm add x", function()
  expect.mutated(sh("npm install lodash"), { command = "pnpm add lodash" })
end)

test("rewrites npm ci into a frozen pnpm install", function()
  expect.mutated(sh("npm ci"), { command = "pnpm install --frozen-lockfile" })
end)

test("rewrites npx x@version into pnpm dlx x@version", function()
  expect.mutated(sh("npx cowsay@1.6.0 hi"), { command = "pnpm dlx cowsay@1.6.0 hi" })
end)

test("a rewritten global install is still denied", function()
  expect.denied(sh("npm install -g typescript"), "global install (pnpm add -g)")
end)

test("rewrites a project-local npm uninstall into pnpm remove, and lets it run", function()
  expect.mutated(sh("npm uninstall lodash"), { command = "pnpm remove lodash" })
end)

test("rewrite: a line that does not start with npm is left alone", function()
  local r = sh("git status && npm install")
  expect.eq(r.input, nil, "rewritten input")
end)
`

// TestPackagesPackRewritesNpmWhenOptedIn runs the packages pack with
// SETTINGS.rewrite = { from = "npm", to = "pnpm" }, as a pnpm project
// would set it, through policytest on real files: npm is rewritten to
// pnpm, and a rewritten global install or unpinned npx is still denied.
// By default (rewrite = nil) packages_test.lua checks that nothing is
// rewritten.
func TestPackagesPackRewritesNpmWhenOptedIn(t *testing.T) {
	const dflt, on = "rewrite = nil,", `rewrite = { from = "npm", to = "pnpm" },`
	sum, out := runWithSetting(t, "packages", dflt, on, rewriteCases)
	if sum.Failed > 0 || sum.Passed < 8 {
		t.Errorf("packages pack with the npm rewrite: %v\n%s", sum, out)
	}
}
