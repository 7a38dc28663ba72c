-- shell.glob: the patterns of shell words and what they could match.
--
-- A word's pattern (word.pat, built by the shell module) is a string in a
-- small escaped glob syntax: "\c" is the literal character c, "*", "?" and
-- "[...]" are active glob characters, and "\0" is a part of the word whose
-- value is unknown (a variable, a command's output): it may stand for any
-- string, slashes and leading dots included. Everything here is linear or
-- bounded (MAX_ITEMS) and never raises on any string.

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local M = {}

-- MAX_ITEMS bounds the items of one pattern that are compared. A longer
-- pattern keeps its last MAX_ITEMS - 1 items behind an unknown part, which
-- can only make it match more.
M.MAX_ITEMS = 256

local STAR, QMARK, UNKNOWN = { "*" }, { "?" }, { "\0" }
M.STAR, M.QMARK, M.UNKNOWN = STAR, QMARK, UNKNOWN

local function starlike(it) return it == STAR or it == UNKNOWN end

-- class parses the bracket expression starting at s[i] == "[" and returns
-- the set of bytes it matches (set[b] = true) and the index after it, or
-- nil when there is no closing bracket.
local function class(s, i, fold)
  local j = i + 1
  local neg = false
  local c = s:sub(j, j)
  if c == "!" or c == "^" then
    neg = true
    j = j + 1
  end
  local members, first = {}, true
  while j <= #s do
    c = s:sub(j, j)
    if c == "]" and not first then break end
    first = false
    if c == "\\" and j < #s then j = j + 1; c = s:sub(j, j) end
    local lo = c:byte()
    if s:sub(j + 1, j + 1) == "-" and j + 2 <= #s and s:sub(j + 2, j + 2) ~= "]" then
      local hi = s:byte(j + 2)
      if hi and hi >= lo then members[#members + 1] = { lo, hi } end
      j = j + 3
    else
      members[#members + 1] = { lo, lo }
      j = j + 1
    end
    if #members > 64 then return nil end
  end
  if j > #s then return nil end
  local set = {}
  for b = 0, 255 do
    local hit = false
    for _, r in ipairs(members) do
      if b >= r[1] and b <= r[2] then hit = true; break end
      if fold and b >= 97 and b <= 122 and b - 32 >= r[1] and b - 32 <= r[2] then hit = true; break end
    end
    if hit ~= neg then set[b] = true end
  end
  return { set = set }, j + 1
end

-- items splits a pattern into items: one-character strings (literals),
-- STAR, QMARK, UNKNOWN and class tables. fold lowercases literals and
-- makes classes match both cases.
function M.items(pat, fold)
  local out, i, n = {}, 1, #pat
  while i <= n do
    local c = pat:sub(i, i)
    if c == "\\" and i < n then
      local d = pat:sub(i + 1, i + 1)
      if d == "\0" then out[#out + 1] = UNKNOWN
      else out[#out + 1] = fold and d:lower() or d end
      i = i + 2
    elseif c == "*" then
      if out[#out] ~= STAR then out[#out + 1] = STAR end
      i = i + 1
    elseif c == "?" then
      out[#out + 1] = QMARK; i = i + 1
    elseif c == "\0" then
      if out[#out] ~= UNKNOWN then out[#out + 1] = UNKNOWN end
      i = i + 1
    elseif c == "[" then
      local cl, nx = class(pat, i, fold)
      if cl then out[#out + 1] = cl; i = nx
      else out[#out + 1] = "["; i = i + 1 end
    else
      out[#out + 1] = fold and c:lower() or c; i = i + 1
    end
  end
  if #out > M.MAX_ITEMS then
    local keep = { UNKNOWN }
    for k = #out - M.MAX_ITEMS + 2, #out do keep[#keep + 1] = out[k] end
    out = keep
  end
  return out
end

-- single reports whether two one-character items can match one same byte.
-- (No "a, b = b, a" swaps here: gopher-lua gets some of them wrong.)
local function single(a, b)
  local sa, sb = type(a) == "string", type(b) == "string"
  if sa and sb then return a == b end
  if sa or sb then
    local ch = sa and a or b
    local other = sa and b or a
    if other == QMARK then return ch ~= "/" end
    return other.set[ch:byte()] == true
  end
  if a == QMARK and b == QMARK then return true end
  if a == QMARK then return next(b.set) ~= nil end
  if b == QMARK then return next(a.set) ~= nil end
  for k in pairs(a.set) do
    if b.set[k] then return true end
  end
  return false
end

-- absorbs reports whether a star-like item can take the one-character item x.
local function absorbs(star, x)
  if star == UNKNOWN then return true end
  if type(x) == "string" then return x ~= "/" end
  return true
end

-- meet reports whether the item lists a and b (from items) can match a
-- common string: the intersection of two glob languages, by a table of
-- (n+1)*(m+1) booleans filled from the ends.
M.cells = 0 -- the cells M.meet has filled, for tests that count work

function M.meet(a, b)
  local n, m = #a, #b
  M.cells = M.cells + (n + 1) * (m + 1)
  local w = m + 2
  local t = {}
  t[(n + 1) * w + (m + 1)] = true
  for i = n + 1, 1, -1 do
    for j = m + 1, 1, -1 do
      if not (i == n + 1 and j == m + 1) then
        local x, y = a[i], b[j]
        local v = false
        if x and starlike(x) then
          v = t[(i + 1) * w + j] or (y ~= nil and (starlike(y) or absorbs(x, y)) and t[i * w + j + 1]) or false
        elseif y and starlike(y) then
          v = t[i * w + j + 1] or (x ~= nil and absorbs(y, x) and t[(i + 1) * w + j]) or false
        elseif x and y then
          v = single(x, y) and t[(i + 1) * w + j + 1] or false
        end
        t[i * w + j] = v
      end
    end
  end
  return t[1 * w + 1] == true
end

-- components splits items at literal slashes.
function M.components(items)
  local comps, cur = {}, {}
  for _, it in ipairs(items) do
    if it == "/" then
      comps[#comps + 1] = cur; cur = {}
    else
      cur[#cur + 1] = it
    end
  end
  comps[#comps + 1] = cur
  return comps
end

-- has_unknown reports whether items hold an unknown part.
function M.has_unknown(items)
  for _, it in ipairs(items) do
    if it == UNKNOWN then return true end
  end
  return false
end

-- wild reports whether a component has no literal letter or digit, so
-- that as a glob it names "everything here" ("*", ".*", "[a-z]*", "?*").
function M.wild(comp)
  for _, it in ipairs(comp) do
    if type(it) == "string" and it:find("^%w$") then return false end
  end
  return true
end

-- literal returns the text of a component made of literal items only, or nil.
function M.literal(comp)
  local parts = {}
  for _, it in ipairs(comp) do
    if type(it) ~= "string" then return nil end
    parts[#parts + 1] = it
  end
  return table.concat(parts)
end

-- fixed_len returns the number of items of a component that match one
-- character each, and whether it has a part that matches any number (*,
-- an unknown part).
local function fixed_len(comp)
  local n, star = 0, false
  for _, it in ipairs(comp) do
    if starlike(it) then star = true else n = n + 1 end
  end
  return n, star
end

-- comp_meet matches a word's path component against a rule component,
-- with the shell's rule that a name starting with "." is matched only by a
-- pattern that starts with a literal "." (or with an unknown part).
local function comp_meet(word, rule)
  if rule[1] == "." and word[1] ~= "." and word[1] ~= UNKNOWN then
    return false
  end
  local lit = false
  for _, it in ipairs(word) do
    if type(it) == "string" or it == UNKNOWN then lit = true; break end
  end
  if not lit then return false end
  -- cheap refusals before the table of M.meet (its cost is the product of
  -- the lengths, and a word may be a line of code): the literal characters
  -- at either end must agree, and the lengths must fit
  local w1, r1, wn, rn = word[1], rule[1], word[#word], rule[#rule]
  if type(w1) == "string" and type(r1) == "string" and w1 ~= r1 then return false end
  if type(wn) == "string" and type(rn) == "string" and wn ~= rn then return false end
  local wmin, wstar = fixed_len(word)
  local rmin, rstar = fixed_len(rule)
  if (not rstar and wmin > rmin) or (not wstar and rmin > wmin) then return false end
  return M.meet(word, rule)
end

-- compile turns a rule ("name", "dir/name", "dir/" for anything below dir)
-- into its component item lists, folded to lower case.
local function compile(rule)
  local below = rule:sub(-1) == "/"
  if below then rule = rule:sub(1, -2) end
  local comps = {}
  for part in rule:gmatch("[^/]+") do
    comps[#comps + 1] = M.items(part, true)
  end
  return { comps = comps, below = below, full = M.items("\\\0/" .. rule, true) }
end

-- regex turns a rule's glob text into an RE2 expression (path components
-- of * and ? do not cross slashes, nor the characters of stop).
local function regex(rule, stop)
  local any = "[^/" .. (stop or "") .. "]"
  local out = {}
  for k = 1, #rule do
    local c = rule:sub(k, k)
    if c == "*" then out[#out + 1] = any .. "*"
    elseif c == "?" then out[#out + 1] = any
    else out[#out + 1] = re.quote(c) end
  end
  return table.concat(out)
end

-- in_line adds to anchored or free the RE2 expression of a rule's glob
-- text that, between a word boundary (anchored only) and the end of a path
-- component, matches a line of plain words wherever the rule matches a
-- word or the part of a word after an "=", ":" or "@" (and maybe
-- elsewhere too). A glob at the rule's start is dropped with the boundary.
local function in_line(rule, anchored, free)
  local rest = rule:gsub("^[*?]+", "")
  local list = rest == rule and anchored or free
  list[#list + 1] = regex(rest, " ")
end

-- rules compiles a list of path rules for could_touch; rules are globs
-- matched case-insensitively: "name" matches a last path component,
-- "a/b" the last two, "dir/" the folder and anything below it.
function M.rules(list)
  local out, alts, anchored, free = {}, {}, {}, {}
  for _, r in ipairs(list) do
    out[#out + 1] = compile(r)
    if r:sub(-1) == "/" then
      alts[#alts + 1] = "(?:^|/)" .. regex(r:sub(1, -2)) .. "(?:/|$)"
      in_line(r:sub(1, -2), anchored, free)
    else
      alts[#alts + 1] = "(?:^|/)" .. regex(r) .. "/*$"
      in_line(r, anchored, free)
    end
  end
  -- one expression for the common case, a path with no glob or unknown part
  out.literal = "(?i)" .. table.concat(alts, "|")
  -- the same loosened to a line of plain words (shell.quick's words)
  local groups = {}
  if #anchored > 0 then groups[1] = "(?:^|[ /=:@])(?:" .. table.concat(anchored, "|") .. ")" end
  if #free > 0 then groups[#groups + 1] = table.concat(free, "|") end
  -- no rule: an expression that matches nothing
  out.in_line = #groups == 0 and "[^\x00-\x{10FFFF}]" or
    "(?i)(?:" .. table.concat(groups, "|") .. ")(?:[/ =:@]|$)"
  return out
end

-- NAME_MAX is the longest name a path component can have (bytes, on
-- Linux, macOS and Windows alike).
local NAME_MAX = 255

-- names_nothing reports whether a pattern has a component with more
-- literal characters than any file name can hold, and no unknown part
-- (which may hold slashes): such a pattern names no path however its globs
-- match, and need not be compared (a line of code read as a word: perl -e
-- '… $x * 2 …').
local function names_nothing(pat)
  if pat:find("%z") then return false end
  for comp in pat:gmatch("[^/]+") do
    if #comp > NAME_MAX then
      local lit = comp:gsub("\\.", "x"):gsub("[*?%[%]]", "")
      if #lit > NAME_MAX then return true end
    end
  end
  return false
end

-- could_touch reports whether the path pattern pat could name a path
-- matched by one of the compiled rules. A path component made of glob
-- characters only ("*", "??????", "[a-z]*") is not taken to name a file by
-- itself: it names every file, and taking it would deny "grep x *".
function M.could_touch(pat, rules)
  if rules.literal and not pat:find("[*?%[%z]") then
    -- no glob character and no unknown part: a literal path, whose
    -- escapes (a code word's "\\r") are only its characters
    if pat:find("\\", 1, true) then pat = pat:gsub("\\(.)", "%1") end
    return re.match(rules.literal, pat) and true or false
  end
  if #pat > NAME_MAX and names_nothing(pat) then return false end
  local items = M.items(pat, true)
  local unknown = M.has_unknown(items)
  local comps = M.components(items)
  while #comps > 1 and #comps[#comps] == 0 do comps[#comps] = nil end
  local full
  if unknown then
    full = { "/" }
    for _, it in ipairs(items) do full[#full + 1] = it end
  end
  for _, r in ipairs(rules) do
    local k = #r.comps
    if r.below then
      -- the folder anywhere in the path, itself or something below it; a
      -- component that is all unknown ($X/...) is some folder, not this one
      for s = 1, #comps - k + 1 do
        local ok = true
        for q = 1, k do
          local c = comps[s + q - 1]
          if (#c == 1 and c[1] == UNKNOWN) or not comp_meet(c, r.comps[q]) then ok = false; break end
        end
        if ok then return true end
      end
    elseif unknown then
      -- an unknown part may hold slashes: match the whole path
      local fn, rn = full[#full], r.full[#r.full]
      if not (type(fn) == "string" and type(rn) == "string" and fn ~= rn) and M.meet(full, r.full) then
        return true
      end
    elseif #comps >= k then
      local ok = true
      for q = 1, k do
        if not comp_meet(comps[#comps - k + q], r.comps[q]) then ok = false; break end
      end
      if ok then return true end
    end
  end
  return false
end

-- could_match reports whether the word pattern pat could match the
-- literal name (case-sensitively unless fold).
function M.could_match(pat, name, fold)
  local esc = name:gsub("[\\*?%[]", "\\%0")
  return M.meet(M.items(pat, fold), M.items(esc, fold))
end

return M
