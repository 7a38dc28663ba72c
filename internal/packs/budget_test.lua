-- Tests for budget.lua: a session's budgets of tool calls and of shell
-- commands, the warning at 80% of each, and the stop to a call that failed
-- each of the last two times it ran. Every case starts with an empty store;
-- each fires its sequence in one session. (Wall time, tokens, cost, the
-- loop's window and commands longer than the ledger keeps are tried in
-- budget_settings_test.go.)

local MAX_CALLS, MAX_SHELL = 500, 300
local CWD = "/home/dev/app"

local TOOLS = {
  { name = "Read", caps = { "fs.read" }, input = { file_path = "/home/dev/app/main.go" } },
  { name = "Edit", caps = { "fs.write" }, input = { file_path = "/home/dev/app/main.go", old_string = "a",
    new_string = "b" } },
  { name = "WebFetch", caps = { "network" }, input = { url = "https://go.dev/doc" } },
  { name = "Grep", caps = { "fs.read" }, input = { pattern = "TODO", path = "/home/dev/app" } },
}

local function payload(tool, caps, input, session)
  return { toolName = tool, toolCapabilities = caps, toolInput = input, sessionId = session or "s", cwd = CWD }
end

-- call asks for the i-th of TOOLS (none a shell) and, unless it is denied,
-- reports it back as done.
local function call(i, session)
  local t = TOOLS[i % #TOOLS + 1]
  local p = payload(t.name, t.caps, t.input, session)
  local r = fire("PreToolUse", p)
  if not r.denied then
    p.toolResult = { content = "ok", isError = false }
    fire("PostToolUse", p)
  end
  return r
end

-- run asks for a shell command and, unless it is denied, reports it back:
-- failed unless ok.
local function run(command, ok, session)
  local p = payload("Bash", { "shell" }, { command = command }, session)
  local r = fire("PreToolUse", p)
  if not r.denied then
    p.toolResult = ok and { content = "done", isError = false } or { content = "exit status 1", isError = true }
    fire("PostToolUse", p)
  end
  return r
end

-- mcp asks for an MCP tool call and reports it back, failed unless ok.
local function mcp(input, ok)
  local p = payload("mcp__github__create_issue", { "mcp" }, input)
  local r = fire("PreToolUse", p)
  if not r.denied then
    p.toolResult = ok and { content = "created", isError = false } or { content = "422 Validation Failed", isError = true }
    fire("PostToolUse", p)
  end
  return r
end

local LOOP = "budget: you have run this 2 times; it failed each time; change approach"

-- tool calls

test("the tool calls of a session within budget run", function()
  for i = 1, MAX_CALLS do
    local r = call(i)
    expect.proceeds(r)
    expect.truthy(not r.denied, "call " .. i)
  end
end)

test("the tool call past the budget is denied, naming the budget and its setting", function()
  for i = 1, MAX_CALLS do call(i) end
  local r = call(1)
  expect.denied(r, "budget: this session has used 500 of its 500 tool calls (max_tool_calls in the budget pack's SETTINGS)")
  expect.contains(r.reason, "Stop working now")
end)

test("every later call stays denied, whatever the tool", function()
  for i = 1, MAX_CALLS + 1 do call(i) end
  for i = 1, #TOOLS do expect.denied(call(i), "max_tool_calls") end
  expect.denied(run("git status", true), "max_tool_calls")
  expect.denied(mcp({ title = "x" }, true), "max_tool_calls")
end)

test("shell commands count as tool calls too", function()
  for i = 1, MAX_CALLS - 200 do call(i) end
  for i = 1, 200 do expect.proceeds(run("go build ./cmd/" .. i, true)) end
  expect.denied(call(1), "500 of its 500 tool calls")
end)

test("at 80% of the tool calls the model is told once", function()
  for i = 1, 399 do
    local r = call(i)
    expect.truthy(r.additionalContext == nil, "no context before the 400th call, got one at call " .. i)
  end
  local r = call(400)
  expect.proceeds(r)
  expect.context(r, "budget: this session has used 400 of its 500 tool calls")
  expect.context(r, "finish the work that matters most first")
  for i = 401, 420 do
    expect.truthy(call(i).additionalContext == nil, "the warning is given once, given again at call " .. i)
  end
end)

test("a budget spent in one session leaves another alone", function()
  for i = 1, MAX_CALLS + 1 do call(i, "spent") end
  expect.denied(call(1, "spent"), "max_tool_calls")
  expect.no_objection(call(1, "fresh"))
end)

test("a new session start or prompt does not reset the budget", function()
  for i = 1, MAX_CALLS do call(i) end
  fire("SessionStart", { sessionId = "s" })
  fire("UserPromptSubmit", { prompt = "keep going", sessionId = "s" })
  expect.denied(call(1), "max_tool_calls")
end)

-- shell commands

test("the shell commands of a session within budget run", function()
  for i = 1, MAX_SHELL do expect.proceeds(run("go test ./pkg/" .. i, true)) end
end)

test("the shell command past its budget is denied; other tools still run", function()
  for i = 1, MAX_SHELL do run("go test ./pkg/" .. i, true) end
  local r = run("git status", true)
  expect.denied(r, "budget: this session has used 300 of its 300 shell commands (max_shell_commands in the budget pack's SETTINGS)")
  expect.contains(r.reason, "Stop working now")
  expect.denied(run("ls", true), "max_shell_commands")
  expect.no_objection(call(1))
end)

test("a shell command through PowerShell counts as one", function()
  for i = 1, MAX_SHELL do
    fire("PreToolUse", payload("PowerShell", { "shell" }, { command = "Get-ChildItem ." .. i }))
  end
  expect.denied(run("git status", true), "max_shell_commands")
end)

test("at 80% of the shell commands the model is told once", function()
  for i = 1, 239 do
    expect.truthy(run("go vet ./pkg/" .. i, true).additionalContext == nil, "no context before the 240th command")
  end
  local r = run("go vet ./...", true)
  expect.proceeds(r)
  expect.context(r, "budget: this session has used 240 of its 300 shell commands")
  expect.truthy(run("go vet ./x", true).additionalContext == nil, "the warning is given once")
end)

-- loops

test("a shell command that failed twice in a row is denied the third time", function()
  expect.no_objection(run("go test ./...", false))
  expect.no_objection(run("go test ./...", false))
  local r = run("go test ./...", false)
  expect.denied(r, LOOP)
  expect.contains(r.reason, "loop.repeats = 3")
  expect.contains(r.reason, "loop.window_ms = 600000")
end)

test("a looping command stays denied however often it is retried", function()
  run("make test", false)
  run("make test", false)
  for _ = 1, 5 do expect.denied(run("make test", false), LOOP) end
end)

test("the same command spelled otherwise is the same command", function()
  run("npm run build", false)
  run("npm run build", false)
  expect.denied(run("'npm' run build", false), LOOP)
  expect.denied(run("sudo npm run build", false), LOOP)
  expect.denied(run("bash -c 'npm run build'", false), LOOP)
  expect.denied(run("true && npm  run build", false), LOOP)
  expect.denied(run("/usr/bin/npm run \"build\"", false), LOOP)
end)

test("a command that failed once is not a loop", function()
  expect.no_objection(run("go test ./...", false))
  expect.no_objection(run("go test ./...", false))
end)

test("a success between the failures resets the loop", function()
  run("go test ./...", false)
  run("go test ./...", true)
  run("go test ./...", false)
  expect.no_objection(run("go test ./...", false))
end)

test("another call between the failures resets the loop", function()
  run("go test ./...", false)
  call(1)
  run("go test ./...", false)
  expect.no_objection(run("go test ./...", false))
end)

test("another failing call between the failures resets the loop", function()
  run("go test ./...", false)
  run("go vet ./...", false)
  run("go test ./...", false)
  expect.no_objection(run("go test ./...", false))
end)

test("a different command after two failures runs: the agent changed approach", function()
  run("go test ./...", false)
  run("go test ./...", false)
  expect.no_objection(run("go test -run TestParse ./parser", false))
  expect.no_objection(run("go test ./...", false))
end)

test("other arguments make another command", function()
  run("pytest tests/test_api.py", false)
  run("pytest tests/test_api.py", false)
  expect.no_objection(run("pytest tests/test_db.py", false))
end)

test("a command that keeps succeeding is never a loop", function()
  for _ = 1, 20 do expect.no_objection(run("git status", true)) end
end)

test("an MCP call that failed twice with the same input is denied", function()
  mcp({ owner = "acme", repo = "app", title = "Bug" }, false)
  mcp({ owner = "acme", repo = "app", title = "Bug" }, false)
  expect.denied(mcp({ owner = "acme", repo = "app", title = "Bug" }, false), LOOP)
  expect.no_objection(mcp({ owner = "acme", repo = "app", title = "Bug", labels = { "bug" } }, false))
end)

test("failures in another session do not count", function()
  run("go test ./...", false, "other")
  run("go test ./...", false, "other")
  expect.no_objection(run("go test ./...", false, "s"))
  expect.denied(run("go test ./...", false, "other"), LOOP)
end)

test("a failure reported without its call still counts as a run", function()
  local p = payload("Bash", { "shell" }, { command = "cargo build" })
  p.toolResult = { content = "error[E0425]", isError = true }
  fire("PostToolUse", p)
  fire("PostToolUse", p)
  expect.denied(run("cargo build", false), LOOP)
end)

test("the usual fix loop runs: a failing test, an edit, the test again", function()
  for i = 1, 10 do
    expect.no_objection(run("go test ./parser", false))
    expect.no_objection(call(1))
  end
  expect.no_objection(run("go test ./parser", true))
end)

test("after a loop is denied, another call lets the command be tried again", function()
  run("go test ./...", false)
  run("go test ./...", false)
  expect.denied(run("go test ./...", false), LOOP)
  expect.no_objection(call(1))
  expect.no_objection(run("go test ./...", false))
end)

test("an everyday session of mixed calls and a few failures is never stopped", function()
  local lines = { "git status", "go build ./...", "go test ./...", "ls -la", "cat go.mod", "git diff" }
  for i = 1, 120 do
    expect.no_objection(call(i))
    local r = run(lines[i % #lines + 1], i % 7 ~= 0)
    expect.truthy(not r.denied, "call " .. i .. " denied: " .. tostring(r.reason))
  end
end)

test("a call that failed and one that was denied elsewhere are not two failures", function()
  run("terraform apply", false)
  -- denied by another policy: it never reports back
  fire("PreToolUse", payload("Bash", { "shell" }, { command = "terraform apply" }))
  expect.no_objection(run("terraform apply", false))
end)

test("the warning says what to do, and the call runs", function()
  for i = 1, 399 do call(i) end
  local r = call(400)
  expect.no_objection(r)
  expect.context(r, "At the limit every tool call is denied")
end)

test("a command that once worked and then failed twice is denied", function()
  run("go test ./...", true)
  run("go test ./...", false)
  run("go test ./...", false)
  expect.denied(run("go test ./...", false), LOOP)
end)

test("a call without a session id has no ledger and is not budgeted", function()
  for _ = 1, 3 do
    local p = { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = "make" }, cwd = CWD }
    expect.no_objection(fire("PreToolUse", p))
    p.toolResult = { content = "exit status 2", isError = true }
    fire("PostToolUse", p)
  end
end)

test("a shell call without a command is counted, not failed", function()
  local r = fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, sessionId = "s", cwd = CWD })
  expect.truthy(not r.denied, "denied: " .. tostring(r.reason))
end)
