-- Tests for session.lua: a session is stopped after its budget of tool
-- calls or of denied calls, whatever tools it uses; other sessions are not;
-- the rules are given at session start. Every case starts with an empty store.

local MAX_CALLS, MAX_DENIALS = 400, 25

local TOOLS = {
  { name = "Bash", caps = { "shell" }, input = { command = "go test ./..." } },
  { name = "Read", caps = { "fs.read" }, input = { file_path = "/home/dev/app/main.go" } },
  { name = "Edit", caps = { "fs.write" }, input = { file_path = "/home/dev/app/main.go", old_string = "a",
    new_string = "b" } },
  { name = "WebFetch", caps = { "network" }, input = { url = "https://go.dev/doc" } },
  { name = "mcp__github__get_issue", caps = { "mcp" }, input = { number = 1 } },
}

-- call asks for a tool call and, unless it is denied or left unfinished,
-- reports it back as finished.
local function call(session, i, unfinished, client)
  local t = TOOLS[(i or 1) % #TOOLS + 1]
  local payload = { toolName = t.name, toolCapabilities = t.caps, toolInput = t.input, sessionId = session,
    cwd = "/home/dev/app", client = client }
  local r = fire("PreToolUse", payload)
  if not r.denied and not unfinished then
    payload.toolResult = { content = "ok", isError = false }
    fire("PostToolUse", payload)
  end
  return r
end

test("the calls of a session within budget run", function()
  for i = 1, MAX_CALLS do
    expect.no_objection(call("s", i))
  end
end)

test("the call past the budget is denied and tells the agent to stop", function()
  for i = 1, MAX_CALLS do call("s", i) end
  local r = call("s", 1)
  expect.denied(r, "session budget spent: this session has asked for 401 tool calls (limit 400)")
  expect.contains(r.reason, "Stop working now")
end)

test("every later call stays denied", function()
  for i = 1, MAX_CALLS + 1 do call("s", i) end
  for i = 1, 5 do expect.denied(call("s", i), "session budget spent") end
end)

test("failed tool runs count as finished, not denied", function()
  for i = 1, 40 do
    local p = { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = "make" }, sessionId = "s" }
    expect.no_objection(fire("PreToolUse", p))
    p.toolResult = { content = "exit 2", isError = true }
    fire("PostToolUse", p)
  end
  expect.no_objection(call("s", 1))
end)

test("calls that never report back count as denied", function()
  for i = 1, MAX_DENIALS do call("s", i, true) end
  local r = call("s", 1)
  expect.denied(r, "25 of this session's tool calls were denied or did not finish (limit 25)")
  expect.contains(r.reason, "Stop retrying")
end)

test("calls that never report back after many that did are counted as denied", function()
  for i = 1, 100 do call("s", i) end
  for i = 1, MAX_DENIALS - 1 do call("s", i, true) end
  expect.no_objection(call("s", 1, true))
  expect.denied(call("s", 1), "25 of this session's tool calls were denied or did not finish (limit 25)")
end)

test("one call short of the denial budget still runs", function()
  for i = 1, MAX_DENIALS - 1 do call("s", i, true) end
  expect.no_objection(call("s", 1))
end)

test("a budget spent in one session leaves another alone", function()
  for i = 1, MAX_DENIALS do call("loop", i, true) end
  expect.denied(call("loop", 1), "session budget spent")
  expect.no_objection(call("fresh", 1))
end)

test("calls without a session id share one budget", function()
  for i = 1, MAX_DENIALS do call("", i, true) end
  expect.denied(call("", 1), "session budget spent")
end)

-- bypass attempts

test("switching tools does not reset the budget", function()
  for i = 1, MAX_CALLS do call("s", i) end
  for i = 1, #TOOLS do expect.denied(call("s", i), "session budget spent") end
end)

test("an unknown tool is counted too", function()
  for _ = 1, MAX_DENIALS do
    fire("PreToolUse", { toolName = "SomeNewTool", toolInput = {}, sessionId = "s" })
  end
  expect.denied(fire("PreToolUse", { toolName = "SomeNewTool", toolInput = {}, sessionId = "s" }), "session budget")
end)

