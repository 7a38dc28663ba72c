-- Tests for 30-prefer-pnpm.lua.

-- bash fires command in a pnpm project (testdata/pnpm-app holds
-- pnpm-lock.yaml), or in the folder cwd names.
local function bash(command, extra, cwd)
  local args = { command = command }
  for k, v in pairs(extra or {}) do args[k] = v end
  return fire("PreToolUse", { toolName = "bash", cwd = cwd or "testdata/pnpm-app", toolInput = args })
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
  { "npm add left-pad", "pnpm add left-pad" },
  { "npm install --save-dev typescript @types/node", "pnpm add --save-dev typescript @types/node" },
  { "npm i -E left-pad@1.3.0", "pnpm add -E left-pad@1.3.0" },
  { "npm install \"left-pad\"", "pnpm add \"left-pad\"" },
  -- pnpm passes a "--" on to the script, npm does not: it is dropped
  { "npm run test -- --watch", "pnpm run test --watch" },
  { "npm run test -- --grep 'a b'", "pnpm run test --grep 'a b'" },
  { "npm run lint -- --fix -- x", "pnpm run lint --fix -- x" },
  { "npm run", "pnpm run" },
  { "npm run-script build", "pnpm run build" },
  { "npm run-script", "pnpm run" },
  -- pnpm dlx never asks: npx's --yes has nothing to answer
  { "npx --yes create-vite@latest app", "pnpm dlx create-vite@latest app" },
  { "npx -y cowsay hi", "pnpm dlx cowsay hi" },
  -- each plain command of a chain
  { "cd web && npm install", "cd web && pnpm install" },
  { "cd web && npm ci && npm run build", "cd web && pnpm install --frozen-lockfile && pnpm run build" },
  { "npm test; npm i x", "npm test; pnpm add x" },
  { "npm install x || echo failed", "pnpm add x || echo failed" },
  { "  npm install x  ", "  pnpm add x  " },
  -- up to the first command that is not plain: it and the rest stay
  { "npm install x && echo \"$HOME\" && npm install y", "pnpm add x && echo \"$HOME\" && npm install y" },
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

local untouched = { "pnpm add x", "npm --version", "echo npm install x", "ls", "npmx install",
  -- global installs do not touch the project: pnpm's would need its own setup
  "npm install -g typescript", "npm i --global pnpm", "npm install --location=global x", "npm i -g",
  -- options pnpm does not take, or takes otherwise
  "npm install --legacy-peer-deps", "npm install --no-audit x", "npm i -D", "npm ci --omit=dev",
  "npm run --silent build", "npx -p typescript tsc", "npx --no-install tsc", "npx", "npx --yes",
  -- other npm verbs
  "npm test", "npm publish",
  -- not a plain command: an expansion, a pipe, a redirection, a comment
  "npm install $PKG", "npm install x | tee log", "npm install x > log", "npm install x # a comment",
  "NODE_ENV=production npm ci", "echo \"$(npm install x)\"", "cd \"$DIR\" && echo && npm i x" }

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

-- The project's own lockfiles decide, as the fs module sees them from the
-- cwd down: an npm project is never rewritten to pnpm.
local elsewhere = {
  { "testdata/npm-app", "npm install" },
  { "testdata/npm-app", "npm ci" },
  { "testdata/npm-app", "npm install left-pad" },
  { "testdata/npm-app", "npx prettier --write ." },
  { "testdata/both-app", "npm install x" },
  { "testdata", "npm install x" },
  { "testdata/pnpm-app/legacy", "npm run build" },
  { "testdata/pnpm-app", "cd legacy && npm i x" },
  { "testdata/pnpm-app", "cd .. && npm i x" },
  { "testdata/pnpm-app", "cd /tmp && npm i x" },
  { "/no/such/project", "npm install x" },
}

for _, c in ipairs(elsewhere) do
  test("leaves " .. c[2] .. " alone in " .. c[1], function()
    local r = bash(c[2], nil, c[1])
    expect.no_objection(r)
    expect.eq(r.input, nil, "no rewrite")
  end)
end

test("a cd into a pnpm project's folder without a lockfile of its own rewrites", function()
  expect.mutated(bash("cd src && npm i x"), { command = "cd src && pnpm add x" })
  expect.mutated(bash("cd legacy && npm i x && cd .. && npm ci"),
    { command = "cd legacy && npm i x && cd .. && pnpm install --frozen-lockfile" })
end)
