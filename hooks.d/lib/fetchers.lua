-- fetchers: which options of the programs that fetch URLs (curl, wget,
-- httpie and the like) take the next word as their value, so that a policy
-- reading their URLs never takes a URL for a flag's value.
--
--   local fetchers = require("fetchers")
--   local takes_value = fetchers.value_taker(VALUE_OPTS)
--   takes_value("wget", "-c")  --> false (wget -c is --continue)
--   takes_value("curl", "-c")  --> true  (curl -c is --cookie-jar)
--
-- A short option takes a value in one program and none in another: curl
-- -i is --include, wget -i --input-file; wget's -d, -c, -m, -H, -x, -b, -E,
-- -K, -F and -r take none. curl's and wget's own short options decide for
-- them; any other program takes a value after the policy's own list of
-- options (common) but for the short options on which curl and wget differ.
-- A long option takes a value when common says so.
--
--   fetchers.saved(c)          --> { "a.sh" } (curl -O https://x/a.sh)
--   fetchers.runs_saved(cmds)  --> fetch, run, path (curl -o a.sh URL; sh a.sh)
--   fetchers.pwsh_runs_saved(pwsh.parse(line))  --> the same in PowerShell
--
-- saved reads the files a fetcher (curl -o/--output/-O, wget -O or the
-- URL's last segment, aria2c -o, Invoke-WebRequest/irm -OutFile, its
-- output redirected with > or piped to tee) writes;
-- runs_saved finds, among a line's commands (shell.parse), a later one
-- that runs one of them: as a shell's, an interpreter's or source's
-- script (sh F, . F, python F, bash < F), as the program itself (./F), or
-- as java -jar F.

local M = {}

local function letters(s)
  local t = {}
  for ch in s:gmatch(".") do t["-" .. ch] = true end
  return t
end

-- SHORT_VALUE are the short options of each program that take a value.
M.SHORT_VALUE = { curl = letters("AbcCdDeEFHKmoPQrtTuUwxXyYz"), wget = letters("aABDeiIloOPQRtTUwX") }

-- AMBIGUOUS are the short options that take a value in one of curl and wget
-- and none in the other.
M.AMBIGUOUS = {}
for opt in pairs(M.SHORT_VALUE.curl) do
  if not M.SHORT_VALUE.wget[opt] then M.AMBIGUOUS[opt] = true end
end
for opt in pairs(M.SHORT_VALUE.wget) do
  if not M.SHORT_VALUE.curl[opt] then M.AMBIGUOUS[opt] = true end
end

-- value_taker returns takes_value(program, opt): whether program's option
-- opt (an option word, its value split off) takes the next word, with
-- common the options (a set) the policy takes as taking one.
function M.value_taker(common)
  local short_value, ambiguous = M.SHORT_VALUE, M.AMBIGUOUS
  return function(program, opt)
    if opt:sub(1, 2) ~= "--" then
      local short = short_value[program]
      if short then return short[opt] == true end
      return common[opt] == true and not ambiguous[opt]
    end
    return common[opt] == true
  end
end

-- SAVE_LONG are the long options of curl, wget and aria2c that take the
-- next word as their value (--option=value carries its own).
local SAVE_LONG = {}
for o in ([[--output --output-dir --output-document --directory-prefix --dir --out --data --data-binary --data-raw
  --data-urlencode --data-ascii --json --form --form-string --config --cookie-jar --cookie --dump-header --cert --key
  --cacert --header --user --user-agent --referer --request --write-out --max-time --connect-timeout --proxy --range
  --upload-file --post-file --post-data --body-file --body-data --input-file --append-output --output-file --retry
  --limit-rate --method --resolve --connect-to --tries --timeout --wait --level --accept --reject --password
  --http-user --http-password --load-cookies --save-cookies --ca-certificate --certificate --private-key
  --max-redirs --retry-delay --retry-max-time --interface --expect100-timeout --keepalive-time --oauth2-bearer
  --proto --proto-default --url --variable]]):gmatch("%S+") do
  SAVE_LONG[o] = true
end
-- OUT_SHORT / OUT_LONG: the options naming the file written; DIR_*: the
-- folder it is written in; REMOTE_NAME: curl's options that write to the
-- URL's last segment.
local OUT_SHORT = { curl = "-o", wget = "-O", aria2c = "-o" }
local OUT_LONG = { ["--output"] = true, ["--output-document"] = true, ["--out"] = true }
local DIR_SHORT = { wget = "-P", aria2c = "-d" }
local DIR_LONG = { ["--output-dir"] = true, ["--directory-prefix"] = true, ["--dir"] = true }
local REMOTE_NAME = { ["-O"] = true, ["--remote-name"] = true, ["--remote-name-all"] = true }
local ARIA_SHORT = { ["-o"] = true, ["-d"] = true, ["-i"] = true, ["-x"] = true, ["-s"] = true, ["-k"] = true,
  ["-j"] = true, ["-l"] = true, ["-U"] = true, ["-t"] = true, ["-m"] = true, ["-T"] = true, ["-S"] = true }
-- PWSH_FETCHERS are PowerShell's cmdlets (and aliases, lower-cased) that
-- save with -OutFile.
local PWSH_FETCHERS = { ["invoke-webrequest"] = true, iwr = true, ["invoke-restmethod"] = true, irm = true }

-- last_segment returns what a URL's last path segment names (wget: "index.html"
-- when it names none), or nil when the word is no URL or holds an unknown part.
local function last_segment(t, program)
  if t:find("\0", 1, true) then return nil end
  local rest = t:match("^%a[%w+.-]*://(.*)$")
  if not rest then
    if program ~= "wget" or not t:find("^[%w.-]+%.%a%a+/") then return nil end
    rest = t
  end
  local path = rest:match("^[^/?#]*(/[^?#]*)") or ""
  local name = path:match("([^/]*)$")
  if name == "" or name == nil then return program == "wget" and "index.html" or nil end
  return name
