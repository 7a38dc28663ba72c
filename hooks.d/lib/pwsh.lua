-- pwsh: what a PowerShell command line would run, for policies that judge
-- the commands of a PowerShell tool or of `pwsh -c` / `powershell -Command`
-- / `-EncodedCommand` inside a POSIX line.
--
--   local pwsh = require("pwsh")
--   local cmds, err = pwsh.parse("rm -r -fo $env:USERPROFILE")
--   -- cmds[1].name == "remove-item", cmds[1].params.recurse == true,
--   -- cmds[1].params.path[1].home == true
--
-- pwsh.parse(src) returns every command the line holds, flattened in the
-- order PowerShell would reach them, including those in (…), $(…), @(…),
-- script blocks { … }, -Command strings and decoded -EncodedCommand text
-- of a nested powershell/pwsh (or one Start-Process starts), cmd /c's
-- rd, del and format (pwsh.cmd reads them alone), and a second value err that is nil or says
-- why the line could not be read (a limit of pwsh.limits passed, a quote
-- or bracket left open); a policy that must not be bypassed denies on err.
-- parse never raises.
--
-- Each command is a table:
--   name     the cmdlet, lower-case, its alias resolved ("ri" ->
--            "remove-item"), its module and folders dropped, ".exe" dropped;
--            a static method call is "type::member" ("io.directory::delete",
--            "system." dropped); nil when the program is unknown (& $x)
--   word     the program word; args: the positional words
--   params   { name = true | { words } }: the parameters given, each by
--            the full name its unique prefix selects among the cmdlet's
--            known parameters (PARAMS), positional words bound to the
--            cmdlet's positional parameters too
--   unknown_params  the parameter words that select no known parameter,
--            or several (-rf), as written
--   redirs   { op = ">"|">>", target = word }
--   pipe_in, pipe_out, upstream   as in shell.parse
--   via      how it was reached when nested ("(", "{", "powershell -c", ...)
--
-- Each word is a table: text (its value, unknown parts "\0", folders
-- separated by "/", a drive "C:" kept, the prefixes \\?\ and \\.\ before a
-- drive and FileSystem:: dropped), pat (text as a glob pattern: * ? [
-- are wildcards, as a cmdlet's -Path reads them), glob (it holds one),
-- raw (the word as written, for a reason), unknown, whole (all of it is
-- unknown), source ("var", "subst", "block", "stdin"), home (it starts with
-- the home folder: ~, $HOME, $env:USERPROFILE; text spells it "~"), temp
-- (it starts with the temporary folder: $env:TEMP, $env:TMP; text spells
-- it "/tmp"), profile ($PROFILE), download (it holds what a download
-- returned), subs (lists of the commands whose output it holds).

local L = require("pwsh.lex")

local ipairs, type, tostring = ipairs, type, tostring
local M = L.M
local paths, PARAMS, PARAM_ALIASES, HOSTS, cmdlet, known = L.paths, L.PARAMS, L.PARAM_ALIASES, L.HOSTS, L.cmdlet, L.known
local fail, charge, peek, variable, DOWNLOADERS, downloaded = L.fail, L.charge, L.peek, L.variable, L.DOWNLOADERS, L.downloaded
local element = L.element
local parse_block -- forward, given to the word reader below

local KEYWORDS = { ["if"] = true, ["elseif"] = true, ["else"] = true, ["foreach"] = true, ["for"] = true,
  ["while"] = true, ["do"] = true, ["until"] = true, ["switch"] = true, ["try"] = true, ["catch"] = true,
  ["finally"] = true, ["function"] = true, ["filter"] = true, ["param"] = true, ["begin"] = true,
  ["process"] = true, ["end"] = true, ["return"] = true, ["throw"] = true, ["trap"] = true, ["data"] = true,
  ["exit"] = true, ["break"] = true, ["continue"] = true, ["class"] = true, ["using"] = true }

-- bind resolves a parameter name against a cmdlet's known parameters.
local function bind(spec, name)
  if PARAM_ALIASES[name] and (spec.p[PARAM_ALIASES[name]] ~= nil) then return PARAM_ALIASES[name] end
  local hits = {}
  for _, n in ipairs(spec.names) do
    if n == name then return n end
    if n:sub(1, #name) == name then hits[#hits + 1] = n end
  end
  if #hits == 1 then return hits[1] end
  return nil
end

-- command turns the elements of one command into a command table.
local function command(p, elems, via)
  if not charge(p, "commands", 1) then return nil end
  local k = 1
  local invoke = false
  if elems[1] and elems[1].kind == "word" and (elems[1].w.text == "&" or elems[1].w.text == ".") and elems[2] then
    invoke = true
    k = 2
  end
  local head = elems[k]
  if not head then return nil end
  local hw = head.w
  local cmd = { word = hw, args = {}, params = {}, unknown_params = {}, redirs = {}, via = via }
  if head.kind == "word" and not hw.unknown then
    if KEYWORDS[hw.text:lower()] then return nil end
    cmd.name = cmdlet(hw.text)
  elseif head.kind == "string" and invoke and not hw.unknown then
    cmd.name = cmdlet(hw.text)
  elseif head.kind == "param" then
    return nil
  end
  if not cmd.name and not invoke and head.kind ~= "word" then
    -- an expression statement: no command runs
    return nil, true
  end
  local spec = cmd.name and PARAMS[cmd.name]
  local pos = {}
  local j = k + 1
  while elems[j] do
    local e = elems[j]
    if e.kind == "redir" then
      cmd.redirs[#cmd.redirs + 1] = { op = e.op, target = e.w }
    elseif e.kind == "param" then
      local name = e.w.param
      local full = spec and bind(spec, name)
      if name == "-" then
        -- "--": the rest are positional
        for x = j + 1, #elems do
          if spec then pos[#pos + 1] = elems[x].w else cmd.args[#cmd.args + 1] = elems[x].w end
        end
        break
      end
      if full then
        if spec.p[full] == true then
          local nx = e.w.colon and elems[j + 1]
          if nx then
            cmd.params[full] = not (nx.w.text == "$false" or nx.w.text == "0")
            j = j + 1
          else
            cmd.params[full] = true
          end
        else
          local nx = elems[j + 1]
          if nx and nx.kind ~= "param" then
            cmd.params[full] = cmd.params[full] or {}
            cmd.params[full][#cmd.params[full] + 1] = nx.w
            j = j + 1
          end
        end
      else
        cmd.unknown_params[#cmd.unknown_params + 1] = e.w.text
        if not spec then cmd.args[#cmd.args + 1] = e.w end
        if e.w.colon and elems[j + 1] then
          -- -Name:value: the value is the parameter's (a program not
          -- known keeps it among its words: gc -Path:.env)
          j = j + 1
          if not spec then cmd.args[#cmd.args + 1] = elems[j].w end
        end
      end
    elseif spec then
      pos[#pos + 1] = e.w
    else
      -- a program not known keeps its words in their order (powershell
      -- -ep bypass -c "…": -ep's value is bypass, and -c's code follows)
      cmd.args[#cmd.args + 1] = e.w
    end
    j = j + 1
  end
  if spec then
    local n = 1
    for _, w in ipairs(pos) do
      cmd.args[#cmd.args + 1] = w
      local name = spec.pos[n]
      while name and cmd.params[name] do
        n = n + 1
        name = spec.pos[n]
      end
      if name then
        cmd.params[name] = { w }
        n = n + 1
      end
    end
  else
    for _, w in ipairs(pos) do cmd.args[#cmd.args + 1] = w end
  end
  return cmd
end

-- nested parses the code a powershell/pwsh command runs.
local function nested(p, cmd)
  local inv = M.invocation(cmd.args)
  cmd.invocation = inv
  if inv.code then
    if p.depth >= M.limits.depth then
      fail(p, string.format("more than %d levels of nesting", M.limits.depth))
      return
    end
    if not charge(p, "bytes", #inv.code) then return end
    local saved = { src = p.src, i = p.i }
    p.src = inv.code
    p.i = 1
    p.depth = p.depth + 1
    parse_block(p, nil, cmd.name .. " -c")
    p.depth = p.depth - 1
    p.src = saved.src
    p.i = saved.i
  end
end

-- split splits a text at white space into words, as a program's argument
-- list (Start-Process -ArgumentList "…", cmd /c …) reads it.
local function split(text)
  local out = {}
  for t in text:gmatch("%S+") do out[#out + 1] = { text = (t:gsub('^"(.*)"$', "%1")) } end
  return out
end

-- CMD_DELETE are cmd.exe's delete commands, and the switch that makes them
-- recursive.
local CMD_DELETE = { rd = "/s", rmdir = "/s", del = "/s", erase = "/s" }

-- cmd_line reads what cmd /c runs: its commands split at &, && , || and
-- |, each rd/rmdir/del/erase made a remove-item (recursive with /s),
-- format and the rest kept by name.
local function cmd_line(p, args, via)
  local k = 1
  while args[k] and not args[k].text:lower():find("^/[ck]$") do k = k + 1 end
  local parts = {}
  for j = k + 1, #args do parts[#parts + 1] = known(args[j]) end
  local text = table.concat(parts, " ")
  if not charge(p, "bytes", #text) then return end
  for piece in text:gmatch("[^&|]+") do
    local ws = split(piece)
    if ws[1] and charge(p, "commands", 1) then
      local name = cmdlet(ws[1].text)
      local c = { name = name, word = ws[1], args = {}, params = {}, unknown_params = {}, redirs = {}, via = via }
      local flag = CMD_DELETE[ws[1].text:lower()]
      if flag then
        c.name = "remove-item"
        c.params.path = {}
        for j = 2, #ws do
          local t = ws[j].text:lower()
          if t == flag then c.params.recurse = true
          elseif t:sub(1, 1) == "/" and #t == 2 then -- a switch: /q, /f
          else c.params.path[#c.params.path + 1] = { text = ws[j].text:gsub("\\", "/") } end
        end
      else
        for j = 2, #ws do c.args[#c.args + 1] = { text = ws[j].text:gsub("\\", "/") } end
      end
      p.all[#p.all + 1] = c
    end
  end
end

-- CMD are the names of cmd.exe.
M.CMD = { cmd = true, ["cmd.exe"] = true }

-- cmd returns the commands cmd /c runs, given cmd's arguments (words of
-- shell.parse or parse), and nil or a message saying why they could not
-- be read.
function M.cmd(args)
  local p = { bytes = 0, tokens = 0, commands = 0, all = {} }
  local ok, e = pcall(cmd_line, p, args, "cmd /c")
  if not ok then return p.all, "the cmd /c reader failed: " .. tostring(e) end
  if p.err then return p.all, "the cmd /c command has " .. p.err end
  return p.all, nil
end

-- statement reads one pipeline (or assignment) and returns its commands
-- and, for an expression, its words.
local function statement(p, stop, via)
  local cmds, words = {}, {}
  local elems = {}
  local pipeline = {}
  local assign
  local function finish_cmd()
    if #elems == 0 then return end
    local cmd, expr = command(p, elems, via)
    if cmd then
      if cmd.name and HOSTS[cmd.name] then nested(p, cmd) end
      if cmd.name == "cmd" then cmd_line(p, cmd.args, "cmd /c") end
      if cmd.name == "start-process" then
        -- Start-Process powershell -ArgumentList "-c …": the code it runs
        local f = cmd.params.filepath and cmd.params.filepath[1]
        local fname = f and not f.unknown and cmdlet(f.text)
        if fname and (HOSTS[fname] or fname == "cmd") then
          local parts = {}
          for _, w in ipairs(cmd.params.argumentlist or {}) do parts[#parts + 1] = known(w) end
          local inner = { name = fname, args = split(table.concat(parts, " ")), params = {}, unknown_params = {},
            redirs = {}, via = "start-process", word = f }
          if fname == "cmd" then cmd_line(p, inner.args, "cmd /c") else nested(p, inner) end
        end
      end
      if cmd.name == "foreach-object" and #pipeline > 0 then
        -- the commands of its block take the pipeline's items ($_)
        for _, v in pairs(cmd.params) do
          for _, w in ipairs(type(v) == "table" and v or {}) do
            for _, x in ipairs(w.block or {}) do x.feed = pipeline[#pipeline] end
          end
        end
      end
      if #pipeline > 0 then
        cmd.pipe_in = true
        cmd.upstream = pipeline[#pipeline]
        pipeline[#pipeline].pipe_out = true
      end
      pipeline[#pipeline + 1] = cmd
      cmds[#cmds + 1] = cmd
      p.all[#p.all + 1] = cmd
    elseif expr or #pipeline == 0 then
      local redirs
      for _, e in ipairs(elems) do
        words[#words + 1] = e.w
        if e.kind == "redir" then
          redirs = redirs or {}
          redirs[#redirs + 1] = { op = e.op, target = e.w }
        end
      end
      if redirs and charge(p, "commands", 1) then
        -- an expression's output redirected ("x" > file): a command of
        -- no program that writes the file
        p.all[#p.all + 1] = { name = nil, args = {}, params = {}, unknown_params = {}, redirs = redirs, via = via,
          expression = elems }
      end
      if #pipeline > 0 or expr then
        pipeline[#pipeline + 1] = { name = nil, args = {}, params = {}, unknown_params = {}, redirs = {},
          expression = elems }
      end
    end
    elems = {}
  end
  while p.i <= #p.src and not p.err do
    local c = peek(p)
    if c == "\n" or c == ";" then
      break
    elseif stop and c == stop then
      break
    elseif c == " " or c == "\t" or c == "\r" then
      p.i = p.i + 1
    elseif c == "#" and (#elems == 0 or p.src:sub(p.i - 1, p.i - 1):find("%s")) then
      local j = p.src:find("\n", p.i, true)
      p.i = j or #p.src + 1
    elseif peek(p, 2) == "<#" then
      local j = p.src:find("#>", p.i + 2, true)
      if not j then fail(p, "a <# comment left open"); break end
      p.i = j + 2
    elseif peek(p, 2) == "&&" or peek(p, 2) == "||" then
      break
    elseif c == "|" then
      finish_cmd()
      p.i = p.i + 1
    elseif c == "&" and #elems > 0 then
      -- a trailing & runs the pipeline as a job
      p.i = p.i + 1
    elseif c == "&" then
      elems[1] = { kind = "word", w = { text = "&" } }
      p.i = p.i + 1
    elseif c == "." and #elems == 0 and p.src:sub(p.i + 1, p.i + 1):find("[%s]") then
      elems[1] = { kind = "word", w = { text = "." } }
      p.i = p.i + 1
    elseif c == ">" or (c:find("[%d*]") and p.src:find("^[%d*]>", p.i)) then
      local op = p.src:match("^[%d*]?>>?&?[%d]?", p.i)
      p.i = p.i + #op
      if op:find("&%d$") then
        -- 2>&1: no file
      else
        while peek(p):find("^[ \t]$") do p.i = p.i + 1 end
        local w = element(p)
        if w then elems[#elems + 1] = { kind = "redir", op = op:find(">>") and ">>" or ">", w = w } end
      end
    elseif c == "<" then
      p.i = p.i + 1
    elseif c == "=" and #elems == 1 and elems[1].kind == "var" then
      p.i = p.i + 1
      assign = elems[1].w.raw:match("^%${?([%w_:]+)}?$")
      elems = {}
    elseif c:find("[+%-*/]") and p.src:sub(p.i + 1, p.i + 1) == "=" and #elems == 1 and elems[1].kind == "var" then
      p.i = p.i + 2
      elems = {}
    elseif c == "," then
      p.i = p.i + 1
    elseif c == ")" or c == "}" then
      if stop then break end
      fail(p, "a " .. c .. " without its opening bracket")
      break
    else
      local before = p.i
      local w, kind = element(p)
      if w then
        elems[#elems + 1] = { kind = kind, w = w }
      elseif p.i == before then
        p.i = p.i + 1
      end
    end
  end
  finish_cmd()
  if assign then
    local name = assign:lower()
    local v
    if #cmds > 0 then
      v = { text = "\0", unknown = true, whole = true, source = "subst", subs = { cmds } }
      for _, c in ipairs(cmds) do
        if c.name == "invoke-webrequest" or c.name == "invoke-restmethod" then v.download = true end
      end
    elseif #words == 1 then
      v = words[1]
    else
      v = { text = "\0", unknown = true, whole = true, source = "var" }
      for _, w in ipairs(words) do
        if w.download then v.download = true end
      end
    end
    local old = p.vars[name]
    if old and (old.text ~= v.text) then
      -- every value a variable was given counts: the most dangerous is kept
      if old.home or old.download then v = old end
    end
    p.vars[name] = v
  end
  return cmds, words
end

-- parse_block reads statements up to stop (a closing bracket) or the end
-- and returns their commands and the words of the first expression.
function parse_block(p, stop, via)
  local cmds, words = {}, nil
  while p.i <= #p.src and not p.err do
    local c = peek(p)
    if stop and c == stop then break end
    if c == "\n" or c == ";" or c == " " or c == "\t" or c == "\r" then
      p.i = p.i + 1
    elseif peek(p, 2) == "&&" or peek(p, 2) == "||" then
      p.i = p.i + 2
    else
      local before = p.i
      local cs, ws = statement(p, stop, via)
      for _, x in ipairs(cs) do cmds[#cmds + 1] = x end
      if not words then words = ws end
      if p.i == before then
        if stop then break end
        p.i = p.i + 1
      end
    end
  end
  return cmds, words or {}
end

-- parse returns the commands of a PowerShell line and nil, or the commands
-- read and a message saying why the rest could not be read.
L.bind_parser(parse_block)

function M.parse(src)
  if type(src) ~= "string" then return {}, "the command is not a string" end
  local all = {}
  if #src > M.limits.bytes then
    return all, string.format("the command is %d bytes long, over the %d bytes the PowerShell parser reads",
      #src, M.limits.bytes)
  end
  local p = { src = src, i = 1, depth = 0, bytes = #src, tokens = 0, commands = 0, all = all, vars = {} }
  local ok, e = pcall(parse_block, p, nil, nil)
  if not ok then
    return all, "the PowerShell parser failed: " .. tostring(e)
  end
  if p.err then
    return all, "the PowerShell command has " .. p.err .. ", more than the PowerShell parser reads"
  end
  return all, nil
end

-- Judging paths. A path's text has "/" for folders; a drive ("C:",
-- "HKLM:") or a leading "/" makes it absolute.

-- target classifies a path word the way shell.target does:
--   "root"     a drive's root or a folder right below it (C:\, C:\Windows,
--              \, /usr), a UNC share, or a home folder (C:\Users\x)
--   "home"     the home folder or everything in it
--   "cwd"      the working folder or everything in it (., *, .\*, ..)
--   "prefix"   an unknown folder or everything in it ($x\*)
--   "scratch"  the temporary folder itself ($env:TEMP)
--   "computed" / "variable"  a word all unknown, from a command / a variable
-- or nil for anything else (.\build, C:\src\app\bin).
function M.target(w)
  if w.whole then
    if w.profile then return nil end
    return w.source == "var" and "variable" or "computed"
  end
  local t = w.text
  local base
  if w.home then
    base = "home"; t = t:gsub("^~", "")
  elseif w.temp then
    base = "temp"; t = t:gsub("^/tmp", "")
  elseif t:find("^//") then
    return "root"
  elseif t:find("^%a:[^/]") then
    -- C:x: x in the current folder of drive C, the working folder's
    base = "rel"; t = t:sub(3)
  elseif t:find("^%a[%w]*:") then
    base = "abs"; t = t:gsub("^%a[%w]*:", "")
  elseif t:sub(1, 1) == "/" then
    base = "abs"
  elseif t:sub(1, 1) == "\0" then
    base = "prefix"; t = t:gsub("^%z+", "")
  else
    base = "rel"
  end
  local rest = {}
  for c in t:gmatch("[^/]+") do
    if c == "." then
      -- nothing
    elseif c == ".." and #rest > 0 and rest[#rest] ~= ".." then
      rest[#rest] = nil
    else
      rest[#rest + 1] = c
    end
  end
  while #rest > 0 and rest[#rest]:find("[*?%[%z]") do rest[#rest] = nil end
  local ups = true
  for _, c in ipairs(rest) do
    if c ~= ".." then ups = false end
  end
  if base == "abs" then
    if #rest <= 1 or ups then return "root" end
    local top = rest[1]:lower()
    if #rest == 2 and (top == "home" or top == "users") then return "root" end
  elseif base == "home" then
    if #rest == 0 or ups then return "home" end
  elseif base == "temp" then
    if #rest == 0 or ups then return "scratch" end
  elseif base == "prefix" then
    if #rest == 0 then return "prefix" end
  elseif #rest == 0 or ups then
    return "cwd"
  end
  return nil
end

-- resolve returns a path word as an absolute, clean, lower-case path
-- (a drive spelled "/c:/…", the home folder "~/…" when cwd gives no
-- guess, the temporary folder "/tmp", C:x x in the working folder when it
-- is on drive C), or nil when part of it is unknown.
-- cwd may be a POSIX or a Windows path.
function M.resolve(w, cwd)
  if w.unknown then return nil end
  local t = w.text
  local c = M.cwd(cwd)
  if w.home then
    local home = c and (c:match("^(/%a:/users/[^/]+)") or paths.home(c))
    if not home then return "~" .. paths.clean(t:sub(2)):gsub("^/$", ""):lower() end
    t = home .. t:sub(2)
  elseif t:find("^%a:[^/]") then
    -- C:x is x in the current folder of drive C: the working folder when
    -- it is on C, some folder of C otherwise
    if c and c:sub(2, 3) == t:sub(1, 2):lower() then t = c .. "/" .. t:sub(3) else t = "/" .. t:sub(1, 2) .. "/" .. t:sub(3) end
  elseif t:find("^%a[%w]*:") then
    t = "/" .. t
  elseif t:sub(1, 1) ~= "/" then
    if not c then return nil end
    t = c .. "/" .. t
  elseif c and c:find("^/%a:") and not w.temp then
    -- \x on Windows is the root of the working folder's drive
    t = c:sub(1, 3) .. t
  end
  return paths.clean(t):lower()
end

-- cwd returns a payload's cwd the way resolve spells paths, or nil.
function M.cwd(cwd)
  if type(cwd) ~= "string" or cwd == "" then return nil end
  local c = cwd:gsub("\\", "/")
  if c:find("^%a:") then c = "/" .. c end
  if c:sub(1, 1) ~= "/" then return nil end
  return paths.clean(c):lower()
end

-- The checks, one command of parse at a time, true when it matches.

local WRECK = { root = true, home = true, cwd = true, prefix = true, computed = true }
M.WRECK = WRECK

-- targets returns the path words a Remove-Item (or Clear-Content, ...)
-- names: -Path, -LiteralPath and the positional ones.
function M.targets(c)
  local out = {}
  for _, k in ipairs({ "path", "literalpath" }) do
    local v = c.params[k]
    if type(v) == "table" then
      for _, w in ipairs(v) do out[#out + 1] = w end
    end
  end
  return out
end

-- listing reports whether a command lists every file of a place that
-- must not be deleted wholesale (Get-ChildItem of /, ~, or of the project
-- without a filter).
local function listing(c)
  if not c or c.name ~= "get-childitem" then return false end
  local ts = M.targets(c)
  if #ts == 0 then ts = { { text = "." } } end
  local filtered = c.params.filter or c.params.include
  for _, w in ipairs(ts) do
    local where = M.target(w)
    if where == "cwd" then
      if not filtered then return true end
    elseif where and WRECK[where] then
      return true
    end
  end
  return false
end

-- recursive_delete: Remove-Item -Recurse (or with a parameter it cannot
-- read, such as -rf) of a drive root, ~, the project, an unknown folder or
-- a computed list; Remove-Item fed by a listing of such a place;
-- [IO.Directory]::Delete(x, $true) of one.
function M.recursive_delete(c)
  if c.name == "remove-item" then
    local ts = M.targets(c)
    if #ts == 0 and c.pipe_in then return listing(c.upstream) end
    if not (c.params.recurse or #c.unknown_params > 0) then
      -- a wildcard over such a place deletes what it holds, files and
      -- (when it is not empty) with a prompt that fails without a user
      for _, w in ipairs(ts) do
        local where = M.target(w)
        if (where == "root" or where == "home") and w.text:find("[*?]") then return true end
      end
      return false
    end
    for _, w in ipairs(ts) do
      local where = M.target(w)
      if w.pipe and c.feed then
        if listing(c.feed) then return true end
      elseif WRECK[where or ""] then
        if where ~= "computed" then return true end
        local hit = false
        for _, list in ipairs(w.subs or {}) do
          for _, x in ipairs(list) do
            if listing(x) then hit = true end
          end
        end
        if hit or not w.subs then return true end
      end
    end
  elseif c.name == "io.directory::delete" then
    local w = c.args[1]
    return w ~= nil and c.args[2] ~= nil and c.args[2].text == "$true" and WRECK[M.target(w) or ""] == true
  end
  return false
end


-- download_to_shell: Invoke-Expression (or & / . of a script block, or
-- Invoke-Command, or powershell reading its input) of what iwr/irm or
-- Net.WebClient fetched, piped or passed.
function M.download_to_shell(c)
  local n = c.name
  local runs = n == "invoke-expression" or n == "invoke-command" or n == nil or HOSTS[n or ""]
  if not runs then return false end
  if n == nil and not downloaded(c.word) then
    if not c.pipe_in then return false end
  end
  if n == nil and downloaded(c.word) then return true end
  if HOSTS[n or ""] and not (c.invocation and c.invocation.stdin) then return false end
  local up = c.upstream
  while up do
    if DOWNLOADERS[up.name or ""] then return true end
    for _, e in ipairs(up.expression or {}) do
      if downloaded(e.w) then return true end
    end
    up = up.upstream
  end
  for _, w in ipairs(c.args) do
    if downloaded(w) then return true end
  end
  for _, v in pairs(c.params) do
    if type(v) == "table" then
      for _, w in ipairs(v) do
        if downloaded(w) then return true end
      end
    end
  end
  return false
end

local FORMATTERS = { ["format-volume"] = true, ["clear-disk"] = true, ["remove-partition"] = true }

-- formats_disk: Format-Volume, Clear-Disk, Remove-Partition, format X:.
function M.formats_disk(c)
  if FORMATTERS[c.name or ""] then return true end
  if c.name == "format" then
    for _, w in ipairs(c.args) do
      if w.text:find("^%a:/?$") then return true end
    end
  end
  return false
end

-- HISTORY_FILE matches the PSReadLine history file's name.
local HISTORY_FILE = "consolehost_history"

-- FILE_WRITES are the .NET methods that write a file, each with the
-- position of its argument that names it.
local FILE_WRITES = { ["io.file::writealltext"] = 1, ["io.file::writealllines"] = 1, ["io.file::writeallbytes"] = 1,
  ["io.file::appendalltext"] = 1, ["io.file::appendalllines"] = 1, ["io.file::create"] = 1,
  ["io.file::openwrite"] = 1, ["io.file::createtext"] = 1, ["io.file::appendtext"] = 1, ["io.file::copy"] = 2,
  ["io.file::move"] = 2 }

-- writes returns the words a command writes to or removes.
function M.writes(c)
  local out = {}
  for _, r in ipairs(c.redirs) do out[#out + 1] = r.target end
  local n = c.name or ""
  local keys
  if n == "remove-item" or n == "clear-content" or n == "set-content" or n == "add-content" or n == "new-item" then
    keys = { "path", "literalpath" }
  elseif n == "out-file" or n == "tee-object" then
    keys = { "filepath", "literalpath" }
  elseif n == "copy-item" or n == "move-item" then
    keys = { "destination" }
  elseif n == "invoke-webrequest" or n == "invoke-restmethod" then
    keys = { "outfile" }
  elseif FILE_WRITES[n] then
    out[#out + 1] = c.args[FILE_WRITES[n]]
  end
  for _, k in ipairs(keys or {}) do
    if type(c.params[k]) == "table" then
      for _, w in ipairs(c.params[k]) do out[#out + 1] = w end
    end
  end
  return out
end

-- NO_READ are the commands that name files without showing what they
-- hold: a test, a listing, a path's parts, a location, text written out,
-- a write (its files are writes') and a delete (deletes').
local NO_READ = {}
for n in ([[test-path get-childitem get-item get-itemproperty resolve-path convert-path split-path join-path
  write-output write-host set-location push-location get-acl mkdir new-item start-sleep where-object
  foreach-object select-object set-content add-content clear-content out-file tee-object remove-item
  io.file::exists io.directory::exists io.file::delete io.directory::delete]]):gmatch("%S+") do
  NO_READ[n] = true
end
for n in pairs(FILE_WRITES) do NO_READ[n] = not n:find("::copy$") and not n:find("::move$") end

-- READ_PARAMS are the parameters of a known cmdlet whose values are files
-- it reads (the others are patterns, text, URLs, destinations, ...).
local READ_PARAMS = { "path", "literalpath", "infile", "filepath", "argumentlist" }

-- INTERPRETERS run code their words hold (python -c "open(…)").
local INTERPRETERS = { python = true, python3 = true, py = true, node = true, perl = true, ruby = true, php = true,
  deno = true, bun = true }

-- FED are the cmdlets that read the files a listing piped into them
-- names (Get-ChildItem ~\.ssh | Get-Content).
local FED = { ["get-content"] = true, ["select-string"] = true, ["copy-item"] = true, ["move-item"] = true,
  ["import-csv"] = true, ["format-hex"] = true }

-- listed adds to out the words of the files a Get-ChildItem or Get-Item
-- up lists: its folders, and each name its -Filter or -Include selects
-- in them (gci -Recurse -Filter .env names ./.env).
local function listed(up, out)
  if not up or (up.name ~= "get-childitem" and up.name ~= "get-item") then return end
  local ts = M.targets(up)
  local names = {}
  for _, k in ipairs({ "filter", "include" }) do
    for _, w in ipairs(type(up.params[k]) == "table" and up.params[k] or {}) do names[#names + 1] = w end
  end
  if #ts == 0 then ts = { { text = ".", pat = "." } } end
  for _, t in ipairs(ts) do
    out[#out + 1] = t
    for _, f in ipairs(names) do
      if not f.unknown then
        local text = t.text:gsub("/+$", "") .. "/" .. f.text
        out[#out + 1] = { text = text, pat = text, glob = text:find("[*?%[]") and true or nil, unknown = t.unknown,
          raw = f.raw }
      end
    end
  end
end

-- files returns what a command of parse does to the files it names, as
-- the words that name them:
--   reads    the files whose contents it shows or copies: the -Path /
--            -LiteralPath of a known cmdlet that reads (Get-Content,
--            Select-String, Copy-Item's source, -InFile), every word of
--            any other command but the NO_READ ones (Test-Path,
--            Get-ChildItem, Write-Output, ...)
--   writes   the files it writes (writes), but Remove-Item's targets
--   deletes  the files and folders it deletes (Remove-Item,
--            [IO.File]::Delete, [IO.Directory]::Delete), with recursive
--            true when it deletes what they hold (-Recurse)
--   code     true when reads are an interpreter's words, code to read
--            for the names it quotes rather than paths
function M.files(c)
  local n = c.name or ""
  local writes, deletes, recursive = {}, {}, false
  if n == "remove-item" then
    deletes = M.targets(c)
    recursive = c.params.recurse ~= nil or #c.unknown_params > 0
    for _, r in ipairs(c.redirs) do writes[#writes + 1] = r.target end
  elseif n == "io.file::delete" or n == "io.directory::delete" then
    deletes[1] = c.args[1]
    recursive = n == "io.directory::delete" and c.args[2] ~= nil and c.args[2].text == "$true"
    for _, r in ipairs(c.redirs) do writes[#writes + 1] = r.target end
  else
    writes = M.writes(c)
  end
  local reads = {}
  if NO_READ[n] or n:find("^io%.path::") then return reads, writes, deletes, recursive, false end
  local spec = PARAMS[n]
  if spec then
    for _, k in ipairs(READ_PARAMS) do
      if spec.p[k] ~= nil and type(c.params[k]) == "table" then
        for _, w in ipairs(c.params[k]) do reads[#reads + 1] = w end
      end
    end
  else
    for _, w in ipairs(c.args) do reads[#reads + 1] = w end
  end
  if #reads == 0 and c.pipe_in and FED[n] then listed(c.upstream, reads) end
  return reads, writes, deletes, recursive, INTERPRETERS[n] == true
end

-- history: Clear-History, [PSConsoleReadLine]::ClearHistory(), turning
-- PSReadLine's history off or moving it, and deleting or overwriting its
-- file ((Get-PSReadLineOption).HistorySavePath, ConsoleHost_history.txt).
function M.history(c)
  local n = c.name or ""
  if n == "clear-history" or n == "microsoft.powershell.psconsolereadline::clearhistory"
    or n == "psconsolereadline::clearhistory" then
    return true
  end
  if n == "set-psreadlineoption" then
    if c.params.historysavepath then return true end
    for _, w in ipairs(c.params.historysavestyle or {}) do
      if w.text:lower() == "savenothing" then return true end
    end
  end
  for _, w in ipairs(M.writes(c)) do
    if w.history or w.text:lower():find(HISTORY_FILE, 1, true) then return true end
  end
  return false
end

-- startup: writing to $PROFILE or to a profile.ps1, which runs in every
-- later PowerShell.
function M.startup(c)
  for _, w in ipairs(M.writes(c)) do
    if (c.name ~= "remove-item") and (w.profile or w.text:lower():find("profile%.ps1$")) then return true end
  end
  return false
end

-- execution_policy: Set-ExecutionPolicy Unrestricted or Bypass beyond the
-- current process, which lets every script run unsigned from then on.
function M.execution_policy(c)
  if c.name ~= "set-executionpolicy" then return false end
  local v = c.params.executionpolicy and c.params.executionpolicy[1]
  local policy = v and v.text:lower() or ""
  if not (policy == "unrestricted" or policy == "bypass" or (v and v.unknown)) then return false end
  local s = c.params.scope and c.params.scope[1]
  return not (s and s.text:lower() == "process")
end

return M
