-- paths: the files a tool call names, resolved against the payload's cwd,
-- for policies about where an agent may read and write.
--
--   local paths = require("paths")
--   for _, p in ipairs(paths.of(input.toolInput)) do
--     local abs = paths.resolve(p, input.cwd)   -- "/home/dev/project/src/a.go"
--     if not paths.inside(abs, input.cwd) then ... end
--   end
--   for _, w in ipairs(paths.writes(cmd)) do ... end   -- a shell.parse command
--
-- Resolution is textual: "." and ".." are folded and "~" is the home
-- folder guessed from cwd (/home/NAME, /Users/NAME, /root). A policy
-- cannot see the file system, so a symbolic link inside the project that
-- leads out of it is not followed; say so in a policy's header.

local shell = require("shell")

local M = {}

-- KEYS are the tool-input keys that hold the path a file tool acts on,
-- across the agents (Claude, Codex, Copilot, Cursor, Gemini CLI).
M.KEYS = { "file_path", "path", "notebook_path", "target_file", "filePath", "absolute_path", "file", "filename",
  "dir_path", "directory", "source", "destination" }
-- LIST_KEYS hold lists of paths.
M.LIST_KEYS = { "paths", "files", "file_paths" }
-- PATCH_KEYS hold an apply_patch text (Codex), whose headers name files.
M.PATCH_KEYS = { "command", "input", "patch" }

