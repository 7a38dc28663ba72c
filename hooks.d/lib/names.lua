-- names: the globs of a setting ("*prod*", "github/get_*") matched against
-- names (kubectl contexts, MCP servers and tools), compiled once.
--
--   local names = require("names")
--   local protected = names.matcher({ "*prod*", "live-?" })
--   protected("EU-Prod-1") --> true (case-insensitive)
--
-- In a glob, * stands for any run of characters ("/" included) and ? for
-- one character; everything else is literal. A glob matches the whole
-- name, compared case-insensitively.

local M = {}

-- pattern returns the Lua pattern of a glob (lower-cased, anchored).
function M.pattern(glob)
  local p = glob:lower():gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. p .. "$"
end

-- matcher returns a function of a name that reports whether one of the
-- globs matches it; lowered: the names it will be given are lower-case
-- already (one string call fewer per name).
function M.matcher(globs, lowered)
  local pats = {}
  for _, g in ipairs(globs) do pats[#pats + 1] = M.pattern(g) end
  return function(name)
    local l = lowered and name or name:lower()
    for _, p in ipairs(pats) do
      if l:find(p) then return true end
    end
    return false
  end
end

return M
