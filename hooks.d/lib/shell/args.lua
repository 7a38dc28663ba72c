-- shell.args: command-line options, and the programs that run another
-- program (sudo, env, xargs, timeout, sh -c, eval, find -exec, ...).

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local M = {}

-- basename drops the folders of a program path ("/usr/bin/rm" -> "rm").
function M.basename(s)
  return (s:gsub("/+$", ""):match("[^/]*$"))
end

-- long returns the long option names that the (possibly abbreviated) name
-- selects: the exact one if it is there, else every name it is a prefix
-- of (GNU getopt_long accepts any unique prefix; an ambiguous prefix is an
-- error there, and here it selects every candidate, which can only make a
-- policy stricter).
function M.long(name, names)
  local hits = {}
  for _, n in ipairs(names) do
    if n == name then return { n } end
    if name ~= "" and n:sub(1, #name) == name then hits[#hits + 1] = n end
  end
  return hits
end

-- options parses words as a GNU program would. spec:
--   short     = { r = "recursive", f = "force" }   letters of flags
--   short_arg = { o = "output" }                   letters that take a value
--   long      = { "recursive", "force" }           long flags (abbreviable)
--   long_arg  = { "output" }                       long options with a value
--   posix     = true                               options end at the first operand
-- It returns { flags = { name = true or value }, operands = { words },
-- unknown = true } where unknown says that a word whose value is unknown
-- stood where an option could (so any flag may be set).
function M.options(words, spec)
  local res = { flags = {}, operands = {} }
  local longs = {}
  for _, n in ipairs(spec.long or {}) do longs[#longs + 1] = n end
  for _, n in ipairs(spec.long_arg or {}) do longs[#longs + 1] = n end
  local takes = {}
  for _, n in ipairs(spec.long_arg or {}) do takes[n] = true end
  local short, short_arg = spec.short or {}, spec.short_arg or {}
  local k, done = 1, false
  while words[k] do
    local w = words[k]
    local t = w.text
    if done then
      res.operands[#res.operands + 1] = w
    elseif w.unknown and (t:sub(1, 1) == "-" or t:sub(1, 1) == "\0") then
      res.unknown = true
      res.operands[#res.operands + 1] = w
    elseif t == "--" then
      done = true
    elseif t:sub(1, 2) == "--" then
      local name, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
      local hits = M.long(name, longs)
      for _, h in ipairs(hits) do
        if takes[h] then
          if eq == "" then
            val = words[k + 1] and words[k + 1].text
            if #hits == 1 then k = k + 1 end
          end
          res.flags[h] = val or true
        else
          res.flags[h] = true
        end
      end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for j = 2, #t do
        local c = t:sub(j, j)
        if short_arg[c] then
          local val = t:sub(j + 1)
          if val == "" then
            k = k + 1
            val = words[k] and words[k].text or ""
          end
          res.flags[short_arg[c]] = val
          break
        elseif short[c] then
          res.flags[short[c]] = true
        end
      end
    else
      res.operands[#res.operands + 1] = w
      if spec.posix then done = true end
    end
    k = k + 1
  end
  return res
end

-- WRAPPERS lists the programs that run the program named after their own
-- options: letters and long names of their options that take a value,
-- letters that mean they run nothing (sudo -e edits, command -v looks up),
-- operands to skip before the program (timeout's duration, chroot's root).
local WRAPPERS = {
  sudo = { short_arg = "ugprCDhTUtc", long_arg = { "user", "group", "prompt", "role", "close-from", "chdir",
    "host", "type", "command-timeout", "other-user", "login-class" }, assigns = true, stop = "elvVK" },
  doas = { short_arg = "uC", stop = "L" },
  pkexec = { long_arg = { "user" } },
  env = { short_arg = "uCSP", long_arg = { "unset", "chdir", "split-string", "block-signal", "default-signal",
    "ignore-signal" }, assigns = true, split = "S", split_long = "split-string" },
  nice = { short_arg = "n", long_arg = { "adjustment" } },
  nohup = {},
  setsid = {},
  unbuffer = {},
  builtin = {},
  exec = { short_arg = "a" },
  command = { stop = "vV" },
  time = {},
  timeout = { short_arg = "sk", long_arg = { "signal", "kill-after" }, skip = 1 },
  stdbuf = { short_arg = "ioe", long_arg = { "input", "output", "error" } },
  ionice = { short_arg = "cnpPu", long_arg = { "class", "classdata", "pid", "pgid", "uid" }, stop = "pPu" },
  chroot = { long_arg = { "userspec", "groups" }, skip = 1 },
  chrt = { skip = 1, stop = "p" },
  taskset = { skip = 1, stop = "p" },
  flock = { short_arg = "wEc", long_arg = { "timeout", "conflict-exit-code", "command" }, skip = 1, stop = "c" },
  caffeinate = { short_arg = "tw" },
  xargs = { short_arg = "adEILnPs", long_arg = { "arg-file", "delimiter", "eof", "replace", "max-lines",
    "max-args", "max-procs", "max-chars", "process-slot-var" }, xargs = true },
  watch = { short_arg = "nq", long_arg = { "interval", "equexit" }, join = true },
  busybox = {},
  fakeroot = {},
  torsocks = {},
  proxychains = { short_arg = "f" },
  proxychains4 = { short_arg = "f" },
  firejail = {},
  ["strace"] = { short_arg = "eoOpPsSuIXabE" },
  ltrace = { short_arg = "eoOpuaAlLnsS" },
  nocorrect = {},
  noglob = {},
}
M.WRAPPERS = WRAPPERS

local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true,
  yash = true, posh = true, fish = true, csh = true, tcsh = true, rbash = true }
M.SHELLS = SHELLS

-- INTERPRETERS run a script from stdin or from an option's value.
local INTERPRETERS = { python = "c", perl = "eE", ruby = "e", node = "ep", nodejs = "ep", php = "r", lua = "e",
  deno = "", bun = "e", osascript = "e", pwsh = "c", powershell = "c" }
M.INTERPRETERS = INTERPRETERS

-- FOLLOWS are the other programs whose operands unwrap reads as commands
-- or scripts, by what it does with them.
local FOLLOWS = { eval = "eval", source = "source", ["."] = "source", su = "su", runuser = "su", alias = "alias",
  find = "find" }
M.FOLLOWS = FOLLOWS

-- interpreter returns the inline-code option letters of an interpreter
-- name ("python3.12" included), or nil.
function M.interpreter(name)
  if not name then return nil end
  if SHELLS[name] then return "c" end
  return INTERPRETERS[name] or INTERPRETERS[(name:gsub("[%d.]+$", ""))]
end

local function plain(text)
  return { text = text, pat = (text:gsub("[\\\0]", "\\%0")), glob = text:find("[*?%[]") and true or nil }
end

-- upstream returns the command before cmd in its pipeline, from out.
local function upstream(cmd, out)
  if not cmd.pipe_in then return nil end
  for k = #out, 1, -1 do
    local c = out[k]
    if c.pipeline == cmd.pipeline and c.pipe_out then return c end
  end
  return nil
end

-- nested parses a script text found in cmd and gives its commands cmd's
-- function and place.
local function nested(p, text, via)
  return p.sub_parse(p, text, via)
end

-- join returns the texts of words k.. joined by spaces, or nil if one is unknown.
local function join(words, k)
  local parts = {}
  for j = k, #words do
    if words[j].unknown then return nil end
    parts[#parts + 1] = words[j].text
  end
  return table.concat(parts, " ")
end

-- script finds what a shell or interpreter runs: the inline code (-c '…'),
-- a script operand, or stdin.
local function script(p, cmd, out, letters)
  local a = cmd.args
  local k, inline, stdin = 1, false, false
  while a[k] do
    local w = a[k]
    local t = w.text
    if w.unknown then break end
    if t == "-" or t == "--" then k = k + 1; if t == "-" then stdin = true end; break end
    if t:sub(1, 2) == "--" then
      if t == "--rcfile" or t == "--init-file" then k = k + 1 end
      if t == "--eval" or t == "--command" then inline = true; k = k + 1; break end
    elseif t:find("^[-+].") then
      local body = t:sub(2)
      if letters ~= "" and body:find("[" .. letters .. "]") and t:sub(1, 1) == "-" then
        inline = true
        local at = body:find("[" .. letters .. "]")
        if at < #body and not SHELLS[cmd.name] then
          -- python -c'code': the code is the rest of the word
          cmd.script, cmd.inline = plain(body:sub(at + 1)), true
          return
        end
      end
      if body:find("s") and SHELLS[cmd.name] then stdin = true end
      if body:find("[oO]") and SHELLS[cmd.name] then k = k + 1 end
      if (body == "m" or body:find("^[WX]")) and not SHELLS[cmd.name] then k = k + 1 end
    else
      break
    end
    k = k + 1
    if inline then break end
  end
  local w = a[k]
  if inline then
    if w and not w.unknown and SHELLS[cmd.name] then
      -- sh -c 'script' name args: $0, $1, ... and $@ are the words after it
      local vars, saved, rest = p.vars, {}, {}
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do saved[n] = vars[n] end
      for n = 0, 9 do vars[tostring(n)] = a[k + 1 + n] and { a[k + 1 + n] } or nil end
      for j = k + 2, #a do rest[#rest + 1] = a[j] end
      vars["@"] = #rest > 0 and rest or nil
      vars["*"] = vars["@"]
      nested(p, w.text, cmd.name .. " -c")
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do vars[n] = saved[n] end
    end
    cmd.script = w
    cmd.inline = true
    return
  end
  if w and not stdin then
    cmd.script = w
    return
  end
  cmd.reads_stdin = true
  if not SHELLS[cmd.name] then return end
  for _, r in ipairs(cmd.redirs) do
    if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and r.target then
      if r.target.unknown then cmd.script = r.target
      else nested(p, r.target.text, cmd.name .. " <<") end
      return
    end
  end
  local up = upstream(cmd, out)
  local text = up and p.output(up)
  if text then nested(p, text, "| " .. cmd.name) end
end

-- FIND_EXEC are the find actions that run a command.
local FIND_EXEC = { ["-exec"] = true, ["-execdir"] = true, ["-ok"] = true, ["-okdir"] = true }

-- unwrap finds the program cmd.argv runs, behind its wrappers, sets
-- cmd.name, cmd.word, cmd.args and cmd.wrappers, emits cmd through emit and
-- then the commands it runs in turn (sh -c strings, eval, find -exec, ...).
function M.unwrap(p, cmd, out, emit)
  local argv, i = cmd.argv, 1
  local items
  local later = {}
  while argv[i] do
    local w = argv[i]
    if w.unknown then break end
    local name = M.basename(w.text):lower()
    local spec = WRAPPERS[name]
    if not spec then break end
    local j, stop = i + 1, false
    while argv[j] do
      local a = argv[j]
      local t = a.text
      if a.unknown then break end
      if t == "--" then j = j + 1; break end
      if spec.assigns and t:find("^[%a_][%w_]*=") then
        j = j + 1
      elseif t:sub(1, 2) == "--" then
        local lname, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
        local hits = M.long(lname, spec.long_arg or {})
        if #hits > 0 and eq == "" then j = j + 1; val = argv[j] and argv[j].text end
        if spec.split_long and hits[1] == spec.split_long and val then
          later[#later + 1] = { val, "env -S" }; stop = true
        end
        j = j + 1
      elseif t:sub(1, 1) == "-" and #t > 1 then
        for k = 2, #t do
          local c = t:sub(k, k)
          if spec.stop and spec.stop:find(c, 1, true) then stop = true end
          if spec.short_arg and spec.short_arg:find(c, 1, true) then
            local val = t:sub(k + 1)
            if val == "" then j = j + 1; val = argv[j] and argv[j].text end
            if spec.split == c and val then later[#later + 1] = { val, "env -S" }; stop = true end
            break
          end
        end
        j = j + 1
      else
        break
      end
      if stop then break end
    end
    if stop then break end
    j = j + (spec.skip or 0)
    cmd.wrappers[#cmd.wrappers + 1] = name
    if spec.xargs then
      local up = upstream(cmd, out)
      local text = up and p.output(up)
      items = {}
      if text then
        for f in text:gmatch("%S+") do items[#items + 1] = plain(f) end
      else
        items[1] = { text = "\0", pat = "\0", unknown = true, whole = true, source = "stdin", producer = up }
      end
      if not argv[j] then
        argv[j] = plain("echo")
      end
    end
    if spec.join then
      local text = join(argv, j)
      if text then later[#later + 1] = { text, name } end
      i = j
      break
    end
    i = j
  end
  local w = argv[i]
  if not w then
    -- only wrappers: the last one is the program
    cmd.name = table.remove(cmd.wrappers)
    cmd.word, cmd.args = argv[#argv], {}
  else
    cmd.word = w
    cmd.args = {}
    for k = i + 1, #argv do cmd.args[#cmd.args + 1] = argv[k] end
    if not w.unknown then cmd.name = M.basename(w.text):lower() end
  end
  if items then
    for _, it in ipairs(items) do cmd.args[#cmd.args + 1] = it end
  end
  emit(p, cmd, out)
  for _, l in ipairs(later) do nested(p, l[1], l[2]) end
  local name, a = cmd.name, cmd.args
  if not name then return end
  local letters = M.interpreter(name)
  local follow = FOLLOWS[name]
  if letters then
    script(p, cmd, out, letters)
  elseif follow == "eval" then
    local text = join(a, 1)
    if text then nested(p, text, "eval") else cmd.script = a[1] end
  elseif follow == "source" then
    cmd.script = a[1]
  elseif follow == "su" then
    for k, x in ipairs(a) do
      local t = x.text
      local v = t:match("^%-%-command=(.*)$") or t:match("^%-c(.+)$")
      if v then nested(p, v, name .. " -c"); break end
      if (t == "-c" or t == "--command") and a[k + 1] then
        if a[k + 1].unknown then cmd.script = a[k + 1] else nested(p, a[k + 1].text, name .. " -c") end
        break
      end
    end
  elseif follow == "alias" then
    for _, x in ipairs(a) do
      local v = not x.unknown and x.text:match("^[^=]+=(.*)$")
      if v then nested(p, v, "alias") end
    end
  elseif follow == "find" then
    local k = 1
    while a[k] do
      if FIND_EXEC[a[k].text] then
        local sub = { argv = {}, redirs = {}, wrappers = {}, via = "find " .. a[k].text, depth = cmd.depth,
          func = cmd.func, pipeline = -1 }
        k = k + 1
        while a[k] and a[k].text ~= ";" and a[k].text ~= "+" do
          local x = a[k]
          if x.text == "{}" then
            x = { text = "\0", pat = "\0", unknown = true, whole = true, source = "find", producer = cmd }
          end
          sub.argv[#sub.argv + 1] = x
          k = k + 1
        end
        if #sub.argv > 0 then M.unwrap(p, sub, out, emit) end
      end
      k = k + 1
    end
  end
end

return M
