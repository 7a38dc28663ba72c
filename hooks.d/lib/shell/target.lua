-- shell.target: the class of place a path word names, for the checks of
-- recursive deletes and permission changes (shell.target, documented
-- below).

local ipairs = ipairs
local glob = require("shell.glob")
local M = {}

-- target classifies a path word as a place whose removal or recursive
-- change wrecks the machine, the home folder or the project:
--   "root"     / or a folder right below it (/usr, /*, /\*, /$X), or a
--              home folder (/home/x, /Users/x)
--   "home"     the home folder or everything in it (~, ~/, ~/*, ~/{*,.*}, $HOME/..)
--   "cwd"      the working folder or everything in it (*, ., ./*, .., ../*)
--   "prefix"   an unknown folder or everything in it ($X/, $X/*, "${X}"/*)
--   "computed" a word that is all unknown and comes from a command's
--              output ($(…), xargs input, an expansion past the limits)
--   "variable" a word that is all unknown and comes from a variable
-- or nil for anything else ("./build", "/tmp/x", "~/project/node_modules").
function M.target(w)
  if w.whole then
    if w.dir then return "prefix" end
    return w.source == "var" and "variable" or "computed"
  end
  local comps = glob.components(glob.items(w.pat, false))
  local base
  if w.home then
    base = "home"; table.remove(comps, 1)
  elseif #comps > 1 and #comps[1] == 0 then
    base = "abs"; table.remove(comps, 1)
  elseif comps[1] and comps[1][1] == glob.UNKNOWN and #comps[1] == 1 then
    base = "prefix"; table.remove(comps, 1)
  else
    base = "rel"
  end
  local rest = {}
  for _, c in ipairs(comps) do
    local t = glob.literal(c)
    if t == "" or t == "." or (t == ".." and base == "abs" and #rest == 0) then
      -- nothing: /.. is / itself
    elseif t == ".." and #rest > 0 and glob.literal(rest[#rest]) ~= ".." then
      rest[#rest] = nil
    else
      rest[#rest + 1] = c
    end
  end
  while #rest > 0 and (glob.wild(rest[#rest]) and glob.literal(rest[#rest]) ~= "..") do rest[#rest] = nil end
  local ups = true
  for _, c in ipairs(rest) do
    if glob.literal(c) ~= ".." then ups = false end
  end
  if base == "abs" then
    if #rest <= 1 or ups then return "root" end
    local top = glob.literal(rest[1])
    if #rest == 2 and (top == "home" or top == "Users") then return "root" end
    return nil
  elseif base == "home" then
    if #rest == 0 or ups then return "home" end
  elseif base == "prefix" then
    if #rest == 0 then return "prefix" end
  else
    if #rest == 0 or ups then return "cwd" end
  end
  return nil
end

return M
