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
-- separated by "/", a drive "C:" kept), unknown, whole (all of it is
-- unknown), source ("var", "subst", "block", "stdin"), home (it starts with
-- the home folder: ~, $HOME, $env:USERPROFILE; text spells it "~"), temp
-- (it starts with the temporary folder: $env:TEMP, $env:TMP; text spells
-- it "/tmp"), profile ($PROFILE), download (it holds what a download
-- returned), subs (lists of the commands whose output it holds).

local paths = require("paths")

local ipairs, type, tostring = ipairs, type, tostring
local M = {}

-- limits bounds the work of one parse: bytes read (an -EncodedCommand's
-- decoded text included), tokens, commands and nesting depth.
M.limits = { bytes = 65536, tokens = 8192, commands = 1024, depth = 12 }

-- ALIASES are PowerShell's default aliases of the cmdlets the checks and
-- the parser look at (and curl/wget, Windows PowerShell's aliases of
-- Invoke-WebRequest).
local ALIASES = {
  rm = "remove-item", del = "remove-item", erase = "remove-item", ri = "remove-item", rd = "remove-item",
  rmdir = "remove-item",
  iwr = "invoke-webrequest", curl = "invoke-webrequest", wget = "invoke-webrequest", irm = "invoke-restmethod",
  iex = "invoke-expression", icm = "invoke-command",
  gc = "get-content", cat = "get-content", type = "get-content", sc = "set-content", ac = "add-content",
  clc = "clear-content", gci = "get-childitem", ls = "get-childitem", dir = "get-childitem",
  ni = "new-item", md = "mkdir", cpi = "copy-item", cp = "copy-item", copy = "copy-item", mi = "move-item",
  mv = "move-item", move = "move-item", rni = "rename-item", ren = "rename-item",
  echo = "write-output", write = "write-output", clhy = "clear-history", ghy = "get-history", h = "get-history",
  history = "get-history", saps = "start-process", start = "start-process", cd = "set-location",
  sl = "set-location", chdir = "set-location", tee = "tee-object", ["%"] = "foreach-object",
  foreach = "foreach-object", ["?"] = "where-object", where = "where-object",
}
M.ALIASES = ALIASES

-- Parameters every cmdlet takes.
local COMMON = { "verbose", "debug", "erroraction", "warningaction", "informationaction", "errorvariable",
  "warningvariable", "informationvariable", "outvariable", "outbuffer", "pipelinevariable", "progressaction",
  "whatif", "confirm" }
-- PARAMS are the known parameters of the cmdlets the checks look at:
-- switches (true) and those taking a value (false); pos lists the
-- positional ones in order.
local PATHS = { path = false, literalpath = false, filter = false, include = false, exclude = false,
  credential = false, force = true, recurse = true }