end

-- value_of splits an option word of program n: its option, its value
-- when it is in the word ("--output=F", "-oF", "-sSLo" takes the next
-- word), and whether the option takes a value.
local function value_of(n, t)
  local long, v = t:match("^(%-%-[%w-]+)=(.*)$")
  if long then return long, v, true end
  if t:sub(1, 2) == "--" then return t, nil, SAVE_LONG[t] == true end
  local short = n == "aria2c" and ARIA_SHORT or M.SHORT_VALUE[n] or {}
  for i = 2, #t do
    local o = "-" .. t:sub(i, i)
    if short[o] then
      if i == #t then return o, nil, true end
      return o, t:sub(i + 1), true
    end
    if REMOTE_NAME[o] then return o, nil, false end
  end
  return t, nil, false
end

-- join puts path p in folder d (nil: the working folder) and cleans it as
-- the kernel reads it: "./a.sh" and "a.sh" are one file, so are
-- "/../tmp//x" and "/tmp/x", "sub/../a" and "a".
local function join(d, p)
  local path = p
  if d and d ~= "" and d ~= "." and not p:find("^[/~]") then
    local folder = d:gsub("/+$", "")
    path = folder .. "/" .. p
  end
  local abs = path:sub(1, 1) == "/"
  local segs = {}
  for seg in path:gmatch("[^/]+") do
    if seg == ".." and #segs > 0 and segs[#segs] ~= ".." then
      segs[#segs] = nil
    elseif seg == ".." and abs then
      -- /.. is /
    elseif seg ~= "." and #segs < 256 then
      segs[#segs + 1] = seg
    end
  end
  return (abs and "/" or "") .. table.concat(segs, "/")
end

local function pwsh_saved(c)
  local out = {}
  for k, a in ipairs(c.args) do
    local name = a.text:lower():match("^%-([%a]+):?$")
    if name and #name >= 2 and ("outfile"):sub(1, #name) == name and c.args[k + 1] then
      local f = c.args[k + 1]
      if not f.unknown then out[#out + 1] = join(c.dir, (f.text:gsub("\\", "/"))) end
    end
  end
  return out
end

-- teed returns the files tee writes when a fetcher feeds it (curl URL |
-- tee F).
local function teed(c)
  local out = {}
  local up, fed = c.upstream, false
  while up do
    if up.name == "curl" or up.name == "wget" or up.name == "aria2c" then fed = true end
    up = up.upstream
  end
  if not fed then return out end
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" and not a.unknown then out[#out + 1] = join(c.dir, a.text) end
  end
  return out
end

-- saved returns the files fetcher command c writes (paths from the
-- payload's working folder, its cd's folder put in front), none for
-- another program; names with an unknown part are left out.
function M.saved(c)
  local n = c.name
  if PWSH_FETCHERS[n or ""] then return pwsh_saved(c) end
  if n == "tee" then return teed(c) end
  if n ~= "curl" and n ~= "wget" and n ~= "aria2c" then return {} end
  local outs, urls, dir, remote = {}, {}, nil, n ~= "curl"
  -- what it writes on its output, redirected to a file (curl URL > F)
  for _, r in ipairs(c.redirs) do
    if (r.op == ">" or r.op == ">>" or r.op == ">|") and (r.fd == nil or r.fd == "1") and not r.target.unknown then
      outs[#outs + 1] = r.target.text
    end
  end
  local args = c.args
  local k = 1
  while k <= #args do
    local a = args[k]
    local t = a.text
    if t:sub(1, 1) == "-" and #t > 1 and not a.whole then
      local opt, v, takes = value_of(n, t)
      local vw = nil
      if takes and v == nil then
        vw = args[k + 1]
        v = vw and vw.text
        k = k + 1
      end
      if REMOTE_NAME[opt] and n == "curl" then remote = true end
      if v and not (vw and vw.unknown) and not v:find("\0", 1, true) then
        if opt == OUT_SHORT[n] or OUT_LONG[opt] then
          if v ~= "-" then outs[#outs + 1] = v end
          if n ~= "curl" then remote = false end
        elseif opt == DIR_SHORT[n] or DIR_LONG[opt] then
          dir = v
        end
      end
    elseif not a.unknown then
      urls[#urls + 1] = t
    end
    k = k + 1
  end
  if remote then
    for _, u in ipairs(urls) do
      local name = last_segment(u, n)
      if name then outs[#outs + 1] = name end
    end
  end
  local out = {}
  for _, f in ipairs(outs) do
    out[#out + 1] = join(c.dir, dir and join(dir, f) or f)
  end
  return out
end

-- BIN_DIRS are the folders on the usual PATH: a file saved there runs by
-- its bare name.
local BIN_DIRS = { ["/usr/local/bin"] = true, ["/usr/bin"] = true, ["/bin"] = true, ["~/bin"] = true,
  ["~/.local/bin"] = true, ["/usr/local/sbin"] = true, ["/usr/sbin"] = true }

-- in_bin returns the name of a path in one of BIN_DIRS, or nil.
local function in_bin(path)
  local dir, name = path:match("^(.*)/([^/]*)$")
  return dir and BIN_DIRS[dir] and name or nil
end

-- ran returns the paths command c runs as a script or a program; a
-- program run by its bare name, or from one of BIN_DIRS, is { bare = name }
-- (the one the PATH finds).
local function ran(c)
  local out = {}
  local s = c.script
  if s and not c.inline and not s.unknown then out[#out + 1] = join(c.dir, s.text) end
  local w = c.word
  if w and not w.unknown and c.name and w.text ~= c.name and w.text:find("/", 1, true) then
    local path = join(c.dir, w.text)
    out[#out + 1] = path
    if in_bin(path) then out[#out + 1] = { bare = in_bin(path) } end
  elseif w and not w.unknown and c.name and c.name ~= "java" then
    out[#out + 1] = { bare = w.text }
  end
  if c.name == "java" then
    for k, a in ipairs(c.args) do
      if a.text == "-jar" and c.args[k + 1] and not c.args[k + 1].unknown then
        out[#out + 1] = join(c.dir, c.args[k + 1].text)
      end
    end
  end
  return out
end

-- runs_saved returns, for a line's commands, the first fetcher whose
-- saved file a later command runs, that command and the file's path; nil
-- when none does.
function M.runs_saved(cmds)
  local saves = {}
  for _, c in ipairs(cmds) do
    if #saves > 0 then
      for _, r in ipairs(ran(c)) do
        for _, s in ipairs(saves) do
          if type(r) == "string" then
            if r == s.path then return s.cmd, c, s.path end
          elseif in_bin(s.path) == r.bare then
            return s.cmd, c, s.path
          end
        end
      end
    end
    for _, f in ipairs(M.saved(c)) do
      if #saves < 64 then saves[#saves + 1] = { cmd = c, path = f } end
    end
  end
  return nil
end

-- pwsh_ran returns the paths a PowerShell command (pwsh.parse's) runs: a
-- script or program by its path (.\F, & F), Start-Process F, powershell
-- -File F.
local function pwsh_ran(c)
  local out = {}
  local w = c.word
  if w and not w.unknown and w.text:find("/", 1, true) then out[#out + 1] = join(nil, w.text):lower() end
  local fp = type(c.params.filepath) == "table" and c.params.filepath[1]
  if c.name == "start-process" and fp and not fp.unknown then out[#out + 1] = join(nil, fp.text):lower() end
  if c.invocation and c.invocation.file and not c.invocation.file.unknown then
    out[#out + 1] = join(nil, c.invocation.file.text):lower()
  end
  return out
end

-- pwsh_runs_saved is runs_saved for the commands of pwsh.parse: the
-- first Invoke-WebRequest / Invoke-RestMethod whose -OutFile a later
-- command runs, that command and the file's path (compared without case,
-- as Windows does); nil when none does.
function M.pwsh_runs_saved(cmds)
  local saves = {}
  for _, c in ipairs(cmds) do
    if #saves > 0 then
      for _, r in ipairs(pwsh_ran(c)) do
        for _, s in ipairs(saves) do
          if r == s.path then return s.cmd, c, s.path end
        end
      end
    end
    local of = (c.name == "invoke-webrequest" or c.name == "invoke-restmethod") and type(c.params.outfile) == "table"
      and c.params.outfile[1]
    if of and not of.unknown and #saves < 64 then saves[#saves + 1] = { cmd = c, path = join(nil, of.text):lower() } end
  end
  return nil
end

return M
