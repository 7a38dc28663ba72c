-- sql: the statements of an SQL text, for policies that judge what a
-- database client would run.
--
--   local sql = require("sql")
--   local stmts, err = sql.split("select 1; delete from t -- where x", "postgres")
--   -- #stmts == 2; stmts[2].t is { "delete", "from", "t" } (the comment dropped)
--
-- sql.split(src[, dialect]) returns the statements of src, each a table of
-- parallel token lists { n = count, t = { text... }, kind = { ... },
-- depth = { ... } } (lists rather than a table per token: a small table
-- per token costs several times more), the kinds being:
--   word  a keyword or bare name, lower-cased ("delete", "users")
--   num   a number ("1", "0.5")
--   list  a run of numbers and commas ("1, 2, 3": an IN list), one token
--   str   a string literal, its text without quotes ('it''s' -> "it's")
--   id    a quoted name ("x", `x`, [x]), its text without quotes
--   op    one punctuation character ("(", "=", ",", "*")
-- depth is the number of parentheses open around the token. Comments are
-- dropped; statements end at ";" outside strings, comments and quoted
-- names; empty statements are left out.
--
-- dialect says how comments and strings are read where databases differ:
--   "postgres"  /* */ nests, $tag$…$tag$ and E'…' strings, # is an operator
--   "mysql"     # starts a comment, \ escapes in '…' and "…" ("…" a string),
--               /*!…*/ is code, not a comment
--   "sqlite"    the standard: '…' strings, "…", `…` and […] names
-- A policy that does not know the database reads the text in every dialect
-- (sql.DIALECTS) and takes the strictest answer.
--
-- The second value err is nil, or says why the text could not be read: an
-- unterminated string, quoted name or comment, or a text past sql.limits
-- (then the statements read so far are returned). split never raises.

local M = {}

-- limits bounds the work of one split: bytes of the text, tokens, statements.
M.limits = { bytes = 1048576, tokens = 200000, statements = 10000 }

M.DIALECTS = { "postgres", "mysql", "sqlite" }

local find, sub, lower, byte = string.find, string.sub, string.lower, string.byte

