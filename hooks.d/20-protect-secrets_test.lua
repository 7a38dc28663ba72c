-- Tests for 20-protect-secrets.lua.

local function read(path)
  return fire("PreToolUse", { toolName = "read", toolInput = { path = path } })
end

local function bash(command)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = command } })
end

local secret = { ".env", "config/.env", ".env.local", ".env.production", "/home/me/.ssh/id_ed25519",
  "id_rsa", "certs/server.key", "tls/cert.pem", "store.p12", "/home/me/.aws/credentials", ".netrc",
  "/home/me/.ssh/config" }

for _, path in ipairs(secret) do
  test("denies reading " .. path, function()
    expect.denied(read(path), "access to " .. path .. " is blocked")
  end)
end

local harmless = { ".env.example", "config/.env.sample", ".env.template", "README.md", "src/env.go",
  "id_rsa.pub", "keys.txt", "docs/environment.md", "monkey", ".envrc.md" }

for _, path in ipairs(harmless) do
  test("allows reading " .. path, function()
    expect.allowed(read(path))
  end)
end

test("file_path is checked as well as path", function()
  expect.denied(fire("PreToolUse", { toolName = "edit", toolInput = { file_path = "app/.env" } }), "app/.env")
end)

test("writes and edits are guarded too", function()
  expect.denied(fire("PreToolUse", { toolName = "write", toolInput = { path = ".env", content = "X=1" } }))
  expect.denied(fire("PreToolUse", { toolName = "Edit", toolInput = { path = "deploy.pem" } }))
end)

local shell_secret = {
  { "cat .env", ".env" },
  { "cat .env.example > .env", ".env" },
  { "grep TOKEN config/.env.local", "config/.env.local" },
  { "cp ~/.ssh/id_rsa /tmp/k", "~/.ssh/id_rsa" },
  { "scp -i key.pem host:x .", "key.pem" },
  { "tool --env-file=.env run", ".env" },
  { "echo $(cat .env)", ".env" },
  { "source .env && env", ".env" },
}

for _, c in ipairs(shell_secret) do
  test("denies the command " .. c[1], function()
    expect.denied(bash(c[1]), "the command touches " .. c[2])
  end)
end

local shell_harmless = { "cat .env.example", "ls -la", "printenv HOME", "go test ./...", "cat id_rsa.pub" }

for _, cmd in ipairs(shell_harmless) do
  test("allows the command " .. cmd, function()
    expect.allowed(bash(cmd))
  end)
end

test("tool calls without input are not denied", function()
  expect.allowed(fire("PreToolUse", { toolName = "read" }))
  expect.allowed(fire("PreToolUse", { toolName = "bash" }))
end)
