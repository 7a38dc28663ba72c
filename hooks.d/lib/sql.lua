-- sql: the statements of an SQL text, for policies that judge what a
-- database client would run.
--
--   local sql = require("sql")
--   local stmts, err = sql.split("select 1; delete from t -- where x", "postgres")
--   -- #stmts == 2; stmts[2] holds the tokens delete, from, t (the comment dropped)
--
-- sql.split(src[, dialect]) returns the statements of src, each a list of
-- tokens { t = text, kind = "word"|"num"|"str"|"id"|"op", depth = n }:
--   word  a keyword or bare name, lower-cased ("delete", "users")
--   num   a number ("1", "0.5")
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

local find, sub, lower = string.find, string.sub, string.lower

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
function M.split(src, dialect)
  if type(src) ~= "string" then return {}, "the SQL is not a string" end
  dialect = dialect or "postgres"
  local mysql, pg = dialect == "mysql", dialect == "postgres"
  local out, cur = {}, {}
  if #src > M.limits.bytes then
    return out, string.format("the SQL is %d bytes long, over the %d bytes read", #src, M.limits.bytes)
  end
  local n, depth, i, count = #src, 0, 1, 0
  local function push(t, kind)
    count = count + 1
    cur[#cur + 1] = { t = t, kind = kind, depth = depth }
  end
  while i <= n do
    if count > M.limits.tokens then
      return out, string.format("the SQL has more than %d tokens", M.limits.tokens)
    end
    local s, e = find(src, "^%s+", i)
    if s then i = e + 1 end
    if i > n then break end
    local c = sub(src, i, i)
    local c2 = sub(src, i, i + 1)
    if c2 == "--" or (mysql and c == "#") then
      local nl = find(src, "\n", i, true)
      i = nl and nl + 1 or n + 1
    elseif c2 == "/*" then
      if mysql and sub(src, i + 2, i + 2) == "!" then
        -- an executable comment: its text is code
        local _, ve = find(src, "^%d*", i + 3)
        i = ve + 1
        local close = find(src, "*/", i, true)
        if not close then return out, "an unterminated /*! comment" end
        -- read the inside as code by blanking the closing mark
        src = sub(src, 1, close - 1) .. "  " .. sub(src, close + 2)
      else
        local level, j = 1, i + 2
        while level > 0 do
          local k, _, m = find(src, "([/*])", j)
          if not k then return out, "an unterminated /* comment" end
          if m == "*" and sub(src, k + 1, k + 1) == "/" then
            level = level - 1; j = k + 2
          elseif pg and m == "/" and sub(src, k + 1, k + 1) == "*" then
            level = level + 1; j = k + 2
          else
            j = k + 1
          end
        end
        i = j
      end
    elseif c == ";" then
      if #cur > 0 then
        out[#out + 1] = cur
        if #out >= M.limits.statements then
          return out, string.format("the SQL has more than %d statements", M.limits.statements)
        end
        cur = {}
      end
      depth = 0
      i = i + 1
    elseif c == "'" or (pg and (c2 == "E'" or c2 == "e'")) then
      local at = c == "'" and i or i + 1
      local k, text = closing(src, at, "'", mysql or at ~= i)
      if not k then return out, "an unterminated string" end
      push(text, "str")
      i = k + 1
    elseif c == '"' or c == "`" then
      local k, text = closing(src, i, c, mysql)
      if not k then return out, "an unterminated quoted name" end
      push(text, (mysql and c == '"') and "str" or "id")
      i = k + 1
    elseif c == "[" and dialect == "sqlite" then
      local k = find(src, "]", i + 1, true)
      if not k then return out, "an unterminated [name]" end
      push(sub(src, i + 1, k - 1), "id")
      i = k + 1
    elseif pg and c == "$" and find(src, "^%$[%a_]?[%w_]*%$", i) then
      local _, te = find(src, "^%$[%a_]?[%w_]*%$", i)
      local tag = sub(src, i, te)
      local k = find(src, tag, te + 1, true)
      if not k then return out, "an unterminated " .. tag .. " string" end
      push(sub(src, te + 1, k - 1), "str")
      i = k + #tag
    else
      local ws, we = find(src, "^[%a_][%w_$]*", i)
      if ws then
        push(lower(sub(src, ws, we)), "word")
        i = we + 1
      else
        local ns, ne = find(src, "^%d[%w.]*", i)
        if ns then
          push(sub(src, ns, ne), "num")
          i = ne + 1
        else
          if c == "(" then
            push(c, "op"); depth = depth + 1
          elseif c == ")" then
            if depth > 0 then depth = depth - 1 end
            push(c, "op")
          else
            push(c, "op")
          end
          i = i + 1
        end
      end
    end
  end
  if #cur > 0 then out[#out + 1] = cur end
  return out, nil
end

return M
