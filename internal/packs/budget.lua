-- budget: per-session budgets of tool calls, shell commands, minutes, tokens and cost; denies a failing call run a third time
--
-- What it stops: in one session (its sessionId), the tool call past
-- SETTINGS.max_tool_calls, the shell command past max_shell_commands, any
-- call once max_minutes have passed since the session's first call, and,
-- when the operator sets max_tokens or max_cost_usd, any call once the
-- agent's payload reports more tokens or dollars than that. Each is denied
-- with a reason that names the budget and its setting. At warn_at (80%) of
-- a budget the model is told once, as additional context ("this session
-- has used 400 of its 500 tool calls"), so that it can finish the work
-- that matters first.
--
-- Loops: the same call (the ledger's digest: the tool and its input with
-- the keys sorted; for a shell command, also the commands it runs as the
-- shell tokenizer reads them, so that r''m, sudo make or bash -c 'make' are
-- the same as make) that failed each of the last loop.repeats - 1 times it
-- ran, within loop.window_ms, is denied: "you have run this 2 times; it
-- failed each time; change approach". A success, another call between, or
-- failures older than the window end the streak. A command longer than the
-- ledger keeps of it (250 bytes) is compared by its digest alone: spelled
-- otherwise, it is another command.
--
-- Why: hook payloads carry no running totals, so an agent's budgets can
-- only be kept by something that remembers the session; an agent that
-- re-runs a failing build burns time and money and learns nothing.
--
-- How it counts: every call asked for is counted at PreToolUse (at the
-- mutate stage, before a validator can deny it), in the session ledger
-- (session.count over the whole session); the session's first call
-- keeps its time (budget:start-ms) and wall time runs from it. Failures
-- are read from the ledger's last calls, which PostToolUse and
-- PostToolUseFailure feed: the usual call costs one ledger operation
-- (session.counts: its counters and the last loop.repeats - 1 calls; one
-- round trip with Redis); the shell tokenizer runs only when the last
-- calls failed and their digest differs.
--
-- Set them in the config's [packs.budget] table, over the defaults below.
-- Settings (SETTINGS below): max_tool_calls, max_shell_commands,
-- max_minutes, max_tokens and max_cost_usd (nil: off), usage_fields (where
-- in the agent's own payload, input.native, the running totals are read),
-- warn_at, loop.repeats and loop.window_ms. read_transcript is reserved:
-- reading Claude Code's transcript (transcript_path) needs file access,
-- which hooks do not have, so tokens and cost are read only from payload
-- fields today, and a true read_transcript is an error at load.
--
-- What it cannot know: sessions are told apart by the session id the
-- client sends (a call without one is not budgeted: it has no ledger); a
-- client that sends a new id per call gets new budgets. None of the five
-- agents sends token or cost totals in its tool-call payloads today, so
-- max_tokens and max_cost_usd apply only to an agent (or a wrapper) that
-- does. The budgets and the ledger live as long as [store]
-- ledger_max_age_ms (24 h by default), which must be longer than
-- max_minutes. Calls a session runs in parallel can interleave with a
-- streak of failures and end it. Fails closed: a count the store cannot
-- keep denies the call.

local SETTINGS = hook.settings("budget", {
  max_tool_calls = 500,
  max_shell_commands = 300,
  max_minutes = 240,
  -- Tokens and cost, read from the agent's payload (nil: off).
  max_tokens = nil,
  max_cost_usd = nil,
  -- The dotted paths, in input.native, of the session's running totals;
  -- the first that holds a number counts.
  usage_fields = {
    tokens = { "usage.total_tokens", "total_tokens", "context_tokens" },
    cost_usd = { "total_cost_usd", "cost.total_cost_usd", "cost_usd" },
  },
  -- Reserved: a hook cannot read files, so the transcript is not read.
  read_transcript = false,
  warn_at = 0.8,
  loop = { repeats = 3, window_ms = 600000 },
})

local shell = require("shell")
local paths = require("paths")

local count, counts, has, mark, digest = session.count, session.counts, session.has, session.mark, session.digest
local ceil, floor, format, concat = math.ceil, math.floor, string.format, table.concat

-- Settings that cannot work fail at load, saying which and why, rather
-- than on every call.
local function check_settings()
  local function positive(name, v)
    if type(v) ~= "number" or not (v > 0) then
      error(format("budget: SETTINGS.%s must be a positive number, got %s", name, tostring(v)), 0)
    end
  end
  positive("max_tool_calls", SETTINGS.max_tool_calls)
  positive("max_shell_commands", SETTINGS.max_shell_commands)
  positive("max_minutes", SETTINGS.max_minutes)
  if SETTINGS.max_tokens ~= nil then positive("max_tokens", SETTINGS.max_tokens) end
  if SETTINGS.max_cost_usd ~= nil then positive("max_cost_usd", SETTINGS.max_cost_usd) end
  local w = SETTINGS.warn_at
  if type(w) ~= "number" or not (w > 0 and w <= 1) then
    error("budget: SETTINGS.warn_at must be a fraction above 0 and at most 1, got " .. tostring(w), 0)
  end
  local r = type(SETTINGS.loop) == "table" and SETTINGS.loop.repeats
  if type(r) ~= "number" or r < 2 or r ~= floor(r) then
    error("budget: SETTINGS.loop.repeats must be a whole number of at least 2, got " .. tostring(r), 0)
  end
  positive("loop.window_ms", SETTINGS.loop.window_ms)
  if SETTINGS.read_transcript then
    error("budget: SETTINGS.read_transcript cannot be true: hooks cannot read files, so the transcript " ..
      "cannot be read; set max_tokens or max_cost_usd to read the agent's payload instead", 0)
  end
end
check_settings()

local MAX_CALLS, MAX_SHELL = SETTINGS.max_tool_calls, SETTINGS.max_shell_commands
local MAX_MS = SETTINGS.max_minutes * 60000
local REPEATS, WINDOW_MS = SETTINGS.loop.repeats, SETTINGS.loop.window_ms

-- The call numbers at which the model is told (once: counts only grow).
local WARN_CALLS, WARN_SHELL = ceil(SETTINGS.warn_at * MAX_CALLS), ceil(SETTINGS.warn_at * MAX_SHELL)
local WARN_MS = SETTINGS.warn_at * MAX_MS

-- Ledger names: counters over the whole session (window 0), the time of
-- its first call (a counter too), and the mark of the wall-time warning.
local CALLS_N, SHELL_N, START = "budget:tool-calls", "budget:shell-commands", "budget:start-ms"
local WARNED_TIME = "budget:warned-time"

-- What every call counts and reads, in one ledger operation (one round
-- trip with Redis) with the last calls the loop rule reads: a call
-- counted, the first call's time (read), and a shell command counted.
-- The wall-time warning's counter is counted only once the time is near
-- (the call that brings it to 1 warns).
local OPS = { { CALLS_N, 0, 1 }, { START, 0, 0 } }
local OPS_SHELL = { { CALLS_N, 0, 1 }, { START, 0, 0 }, { SHELL_N, 0, 1 } }

local STOP = " Stop working now: tell the user what you have done and what is left; they can raise the " ..
  "budget or continue in a new session."

local seconds = os.time

-- now_ms is the time in milliseconds: the call's deadline less what is
-- left of it (os.time has whole seconds only).
local function now_ms(rt)
  local d = rt.deadline_ms
  if d then return d - rt.remaining_ms() end
  return seconds() * 1000
end

-- SURELY_BEFORE_WARN: a session whose first call is less than this long
-- before the time in whole seconds (os.time, at most a second behind
-- now_ms) has run for less than WARN_MS, by a second's margin, so the
-- usual call needs the time to the millisecond only near the warning.
local SURELY_BEFORE_WARN = WARN_MS - 2000

-- minutes words a duration in milliseconds as minutes, to a tenth.
local function minutes(ms)
  return format("%g", floor(ms / 6000) / 10)
end

-- normalized is a command line as the commands it runs: each program by
-- its name (wrappers such as sudo, env, timeout and xargs unwrapped, paths
-- and quotes dropped), its arguments as the shell passes them, absolute
-- paths folded, redirections kept. Left out: a bare true or : (a chain's
-- filler), a shell or interpreter whose inline code was read into the
-- commands after it (bash -c '...'), and what feeds xargs its arguments
-- (echo ARGS | xargs PROG). nil when the line cannot be read.
local function normalized(line)
  local cmds, err = shell.parse(line)
  if err or not cmds then return nil end
  local skip = {}
  for i, c in ipairs(cmds) do
    local after = cmds[i + 1]
    if c.inline and not c.computed and after and after.via then skip[c] = true end
    if c.upstream then
      for _, w in ipairs(c.wrappers or {}) do
        if w == "xargs" then skip[c.upstream] = true end
      end
    end
  end
  local out = {}
  for _, c in ipairs(cmds) do
    local args = c.args or {}
    if not skip[c] and not ((c.name == "true" or c.name == ":") and #args == 0) then
      local words = { c.name or "\0" }
      for _, a in ipairs(args) do
        local t = a.text or "\0"
        if t:sub(1, 1) == "/" then t = paths.clean(t) end
        words[#words + 1] = t
      end
      for _, r in ipairs(c.redirs or {}) do
        words[#words + 1] = r.op .. (r.fd or "") .. ((r.target and r.target.text) or "\0")
      end
      out[#out + 1] = concat(words, "\1")
    end
  end
  if #out == 0 then return nil end
  return concat(out, "\2")
end

-- SUMMARY_MAX is the ledger's cap on a call's summary: a longer command is
-- cut, and compared by its digest alone.
local SUMMARY_MAX = 250

-- loop returns the deny outcome when the last REPEATS - 1 calls of the
-- session are this call (of tool; line, the command of a shell call) and
-- each of them failed, within the window. (It is given the fields it reads,
-- not input: a hook that passes input on gets input.native converted.)
local function loop(last, tool, line, rt)
  local n = #last
  -- the newest first: in the usual session it succeeded, and that ends it
  if n < REPEATS - 1 or last[n].ok then return nil end
  local since = now_ms(rt) - WINDOW_MS
  local want, norm = digest(), false
  for i = n, 1, -1 do
    local c = last[i]
    if c.ok or c.at < since or c.tool ~= tool then return nil end
    if c.digest ~= want then
      -- a shell command spelled otherwise is the same command
      if not line then return nil end
      if norm == false then
        norm = type(line) == "string" and #line <= SUMMARY_MAX and normalized(line) or nil
      end
      local s = c.summary
      if not norm or #s > SUMMARY_MAX or normalized(s) ~= norm then return nil end
    end
  end
  return hook.deny(format("budget: you have run this %d times; it failed each time; change approach. Read the " ..
    "error it gave, fix its cause or try another way, or ask the user (loop rule: loop.repeats = %d identical " ..
    "failed calls within loop.window_ms = %d ms, in the budget pack's SETTINGS).", n, REPEATS, WINDOW_MS))
end

-- over words a budget spent: how much of it, its setting, and what to do.
local function over(used, of, what, setting)
  return hook.deny(format("budget: this session has used %s of its %s %s (%s in the budget pack's SETTINGS).",
    used, of, what, setting) .. STOP)
end

-- The hook keeps no reference to its input (it reads the capabilities in
-- place and hands on only strings), so the engine refills the same input
-- tables on every call instead of building new ones.
hook.register("PreToolUse", "*", function(input, rt)
  local id = rt.session_id
  if id == nil or id == "" then return nil end
  local shell_call, caps = false, input.toolCapabilities
  if type(caps) == "table" then
    for i = 1, #caps do
      if caps[i] == "shell" then shell_call = true end
    end
  end
  local totals, last = counts(shell_call and OPS_SHELL or OPS, REPEATS - 1)
  local n, start, s = totals[1], totals[2], totals[3] or 0
  if n > MAX_CALLS then return over(MAX_CALLS, MAX_CALLS, "tool calls", "max_tool_calls") end
  if shell_call and s > MAX_SHELL then return over(MAX_SHELL, MAX_SHELL, "shell commands", "max_shell_commands") end
  -- The first call's time is kept in a counter that only the first call
  -- adds to; a call that reads it before the first call has written it
  -- reads 0.
  local elapsed = 0
  if n == 1 then
    count(START, 0, now_ms(rt))
  elseif start > 0 and seconds() * 1000 - start >= SURELY_BEFORE_WARN then
    elapsed = now_ms(rt) - start
  end
  if elapsed >= MAX_MS then
    return hook.deny(format("budget: this session has run for %s of its %g minutes (max_minutes in the budget " ..
      "pack's SETTINGS).", minutes(elapsed), SETTINGS.max_minutes) .. STOP)
  end
  -- the loop rule reads the call only when the newest of the last calls
  -- failed (in the usual session it succeeded, and that ends a streak)
  local nl = #last
  if nl >= REPEATS - 1 and not last[nl].ok then
    local line
    if shell_call then
      local ti = input.toolInput
      if type(ti) == "table" then
        local c = ti.command
        if type(c) == "string" then line = c end
      end
    end
    local tool = input.toolName
    if type(tool) ~= "string" then tool = nil end
    local denied = loop(last, tool, line, rt)
    if denied then return denied end
  end
  -- Warnings, each once: a count reaches its threshold at one call only;
  -- wall time is marked when it has been said.
  local warn
  if n == WARN_CALLS then
    warn = format("this session has used %d of its %d tool calls", n, MAX_CALLS)
  end
  if shell_call and s == WARN_SHELL then
    warn = (warn and warn .. "; " or "") .. format("this session has used %d of its %d shell commands", s, MAX_SHELL)
  end
  -- the mark is read only once the time is near: the usual call counts
  -- what it must and reads nothing more
  if elapsed >= WARN_MS and count(WARNED_TIME, 0, 1) == 1 then
    warn = (warn and warn .. "; " or "") ..
      format("this session has run for %s of its %g minutes", minutes(elapsed), SETTINGS.max_minutes)
  end
  if warn then
    return hook.context("budget: " .. warn .. " (the budget pack's SETTINGS). At the limit every tool call " ..
      "is denied: finish the work that matters most first, and tell the user what will be left.")
  end
end, { name = "budget", stage = "mutate", timeout_ms = 1000, failure_policy = "closed", policy = true })

-- Tokens and cost, from the agent's payload: a hook of its own, registered
-- only when a limit is set, so that the usual call never converts
-- input.native.
local MAX_TOKENS, MAX_COST = SETTINGS.max_tokens, SETTINGS.max_cost_usd

-- field returns the number at a dotted path of t, or nil.
local function field(t, path)
  for key in path:gmatch("[^.]+") do
    if type(t) ~= "table" then return nil end
    t = t[key]
  end
  if type(t) == "number" and t == t then return t end
  return nil
end

-- reported returns the first number one of the paths holds in native.
local function reported(native, list)
  for _, p in ipairs(list) do
    local v = field(native, p)
    if v then return v end
  end
  return nil
end

local USAGE = {}
if MAX_TOKENS then
  USAGE[#USAGE + 1] = { max = MAX_TOKENS, fields = SETTINGS.usage_fields.tokens, what = "tokens",
    setting = "max_tokens", warned = "budget:warned-tokens", show = function(v) return format("%d", floor(v)) end }
end
if MAX_COST then
  USAGE[#USAGE + 1] = { max = MAX_COST, fields = SETTINGS.usage_fields.cost_usd, what = "US dollars",
    setting = "max_cost_usd", warned = "budget:warned-cost", show = function(v) return format("%.2f", v) end }
end

if #USAGE > 0 then
  hook.register("PreToolUse", "*", function(input, rt)
    if rt.session_id == nil or rt.session_id == "" then return nil end
    local native = input.native
    if type(native) ~= "table" then return nil end
    local said = {}
    for _, u in ipairs(USAGE) do
      local v = reported(native, u.fields)
      if v and v > u.max then return over(u.show(v), u.show(u.max), u.what, u.setting) end
      if v and v >= SETTINGS.warn_at * u.max and not has(u.warned) then
        mark(u.warned, u.show(v))
        said[#said + 1] = format("this session has used %s of its %s %s", u.show(v), u.show(u.max), u.what)
      end
    end
    if #said > 0 then
      return hook.context("budget: " .. concat(said, "; ") .. " (the budget pack's SETTINGS). At the limit " ..
        "every tool call is denied: finish the work that matters most first, and tell the user what will be left.")
    end
  end, { name = "budget-usage", stage = "mutate", timeout_ms = 1000, failure_policy = "closed", policy = true })
end
