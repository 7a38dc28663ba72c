-- Limits how many shell commands one session may run per minute, so that a
-- runaway agent loop stops instead of hammering the machine. The count lives in
-- the process-wide store, shared by every pooled state. Each session's window
-- opens with its first command and lasts a minute: the counter is created
-- with a one-minute expiry, and counting does not extend it.

local LIMIT = 60
local WINDOW_MS = 60 * 1000

hook.register("PreToolUse", "bash", function(input, rt)
  local key = "bash-calls:" .. rt.session_id
  local n = store.incr(key, 1, WINDOW_MS)
  if n > LIMIT then
    return hook.deny(string.format(
      "rate limit: %d shell commands in the last minute (limit %d). Slow down and batch your work.",
      n, LIMIT))
  end
end, { name = "bash-rate-limit", stage = "validate" })
