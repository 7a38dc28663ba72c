-- Tests for 40-session-context.lua.

test("SessionStart gives the house rules as context", function()
  local r = fire("SessionStart", { sessionId = "s1" })
  expect.context(r, "House rules for this repository:")
  expect.context(r, "Conventional Commits")
  expect.context(r, "never edit files under vendor/")
  expect.eq(r.contextAs, "inline")
  expect.eq(r.outcome.additionalContext, r.additionalContext)
end)

test("a successful edit reminds the model to run the tests", function()
  local r = fire("PostToolUse", {
    toolName = "edit",
    toolInput = { path = "src/main.go" },
    toolResult = { content = "ok", isError = false },
  })
  expect.context(r, "Edited src/main.go. Run the tests before you finish.")
end)

test("file_path names the file too", function()
  local r = fire("PostToolUse", {
    toolName = "write",
    toolInput = { file_path = "notes.md" },
    toolResult = { content = "ok", isError = false },
  })
  expect.context(r, "Edited notes.md.")
end)

test("a failed edit adds no reminder", function()
  local r = fire("PostToolUse", {
    toolName = "edit",
    toolInput = { path = "src/main.go" },
    toolResult = { content = "no such file", isError = true },
  })
  expect.eq(r.additionalContext, nil)
end)

test("other tools add no reminder", function()
  local r = fire("PostToolUse", {
    toolName = "bash",
    toolInput = { command = "ls" },
    toolResult = { content = "a b", isError = false },
  })
  expect.eq(r.additionalContext, nil)
end)

test("an edit without tool input still gets a reminder", function()
  local r = fire("PostToolUse", { toolName = "edit", toolResult = { content = "ok", isError = false } })
  expect.context(r, "Edited the file.")
  expect.eq(r.trace[1].failure, nil)
end)