-- closing finds the end of a quoted run opened at i (the quote q), where
-- doubling the quote escapes it and, when bs, so does a backslash. It
-- returns the index of the closing quote and the text, or nil.
local function closing(src, i, q, bs)
  local parts = {}
  local j = i + 1
  local stop = bs and ("[" .. q .. "\\]") or q
  while true do
    local k = find(src, stop, j, not bs)
    if not k then return nil end
    local c = sub(src, k, k)
    if c == "\\" then
      parts[#parts + 1] = sub(src, j, k - 1) .. sub(src, k + 1, k + 1)
      j = k + 2
    elseif sub(src, k + 1, k + 1) == q then
      parts[#parts + 1] = sub(src, j, k)
      j = k + 2
    else
      parts[#parts + 1] = sub(src, j, k - 1)
      return k, table.concat(parts)
    end
  end
end

-- split returns the statements of src read in dialect (default "postgres").
-- Characters are classified by byte and runs are found with one search
-- each: a pattern search costs far more than a byte comparison here.
function M.split(src, dialect)
  if type(src) ~= "string" then return {}, "the SQL is not a string" end
  dialect = dialect or "postgres"
  local mysql, pg, lite = dialect == "mysql", dialect == "postgres", dialect == "sqlite"
  local function statement() return { n = 0, t = {}, kind = {}, depth = {} } end
  local out, cur = {}, statement()
  if #src > M.limits.bytes then
    return out, string.format("the SQL is %d bytes long, over the %d bytes read", #src, M.limits.bytes)
  end
  local n, depth, i, count = #src, 0, 1, 0
  local function push(t, kind)
    count = count + 1
    local k = cur.n + 1
    cur.n = k
    cur.t[k] = t
    cur.kind[k] = kind
    cur.depth[k] = depth
  end
  while i <= n do
    if count > M.limits.tokens then
      return out, string.format("the SQL has more than %d tokens", M.limits.tokens)
    end
    local b = byte(src, i)
    local b2 = byte(src, i + 1)
    if b == 32 or b == 10 or b == 9 or b == 13 or b == 12 or b == 11 then
      i = i + 1
    elseif (b == 45 and b2 == 45) or (mysql and b == 35) then -- -- and #
      local nl = find(src, "\n", i, true)
      i = nl and nl + 1 or n + 1
    elseif b == 47 and b2 == 42 then -- /*
      if mysql and byte(src, i + 2) == 33 then
        -- /*! is code: read on after its version number, and blank its end
        local _, ve = find(src, "^%d*", i + 3)
        i = ve + 1
        local close = find(src, "*/", i, true)
        if not close then return out, "an unterminated /*! comment" end
        src = sub(src, 1, close - 1) .. "  " .. sub(src, close + 2)
      else
        local level, j = 1, i + 2
        while level > 0 do
          local k = find(src, "[/*]", j)
          if not k then return out, "an unterminated /* comment" end
          local m, m2 = byte(src, k), byte(src, k + 1)
          if m == 42 and m2 == 47 then
            level = level - 1; j = k + 2
          elseif pg and m == 47 and m2 == 42 then
            level = level + 1; j = k + 2
          else
            j = k + 1
          end
        end
        i = j
      end
    elseif b == 59 then -- ;
      if cur.n > 0 then
        out[#out + 1] = cur
        if #out >= M.limits.statements then
          return out, string.format("the SQL has more than %d statements", M.limits.statements)
        end
        cur = statement()
      end
      depth = 0
      i = i + 1
    elseif b == 39 or (pg and (b == 69 or b == 101) and b2 == 39) then -- ' and E'
      local at = b == 39 and i or i + 1
      local k, text = closing(src, at, "'", mysql or at ~= i)
      if not k then return out, "an unterminated string" end
      push(text, "str")
      i = k + 1
    elseif b == 34 or b == 96 then -- " and `
      local q = b == 34 and '"' or "`"
      local k, text = closing(src, i, q, mysql)
      if not k then return out, "an unterminated quoted name" end
      push(text, (mysql and b == 34) and "str" or "id")
      i = k + 1
    elseif b == 91 and lite then -- [name]
      local k = find(src, "]", i + 1, true)
      if not k then return out, "an unterminated [name]" end
      push(sub(src, i + 1, k - 1), "id")
      i = k + 1
    elseif b == 36 and pg and find(src, "^%$[%a_]?[%w_]*%$", i) then -- $tag$
      local _, te = find(src, "^%$[%a_]?[%w_]*%$", i)
      local tag = sub(src, i, te)
      local k = find(src, tag, te + 1, true)
      if not k then return out, "an unterminated " .. tag .. " string" end
      push(sub(src, te + 1, k - 1), "str")
      i = k + #tag
    elseif (b >= 97 and b <= 122) or (b >= 65 and b <= 90) or b == 95 or b >= 128 then -- a word
      local e = find(src, "[^%w_$\128-\255]", i) or n + 1
      push(lower(sub(src, i, e - 1)), "word")
      i = e
    elseif b >= 48 and b <= 57 then
      -- a number, or a run of numbers (an IN list, VALUES): one token
      local e = find(src, "[^%d.,%s]", i) or n + 1
      local run = sub(src, i, e - 1):gsub("[%s,]+$", "")
      push(run, find(run, ",", 1, true) and "list" or "num")
      i = i + #run
    else
      if b == 40 then
        push("(", "op"); depth = depth + 1
      elseif b == 41 then
        if depth > 0 then depth = depth - 1 end
        push(")", "op")
      else
        push(sub(src, i, i), "op")
      end
      i = i + 1
    end
  end
  if cur.n > 0 then out[#out + 1] = cur end
  return out, nil
end

return M
