-- session: stops a session after a budget of tool calls or of denied calls, and tells the agent the rules at session start
--
-- What it stops: a session that has made SETTINGS.max_tool_calls tool
-- calls, or in which SETTINGS.max_denials calls were denied, is refused
-- every further tool call, with a reason that tells the agent to stop,
-- report to the user and not to retry. At SessionStart it gives the agent
-- context: that policies guard the session, the budgets, and the lines of
-- SETTINGS.describe (what the operator wants said about the active packs).
--
-- Why: an agent in a loop (retrying a denied command in new spellings,
-- re-running a failing build) burns time and money, and probing a policy
-- with variations is how a bypass is found; a bounded session ends both,
-- and a person looks at what happened.
--
-- How denials are counted: a hook cannot see another hook's denial, and a
-- denied call never reaches PostToolUse. So every call is counted when it
-- is asked for (PreToolUse, at the mutate stage, before any validator can
-- deny it) and again when it reports back (PostToolUse); a call that never
-- reported back was denied (by a policy or the user) or interrupted. Calls
-- running in parallel count as not reported until they finish: keep
-- max_denials above the agent's parallelism (Claude Code runs up to 10).
--
-- Set them in the config's [packs.session] table, over the defaults below.
-- Settings (SETTINGS below): max_tool_calls, max_denials, ttl_hours (how
-- long a session's counts are kept, from its first call), describe.
--
-- What it cannot know: sessions are told apart by the session id the
-- client sends; a client that sends a new id per call gets new budgets
-- (hooks.d/50-rate-limit.lua's per-client budget bounds that). Fails closed: a
-- count that cannot be kept (a full store) denies the call.

local SETTINGS = hook.settings("session", {
  max_tool_calls = 400,
  max_denials = 25,
  ttl_hours = 24,
  describe = {
    "Shell commands, file edits, package installs, database and cloud commands and MCP calls are checked",
    "before they run. A denied call says why and what to do instead: follow that advice; do not rephrase",
    "the call to get around a denial.",
  },
})

local TTL_MS = SETTINGS.ttl_hours * 3600 * 1000
local MAX_CALLS, MAX_DENIALS = SETTINGS.max_tool_calls, SETTINGS.max_denials
local incr, get = store.incr, store.get

-- A session's two counters are kept under its client (who serve
-- authenticated, input.client), so that a client cannot spend another
-- client's session of the same id: CALLS .. client .. "\0" .. session, and
-- DONE .. the same. Each hook builds a key in one concatenation.
local CALLS, DONE = "pack-session:calls:", "pack-session:done:"

hook.register("PreToolUse", "*", function(input, rt)
  local client, sid = input.client or "", rt.session_id or ""
  local calls = incr(CALLS .. client .. "\0" .. sid, 1, TTL_MS)
  if calls > MAX_CALLS then
    return hook.deny(string.format("session budget spent: this session has asked for %d tool calls (limit %d). " ..
      "Stop working now: tell the user what you have done and what is left, and let them continue in a new " ..
      "session.", calls, MAX_CALLS))
  end
  -- The calls that did not report back are at most the calls before this
  -- one: until those reach max_denials, the count of reports need not be
  -- read.
  if calls - 1 < MAX_DENIALS then return nil end
  local denied = calls - 1 - (get(DONE .. client .. "\0" .. sid) or 0)
  if denied >= MAX_DENIALS then
    return hook.deny(string.format("session budget spent: %d of this session's tool calls were denied or did " ..
      "not finish (limit %d). Stop retrying: tell the user what you were trying to do and what blocked it, " ..
      "and wait for their decision.", denied, MAX_DENIALS))
  end
end, { name = "session-budget", stage = "mutate", timeout_ms = 1000, failure_policy = "closed", policy = true })

hook.register("PostToolUse", "*", function(input, rt)
  local client, sid = input.client or "", rt.session_id or ""
  local done_key = DONE .. client .. "\0" .. sid
  -- a completion without a call (a replayed PostToolUse) must not bank credit
  if (get(done_key) or 0) < (get(CALLS .. client .. "\0" .. sid) or 0) then
    incr(done_key, 1, TTL_MS)
  end
end, { name = "session-budget-done", policy = true })

local CONTEXT = table.concat({
  "This session is guarded by luahook policies.",
  table.concat(SETTINGS.describe, " "),
  string.format("Budget: at most %d tool calls in this session, and it stops after %d denied calls.",
    SETTINGS.max_tool_calls, SETTINGS.max_denials),
}, "\n")

hook.register("SessionStart", nil, function()
  return hook.context(CONTEXT)
end, { name = "session-rules" })
