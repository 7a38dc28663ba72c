-- The session module's semantics, as documented for Lua, checked in phases
-- (the bash command names the phase; the payload's sessionId the session).
-- Run against every store backend, with [store] ledger_max_marks = 4,
-- ledger_max_calls = 3 and ledger_max_bytes = 200; each must pass it
-- unchanged. A broken rule raises an error naming it; a phase that waits for
-- a window to end denies with "waiting" until it has.

local function check(cond, what)
  if not cond then error("rule broken: " .. what, 2) end
end

-- fails runs fn(...) and returns its error message, or fails the check.
local function fails(what, fn, ...)
  local ok, err = pcall(fn, ...)
  check(not ok, what .. " did not fail")
  return tostring(err)
end

local function has(s, part) return string.find(s, part, 1, true) ~= nil end

-- Outside a hook call there is no session: the error says so.
local at_load = fails("session.has while the file loads", session.has, "x")

local phases = {}

function phases.load()
  check(has(at_load, "session.has: the session ledger is only available inside a hook call"), "at load: " .. at_load)
end

function phases.nosession()
  local msg = fails("a call without a session id", session.mark, "x")
  check(has(msg, "session.mark: this call's payload has no sessionId"), "no session: " .. msg)
end

function phases.marks()
  check(session.has("private-data") == nil, "an absent label reads nil")
  check(#session.marks() == 0, "a new session has no marks")
  local before = os.time() * 1000
  session.mark("private-data", "read ~/.ssh/id_rsa")
  local m = session.has("private-data")
  check(m ~= nil, "a mark is there once made")
  check(m.label == "private-data" and m.detail == "read ~/.ssh/id_rsa", "a mark keeps its label and detail")
  check(type(m.at) == "number" and m.at >= before - 1000 and m.at <= before + 60000, "at is ms since the epoch: " .. tostring(m.at))
  session.mark("untrusted-content")
  check(session.has("untrusted-content").detail == "", "a mark without a detail has an empty one")
  session.mark("private-data", "read ~/.aws/credentials")
  local all = session.marks()
  check(#all == 2, "marking a label again makes no second mark: " .. #all)
  check(all[1].label == "private-data" and all[2].label == "untrusted-content", "marks come in the order first made")
  check(all[1].detail == "read ~/.aws/credentials", "marking again replaces the detail")
end

function phases.names()
  local msg = fails("an empty label", session.mark, "")
  check(has(msg, "the label must not be empty"), "empty label: " .. msg)
  msg = fails("a long label", session.has, string.rep("l", 129))
  check(has(msg, "a label of 129 bytes is over the limit of 128"), "long label: " .. msg)
  msg = fails("an empty counter name", session.count, "", 1000)
  check(has(msg, "the name must not be empty"), "empty name: " .. msg)
  msg = fails("a label that is not a string", session.mark, {})
  check(has(msg, "string expected"), "table label: " .. msg)
  session.mark(string.rep("l", 128))
  check(session.has(string.rep("l", 128)) ~= nil, "a label of 128 bytes is a label")
end

function phases.max_marks()
  -- marks (2) and names (1) made three of the four
  session.mark("fourth")
  local msg = fails("a fifth mark", session.mark, "fifth", "d")
  check(has(msg, 'session.mark: cannot mark "fifth": the session holds ledger_max_marks (4) marks'), "max marks: " .. msg)
  -- A refused mark is information lost: the session's marks are not known
  -- any more, and has and marks raise, saying which and why.
  msg = fails("has after a refused mark", session.has, "fourth")
  check(has(msg, 'session.has: the session\'s mark "fifth" could not be kept at '), "lost mark: " .. msg)
  check(has(msg, "holds ledger_max_marks (4) marks"), "lost mark's cause: " .. msg)
  msg = fails("marks after a refused mark", session.marks)
  check(has(msg, 'session.marks: the session\'s mark "fifth" could not be kept at '), "lost mark: " .. msg)
  session.mark("fourth", "again") -- a label it holds can be marked again
end

function phases.max_bytes()
  session.mark("big", string.rep("x", 150))
  local msg = fails("a mark past the bytes", session.mark, "big2", string.rep("y", 50))
  check(has(msg, 'session.mark: cannot mark "big2": the session\'s marks would pass ledger_max_bytes (200 bytes)'), "max bytes: " .. msg)
  msg = fails("has after a mark refused for its bytes", session.has, "big2")
  check(has(msg, 'the session\'s mark "big2" could not be kept'), "lost for its bytes: " .. msg)
  session.mark("big", "small") -- a shorter detail gives bytes back
  session.mark("big2", string.rep("y", 50)) -- and the mark written is known again
  check(#session.has("big2").detail == 50, "the bytes freed are there to use")
  check(#session.marks() == 2, "once written, the session's marks are known again")
end

function phases.count()
  check(session.count("n", 60000) == 1, "a new counter counts from 0")
  check(session.count("n", 60000) == 2, "a counter adds 1 by default")
  check(session.count("n", 60000, 0) == 2, "delta 0 reads")
  check(session.count("n", 60000, 5) == 7, "a counter adds delta")
  check(session.count("n", 1000, 0) == 0, "another window is another counter")
  check(session.count("n", 0) == 1, "window 0 is the ledger's age")
  local msg = fails("a window past the age", session.count, "n", 86400001)
  check(has(msg, "out of range (1 ms to ledger_max_age_ms, 86400000 ms)"), "long window: " .. msg)
  msg = fails("a negative window", session.count, "n", -1)
  check(has(msg, "window_ms must be a whole number"), "negative window: " .. msg)
  session.count("c3", 60000)
  session.count("c4", 60000)
  msg = fails("a fifth counter", session.count, "c5", 60000)
  check(has(msg, 'session.count: cannot count "c5": the session holds ledger_max_marks (4) counters'), "max counters: " .. msg)
  check(session.count("c4", 60000) == 2, "a counter it holds still counts")
  -- counts: several counters in one operation, as count counts each
  local t, none = session.counts({ { "n", 60000 }, { "c4", 60000, 0 }, { "n", 0, 2 } })
  check(#t == 3 and t[1] == 8 and t[2] == 2 and t[3] == 3, "counts counts in order: " .. table.concat(t, ","))
  check(none == nil, "counts without n returns no calls")
  msg = fails("counts of a fifth counter", session.counts, { { "n", 60000 }, { "c6", 60000 } })
  check(has(msg, 'session.counts: cannot count "c6": the session holds ledger_max_marks (4) counters'), "counts past max: " .. msg)
  check(session.count("n", 60000, 0) == 9, "the counters before the refused one were counted")
  msg = fails("counts of nothing", session.counts, {})
  check(has(msg, "a list of 1 to 16 counters"), "empty counts: " .. msg)
  msg = fails("counts of a bad window", session.counts, { { "n", 60000 }, { "n", -5 } })
  check(has(msg, "counter 2: window_ms must be a whole number"), "bad window: " .. msg)
  check(session.count("n", 60000, 0) == 9, "a list with a bad counter counts none")
  msg = fails("counts of a bad name", session.counts, { { "", 1000 } })
  check(has(msg, "counter 1: the name must not be empty"), "bad name: " .. msg)
end

function phases.window_start()
  check(session.count("w", 60) == 1, "a short window starts")
end

function phases.window_wait()
  if session.count("w", 60, 0) ~= 0 then return hook.deny("waiting") end
  check(session.count("w", 60) == 1, "a counter whose window ended counts from 0 again")
end

function phases.calls()
  local calls = session.calls()
  check(#calls == 3, "the ring keeps ledger_max_calls (3) calls: " .. #calls)
  check(calls[1].summary == "echo 2" and calls[2].summary == "echo 3" and calls[3].summary == "make test",
    "calls come oldest first, the oldest dropped: " .. calls[1].summary .. ", " .. calls[3].summary)
  check(calls[3].ok == false and calls[2].ok == true, "a failed call is not ok")
  check(calls[3].tool == "bash" and calls[3].event == "PostToolUse", "a call names its tool and event")
  check(type(calls[3].at) == "number" and #calls[3].digest == 32, "a call has a time and a digest")
  local last = session.calls(1)
  check(#last == 1 and last[1].summary == "make test", "calls(n) gives the newest n")
  check(calls[1].digest ~= calls[2].digest, "different calls have different digests")
  local t, two = session.counts({ { "n", 60000, 0 } }, 2)
  check(t[1] == 9, "counts reads with delta 0")
  check(#two == 2 and two[1].summary == "echo 3" and two[2].summary == "make test" and two[2].ok == false,
    "counts with n gives the newest n calls, oldest first")
end

function phases.same_digest()
  local calls = session.calls(2)
  check(#calls == 2 and calls[1].digest == calls[2].digest, "the same input, keys in another order, has one digest")
end

function phases.other()
  check(session.has("private-data") == nil, "another session does not see a mark")
  check(#session.marks() == 0, "another session has no marks")
  check(#session.calls() == 0, "another session has no calls")
  check(session.count("n", 60000, 0) == 0, "another session has its own counters")
  session.mark("private-data", "its own") -- and its own bounds
end

hook.register("PreToolUse", "bash", function(input)
  local phase = phases[input.toolInput.command]
  check(phase ~= nil, "unknown phase " .. tostring(input.toolInput.command))
  return phase()
end, { name = "ledger-parity", failure_policy = "closed" })
