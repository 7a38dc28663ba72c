-- Tests for 50-rate-limit.lua. Every case starts with an empty store.

local function bash(session)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls" }, sessionId = session })
end

test("the first 60 shell commands of a session run", function()
  for i = 1, 60 do
    local r = bash("busy")
    expect.eq(r.denied, false, "command " .. i)
  end
end)

test("the 61st shell command in a session is denied", function()
  for _ = 1, 60 do
    bash("busy")
  end
  local r = bash("busy")
  expect.denied(r, "rate limit: 61 shell commands in the last minute (limit 60)")
  expect.denied(bash("busy"), "rate limit: 62 shell commands")
end)

test("another session's first command is not limited", function()
  for _ = 1, 61 do
    bash("busy")
  end
  expect.denied(bash("busy"), "rate limit")
  expect.allowed(bash("calm"))
end)

test("other tools do not count", function()
  for _ = 1, 70 do
    fire("PreToolUse", { toolName = "read", toolInput = { path = "README.md" }, sessionId = "busy" })
  end
  expect.allowed(bash("busy"))
end)
