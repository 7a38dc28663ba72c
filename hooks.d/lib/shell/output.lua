-- shell.output: what a command prints, when the line itself says so.
--
-- output(cmd, p) returns the text a command writes to its standard output
-- when that is known from the line alone, or nil (through the wrappers
-- that leave it as it is: sudo echo … prints what echo … does):
--   echo (-e and -E read as bash does), printf (its format's escapes, %s,
--   %b, %c, %%, the format repeated while arguments remain), cat and rev
--   of their input (a here-document, a here-string or the pipe), base64 -d
--   (--decode, -D) and xxd -r -p (a plain hex dump) of their input.
-- The input of a pipe is the output of the command before it, followed
-- back at most MAX_HOPS commands. Every text made is charged to the
-- parse's bytes budget when p is given (shell.parse's own calls), and a
-- text longer than MAX_BYTES is unknown, so a line cannot make the reader
-- decode more than it holds many times over.

local ipairs, tonumber = ipairs, tonumber
local char, concat = string.char, table.concat
local M = {}

local MAX_BYTES = 65536
local MAX_HOPS = 8

local ESC = { a = "\a", b = "\b", e = "\27", E = "\27", f = "\f", n = "\n", r = "\r", t = "\t", v = "\v",
  ["\\"] = "\\" }

