-- fetchers: which options of the programs that fetch URLs (curl, wget,
-- httpie and the like) take the next word as their value, so that a policy
-- reading their URLs never takes a URL for a flag's value.
--
--   local fetchers = require("fetchers")
--   local takes_value = fetchers.value_taker(VALUE_OPTS)
--   takes_value("wget", "-c")  --> false (wget -c is --continue)
--   takes_value("curl", "-c")  --> true  (curl -c is --cookie-jar)
--
-- A short option takes a value in one program and none in another: curl
-- -i is --include, wget -i --input-file; wget's -d, -c, -m, -H, -x, -b, -E,
-- -K, -F and -r take none. curl's and wget's own short options decide for
-- them; any other program takes a value after the policy's own list of
-- options (common) but for the short options on which curl and wget differ.
-- A long option takes a value when common says so.

local M = {}

local function letters(s)
  local t = {}
  for ch in s:gmatch(".") do t["-" .. ch] = true end
  return t
end

-- SHORT_VALUE are the short options of each program that take a value.
M.SHORT_VALUE = { curl = letters("AbcCdDeEFHKmoPQrtTuUwxXyYz"), wget = letters("aABDeiIloOPQRtTUwX") }

-- AMBIGUOUS are the short options that take a value in one of curl and wget
-- and none in the other.
M.AMBIGUOUS = {}
for opt in pairs(M.SHORT_VALUE.curl) do
  if not M.SHORT_VALUE.wget[opt] then M.AMBIGUOUS[opt] = true end
end
for opt in pairs(M.SHORT_VALUE.wget) do
  if not M.SHORT_VALUE.curl[opt] then M.AMBIGUOUS[opt] = true end
end

-- value_taker returns takes_value(program, opt): whether program's option
-- opt (an option word, its value split off) takes the next word, with
-- common the options (a set) the policy takes as taking one.
function M.value_taker(common)
  local short_value, ambiguous = M.SHORT_VALUE, M.AMBIGUOUS
  return function(program, opt)
    if opt:sub(1, 2) ~= "--" then
      local short = short_value[program]
      if short then return short[opt] == true end
      return common[opt] == true and not ambiguous[opt]
    end
    return common[opt] == true
  end
end

return M