local PARAMS = {
  ["remove-item"] = { p = PATHS, pos = { "path", "filter" }, extra = { stream = false } },
  ["get-childitem"] = { p = PATHS, pos = { "path", "filter" }, extra = { depth = false, name = true,
    attributes = false, followsymlink = true, directory = true, file = true, hidden = true, readonly = true,
    system = true } },
  ["invoke-webrequest"] = { pos = { "uri" }, p = { uri = false, outfile = false, method = false, body = false,
    headers = false, usebasicparsing = true, passthru = true, proxy = false, credential = false, useragent = false,
    timeoutsec = false, contenttype = false, infile = false, skipcertificatecheck = true, form = false,
    maximumredirection = false, websession = false, sessionvariable = false, resume = true,
    operationtimeoutseconds = false, connectiontimeoutseconds = false, usedefaultcredentials = true } },
  ["invoke-expression"] = { pos = { "command" }, p = { command = false } },
  ["invoke-command"] = { pos = { "scriptblock" }, p = { scriptblock = false, computername = false,
    argumentlist = false, filepath = false, session = false, nonewscope = true, asjob = true } },
  ["set-executionpolicy"] = { pos = { "executionpolicy", "scope" }, p = { executionpolicy = false, scope = false,
    force = true } },
  ["set-content"] = { pos = { "path", "value" }, p = { path = false, literalpath = false, value = false,
    force = true, encoding = false, nonewline = true, passthru = true } },
  ["out-file"] = { pos = { "filepath", "encoding" }, p = { filepath = false, literalpath = false, append = true,
    force = true, encoding = false, inputobject = false, noclobber = true, width = false, nonewline = true } },
  ["copy-item"] = { pos = { "path", "destination" }, p = { path = false, literalpath = false, destination = false,
    recurse = true, force = true, container = true, filter = false, include = false, exclude = false } },
  ["new-item"] = { pos = { "path", "name" }, p = { path = false, name = false, itemtype = false, value = false,
    force = true } },
  ["tee-object"] = { pos = { "filepath" }, p = { filepath = false, literalpath = false, append = true,
    variable = false, inputobject = false } },
  ["start-process"] = { pos = { "filepath", "argumentlist" }, p = { filepath = false, argumentlist = false,
    verb = false, wait = true, nonewwindow = true, windowstyle = false, workingdirectory = false, passthru = true,
    redirectstandardoutput = false, redirectstandarderror = false, redirectstandardinput = false,
    credential = false, loaduserprofile = true, useshellexecute = true } },
  ["foreach-object"] = { pos = { "process" }, p = { process = false, begin = false, ["end"] = false,
    inputobject = false, membername = false, argumentlist = false, parallel = false, throttlelimit = false } },
  ["set-psreadlineoption"] = { pos = {}, p = { historysavestyle = false, historysavepath = false,
    historynoduplicates = true, maximumhistorycount = false, addtohistoryhandler = false } },
}
PARAMS["invoke-restmethod"] = PARAMS["invoke-webrequest"]
PARAMS["add-content"] = PARAMS["set-content"]
PARAMS["clear-content"] = PARAMS["remove-item"]
PARAMS["move-item"] = PARAMS["copy-item"]
for _, spec in pairs(PARAMS) do
  spec.names = {}
  for n in pairs(spec.p) do spec.names[#spec.names + 1] = n end
  for n, v in pairs(spec.extra or {}) do spec.p[n] = v; spec.names[#spec.names + 1] = n end
  for _, n in ipairs(COMMON) do
    if spec.p[n] == nil then
      spec.names[#spec.names + 1] = n
    end
  end
  table.sort(spec.names)
end
-- PARAM_ALIASES are parameter aliases that no prefix reaches.
local PARAM_ALIASES = { lp = "literalpath", pspath = "literalpath", wi = "whatif", cf = "confirm",
  ea = "erroraction", ev = "errorvariable", ov = "outvariable", ep = "executionpolicy", ub = "usebasicparsing",
  useb = "usebasicparsing" }

local HOME_VARS = { home = true, ["env:userprofile"] = true, ["env:home"] = true }
-- ENV_PATHS are the Windows folders environment variables name, as a
-- word starting with one spells them ("~" the home folder).
local ENV_PATHS = { ["env:systemdrive"] = "C:", ["env:homedrive"] = "C:", ["env:systemroot"] = "C:/Windows",
  ["env:windir"] = "C:/Windows", ["env:programfiles"] = "C:/Program Files",
  ["env:programfiles(x86)"] = "C:/Program Files (x86)", ["env:programdata"] = "C:/ProgramData",
  ["env:allusersprofile"] = "C:/ProgramData", ["env:public"] = "C:/Users/Public",
  ["env:appdata"] = "~/AppData/Roaming", ["env:localappdata"] = "~/AppData/Local" }
local TEMP_VARS = { ["env:temp"] = true, ["env:tmp"] = true, ["env:tmpdir"] = true }

-- HOSTS are the programs that run PowerShell.
local HOSTS = { pwsh = true, powershell = true, ["pwsh.exe"] = true, ["powershell.exe"] = true,
  ["pwsh-preview"] = true }
M.HOSTS = HOSTS

-- tool reports whether a tool name is a PowerShell tool's.
function M.tool(name)
  if type(name) ~= "string" or #name > 32 then return false end
  local n = name:lower()
  return n == "powershell" or n == "pwsh"
end

-- MARKS are the RE2 alternatives of the commands that mark a line as
-- PowerShell's, at a command's start: the cmdlets and aliases the checks
-- look at, but the aliases that POSIX programs share (rm, curl, ls; rmdir
-- is one, for a quick line must not hide Remove-Item).
local MARKS = { "remove-item", "ri", "rd", "rmdir", "del", "erase", "iwr", "irm", "iex", "icm", "invoke-expression",
  "invoke-webrequest", "invoke-restmethod", "invoke-command", "format-volume", "clear-disk", "remove-partition",
  "clear-history", "clhy", "set-executionpolicy", "set-psreadlineoption", "add-content", "set-content",
  "clear-content", "out-file", "get-childitem", "gci" }
M.PROGRAMS = {}
for k, m in ipairs(MARKS) do M.PROGRAMS[k] = re.quote(m) end
local LOOKS = "(?i)(?:^|[\\s;|&({])(?:" .. table.concat(M.PROGRAMS, "|") .. ")(?:$|[\\s;|(])"
  .. "|\\$env:|\\$profile|\\[[a-z.]+\\]::|\\bpowershell|\\bpwsh"

-- looks reports whether a line of a tool not known to be PowerShell's
-- (Cursor names its one shell tool Shell on every system) reads as
-- PowerShell: a cmdlet of MARKS at a command's start, $env:, $PROFILE,
-- a [type]:: call, or powershell/pwsh. Such a line is judged both ways.
function M.looks(line)
  return re.match(LOOKS, line)
end

-- cmdlet returns the lower-case cmdlet a program word names.
local function cmdlet(text)
  local n = text:lower():gsub("[/\\]+$", "")
  n = n:match("[^/\\]*$")
  n = n:gsub("%.exe$", "")
  return ALIASES[n] or n
end
M.cmdlet = cmdlet

-- base64 decodes standard base64 text (white space skipped), or nil.
local B64 = {}
do
  local a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for k = 1, #a do B64[a:byte(k)] = k - 1 end
end
local function base64(s)
  local out, acc, bits = {}, 0, 0
  for k = 1, #s do
    local b = s:byte(k)
    local v = B64[b]
    if v then
      acc = (acc % 262144) * 64 + v
      bits = bits + 6
      if bits >= 8 then
        bits = bits - 8
        local d = 2 ^ bits
        out[#out + 1] = string.char(math.floor(acc / d) % 256)
      end
    elseif b == 61 then
      break
    elseif not (b == 32 or b == 10 or b == 13 or b == 9) then
      return nil
    end
  end
  return table.concat(out)
end

-- utf16 turns UTF-16LE bytes into UTF-8 (a surrogate pair as two "?").
local function utf16(s)
  local out = {}
  for k = 1, #s - 1, 2 do
    local u = s:byte(k) + s:byte(k + 1) * 256
    if u < 128 then
      out[#out + 1] = string.char(u)
    elseif u < 2048 then
      out[#out + 1] = string.char(192 + math.floor(u / 64), 128 + u % 64)
    elseif u >= 0xD800 and u < 0xE000 then
      out[#out + 1] = "?"
    else
      out[#out + 1] = string.char(224 + math.floor(u / 4096), 128 + math.floor(u / 64) % 64, 128 + u % 64)
    end
  end
  return table.concat(out)
end

-- decode returns the text of an -EncodedCommand value (base64 of
-- UTF-16LE), or nil when it is not one.
function M.decode(s)
  if type(s) ~= "string" or #s > M.limits.bytes * 3 then return nil end
  local raw = base64(s)
  if not raw or #raw % 2 == 1 then return nil end
  return utf16(raw)
end

-- HOST_VALUE are the powershell/pwsh options that take a value.
local HOST_VALUE = { "executionpolicy", "windowstyle", "version", "psconsolefile", "outputformat", "inputformat",
  "configurationname", "workingdirectory", "custompipename", "settingsfile", "configurationfile", "encodedarguments" }

-- known returns a word's text with its unknown parts (a POSIX $X the
-- calling shell expands) spelled as a PowerShell variable never set, so
-- that the code reads them as unknown.
local function known(w)
  return (w.text:gsub("%z", "$__unknown"))
end

-- invocation reads the arguments of powershell/pwsh (words of shell.parse
-- or of parse) and returns what it runs: { code = text } for -Command
-- (the rest of the line) or a decoded -EncodedCommand, { stdin = true }
-- for "-Command -" or no command (it reads commands from its input),
-- { unknown = true } when the command is not known (bad = true too when
-- an -EncodedCommand is not base64 of UTF-16LE text, which PowerShell
-- refuses), { file = word } for a script file (not read).
function M.invocation(args)
  local k = 1
  while args[k] do
    local w = args[k]
    local t = w.text
    local name = not w.unknown and (t:match("^%-%-?([%a]+)$") or t:match("^/([%a]+)$"))
    name = name and name:lower()
    if w.unknown and k == 1 and t:sub(1, 1) == "\0" then return { unknown = true } end
    if t == "-" then return { stdin = true } end
    if name and ("command"):sub(1, #name) == name then
      local parts = {}
      for j = k + 1, #args do parts[#parts + 1] = known(args[j]) end
      if #parts == 0 or (#parts == 1 and parts[1] == "-") then return { stdin = true } end
      return { code = table.concat(parts, " ") }
    elseif name and (name == "e" or name == "ec" or (#name >= 2 and ("encodedcommand"):sub(1, #name) == name)) then
      local v = args[k + 1]
      if not v or v.unknown then return { unknown = true } end
      local code = M.decode(v.text)
      if not code then return { unknown = true, bad = true } end
      return { code = code, encoded = true }
    elseif name and (name == "f" or ("file"):sub(1, #name) == name) then
      return { file = args[k + 1] }
    elseif name then
      for _, o in ipairs(HOST_VALUE) do
        if (#name >= 2 and o:sub(1, #name) == name) or name == "ep" or name == "ex" or name == "w" or name == "v"
          or name == "wd" then
          k = k + 1
          break
        end
      end
    elseif w.unknown then
      return { unknown = true }
    else
      -- powershell.exe takes the rest for a command; pwsh a script file
      if t:lower():find("%.ps1$") then return { file = w } end
      local parts = {}
      for j = k, #args do parts[#parts + 1] = known(args[j]) end
      return { code = table.concat(parts, " ") }
    end
    k = k + 1
  end
  return { stdin = true }
end

-- Parsing. p: { src, i, depth, err, tokens, commands, all, vars }.

local function fail(p, msg)
  if not p.err then p.err = msg end
end

local function charge(p, kind, n)
  p[kind] = p[kind] + n
  if p[kind] > M.limits[kind] then
    fail(p, string.format("more than %d %s", M.limits[kind], kind))
    return false
  end
  return true
end

local function peek(p, n) return p.src:sub(p.i, p.i + (n or 1) - 1) end

-- The characters that end a bare word in argument mode.
local BARE_END = "[%s;|&(){},\"'`$<>]"

local parse_block -- forward

-- new_word: the builder of one word.
local function new_word() return { t = {}, known = false } end

local function word_add(w, s)
  w.t[#w.t + 1] = s
  if s ~= "" then w.known = true end
end

local function word_unknown(w, source, subs)
  w.t[#w.t + 1] = "\0"
  w.unknown = true
  w.source = w.source or source
  if subs then
    w.subs = w.subs or {}
    w.subs[#w.subs + 1] = subs
  end
end

local function word_done(w)
  local text = table.concat(w.t):gsub("\\", "/")
  return { text = text, unknown = w.unknown, whole = (w.unknown and not w.known) or nil, source = w.source,
    home = w.home, temp = w.temp, profile = w.profile, pipe = w.pipe, download = w.download, subs = w.subs, block = w.block,
    raw = w.raw }
end

-- variable reads $name, ${name}, $env:NAME, $scope:name at p.i (on the $)
-- and adds its value to w.
local function variable(p, w, first)
  local name
  if peek(p, 2) == "${" then
    local close = p.src:find("}", p.i + 2, true)
    if not close then fail(p, "a ${ left open"); p.i = #p.src + 1; return end
    name = p.src:sub(p.i + 2, close - 1)
    p.i = close + 1
  else
    name = p.src:match("^[%w_]+:[%w_]+", p.i + 1) or p.src:match("^[%w_?^$]+", p.i + 1)
    if not name then
      word_add(w, "$")
      p.i = p.i + 1
      return
    end
    p.i = p.i + 1 + #name
  end
  local n = name:lower()
  local v = p.vars[n]
  if HOME_VARS[n] then
    if first and #w.t == 0 then w.home = true; word_add(w, "~") else word_unknown(w, "var") end
  elseif ENV_PATHS[n] and first and #w.t == 0 then
    local v = ENV_PATHS[n]
    if v:sub(1, 1) == "~" then w.home = true end
    word_add(w, v)
  elseif n == "_" or n == "psitem" then
    -- the pipeline's current item (ForEach-Object { … $_ … })
    w.pipe = true
    word_unknown(w, "stdin")
  elseif TEMP_VARS[n] then
    if first and #w.t == 0 then w.temp = true; word_add(w, "/tmp") else word_unknown(w, "var") end
  elseif n == "profile" then
    w.profile = true
    word_unknown(w, "var")
  elseif n == "pwd" then
    word_add(w, ".")
  elseif n == "true" or n == "false" or n == "null" then
    word_add(w, "$" .. n)
  elseif v then
    for _, s in ipairs(v.subs or {}) do word_unknown(w, v.source, s) end
    if v.unknown and not v.subs then word_unknown(w, v.source or "var") end
    if not v.unknown then word_add(w, v.text) end
    if v.home and #w.t == 1 then w.home = true end
    if v.download then w.download = true end
  else
    word_unknown(w, "var")
  end
end

-- group reads a (…), $(…), @(…) or { … } at p.i (on the opening bracket)
-- and returns the commands inside and the words of its first statement.
local function group(p, via)
  local open = peek(p)
  local close = open == "{" and "}" or ")"
  p.i = p.i + 1
  if p.depth >= M.limits.depth then
    fail(p, string.format("more than %d levels of nesting", M.limits.depth))
    p.i = #p.src + 1
    return {}, {}
  end
  p.depth = p.depth + 1
  local cmds, words = parse_block(p, close, via)
  p.depth = p.depth - 1
  if peek(p) ~= close then
    fail(p, "a " .. open .. " left open")
    return cmds, words
  end
  p.i = p.i + 1
  return cmds, words
end

-- DOWNLOADERS are the cmdlets that return what they fetch.
local DOWNLOADERS = { ["invoke-webrequest"] = true, ["invoke-restmethod"] = true }
M.DOWNLOADERS = DOWNLOADERS

-- downloaded reports whether a word holds what a download returned.
local function downloaded(w)
  if not w then return false end
  if w.download then return true end
  for _, list in ipairs(w.subs or {}) do
    for _, x in ipairs(list) do
      if DOWNLOADERS[x.name or ""] then return true end
    end
  end
  return false
end
M.downloaded = downloaded

-- DOWNLOAD_MEMBERS are the .NET methods that return what a download fetched.
local DOWNLOAD_MEMBERS = { downloadstring = true, downloaddata = true, openread = true, getstringasync = true,
  getstring = true, getbytearrayasync = true }

-- members reads .Name, .Name(…), [i] and ::Name(…) after a value into w.
local function members(p, w, typename)
  while true do
    local c = peek(p)
    if c == "[" then
      local close = p.src:find("]", p.i, true)
      if not close then fail(p, "a [ left open"); p.i = #p.src + 1; return end
      p.i = close + 1
    elseif c == "." or peek(p, 2) == "::" then
      local dots = c == "." and 1 or 2
      local name = p.src:match("^[%a_][%w_]*", p.i + dots)
      if not name then return end
      p.i = p.i + dots + #name
      local lname = name:lower()
      -- a member's value is not known from the line
      w.unknown = true
      w.source = w.source or "subst"
      w.t = { "\0" }
      w.known = false
      if DOWNLOAD_MEMBERS[lname] then w.download = true end
      if lname == "historysavepath" then w.history = true end
      if peek(p) == "(" then
        local cmds, words = group(p, "(")
        if typename and dots == 2 then
          -- a static method call: a command of its own, its arguments the
          -- words of the group
          local cmd = { name = typename .. "::" .. lname, args = words, params = {}, unknown_params = {},
            redirs = {}, via = "::", word = { text = typename .. "::" .. name } }
          for _, x in ipairs(words) do
            if downloaded(x) then w.download = true end
          end
          if #cmds > 0 then w.subs = w.subs or {}; w.subs[#w.subs + 1] = cmds end
          p.all[#p.all + 1] = cmd
          if lname == "create" and typename == "scriptblock" then w.scriptblock = true end
        else
          if #cmds > 0 then w.subs = w.subs or {}; w.subs[#w.subs + 1] = cmds end
          for _, x in ipairs(words) do
            if downloaded(x) then w.download = true end
          end
        end
      end
      typename = nil
    else
      return
    end
  end
end

-- element reads one argument-mode element at p.i: a word, and its kind
-- ("word", "param", "string", "group", "var", "type", "block").
local function element(p)
  if not charge(p, "tokens", 1) then p.i = #p.src + 1; return nil end
  local w = new_word()
  local start = p.i
  local kind = "word"
  local first = true
  while p.i <= #p.src do
    local c = peek(p)
    if c == "'" then
      kind = first and "string" or kind
      local j = p.i + 1
      local parts = {}
      while true do
        local q = p.src:find("'", j, true)
        if not q then fail(p, "a ' left open"); p.i = #p.src + 1; break end
        parts[#parts + 1] = p.src:sub(j, q - 1)
        if p.src:sub(q + 1, q + 1) == "'" then
          parts[#parts + 1] = "'"; j = q + 2
        else
          p.i = q + 1; break
        end
      end
      word_add(w, table.concat(parts))
    elseif c == '"' then
      kind = first and "string" or kind
      p.i = p.i + 1
      local closed = false
      while p.i <= #p.src do
        local d = peek(p)
        if d == "`" then
          local e = p.src:sub(p.i + 1, p.i + 1)
          local map = { n = "\n", t = "\t", r = "\r", ["0"] = "" }
          word_add(w, map[e] or e)
          p.i = p.i + 2
        elseif d == '"' then
          if p.src:sub(p.i + 1, p.i + 1) == '"' then
            word_add(w, '"'); p.i = p.i + 2
          else
            p.i = p.i + 1; closed = true; break
          end
        elseif d == "$" and p.src:sub(p.i + 1, p.i + 1) == "(" then
          p.i = p.i + 1
          local cmds, words = group(p, "$(")
          for _, x in ipairs(words) do
            if downloaded(x) then w.download = true end
          end
          word_unknown(w, "subst", cmds)
        elseif d == "$" then
          variable(p, w, #w.t == 0)
        else
          local j = p.src:find('[`"$]', p.i)
          j = j or #p.src + 1
          word_add(w, p.src:sub(p.i, j - 1))
          p.i = j
        end
      end
      if not closed then fail(p, 'a " left open') end
    elseif c == "`" then
      local e = p.src:sub(p.i + 1, p.i + 1)
      if e == "\n" then
        if first then p.i = p.i + 2; return nil end
        break
      end
      word_add(w, e)
      p.i = p.i + 2
    elseif c == "$" and (p.src:sub(p.i + 1, p.i + 1) == "(") or (c == "@" and p.src:sub(p.i + 1, p.i + 1) == "(") then
      p.i = p.i + 1
      local cmds, words = group(p, c .. "(")
      word_unknown(w, "subst", cmds)
      for _, x in ipairs(words) do
        if downloaded(x) then w.download = true end
        if x.history then w.history = true end
      end
      if #cmds == 0 and #words == 1 and not words[1].unknown and first then
        w.t = { words[1].text }; w.unknown = nil; w.source = nil; w.known = true
      end
      members(p, w)
      kind = first and "group" or kind
    elseif c == "@" and p.src:sub(p.i + 1, p.i + 1) == "{" then
      p.i = p.i + 1
      local cmds = group(p, "@{")
      word_unknown(w, "subst", cmds)
    elseif c == "(" then
      local cmds, words = group(p, "(")
      word_unknown(w, "subst", #cmds > 0 and cmds or nil)
      for _, x in ipairs(words) do
        if downloaded(x) then w.download = true end
        if x.history then w.history = true end
        if x.home and #words == 1 and first then w.home = true end
      end
      if #cmds == 0 and #words == 1 and not words[1].unknown and first then
        w.t = { words[1].text }; w.unknown = nil; w.source = nil; w.known = true
      end
      members(p, w)
      kind = first and "group" or kind
    elseif (c == "(" or c == "{") and not first then
      -- in argument mode a bracket starts the next argument: iex(…)
      break
    elseif c == "{" then
      local cmds = group(p, "{")
      -- a script block's commands are reached where it is defined; its
      -- value is code, not their output
      word_unknown(w, "block")
      w.block = cmds
      kind = first and "block" or kind
    elseif c == "$" then
      variable(p, w, first)
      kind = first and "var" or kind
      members(p, w)
    elseif c == "[" and first then
      local close = p.src:find("]", p.i, true)
      if not close then fail(p, "a [ left open"); p.i = #p.src + 1; return nil end
      local tn = p.src:sub(p.i + 1, close - 1):lower():gsub("^system%.", "")
      p.i = close + 1
      kind = "type"
      word_unknown(w, "subst")
      members(p, w, tn)
      w.typename = tn
    elseif c:find("[%s;|&)}<>,]") or (kind == "var" and (c == "=" or p.src:find("^[+%-*/]=", p.i))) then
      break
    elseif c == "-" and first and p.src:find("^%-%-?[%a_]", p.i) then
      -- a parameter: -Name, -Name:value
      local name, colon = p.src:match("^%-%-?([%a_][%w_%-]*)(:?)", p.i)
      local dash = p.src:sub(p.i + 1, p.i + 1) == "-" and 2 or 1
      p.i = p.i + dash + #name + #colon
      local pw = { text = "-" .. name, param = name:lower(), colon = colon == ":" }
      pw.raw = p.src:sub(start, p.i - 1)
      return pw, "param"
    else
      local j = p.src:find(BARE_END, p.i)
      j = j or #p.src + 1
      if j == p.i then j = p.i + 1 end
      local s = p.src:sub(p.i, j - 1)
      if first and s == "~" or (first and s:find("^~[/\\]")) then
        w.home = true
      end
      word_add(w, s)
      p.i = j
    end
    first = false
  end
  if first then return nil end
  local out = word_done(w)
  out.history = w.history
  out.scriptblock = w.scriptblock
  out.typename = w.typename
  out.raw = p.src:sub(start, p.i - 1)
  return out, kind
end

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
        for x = j + 1, #elems do pos[#pos + 1] = elems[x].w end
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
        if e.w.colon and elems[j + 1] then j = j + 1 end
      end
    else
      pos[#pos + 1] = e.w
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
      for _, e in ipairs(elems) do words[#words + 1] = e.w end
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
-- guess, the temporary folder "/tmp"), or nil when part of it is unknown.
-- cwd may be a POSIX or a Windows path.
function M.resolve(w, cwd)
  if w.unknown then return nil end
  local t = w.text
  local c = M.cwd(cwd)
  if w.home then
    local home = c and (c:match("^(/%a:/users/[^/]+)") or paths.home(c))
    if not home then return "~" .. paths.clean(t:sub(2)):gsub("^/$", ""):lower() end
    t = home .. t:sub(2)
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
  end
  for _, k in ipairs(keys or {}) do
    if type(c.params[k]) == "table" then
      for _, w in ipairs(c.params[k]) do out[#out + 1] = w end
    end
  end
  return out
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
