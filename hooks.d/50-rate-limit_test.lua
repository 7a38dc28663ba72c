-- Tests for 50-rate-limit.lua. Every case starts with an empty store.

local function bash(session, client)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls" }, sessionId = session, client = client })
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
  expect.no_objection(bash("calm"))
end)

test("other tools do not count", function()
  for _ = 1, 70 do
    fire("PreToolUse", { toolName = "read", toolInput = { path = "README.md" }, sessionId = "busy" })
  end
  expect.no_objection(bash("busy"))
end)

test("a new session id per command does not dodge the client's limit", function()
  for i = 1, 1200 do
    expect.no_objection(bash("fresh-" .. i))
  end
  expect.denied(bash("fresh-1201"), "rate limit: more than 1200 shell commands in the last minute across this client's sessions")
  expect.denied(bash("busy"), "across this client's sessions")
end)

test("one client flooding new session ids does not deny another client's sessions", function()
  for i = 1, 1300 do
    bash("fresh-" .. i, "flooder")
  end
  expect.denied(bash("real", "flooder"), "across this client's sessions")
  expect.no_objection(bash("real", "team-ci"))
  expect.no_objection(bash("real"))
end)

test("a client cannot use up another client's session of the same id", function()
  for _ = 1, 61 do
    bash("shared-id", "mallory")
  end
  expect.denied(bash("shared-id", "mallory"), "rate limit: 62 shell commands")
  expect.no_objection(bash("shared-id", "alice"))
end)

test("a session denied by its own limit does not use up the others' budget", function()
  for _ = 1, 700 do
    bash("runaway")
  end
  expect.denied(bash("runaway"), "rate limit: 701 shell commands in the last minute (limit 60)")
  expect.no_objection(bash("calm"))
end)

test("commands without a session id share one limit", function()
  for _ = 1, 60 do
    expect.no_objection(bash(""))
  end
  expect.denied(bash(""), "rate limit: 61 shell commands")
  expect.no_objection(bash("named"))
end)

test("a session id as long as the payload allows is counted like any other", function()
  -- Longer ids are refused before any hook runs (sessionId is at most 256 bytes).
  local id = ("x"):rep(256)
  for _ = 1, 60 do
    expect.no_objection(bash(id))
  end
  expect.denied(bash(id), "rate limit: 61 shell commands")
end)
