-- Tests for 30-prefer-pnpm.lua.

local function bash(command, extra)
  local args = { command = command }
  for k, v in pairs(extra or {}) do args[k] = v end
  return fire("PreToolUse", { toolName = "bash", toolInput = args })
end

local rewrites = {
  { "npm install x", "pnpm add x" },
  { "npm install left-pad lodash", "pnpm add left-pad lodash" },
  { "npm i -D typescript", "pnpm add -D typescript" },
  { "npm install", "pnpm install" },
  { "npm i", "pnpm install" },
  { "npm ci", "pnpm install --frozen-lockfile" },
  { "npm run build", "pnpm run build" },
  { "npx prettier --write .", "pnpm dlx prettier --write ." },
}

for _, c in ipairs(rewrites) do
  test("rewrites " .. c[1] .. " to " .. c[2], function()
    local r = bash(c[1])
    expect.mutated(r, { command = c[2] })
    expect.eq(r.outcome.action, "mutate")
  end)
end

test("keeps the other fields of the tool input", function()
  local r = bash("npm install x", { timeout = 120000, description = "install x" })
  expect.eq(r.input, { command = "pnpm add x", timeout = 120000, description = "install x" })
end)

local untouched = { "pnpm add x", "npm --version", "echo npm install x", "ls", "npmx install" }

for _, cmd in ipairs(untouched) do
  test("leaves " .. cmd .. " alone", function()
    local r = bash(cmd)
    expect.no_objection(r)
    expect.eq(r.input, nil, "no rewrite")
  end)
end

test("the validators see the rewritten command", function()
  local r = bash("npm install x && rm -rf /")
  expect.denied(r, "recursive delete")
  expect.eq(r.trace[1].name, "prefer-pnpm")
  expect.eq(r.trace[1].outcome.input.command, "pnpm add x && rm -rf /")
end)

test("other tools are not rewritten", function()
  local r = fire("PreToolUse", { toolName = "write", toolInput = { path = "x.sh", content = "npm install x" } })
  expect.no_objection(r)
  expect.eq(r.input, nil)
end)
