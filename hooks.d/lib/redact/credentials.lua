-- redact.credentials: the credential patterns lib/redact.lua looks for
-- (lib/secrets.lua's output_patterns and patterns), each with the literal
-- needles a match starts with, the gates that rule an output out in one
-- pass, and present, which looks for a pattern around its needles. A
-- module of its own: lib/redact.lua stays a file Compile takes in one scan.

local secrets = require("secrets")

local find, sub = string.find, string.sub
local re_match = re.match

-- Patterns and their needles ---------------------------------------------

-- needles returns the literal texts (lower-cased) one of which every match
-- of an RE2 pattern starts with, read from its leading atoms: literal
-- characters, a class of plain characters and a group of plain
-- alternatives, (?:AKIA|ASIA) (each multiplying the texts), up to an atom
-- that repeats or one it cannot read. nil when that leaves no text of two
-- characters or more: the pattern is then always run.
local function needles(p)
  p = p:gsub("^%(%?i%)", ""):gsub("^\\b", "")
  local outs, i, n = { "" }, 1, #p
  local function cross(alts)
    local next = {}
    for _, o in ipairs(outs) do
      for _, a in ipairs(alts) do next[#next + 1] = o .. a end
    end
    outs = next
  end
  while i <= n and #outs <= 16 do
    local c = p:sub(i, i)
    local alts, j
    if c == "\\" and p:sub(i + 1, i + 1):find("[%.%-/]") then
      alts, j = { p:sub(i + 1, i + 1) }, i + 2
    elseif c:find("[%w_%-/:=]") then
      alts, j = { c }, i + 1
    elseif c == "[" then
      local body = p:match("^%[([%w_%-?&]+)%]", i)
      if not body or body:find("%-", 2) and body:find("%-", 2) < #body then break end
      alts, j = {}, i + #body + 2
      for k = 1, #body do alts[#alts + 1] = body:sub(k, k) end
    elseif p:sub(i, i + 2) == "(?:" then
      local body = p:match("^%(%?:([%w_|%.]+)%)", i)
      if not body then break end
      alts, j = {}, i + #body + 4
      for a in body:gmatch("[^|]+") do alts[#alts + 1] = (a:gsub("\\", "")) end
    else
      break
    end
    local q = p:sub(j, j)
    if q == "?" or q == "*" or q == "{" then break end
    cross(alts)
    i = j
    if q == "+" then break end
  end
  if #outs[1] < 2 then return nil end
  for k, o in ipairs(outs) do outs[k] = o:lower() end
  return outs
end

-- CREDENTIALS are the patterns that match a secret and nothing around it,
-- each with its needles: output_patterns first (a private key block whole
-- before its header alone), then patterns. The AWS secret access key's
-- pattern holds its name: such an assignment's value is found with the
-- other assignments (below), and the pattern stays for what they miss.
local CREDENTIALS = {}
for _, list in ipairs({ secrets.output_patterns, secrets.patterns }) do
  for _, p in ipairs(list) do
    CREDENTIALS[#CREDENTIALS + 1] = { pattern = p[1], label = p[2], needles = needles(p[1]) }
  end
end

-- gate returns an RE2 expression that matches a text wherever one of
-- the needles of lists occurs (any case), nil when a list's entry has
-- none: the expression is an alternation of literals, which re.match
-- answers in one pass over the text (an automaton), where looking for
-- each needle in turn would take a pass each.
local function gate(lists)
  local parts, seen = {}, {}
  for _, l in ipairs(lists) do
    if l == false then return nil end
    for _, nd in ipairs(l) do
      if not seen[nd] then
        seen[nd] = true
        parts[#parts + 1] = re.quote(nd)
      end
    end
  end
  return "(?i)" .. table.concat(parts, "|")
end

-- CREDENTIALS_GATE matches a text that may hold a credential: one that
-- holds none of their needles holds none of them. GROUPS split the
-- credentials in groups of a few, each with its own gate, so that a text
-- that passes the first is searched needle by needle only for the groups
-- whose gate it passes too.
local CREDENTIALS_GATE, GROUPS = nil, {}
do
  local lists = {}
  for i, c in ipairs(CREDENTIALS) do lists[i] = c.needles or false end
  CREDENTIALS_GATE = gate(lists)
  for i = 1, #CREDENTIALS, 6 do
    local members, ls = {}, {}
    for k = i, math.min(i + 5, #CREDENTIALS) do
      members[#members + 1] = CREDENTIALS[k]
      ls[#ls + 1] = CREDENTIALS[k].needles or false
    end
    GROUPS[#GROUPS + 1] = { gate = gate(ls), members = members }
  end
end

-- WINDOW is how far around a needle a pattern is looked for: further
-- than any credential's start reaches past its needle.
local WINDOW = 600
-- MAX_HITS is how many occurrences of one needle are looked at one by
-- one; past it the pattern runs over the whole output once.
local MAX_HITS = 400

-- present reports whether pattern p matches c (low is c lower-cased)
-- somewhere a needle of ns starts: the window around each occurrence.
local function present(c, low, p, ns)
  if not ns then return re_match(p, c) end
  local hits = 0
  for _, nd in ipairs(ns) do
    local at = find(low, nd, 1, true)
    while at do
      hits = hits + 1
      -- past MAX_HITS, or where lower moved the text (see lowered), the
      -- pattern runs over the whole text
      if hits > MAX_HITS or sub(c, at, at + #nd - 1):lower() ~= nd then return re_match(p, c) end
      if re_match(p, sub(c, at > 1 and at - 1 or 1, at + WINDOW)) then return true end
      at = find(low, nd, at + 1, true)
    end
  end
  return false
end


return { gate = gate, credentials = CREDENTIALS, credentials_gate = CREDENTIALS_GATE, groups = GROUPS, present = present,
  max_hits = MAX_HITS }
