-- shell.lex: reads a shell command line into raw simple commands.
--
-- The lexer knows the POSIX/bash quoting rules ('…', "…", $'…', \x), the
-- expansions that run code or hide a value ($VAR, ${…}, $(…), `…`,
-- $((…)), <(…), >(…)), brace groups, redirections with here-documents and
-- here-strings, the operators that separate commands, and the reserved words
-- of compound commands. It hands each simple command to p.finish as soon as
-- it is complete (a word list of pieces, redirections, pipe and background
-- flags). It never raises: what it cannot read becomes an unknown piece, and
-- every loop advances the position or stops at a limit recorded in p.err.
--
-- A word is a list of pieces:
--   { k = "lit", s = text, q = quoted }   literal text (q: glob-inactive)
--   { k = "brace", c = "{" | "," | "}" }  an unquoted brace character
--   { k = "glob", s = "*" | "?" | "[…]" } an active glob
--   { k = "tilde", user = name }          an unquoted ~ or ~user at the start
--   { k = "var", name = N, op = o, arg = pieces, q = quoted }
--   { k = "sub", cmds = {…}, q = quoted, kind = "$(" | "`" | "<(" | ">(" }
--   { k = "unk", q = quoted }             arithmetic and other values not followed

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local M = {}

local byte, sub, find = string.byte, string.sub, string.find

local B_SPACE, B_TAB, B_NL = 32, 9, 10
local B_SEMI, B_AMP, B_PIPE, B_LT, B_GT = 59, 38, 124, 60, 62
local B_LP, B_RP, B_SQ, B_DQ, B_BS = 40, 41, 39, 34, 92
local B_DOLLAR, B_BQ, B_HASH, B_TILDE = 36, 96, 35, 126
local B_LB, B_RB, B_COMMA, B_STAR, B_Q, B_LBR = 123, 125, 44, 42, 63, 91

-- A run of characters with no meaning to the lexer, in an unquoted word.
local PLAIN = "^[^%s;&|<>()'\"\\$`{},*?%[~#=]+"
-- The same inside double quotes.
local DQ_PLAIN = '^[^"\\$`]+'

local RESERVED = {
  ["if"] = true, ["then"] = true, ["else"] = true, ["elif"] = true, ["fi"] = true,
  ["do"] = true, ["done"] = true, ["while"] = true, ["until"] = true, ["!"] = true,
  ["esac"] = true, ["time"] = true, ["coproc"] = true,
}
-- Words that open a compound command or a function definition.
local COMPOUND = { ["for"] = true, ["select"] = true, ["case"] = true }
local FUNCTION = "function"
-- KEYWORDS: every word the lexer reads otherwise at a command's start.
M.KEYWORDS = { [FUNCTION] = true }
for _, set in ipairs({ RESERVED, COMPOUND }) do
  for w in pairs(set) do M.KEYWORDS[w] = true end
end

