-- pwsh.lex: the tables and the word reader of lib/pwsh.lua (see there),
-- kept apart so that each file stays small enough for the loader's
-- quick nesting bound.

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
  sls = "select-string", gi = "get-item", gp = "get-itemproperty", rvpa = "resolve-path",
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
  ["select-string"] = { pos = { "pattern", "path" }, p = { pattern = false, path = false, literalpath = false,
    simplematch = true, casesensitive = true, context = false, list = true, quiet = true, notmatch = true,
    allmatches = true, encoding = false, include = false, exclude = false, raw = true, inputobject = false,
    noemphasis = true, culture = false } },
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

-- PROVIDER matches the file system provider's prefix of a path
-- (Microsoft.PowerShell.Core\FileSystem::C:\x, FileSystem::\\srv\x).
local PROVIDER = "^[%w.]*/?[Ff][Ii][Ll][Ee][Ss][Yy][Ss][Tt][Ee][Mm]::"

-- windows_path folds the spellings Windows gives one path into one: "\"
-- is a folder separator (text "/"), the device prefixes \\?\ and \\.\
-- before a drive and the file system provider's prefix are dropped
-- (\\?\C:\x and FileSystem::C:\x are C:/x).
local function windows_path(text)
  text = text:gsub("\\", "/")
  if text:find("::", 1, true) then text = text:gsub(PROVIDER, "") end
  if text:sub(1, 2) == "//" then text = text:gsub("^//[?.]/(%a:)", "%1") end
  return text
end
M.windows_path = windows_path

local function word_done(w)
  local text = windows_path(table.concat(w.t))
  return { text = text, pat = text, glob = text:find("[*?%[]") and true or nil, unknown = w.unknown, whole = (w.unknown and not w.known) or nil, source = w.source,
    home = w.home, temp = w.temp, profile = w.profile, pipe = w.pipe, download = w.download, subs = w.subs, block = w.block,
    raw = w.raw }
end

-- home_string marks a word that starts with a quoted ~ as the home folder:
-- the file system provider reads Remove-Item "~\x" as the home folder's x.
local function home_string(w)
  local t = w.t[1]
  if not w.home and t and (t == "~" or t:find("^~[/\\]")) then w.home = true end
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
  elseif (n == "env:username" or n == "env:user") and not w.unknown
    and (table.concat(w.t):gsub("\\", "/"):lower()):find("^%a?:?/users/$") then
    -- C:\Users\$env:USERNAME is the home folder
    w.t = { "~" }; w.home = true
  elseif (n == "env:username" or n == "env:user") and not w.unknown
    and (table.concat(w.t):gsub("\\", "/")):find("^/home/$") then
    w.t = { "~" }; w.home = true
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
      if first then home_string(w) end
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
      if first then home_string(w) end
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


-- bind gives the word reader the statement parser of lib/pwsh.lua,
-- which reads the commands nested in a word ($(…), script blocks).
local function bind_parser(f) parse_block = f end

return { M = M, bind_parser = bind_parser, paths = paths, PARAMS = PARAMS, PARAM_ALIASES = PARAM_ALIASES, HOSTS = HOSTS, cmdlet = cmdlet, known = known, fail = fail, charge = charge, peek = peek, parse_block = parse_block, variable = variable, DOWNLOADERS = DOWNLOADERS, downloaded = downloaded, element = element }
