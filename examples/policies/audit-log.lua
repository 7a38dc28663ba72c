-- Keeps an audit trail of the session through the log module: the session's
-- start and end, each prompt (its length, not its text), and each tool call
-- with how it ended, denied ones included (run_when_tool_skipped). The host's
-- logger decides where the records go; `luahook serve` writes them to stderr.
-- The hooks only observe: they never change what the agent does.

local function summary(ti)
  if type(ti) ~= "table" then
    return nil
  end
  local s = ti.command or ti.path or ti.file_path or ti.url or ti.pattern
  if type(s) == "string" and #s > 200 then
    s = s:sub(1, 200) .. "…"
  end
  return s
end

hook.register("SessionStart", nil, function(input, rt)
  log.info("audit: session start", { session = rt.session_id, cwd = rt.cwd })
end, { name = "audit-session-start" })

hook.register("UserPromptSubmit", nil, function(input, rt)
  log.info("audit: prompt", { session = rt.session_id, chars = #(input.prompt or "") })
end, { name = "audit-prompt" })

hook.register("PostToolUse", nil, function(input, rt)
  local result = input.toolResult or {}
  log.info("audit: tool", {
    session = rt.session_id,
    tool = input.toolName,
    target = summary(input.toolInput),
    failed = result.isError == true,
  })
end, { name = "audit-tool", run_when_tool_skipped = true })

hook.register("Stop", nil, function(input, rt)
  log.info("audit: stop", { session = rt.session_id })
end, { name = "audit-stop" })