-- lit appends literal text to a word, merging with a previous literal of
-- the same quoting.
local function lit(w, s, q)
  local last = w[#w]
  if last and last.k == "lit" and last.q == q then
    last.s = last.s .. s
  else
    w[#w + 1] = { k = "lit", s = s, q = q }
  end
end

-- budget charges n units of kind to the parse; false once a limit passed.
local function charge(p, kind, n)
  local b = p.budget
  b[kind] = b[kind] + n
  if b[kind] > p.limits[kind] then
    p.err = p.err or string.format("more than %d %s", p.limits[kind], kind)
    return false
  end
  return true
end
M.charge = charge

-- bad records the first thing that the shell would refuse to run, and
-- the byte where it starts: p.syntax = { what, at }, of the line itself,
-- or { what, at, script, via } of a script the line hands to a shell
-- (p.script: sh -c '…', eval, `…`, $(…)'s own source is the line's, a
-- here-document or text piped into a shell, an interpreter's os.system
-- string), whose shell refuses it in turn. The text of a here-document
-- read for its expansions is not a script (p.script is nil there): its
-- quotes mean nothing.
local function bad(p, what, at)
  if p.syntax then return end
  if p.s == p.src and not p.script then
    p.syntax = { what, at }
  elseif p.script then
    p.syntax = { what, at, p.s, p.script }
  end
end

local ansi = { a = "\a", b = "\b", e = "\27", E = "\27", f = "\f", n = "\n", r = "\r", t = "\t", v = "\v",
  ["\\"] = "\\", ["'"] = "'", ['"'] = '"', ["?"] = "?" }

-- utf8 encodes a code point (clamped to the Unicode range).
local function utf8(c)
  if c > 0x10FFFF then c = 0xFFFD end
  if c < 0x80 then return string.char(c) end
  if c < 0x800 then return string.char(0xC0 + math.floor(c / 64), 0x80 + c % 64) end
  if c < 0x10000 then
    return string.char(0xE0 + math.floor(c / 4096), 0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
  end
  return string.char(0xF0 + math.floor(c / 262144), 0x80 + math.floor(c / 4096) % 64,
    0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
end

-- ansi_c reads $'…' starting after the opening quote; returns the text and
-- the position after the closing quote. A \0 (or \x00…) ends the value, as
-- in bash.
local function ansi_c(s, i)
  local out, n, cut = {}, #s, false
  while i <= n do
    local j = find(s, "['\\]", i)
    if not j then
      if not cut then out[#out + 1] = sub(s, i) end
      return table.concat(out), n + 1, false
    end
    if not cut and j > i then out[#out + 1] = sub(s, i, j - 1) end
    if byte(s, j) == B_SQ then return table.concat(out), j + 1, true end
    local c = sub(s, j + 1, j + 1)
    local v, nx
    if ansi[c] then
      v, nx = ansi[c], j + 2
    elseif c == "x" then
      local h = s:match("^%x%x?", j + 2)
      if h then v, nx = string.char(tonumber(h, 16)), j + 2 + #h else v, nx = "\\x", j + 2 end
    elseif c == "u" or c == "U" then
      local h = s:match(c == "u" and "^%x%x?%x?%x?" or "^%x%x?%x?%x?%x?%x?%x?%x?", j + 2)
      if h then v, nx = utf8(tonumber(h, 16)), j + 2 + #h else v, nx = "\\" .. c, j + 2 end
    elseif c:find("^[0-7]$") then
      local o = s:match("^[0-7][0-7]?[0-7]?", j + 1)
      v, nx = string.char(tonumber(o, 8) % 256), j + 1 + #o
    elseif c == "c" and j + 2 <= n then
      v, nx = string.char(byte(s, j + 2) % 32), j + 3
    else
      v, nx = "\\" .. c, j + 2
    end
    if v == "\0" then cut = true end
    if not cut then out[#out + 1] = v end
    i = nx
  end
  return table.concat(out), n + 1, false
end

local read_list -- forward

-- with_source runs fn with the lexer reading src (the inside of `…`, a
-- here-document, a sh -c string), then goes back to where it was.
local function with_source(p, src, fn)
  if not charge(p, "bytes", #src) then return end
  local s, i, n, docs, deferred = p.s, p.i, p.n, p.heredocs, p.deferred
  p.s, p.i, p.n, p.heredocs, p.deferred = src, 1, #src, {}, {}
  fn()
  M.flush(p)
  p.s, p.i, p.n, p.heredocs, p.deferred = s, i, n, docs, deferred
end

-- flush resolves the commands held back while here-documents were pending.
function M.flush(p)
  local d = p.deferred
  p.deferred = {}
  for _, c in ipairs(d) do p.finish(p, c) end
end

-- nest runs fn one level deeper, with its commands going to a new list,
-- and returns that list.
local function nest(p, via, fn)
  local out = {}
  if p.depth >= p.limits.depth then
    p.err = p.err or string.format("commands nested more than %d deep", p.limits.depth)
    return out
  end
  local saved_out, saved_via = p.out, p.via
  p.out = out
  p.via = via
  p.depth = p.depth + 1
  fn()
  p.out = saved_out
  p.via = saved_via
  p.depth = p.depth - 1
  return out
end

-- sub_parse parses src as a nested command list and returns the commands
-- it finished.
function M.sub_parse(p, src, via)
  local saved = p.script
  -- parallel's and alias's texts are the reader's own joins of words, not
  -- scripts a shell refuses as such
  if via ~= "parallel" and via ~= "sem" and via ~= "alias" then p.script = via or "?" else p.script = nil end
  local out = nest(p, via, function()
    with_source(p, src, function() read_list(p, nil) end)
  end)
  p.script = saved
  return out
end

-- subst reads $( … ) from just after "$(" in the parse's own source, so
-- that here-documents and quotes inside it follow the same rules.
local function subst(p, kind)
  local at, closed = p.i - #kind, false
  local out = nest(p, kind, function() closed = read_list(p, B_RP) end)
  if p.err then p.i = p.n + 1
  elseif not closed then bad(p, "a " .. kind .. " that is not closed", at) end
  return { k = "sub", cmds = out, kind = kind }
end

-- backquote reads `…` from just after the opening backquote.
local function backquote(p)
  local s, i, parts = p.s, p.i, {}
  while i <= p.n do
    local j = find(s, "[`\\]", i)
    if not j then
      parts[#parts + 1] = sub(s, i); i = p.n + 1
      bad(p, "a ` that is not closed", p.i - 1)
      break
    end
    parts[#parts + 1] = sub(s, i, j - 1)
    if byte(s, j) == B_BQ then i = j + 1; break end
    local c = sub(s, j + 1, j + 1)
    if c == "`" or c == "\\" or c == "$" then parts[#parts + 1] = c else parts[#parts + 1] = "\\" .. c end
    i = j + 2
  end
  p.i = i
  return { k = "sub", cmds = M.sub_parse(p, table.concat(parts), "`"), kind = "`" }
end

-- arith skips $(( … )) from just after "$((", reading any command
-- substitution inside it; the value is unknown.
local function arith(p, q)
  local depth, cmds, at = 0, {}, p.i - 3
  while p.i <= p.n and not p.err do
    local j = find(p.s, "[()$`'\"]", p.i)
    if not j then p.i = p.n + 1; bad(p, "a $(( that is not closed", at); break end
    local c = byte(p.s, j)
    p.i = j + 1
    if c == B_LP then depth = depth + 1
    elseif c == B_RP then
      if depth == 0 then
        if byte(p.s, p.i) == B_RP then p.i = p.i + 1 end
        break
      end
      depth = depth - 1
    elseif c == B_DOLLAR and byte(p.s, p.i) == B_LP then
      p.i = p.i + 1
      cmds[#cmds + 1] = subst(p, "$(")
    elseif c == B_BQ then
      cmds[#cmds + 1] = backquote(p)
    elseif c == B_SQ or c == B_DQ then
      local e = find(p.s, c == B_SQ and "'" or '"', p.i, true)
      p.i = e and e + 1 or p.n + 1
    end
  end
  local piece = { k = "unk", q = q, subs = cmds }
  return piece
end

local dollar -- forward

-- dq reads the inside of "…" from just after the quote into word w.
local function dq(p, w)
  local s, at = p.s, p.i - 1
  while p.i <= p.n do
    local a, b = find(s, DQ_PLAIN, p.i)
    if a then lit(w, sub(s, a, b), true); p.i = b + 1 end
    local c = byte(s, p.i)
    if c == nil then break end
    if c == B_DQ then p.i = p.i + 1; return end
    if c == B_BS then
      local d = sub(s, p.i + 1, p.i + 1)
      if d == "\n" then
        -- line continuation
      elseif d == "$" or d == "`" or d == '"' or d == "\\" then
        lit(w, d, true)
      else
        lit(w, "\\" .. d, true)
      end
      p.i = p.i + 2
    elseif c == B_BQ then
      p.i = p.i + 1
      local piece = backquote(p); piece.q = true; w[#w + 1] = piece
    elseif c == B_DOLLAR then
      p.i = p.i + 1
      dollar(p, w, true)
    end
    if p.err then return end
  end
  bad(p, 'a " that is not closed', at)
end

-- param reads the inside of ${ … } from just after "${".
local function param(p, q)
  local s, at, closed = p.s, p.i - 2, false
  local name = s:match("^[%a_][%w_]*", p.i) or s:match("^[%d@*#?$!%-]", p.i)
  local prefix = ""
  if not name then
    prefix = s:match("^[#!]", p.i) or ""
    name = s:match("^[%a_][%w_]*", p.i + #prefix) or s:match("^[%d@*#?$!%-]", p.i + #prefix)
  end
  local piece = { k = "var", name = name, q = q }
  if prefix ~= "" or not name then piece.name = nil end
  p.i = p.i + #prefix + (name and #name or 0)
  -- one operator: ${X%/} is "%" and the pattern "/", not "%/"
  local op = s:match("^:?[-=?+]", p.i) or s:match("^##?", p.i) or s:match("^%%%%?", p.i) or s:match("^//?", p.i)
    or s:match("^%^%^?", p.i) or s:match("^,,?", p.i) or s:match("^[:@]", p.i)
  local arg = {}
  if op then p.i = p.i + #op end
  -- the rest up to the matching brace is the operator's word
  local depth = 0
  while p.i <= p.n and not p.err do
    local a, b = find(s, "^[^}{'\"\\$`]+", p.i)
    if a then lit(arg, sub(s, a, b), q); p.i = b + 1 end
    local c = byte(s, p.i)
    if c == nil then break end
    if c == B_RB then
      p.i = p.i + 1
      if depth == 0 then closed = true; break end
      depth = depth - 1; lit(arg, "}", q)
    elseif c == B_LB then depth = depth + 1; lit(arg, "{", q); p.i = p.i + 1
    elseif c == B_SQ and not q then
      local e = find(s, "'", p.i + 1, true)
      if not e then bad(p, "a ' that is not closed", p.i); e = p.n + 1 end
      lit(arg, sub(s, p.i + 1, e - 1), true); p.i = e + 1
    elseif c == B_DQ then p.i = p.i + 1; dq(p, arg)
    elseif c == B_BS then lit(arg, sub(s, p.i + 1, p.i + 1), true); p.i = p.i + 2
    elseif c == B_BQ then p.i = p.i + 1; arg[#arg + 1] = backquote(p)
    else p.i = p.i + 1; dollar(p, arg, q) end
  end
  if not closed and not p.err then bad(p, "a ${ that is not closed", at) end
  if op then piece.op, piece.arg = op, arg end
  if not piece.name then piece.k = "unk"; piece.subs = { { k = "sub", cmds = {}, word = arg } } end
  return piece
end

-- dollar reads what follows a "$" (already consumed) into word w.
function dollar(p, w, q)
  local s = p.s
  local c = byte(s, p.i)
  if c == B_LP then
    if byte(s, p.i + 1) == B_LP then
      p.i = p.i + 2
      w[#w + 1] = arith(p, q)
    else
      p.i = p.i + 1
      local piece = subst(p, "$("); piece.q = q; w[#w + 1] = piece
    end
  elseif c == B_LB then
    p.i = p.i + 1
    w[#w + 1] = param(p, q)
  elseif c == B_SQ and not q then
    local v, nx, closed = ansi_c(s, p.i + 1)
    if not closed then bad(p, "a $' that is not closed", p.i - 1) end
    lit(w, v, true); p.i = nx
  elseif c == B_DQ and not q then
    p.i = p.i + 1
    dq(p, w)
  elseif c == 91 and not q and false then
    -- unreachable: $[ … ] is arithmetic in old bash; treated below
  else
    local name = s:match("^[%a_][%w_]*", p.i) or s:match("^[%d@*#?$!%-]", p.i)
    if name then
      p.i = p.i + #name
      w[#w + 1] = { k = "var", name = name, q = q }
    else
      lit(w, "$", q)
    end
  end
end

-- bracket returns the end of a glob bracket expression starting at i, or nil.
local function bracket(s, i)
  local j = i + 1
  if sub(s, j, j) == "!" or sub(s, j, j) == "^" then j = j + 1 end
  if sub(s, j, j) == "]" then j = j + 1 end
  local e = find(s, "[%]%s;&|<>()]", j)
  if e and byte(s, e) == 93 then return e end
  return nil
end

-- read_word reads one word at p.i into a piece list.
local function read_word(p)
  local s, w, start = p.s, {}, p.i
  while p.i <= p.n and not p.err do
    local a, b = find(s, PLAIN, p.i)
    if a then lit(w, sub(s, a, b), false); p.i = b + 1 end
    local c = byte(s, p.i)
    if c == nil or c == B_SPACE or c == B_TAB or c == B_NL or c == B_SEMI or c == B_AMP or c == B_PIPE
      or c == B_LT or c == B_GT or c == B_LP or c == B_RP then
      -- "a=(x y)": an array assignment
      if c == B_LP and #w == 1 and w[1].k == "lit" and not w[1].q and w[1].s:find("^[%a_][%w_]*%+?=$") then
        p.i = p.i + 1
        local items = {}
        while p.i <= p.n and not p.err do
          local x = find(s, "[^%s]", p.i)
          if not x then p.i = p.n + 1; break end
          p.i = x
          if byte(s, x) == B_RP then p.i = x + 1; break end
          local item = read_word(p)
          if #item == 0 then p.i = p.i + 1 else items[#items + 1] = item end
        end
        w.array = items
      end
      break
    end
    if c == B_SQ then
      local e = find(s, "'", p.i + 1, true)
      if not e then bad(p, "a ' that is not closed", p.i); e = p.n + 1 end
      lit(w, sub(s, p.i + 1, e - 1), true); p.i = e + 1
    elseif c == B_DQ then
      p.i = p.i + 1; dq(p, w)
      if #w == 0 then lit(w, "", true) end
    elseif c == B_BS then
      local d = sub(s, p.i + 1, p.i + 1)
      if d ~= "\n" then lit(w, d, true) end
      p.i = p.i + 2
    elseif c == B_DOLLAR then
      p.i = p.i + 1; dollar(p, w, false)
    elseif c == B_BQ then
      p.i = p.i + 1; w[#w + 1] = backquote(p)
    elseif c == B_LB or c == B_RB or c == B_COMMA then
      -- brace and glob characters are tokens of their own, and counted
      if not charge(p, "tokens", 1) then break end
      w[#w + 1] = { k = "brace", c = string.char(c) }; p.i = p.i + 1
    elseif c == B_STAR or c == B_Q then
      if not charge(p, "tokens", 1) then break end
      w[#w + 1] = { k = "glob", s = string.char(c) }; p.i = p.i + 1
    elseif c == B_LBR then
      local e = bracket(s, p.i)
      if e then w[#w + 1] = { k = "glob", s = sub(s, p.i, e) }; p.i = e + 1
      else lit(w, "[", false); p.i = p.i + 1 end
    elseif c == B_TILDE then
      if p.i == start then
        -- ~+ and ~- (the working folder and the one before), or ~user
        local user = s:match("^[+-]%f[%z/%s;&|<>()]", p.i + 1) or s:match("^[%w_.-]*", p.i + 1)
        w[#w + 1] = { k = "tilde", user = user }
        p.i = p.i + 1 + #user
      else
        lit(w, "~", false); p.i = p.i + 1
      end
    elseif c == B_HASH then
      lit(w, "#", false); p.i = p.i + 1
    else -- "="
      lit(w, "=", false); p.i = p.i + 1
      -- a tilde right after the = of an assignment is expanded
      if byte(s, p.i) == B_TILDE and #w == 1 and w[1].s:find("^[%a_][%w_]*%+?=$") then
        local user = s:match("^[%w_.-]*", p.i + 1)
        w[#w + 1] = { k = "tilde", user = user }
        p.i = p.i + 1 + #user
      end
    end
  end
  return w
end

-- word_text returns the text of a word made of unquoted literals only.
local function word_text(w)
  if #w == 1 and w[1].k == "lit" and not w[1].q then return w[1].s end
  if #w == 1 and w[1].k == "brace" then return w[1].c end
  return nil
end
M.word_text = word_text

-- plain_text returns the text of a word made of literals only (quoted or
-- not), for here-document delimiters.
local function plain_text(w)
  local parts, quoted = {}, false
  for _, pc in ipairs(w) do
    if pc.k == "lit" then parts[#parts + 1] = pc.s; quoted = quoted or pc.q
    elseif pc.k == "brace" then parts[#parts + 1] = pc.c
    elseif pc.k == "glob" then parts[#parts + 1] = pc.s
    elseif pc.k == "tilde" then parts[#parts + 1] = "~" .. pc.user
    else quoted = true end
  end
  return table.concat(parts), quoted
end

-- heredoc_bodies reads the bodies of the here-documents opened on the line
-- that just ended (p.i is after its newline).
local function heredoc_bodies(p)
  local docs = p.heredocs
  p.heredocs = {}
  for _, d in ipairs(docs) do
    local s, body = p.s, {}
    while p.i <= p.n do
      local e = find(s, "\n", p.i, true) or p.n + 1
      local line = sub(s, p.i, e - 1)
      p.i = e + 1
      if d.strip then line = line:gsub("^\t+", "") end
      if line == d.delim then break end
      body[#body + 1] = line
    end
    local text = table.concat(body, "\n") .. (#body > 0 and "\n" or "")
    if d.quoted then
      d.redir.word = { { k = "lit", s = text, q = true } }
    else
      local w, script = {}, p.script
      p.script = nil
      with_source(p, text, function()
        -- a here-document expands like "…" without the quotes being special
        while p.i <= p.n and not p.err do
          local a, b = find(text, "^[^\\$`]+", p.i)
          if a then lit(w, sub(text, a, b), true); p.i = b + 1 end
          local c = byte(text, p.i)
          if c == nil then break end
          if c == B_BS then
            local dch = sub(text, p.i + 1, p.i + 1)
            if dch == "$" or dch == "`" or dch == "\\" then lit(w, dch, true)
            elseif dch ~= "\n" then lit(w, "\\" .. dch, true) end
            p.i = p.i + 2
          elseif c == B_BQ then p.i = p.i + 1; local pc = backquote(p); pc.q = true; w[#w + 1] = pc
          else p.i = p.i + 1; dollar(p, w, true) end
        end
      end)
      p.script = script
      d.redir.word = w
    end
  end
end

-- redirect reads a redirection operator at p.i (fd already read) and its
-- target into cmd.redirs.
local function redirect(p, cmd, fd)
  local s = p.s
  local op = s:match("^<<<", p.i) or s:match("^<<%-?", p.i) or s:match("^<>", p.i) or s:match("^>>", p.i)
    or s:match("^>|", p.i) or s:match("^[<>]&", p.i) or s:match("^&>>?", p.i) or sub(s, p.i, p.i)
  p.i = p.i + #op
  local x = find(s, "[^ \t]", p.i)
  p.i = x or p.n + 1
  local w = read_word(p)
  local r = { op = op, fd = fd, word = w }
  if op == "<<" or op == "<<-" then
    local delim, quoted = plain_text(w)
    r.word = { { k = "lit", s = "", q = true } }
    p.heredocs[#p.heredocs + 1] = { delim = delim, quoted = quoted, strip = op == "<<-", redir = r }
    r.heredoc = true
  end
  cmd.redirs[#cmd.redirs + 1] = r
end

-- new_cmd starts a raw simple command.
local function new_cmd(p)
  return { words = {}, redirs = {}, via = p.via, depth = p.depth, func = p.funcs[#p.funcs] or nil, out = p.out }
end

-- read_list reads commands until the closing byte (")" for $( … )) or the
-- end of the source; true when it stopped at the closing byte.
function read_list(p, closer)
  local s = p.s
  local cmd = new_cmd(p)
  local pipe_in = false
  -- pending: a |, && or || that still waits for its command, and where
  local pending, pending_at
  local function finish(sep)
    if #cmd.words > 0 or #cmd.redirs > 0 then
      pending = (sep == "|" or sep == "&&" or sep == "||") and sep or nil
      pending_at = p.i - #sep
    end
    cmd.pipe_in = pipe_in
    cmd.pipe_out = sep == "|"
    cmd.bg = sep == "&"
    cmd.pipeline = p.pipe_seq
    pipe_in = sep == "|"
    if sep ~= "|" then p.pipe_seq = p.pipe_seq + 1 end
    if #cmd.words > 0 or #cmd.redirs > 0 then
      if #p.heredocs > 0 or #p.deferred > 0 then
        p.deferred[#p.deferred + 1] = cmd
      else
        p.finish(p, cmd)
      end
    end
    cmd = new_cmd(p)
  end
  -- an operator where a |, && or || still waits for its command (make |;
  -- true, a && | b): bash refuses it (a newline there only continues)
  local function operator()
    if pending and #cmd.words == 0 and #cmd.redirs == 0 and not p.err then
      bad(p, "a " .. pending .. " with no command after it", pending_at)
    end
  end
  while p.i <= p.n and not p.err do
    local x = find(s, "[^ \t]", p.i)
    if not x then p.i = p.n + 1; break end
    p.i = x
    local c = byte(s, x)
    local c2 = byte(s, x + 1)
    if c == B_BS and c2 == B_NL then
      p.i = x + 2
    elseif c == B_HASH then
      local e = find(s, "\n", x, true)
      p.i = e or p.n + 1
    elseif c == B_NL then
      p.i = x + 1
      -- the newline ends the command before its here-documents are read
      local docs = #p.heredocs > 0
      finish(";")
      if docs then heredoc_bodies(p); M.flush(p) end
    elseif c == B_SEMI then
      operator()
      p.i = x + 1
      while byte(s, p.i) == B_SEMI or byte(s, p.i) == B_AMP do p.i = p.i + 1 end
      finish(";")
    elseif c == B_AMP then
      if c2 == B_GT then
        redirect(p, cmd, nil)
      else
        operator()
        p.i = x + (c2 == B_AMP and 2 or 1)
        finish(c2 == B_AMP and "&&" or "&")
      end
    elseif c == B_PIPE then
      operator()
      if c2 == B_PIPE then p.i = x + 2; finish("||")
      else p.i = x + (c2 == B_AMP and 2 or 1); finish("|") end
    elseif (c == B_LT or c == B_GT) and c2 == B_LP then
      p.i = x + 2
      local piece = subst(p, c == B_LT and "<(" or ">(")
      cmd.words[#cmd.words + 1] = { piece }
      if not charge(p, "tokens", 1) then break end
    elseif c == B_LT or c == B_GT then
      redirect(p, cmd, nil)
    elseif c == B_LP then
      p.i = x + 1
      if c2 == B_RP and #cmd.words == 1 then
        -- name() body: a function definition
        p.i = x + 2
        p.pending_func = word_text(cmd.words[1]) or "?"
        cmd = new_cmd(p)
      else
        finish(";")
        local saved = #p.funcs
        if p.pending_func then p.funcs[#p.funcs + 1] = p.pending_func; p.pending_func = nil end
        if not read_list(p, B_RP) and not p.err then bad(p, "a ( that is not closed", x) end
        for k = #p.funcs, saved + 1, -1 do p.funcs[k] = nil end
      end
    elseif c == B_RP then
      p.i = x + 1
      if closer == B_RP then
        operator()
        finish(";")
        return true
      end
      -- a stray ")" ends a case pattern: what came before it was the pattern
      cmd = new_cmd(p)
    else
      local w = read_word(p)
      if #w == 0 then
        p.i = p.i + 1 -- cannot happen; keeps the loop moving
      else
        if not charge(p, "tokens", 1) then break end
        local nc = byte(s, p.i)
        local fd = (nc == B_LT or nc == B_GT) and word_text(w)
        local t = #cmd.words == 0 and word_text(w)
        if fd and fd:find("^%d+$") then
          redirect(p, cmd, fd)
        elseif t == "{" then
          p.funcs[#p.funcs + 1] = p.pending_func or p.funcs[#p.funcs] or false
          p.pending_func = nil
          cmd.func = p.funcs[#p.funcs] or nil
        elseif t == "}" then
          finish(";")
          if #p.funcs > 0 then p.funcs[#p.funcs] = nil end
        elseif t == FUNCTION then
          local y = find(s, "[^ \t]", p.i)
          p.i = y or p.n + 1
          local nw = read_word(p)
          p.pending_func = word_text(nw) or "?"
          if sub(s, p.i, p.i + 1) == "()" then p.i = p.i + 2 end
        elseif t and RESERVED[t] then
          -- a reserved word at the start of a command is not the command
        elseif t and COMPOUND[t] then
          cmd.kind = t
          cmd.words[#cmd.words + 1] = w
        else
          cmd.words[#cmd.words + 1] = w
        end
      end
    end
  end
  if pending and #cmd.words == 0 and #cmd.redirs == 0 and not p.err then
    bad(p, "a " .. pending .. " with no command after it", pending_at)
  end
  finish(";")
end

-- start readies p to read src: a parse, or a line read without the
-- lexer whose commands may still parse nested strings (sub_parse).
function M.start(p)
  p.s, p.i, p.n = p.src, 1, #p.src
  p.heredocs = {}
  p.funcs = {}
  p.depth = 0
  p.deferred = {}
  p.pipe_seq = 1
end

-- parse reads src; p holds finish, limits, budget, vars and the output.
function M.parse(p)
  M.start(p)
  read_list(p, nil)
  M.flush(p)
end

return M