test("retrying a denied command in new spellings is counted", function()
  local spellings = { "rm -rf /", "r''m -rf /", "sudo rm -rf /", "sh -c 'rm -rf /'", "$'\\x72m' -rf /" }
  for i = 1, MAX_DENIALS do
    -- the command is denied elsewhere: it never reports back
    fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" },
      toolInput = { command = spellings[i % #spellings + 1] }, sessionId = "s" })
  end
  expect.denied(call("s", 1), "were denied or did not finish")
end)

test("completions reported without calls do not bank credit", function()
  for _ = 1, 50 do
    fire("PostToolUse", { toolName = "Read", toolCapabilities = { "fs.read" }, toolInput = {}, sessionId = "s",
      toolResult = { content = "x", isError = false } })
  end
  for i = 1, MAX_DENIALS do call("s", i, true) end
  expect.denied(call("s", 1), "were denied or did not finish")
end)

test("completions in another session do not credit this one", function()
  for i = 1, MAX_DENIALS do
    call("s", i, true)
    call("other", i)
  end
  expect.denied(call("s", 1), "were denied")
end)

test("a new prompt does not reset the budget", function()
  for i = 1, MAX_DENIALS do call("s", i, true) end
  fire("UserPromptSubmit", { prompt = "try again please", sessionId = "s" })
  expect.denied(call("s", 1), "session budget spent")
end)

test("a new session start does not reset the budget of the same session id", function()
  for i = 1, MAX_DENIALS do call("s", i, true) end
  fire("SessionStart", { sessionId = "s" })
  expect.denied(call("s", 1), "session budget spent")
end)

test("the denied calls are counted on the call budget too", function()
  for i = 1, MAX_CALLS + 10 do call("s", i) end
  expect.denied(call("s", 1), "tool calls (limit 400)")
end)

test("the longest session id the payload allows still gets a budget", function()
  local id = string.rep("x", 256)
  for i = 1, MAX_DENIALS do call(id, i, true) end
  expect.denied(call(id, 1), "session budget spent")
end)

-- session start

test("session start tells the agent that policies guard the session", function()
  expect.context(fire("SessionStart", { sessionId = "s" }), "guarded by luahook policies")
end)

test("session start states the budgets", function()
  expect.context(fire("SessionStart", { sessionId = "s" }),
    "at most 400 tool calls in this session, and it stops after 25 denied calls")
end)

test("session start tells the agent not to rephrase around a denial", function()
  expect.context(fire("SessionStart", { sessionId = "s" }), "do not rephrase")
end)

test("session start context does not block or count", function()
  for _ = 1, 50 do fire("SessionStart", { sessionId = "s" }) end
  expect.no_objection(call("s", 1))
end)

-- legitimate work

test("a long ordinary session of edits and test runs is not stopped", function()
  for i = 1, 300 do expect.no_objection(call("work", i)) end
end)

test("a few denials among many calls do not stop a session", function()
  for i = 1, 200 do call("work", i, i % 20 == 0) end
  expect.no_objection(call("work", 1))
end)

test("parallel calls in flight below the denial budget run", function()
  for i = 1, 10 do expect.no_objection(call("par", i, true)) end
end)

test("stop and prompts pass untouched", function()
  expect.no_objection(fire("UserPromptSubmit", { prompt = "fix the build", sessionId = "s" }))
  local r = fire("Stop", { sessionId = "s" })
  expect.eq(r.continue, nil, "continue")
end)

test("a session id is all a budget needs: tools without capabilities are counted and run", function()
  expect.no_objection(fire("PreToolUse", { toolName = "TodoWrite", toolInput = { todos = {} }, sessionId = "s" }))
end)

test("a session that asks for its whole call budget over many short turns runs", function()
  for turn = 1, 40 do
    fire("UserPromptSubmit", { prompt = "next step " .. turn, sessionId = "turns", cwd = "/home/dev/app" })
    for i = 1, 9 do expect.no_objection(call("turns", turn + i)) end
  end
end)

test("a session's first call runs whatever tool it is", function()
  for i = 1, #TOOLS do expect.no_objection(call("first-" .. i, i - 1)) end
end)

test("ending the turn between unfinished calls does not reset the denial budget", function()
  for i = 1, MAX_DENIALS do
    call("s", i, true)
    fire("Stop", { sessionId = "s", cwd = "/home/dev/app" })
  end
  expect.denied(call("s", 1), "session budget spent")
end)

test("a client cannot spend another client's session of the same id", function()
  for i = 1, MAX_CALLS do call("s", i, false, "mallory") end
  expect.denied(call("s", 1, false, "mallory"), "session budget spent")
  expect.no_objection(call("s", 1, false, "alice"))
end)