-- escapes decodes the backslash escapes of echo -e (echo: \0NNN octal) or
-- of a printf format (\NNN octal); \c ends the output, reported as the
-- second value.
local function escapes(s, echo)
  local out, i, n = {}, 1, #s
  while i <= n do
    local j = s:find("\\", i, true)
    if not j then out[#out + 1] = s:sub(i); break end
    out[#out + 1] = s:sub(i, j - 1)
    local c = s:sub(j + 1, j + 1)
    if ESC[c] then
      out[#out + 1] = ESC[c]; i = j + 2
    elseif c == "x" then
      local h = s:match("^%x%x?", j + 2)
      if h then out[#out + 1] = char(tonumber(h, 16)); i = j + 2 + #h else out[#out + 1] = "\\x"; i = j + 2 end
    elseif c == "c" then
      return concat(out), true
    elseif echo and c == "0" then
      local o = s:match("^[0-7]?[0-7]?[0-7]?", j + 2)
      out[#out + 1] = char(tonumber(o ~= "" and o or "0", 8) % 256); i = j + 2 + #o
    elseif not echo and c:find("^[0-7]$") then
      local o = s:match("^[0-7][0-7]?[0-7]?", j + 1)
      out[#out + 1] = char(tonumber(o, 8) % 256); i = j + 1 + #o
    elseif c == "" then
      out[#out + 1] = "\\"; i = j + 1
    else
      out[#out + 1] = "\\" .. c; i = j + 2
    end
  end
  return concat(out), false
end
M.escapes = escapes

-- printf formats the words of a printf command's arguments (all known).
local function printf(fmt, args)
  local out, size, k = {}, 0, 1
  repeat
    local used = false
    local i, n = 1, #fmt
    while i <= n do
      local j = fmt:find("[%%\\]", i)
      if not j then out[#out + 1] = fmt:sub(i); size = size + n - i + 1; break end
      out[#out + 1] = fmt:sub(i, j - 1)
      size = size + j - i
      if fmt:sub(j, j) == "\\" then
        local e = fmt:match("^\\(x%x%x?)", j) or fmt:match("^\\([0-7][0-7]?[0-7]?)", j) or fmt:sub(j + 1, j + 1)
        local v, stop = escapes("\\" .. e, false)
        out[#out + 1] = v
        if stop then return concat(out) end
        i = j + 1 + #e
      else
        local spec, conv = fmt:match("^%%([-+ #0]*%d*%.?%d*)(.)", j)
        if not conv then out[#out + 1] = "%"; i = j + 1
        elseif conv == "%" then out[#out + 1] = "%"; i = j + 2 + #spec
        else
          local a = args[k] or ""
          if args[k] then used = true end
          k = k + 1
          if conv == "b" then
            local v, stop = escapes(a, true)
            out[#out + 1] = v
            if stop then return concat(out) end
          elseif conv == "c" then
            out[#out + 1] = a:sub(1, 1)
          else
            out[#out + 1] = a
          end
          i = j + 2 + #spec
        end
      end
      size = size + #out[#out]
      if size > MAX_BYTES then return nil end
    end
  until not used or k > #args
  return concat(out)
end

local B64 = {}
do
  local a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for k = 1, 64 do B64[a:byte(k)] = k - 1 end
end

-- base64 decodes standard base64 (white space skipped, "=" ends it); nil
-- for any other character, as base64 -d fails on it.
local function base64(s)
  local out, acc, bits, n = {}, 0, 0, 0
  for k = 1, #s do
    local b = s:byte(k)
    local v = B64[b]
    if v then
      n = n + 1
      acc = (acc % 262144) * 64 + v
      bits = bits + 6
      if bits >= 8 then
        bits = bits - 8
        out[#out + 1] = char(math.floor(acc / 2 ^ bits) % 256)
      end
    elseif b == 61 then
      break
    elseif not (b == 32 or b == 9 or b == 10 or b == 13) then
      return nil
    end
  end
  -- one character past a whole group is no byte: base64 -d fails
  if n % 4 == 1 then return nil end
  return concat(out)
end
M.base64 = base64

-- hex decodes a plain hex dump (xxd -r -p): pairs of hex digits, anything
-- else skipped.
local function hex(s)
  local out = {}
  for h in s:gsub("[^%x]", ""):gmatch("%x%x") do out[#out + 1] = char(tonumber(h, 16)) end
  return concat(out)
end

local output -- forward

-- input returns what a command reads on its standard input: a known
-- here-document or here-string, or the output of the command piped in.
local function input(cmd, p, hops)
  for _, r in ipairs(cmd.redirs) do
    if r.op == "<<" or r.op == "<<-" or r.op == "<<<" then
      if r.target and not r.target.unknown then
        return r.op == "<<<" and r.target.text .. "\n" or r.target.text
      end
      return nil
    elseif r.op == "<" then
      return nil
    end
  end
  if cmd.pipe_in and cmd.upstream and hops < MAX_HOPS then return output(cmd.upstream, p, hops + 1) end
  return nil
end

-- known returns the texts of words from..#a, or nil if one is unknown.
local function known(a, from)
  local parts = {}
  for k = from, #a do
    if a[k].unknown then return nil end
    parts[#parts + 1] = a[k].text
  end
  return parts
end

-- OPAQUE are the wrappers whose command's output is not the wrapped
-- program's alone: xargs runs it once per batch of items, watch redraws
-- it. The others (sudo, env, nice, timeout, command, ...) run the program
-- once and leave its output as it is.
local OPAQUE = { xargs = true, watch = true, parallel = true }

function output(cmd, p, hops)
  if not cmd or not cmd.name then return nil end
  for _, w in ipairs(cmd.wrappers) do
    if OPAQUE[w] then return nil end
  end
  hops = hops or 0
  local a, name, v = cmd.args, cmd.name, nil
  if name == "echo" then
    local k, e = 1, false
    while a[k] and a[k].text:find("^%-[neE]+$") do
      if a[k].text:find("e") then e = true end
      if a[k].text:find("E") then e = false end
      k = k + 1
    end
    local parts = known(a, k)
    v = parts and concat(parts, " ")
    if v and e then v = escapes(v, true) end
  elseif name == "printf" and a[1] and not a[1].unknown then
    local k = a[1].text == "--" and 2 or 1
    local parts = a[k] and known(a, k + 1)
    v = parts and printf(a[k].text, parts)
  elseif (name == "cat" or name == "rev") and #a == 0 then
    v = input(cmd, p, hops)
    if v and name == "rev" then v = v:gsub("[^\n]+", string.reverse) end
  elseif name == "base64" then
    local decode = false
    for _, w in ipairs(a) do
      if w.unknown then return nil end
      if w.text:find("^%-[a-zA-Z]*[dD]") or w.text == "--decode" then decode = true
      elseif w.text:sub(1, 1) ~= "-" then return nil end
    end
    v = decode and input(cmd, p, hops)
    v = v and base64(v)
  elseif name == "xxd" then
    local r, plain = false, false
    for _, w in ipairs(a) do
      if w.unknown then return nil end
      local t = w.text
      if t == "-r" or t == "-revert" then r = true
      elseif t == "-p" or t == "-ps" or t == "-postscript" or t == "-plain" then plain = true
      elseif t == "-rp" or t == "-pr" then r, plain = true, true
      else return nil end
    end
    v = r and plain and input(cmd, p, hops)
    v = v and hex(v)
  end
  if not v or #v > MAX_BYTES then return nil end
  if p and v ~= "" and not p.charge(p, "bytes", #v) then return nil end
  return v
end
M.output = output

return M