-- PATH_KEYS are, for a pre-check that clears a file tool's call naming
-- one plain path, the keys a detailed reading reads: true for a key that
-- holds one path (KEYS), false for the others (lists of paths, patch
-- texts, a search's glob, include and pattern). Read it; never change it.
M.PATH_KEYS = { glob = false, include = false, pattern = false }
for _, k in ipairs(M.KEYS) do M.PATH_KEYS[k] = true end
for _, l in ipairs({ M.LIST_KEYS, M.PATCH_KEYS }) do
  for _, k in ipairs(l) do M.PATH_KEYS[k] = false end
end

-- UNPLAIN is an RE2 expression matching a path the detailed readings read
-- otherwise than as it is written: one that folds ("//", "." and ".."
-- components), a glob or an escaped pattern (\, *, ?, [, NUL), or one
-- after whose =, : or @ a secrets file is looked for (--env-file=.env,
-- HEAD:.env).
M.UNPLAIN = [=[//|(?:^|/)\.\.?(?:/|$)|[\\*?\[\x00=:@]]=]

-- MAX is how many paths of.one call looks at; more is a sign of abuse and
-- of returns the first MAX only, with too_many set.
M.MAX = 256

-- of returns the path strings a file tool's input names, and true when it
-- named more than M.MAX.
function M.of(args)
  local out = {}
  if type(args) ~= "table" then return out end
  local function add(v)
    if type(v) == "string" and v ~= "" then
      if #out >= M.MAX then return false end
      out[#out + 1] = v
    end
    return true
  end
  for _, k in ipairs(M.KEYS) do
    if not add(args[k]) then return out, true end
  end
  for _, k in ipairs(M.LIST_KEYS) do
    if type(args[k]) == "table" then
      for _, v in ipairs(args[k]) do
        if not add(v) then return out, true end
      end
    end
  end
  for _, k in ipairs(M.PATCH_KEYS) do
    local t = args[k]
    if type(t) == "string" and t:find("*** ", 1, true) then
      for _, name in ipairs(M.patch_files(t)) do
        if not add(name) then return out, true end
      end
    end
  end
  return out, false
end

-- patch_files returns the file names the headers of an apply_patch text name.
function M.patch_files(t)
  local out = {}
  for line in t:gmatch("[^\n]+") do
    local name = line:match("^%*%*%* Add File: *(.-) *$") or line:match("^%*%*%* Update File: *(.-) *$")
      or line:match("^%*%*%* Delete File: *(.-) *$") or line:match("^%*%*%* Move to: *(.-) *$")
    if name and name ~= "" then out[#out + 1] = name end
    if #out > M.MAX then break end
  end
  return out
end

-- home guesses the home folder from cwd, or nil. A Windows folder spelled
-- as lib/pwsh.lua's cwd spells it (/c:/users/NAME/…) is the home folder of
-- the user NAME.
function M.home(cwd)
  if type(cwd) ~= "string" then return nil end
  return cwd:match("^(/home/[^/]+)") or cwd:match("^(/Users/[^/]+)") or cwd:match("^(/root)") or
    cwd:match("^(/%a:/[Uu]sers/[^/]+)") or nil
end

-- clean folds "//", "." and ".." of an absolute path ("/a/./b/../c" -> "/a/c").
function M.clean(p)
  local parts = {}
  for seg in p:gmatch("[^/]+") do
    if seg == ".." then
      parts[#parts] = nil
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  return "/" .. table.concat(parts, "/")
end

-- resolve returns p as an absolute, clean path: relative to cwd, "~" the
-- guessed home ("~" itself when there is no guess, and the path then
-- starts with "~/"). nil when p is not a string or cwd is unknown for a
-- relative path.
--
-- A cwd in pwsh.cwd's form (/c:/users/dev/project) is a Windows folder, in
-- which a POSIX line is Git Bash's (Claude Code's Bash tool on Windows):
-- there /c/x, C:/x and C:\x are drive C's x, spelled /c:/x, and the path
-- is given in lower case, as Windows matches names.
function M.resolve(p, cwd)
  if type(p) ~= "string" then return nil end
  local win = type(cwd) == "string" and cwd:find("^/%a:") ~= nil and (#cwd == 3 or cwd:sub(4, 4) == "/")
  if win then
    local d, rest = p:match("^/(%a)(/.*)$")
    if not d and p:find("^/%a$") then d, rest = p:sub(2, 2), "/" end
    if not d then
      d, rest = p:match("^(%a):([/\\].*)$")
      if rest then rest = rest:gsub("\\", "/") end
    end
    if d then p = "/" .. d .. ":" .. rest end
  end
  if p == "~" or p:sub(1, 2) == "~/" then
    local home = M.home(cwd)
    if not home then
      local t = "~" .. M.clean(p:sub(2)):gsub("^/$", "")
      return win and t:lower() or t
    end
    p = home .. "/" .. p:sub(3)
  elseif p:sub(1, 1) ~= "/" then
    if type(cwd) ~= "string" or cwd:sub(1, 1) ~= "/" then return nil end
    p = cwd .. "/" .. p
  end
  if win then return (M.clean(p):lower()) end
  return M.clean(p)
end

-- inside reports whether the absolute path abs is root or below it.
function M.inside(abs, root)
  if type(abs) ~= "string" or type(root) ~= "string" then return false end
  root = M.clean(root)
  return abs == root or root == "/" or abs:sub(1, #root + 1) == root .. "/"
end

-- in_caches reports whether abs (a path as resolve gives it) is in one of
-- the folders of list, each resolved from cwd: "dir" the folder and what is
-- in it, "dir/*" only what is in it (~/.cache/*: ~/.cache/pip is, ~/.cache
-- is not).
function M.in_caches(abs, list, cwd)
  for _, s in ipairs(list) do
    local only_in = s:sub(-2) == "/*"
    local root = M.resolve(only_in and s:sub(1, -3) or s, cwd)
    if root and (abs:sub(1, #root + 1) == root .. "/" or (abs == root and not only_in)) then return true end
  end
  return false
end

-- word returns the path a shell word spells ("~/x" for a home word), or
-- nil when part of it is unknown ($X, $(…)).
function M.word(w)
  if w.unknown then return nil end
  return w.text
end

local WRITE_REDIRS = { [">"] = true, [">>"] = true, [">|"] = true, ["<>"] = true, ["&>"] = true, ["&>>"] = true }
local LAST = { cp = true, mv = true, install = true, ln = true, rsync = true, scp = true }
local ALL = { tee = true, touch = true, truncate = true }
local INPLACE = { sed = "^%-[^-]*i", perl = "^%-[^-]*i", gsed = "^%-[^-]*i" }

-- DOWNLOAD_OUT are the options of the programs that fetch URLs whose
-- value is a file they write (the download, or a log): curl -o, wget -O,
-- -o, -a. ("-" is standard output.)
local DOWNLOAD_OUT = { curl = { ["-o"] = true, ["--output"] = true },
  wget = { ["-O"] = true, ["--output-document"] = true, ["-o"] = true, ["--output-file"] = true, ["-a"] = true,
    ["--append-output"] = true } }
-- the short options of each that take a value: in a cluster (-sLo FILE)
-- the first of them ends it, its value the rest of the word or the next
local SHORT_VALUE = { curl = "AbcCdDeEFHKmoPQrtTuUwxXyYz", wget = "aABDeiIloOPQRtTUwX" }

-- SOCAT_FILE matches the socat addresses that open a file for writing
-- (open:PATH,creat, create:PATH, gopen:PATH), capturing the path.
local SOCAT_FILE = { "^[Oo][Pp][Ee][Nn]:([^,]+)", "^[Cc][Rr][Ee][Aa][Tt][Ee]?:([^,]+)", "^[Gg][Oo][Pp][Ee][Nn]:([^,]+)" }

-- writes returns the words a command writes to: its output redirections,
-- tee/touch/truncate operands, the destination of cp/mv/install/ln/rsync,
-- the files of sed -i and perl -i, dd of=. (The files a download writes
-- are fetched_writes'.)
function M.writes(cmd)
  local out = {}
  for _, r in ipairs(cmd.redirs) do
    if WRITE_REDIRS[r.op] or (r.op == ">&" and not r.target.text:find("^%d*%-?$")) then out[#out + 1] = r.target end
  end
  local n = cmd.name
  if not n then return out end
  local ops = {}
  local target_dir
  for k, a in ipairs(cmd.args) do
    if a.text:sub(1, 1) ~= "-" or a.unknown then
      ops[#ops + 1] = a
    elseif (a.text == "-t" or a.text:find("^%-%-target%-directory")) and LAST[n] then
      target_dir = a.text:match("=(.*)$") and { text = a.text:match("=(.*)$"), pat = a.pat:match("=(.*)$") }
        or cmd.args[k + 1]
    end
  end
  if ALL[n] then
    for _, a in ipairs(ops) do out[#out + 1] = a end
  elseif LAST[n] then
    if target_dir then out[#out + 1] = target_dir elseif #ops >= 2 then out[#out + 1] = ops[#ops] end
  elseif INPLACE[n] then
    local inplace = false
    for _, a in ipairs(cmd.args) do
      if a.text:find(INPLACE[n]) or a.text:find("^%-%-in%-place") then inplace = true end
    end
    if inplace then
      -- sed's first operand is the script unless -e/-f gave it
      local script_given = false
      for _, a in ipairs(cmd.args) do
        if a.text:find("^%-[^-]*[ef]") or a.text:find("^%-%-expression") then script_given = true end
      end
      for k = script_given and 1 or 2, #ops do out[#out + 1] = ops[k] end
    end
  elseif n == "dd" then
    for _, a in ipairs(cmd.args) do
      if a.text:find("^of=") then out[#out + 1] = { text = a.text:sub(4), pat = a.pat:sub(4), unknown = a.unknown } end
    end
  end
  return out
end

-- fetched_writes returns the words of the files a command that fetches
-- writes: curl -o, wget -O (and its log, -o, -a), socat's open:,
-- create: and gopen: addresses ("-" is standard output); {} for others.
-- A policy whose quick path lets such lines through unparsed asks
-- writes alone.
function M.fetched_writes(cmd)
  local out = {}
  local n = cmd.name
  if DOWNLOAD_OUT[n] then
    local opts = DOWNLOAD_OUT[n]
    for k, a in ipairs(cmd.args) do
      local t, w = a.text, nil
      if opts[t] then
        w = cmd.args[k + 1]
      elseif not a.unknown then
        local o, v = t:match("^(%-%-[%w-]+)=(.*)$")
        if not o and t:find("^%-%a") then
          -- a cluster: the first letter that takes a value ends it
          for i = 2, #t do
            local ch = t:sub(i, i)
            if SHORT_VALUE[n]:find(ch, 1, true) then
              o, v = "-" .. ch, t:sub(i + 1)
              break
            end
          end
        end
        if o and opts[o] then
          if v == "" then
            w = cmd.args[k + 1]
          else
            w = { text = v, pat = v:gsub("[\\*?%[%z]", "\\%0") }
          end
        end
      end
      if w and w.text ~= "-" then out[#out + 1] = w end
    end
  elseif n == "socat" then
    for _, a in ipairs(cmd.args) do
      for _, p in ipairs(SOCAT_FILE) do
        local path = a.text:match(p)
        if path then
          out[#out + 1] = { text = path, pat = path:gsub("[\\*?%[%z]", "\\%0"), unknown = a.unknown }
          break
        end
      end
    end
  end
  return out
end

return M
