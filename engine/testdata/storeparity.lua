-- The store module's semantics, as documented for Lua, checked in phases
-- (the bash command names the phase) so that the Go test can wait between
-- them for TTLs to pass. Run against every store backend; each must pass it
-- unchanged. A broken rule raises an error naming it; a phase that waits for
-- an expiry denies with "waiting" until it has passed.

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

local phases = {}

function phases.basic()
  -- absent keys, set, get, delete, set nil
  check(store.get("absent") == nil, "an absent key reads nil")
  store.set("k", "v")
  check(store.get("k") == "v", "a string reads back")
  store.delete("k")
  check(store.get("k") == nil, "delete removes")
  store.set("k", "v")
  store.set("k", nil)
  check(store.get("k") == nil, "set nil deletes")
  store.delete("never set") -- deleting an absent key is no error

  -- types are kept: "1" the string and 1 the number stay apart
  store.set("str1", "1")
  store.set("num1", 1)
  check(type(store.get("str1")) == "string" and store.get("str1") == "1", "a string of digits stays a string")
  check(type(store.get("num1")) == "number" and store.get("num1") == 1, "a number stays a number")
  store.set("pi", 3.141592653589793)
  check(store.get("pi") == 3.141592653589793, "a float keeps every bit")
  store.set("tiny", 1e-300)
  check(store.get("tiny") == 1e-300, "a tiny float keeps every bit")
  store.set("yes", true)
  store.set("no", false)
  check(store.get("yes") == true, "true stays true")
  check(store.get("no") == false, "false reads false, not nil")
  store.set("empty", "")
  check(store.get("empty") == "", "an empty string is a value, not an absent key")
  store.set("bin", "a\0b\255")
  check(store.get("bin") == "a\0b\255", "a string keeps its bytes")

  -- tables are stored as JSON and read back as fresh tables
  local t = { name = "x", n = 2, list = { "a", "b" }, nested = { ok = true } }
  store.set("tbl", t)
  local u = store.get("tbl")
  check(type(u) == "table" and u ~= t, "a table reads back as a new table")
  check(u.name == "x" and u.n == 2 and u.list[2] == "b" and u.nested.ok == true, "a table keeps its fields")
  t.name = "changed"
  check(store.get("tbl").name == "x", "a stored table is a copy")
  local msg = fails("a function in a table", store.set, "bad", { f = print })
  check(has(msg, 'cannot store the table under "bad"'), "a table that is not JSON names the key: " .. msg)

  -- incr: from 0, by delta, floats, negative
  check(store.incr("c") == 1, "incr of an absent key counts from 0")
  check(store.incr("c") == 2, "incr adds 1")
  check(store.incr("c", 5) == 7, "incr adds its delta")
  check(store.incr("c", -10) == -3, "a negative delta")
  check(store.incr("f", 0.5) == 0.5 and store.incr("f", 0.25) == 0.75, "a fractional delta")
  check(store.get("c") == -3 and type(store.get("c")) == "number", "a counter reads as a number")
  store.set("n", 40)
  check(store.incr("n", 2) == 42, "incr of a number set with set")
  check(store.incr("sum", 0.1) + 0 == 0.1 and store.incr("sum", 0.2) == 0.1 + 0.2, "incr adds as doubles do")

  -- incr errors: not a number, not finite
  store.set("s", "12")
  msg = fails("incr of a string", store.incr, "s")
  check(has(msg, 'store.incr: the value of "s" is a string, not a number'), "incr of a string: " .. msg)
  check(store.get("s") == "12", "a failed incr changes nothing")
  msg = fails("incr of a boolean", store.incr, "yes")
  check(has(msg, 'store.incr: the value of "yes" is a boolean, not a number'), "incr of a boolean: " .. msg)
  msg = fails("incr of a table", store.incr, "tbl")
  check(has(msg, 'store.incr: the value of "tbl" is a table, not a number'), "incr of a table: " .. msg)
  store.set("big", 1e308)
  msg = fails("an overflowing incr", store.incr, "big", 1e308)
  check(has(msg, 'store.incr: 1e+308 + 1e+308 under "big" is not a finite number'), "an overflow: " .. msg)
  check(store.get("big") == 1e308, "an overflowing incr changes nothing")
  msg = fails("a NaN delta", store.incr, "c", 0 / 0)
  check(has(msg, "delta must be a finite number"), "a NaN delta: " .. msg)

  -- limits (the test's config: max_key_bytes = 64, max_value_bytes = 100)
  msg = fails("a long key", store.set, string.rep("k", 65), "v")
  check(has(msg, "store.set: a key of 65 bytes exceeds the 64 bytes limit on a key"), "a long key: " .. msg)
  msg = fails("a long key", store.incr, string.rep("k", 65))
  check(has(msg, "store.incr: a key of 65 bytes exceeds the 64 bytes limit on a key"), "a long counter key: " .. msg)
  msg = fails("a long value", store.set, "long", string.rep("v", 101))
  check(has(msg, 'store.set: the value for "long" (101 bytes) exceeds the 100 bytes limit on a value'), "a long value: " .. msg)
  check(store.get("long") == nil, "a refused write stores nothing")
  store.set("long", string.rep("v", 100))
  check(#store.get("long") == 100, "a value at the limit is stored")
  msg = fails("a long table", store.set, "longt", { string.rep("v", 100) })
  check(has(msg, 'cannot store the table under "longt"'), "a long table: " .. msg)
  msg = fails("a TTL out of range", store.set, "k", "v", -1)
  check(has(msg, "ttl_ms must be a number of milliseconds"), "a negative TTL: " .. msg)
end

function phases.expiry_start()
  store.set("short", "v", 60)          -- expires
  store.set("cleared", "v", 60)
  store.set("cleared", "w")            -- a set without TTL makes it permanent
  store.incr("window", 1, 60)          -- created with a 60 ms window: expires
  store.incr("long window", 1, 600000) -- created with a long window ...
  store.incr("long window", 1, 1)      -- ... which a later TTL does not change
  store.incr("forever", 1)
  check(store.get("short") == "v", "a key with a TTL reads before it expires")
end

function phases.expiry_wait()
  if store.get("short") ~= nil or store.get("window") ~= nil then
    return hook.deny("waiting")
  end
  check(store.get("cleared") == "w", "a set without TTL clears the TTL")
  check(store.get("long window") == 2, "incr's TTL applies only when the key is created")
  check(store.get("forever") == 1, "a counter without TTL stays")
  check(store.incr("window", 1, 60000) == 1, "an expired counter counts from 0 again")
end

hook.register("PreToolUse", "bash", function(input)
  local phase = phases[input.toolInput.command]
  check(phase ~= nil, "unknown phase " .. tostring(input.toolInput.command))
  return phase()
end, { name = "parity", failure_policy = "closed" })
