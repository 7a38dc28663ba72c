-- Limits how many shell commands one session may run per minute, so that a
-- runaway agent loop stops instead of hammering the machine. The counts live
-- in the process-wide store, shared by every pooled state (and, with the
-- Redis store, by every replica). Each window opens with its first command
-- and lasts a minute: a counter is created with a one-minute expiry, and
-- counting does not extend it.
--
-- The session id comes from the client, so it is not trusted to hold the
-- line alone: every session also counts against its client's budget, so
-- that a client making up a new session id per command is stopped all the
-- same. The client is who serve authenticated (input.client: a token's
-- name, a certificate's name); a client cannot spend another's budget, nor
-- touch another client's session of the same id. Callers serve did not
-- authenticate (a loopback serve without a token, one-shot luahook fire)
-- are one client together. Commands without a session id share one count
-- per client. The hook fails closed: if a count cannot be kept (an id too
-- long for a store key, a full store), the command is denied rather than
-- let through.

local LIMIT = 60          -- shell commands per session per window
local CLIENT_LIMIT = 1200 -- shell commands per window, all of one client's sessions together
local WINDOW_MS = 60 * 1000
-- Keys: "bash-calls:<client>" for a client's budget, "bash-calls:<client>\0<session>"
-- for a session's (a client's name holds no NUL: serve refuses control characters).
local CLIENT_DENIAL = string.format(
  "rate limit: more than %d shell commands in the last minute across this client's sessions. Slow down and batch your work.",
  CLIENT_LIMIT)

-- store's functions as upvalues: no lookup of the global and its field per
-- call.
local get, incr = store.get, store.incr

hook.register("PreToolUse", "@shell", function(input)
  -- input.client and input.sessionId, read from the call's own table
  -- without a call into Go.
  local client_key = "bash-calls:" .. (input.client or "")
  -- Past the client's budget, deny before writing anything: a flood of
  -- made-up session ids then creates no more keys than the budget allows.
  if (get(client_key) or 0) >= CLIENT_LIMIT then
    return hook.deny(CLIENT_DENIAL)
  end
  local n = incr(client_key .. "\0" .. (input.sessionId or ""), 1, WINDOW_MS)
  if n > LIMIT then
    -- Not counted in the client's budget: one runaway session does not use
    -- up its client's other sessions'.
    return hook.deny(string.format(
      "rate limit: %d shell commands in the last minute (limit %d). Slow down and batch your work.",
      n, LIMIT))
  end
  if incr(client_key, 1, WINDOW_MS) > CLIENT_LIMIT then
    return hook.deny(CLIENT_DENIAL)
  end
end, { name = "bash-rate-limit", stage = "validate", policy = true, failure_policy = "closed" })
