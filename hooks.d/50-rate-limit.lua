-- Limits how many shell commands one session may run per minute, so that a
-- runaway agent loop stops instead of hammering the machine. The counts live
-- in the process-wide store, shared by every pooled state. Each window opens
-- with its first command and lasts a minute: a counter is created with a
-- one-minute expiry, and counting does not extend it.
--
-- The session id comes from the client, so it is not trusted to hold the
-- line alone: every session also counts against one budget shared by all
-- sessions, so that a client making up a new session id per command is
-- stopped all the same. Commands without a session id share one count. The
-- hook fails closed: if a count cannot be kept (an id too long for a store
-- key, a full store), the command is denied rather than let through.

local LIMIT = 60         -- shell commands per session per window
local GLOBAL_LIMIT = 600 -- shell commands per window, all sessions together
local WINDOW_MS = 60 * 1000
local GLOBAL_KEY = "bash-calls" -- session keys are "bash-calls:<id>"
local GLOBAL_DENIAL = string.format(
  "rate limit: more than %d shell commands in the last minute across all sessions. Slow down and batch your work.",
  GLOBAL_LIMIT)

-- store's functions as upvalues: no lookup of the global and its field per
-- call.
local get, incr = store.get, store.incr

hook.register("PreToolUse", "bash", function(input)
  -- Past the shared budget, deny before writing anything: a flood of made-up
  -- session ids then creates no more keys than the budget allows.
  if (get(GLOBAL_KEY) or 0) >= GLOBAL_LIMIT then
    return hook.deny(GLOBAL_DENIAL)
  end
  -- input.sessionId, the same value as rt.session_id: a payload field is
  -- read from the call's own table, without a call into Go.
  local n = incr("bash-calls:" .. (input.sessionId or ""), 1, WINDOW_MS)
  if n > LIMIT then
    -- Not counted in the shared budget: one runaway session does not use up
    -- the others'.
    return hook.deny(string.format(
      "rate limit: %d shell commands in the last minute (limit %d). Slow down and batch your work.",
      n, LIMIT))
  end
  if incr(GLOBAL_KEY, 1, WINDOW_MS) > GLOBAL_LIMIT then
    return hook.deny(GLOBAL_DENIAL)
  end
end, { name = "bash-rate-limit", stage = "validate", policy = true, failure_policy = "closed" })
