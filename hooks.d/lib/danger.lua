-- danger: the checks of commands that destroy data or hand the machine to
-- the network, one simple command (a shell.parse result) at a time, shared
-- by hooks.d/10-dangerous-commands.lua and the shell pack.
--
--   local danger = require("danger")
--   for _, c in ipairs(shell.parse(line)) do
--     if danger.recursive_delete(c) then ... end
--   end
--
-- Each check takes a command (and the payload's cwd, when the policy has
-- it) and returns true when it matches:
--   recursive_delete   rm -r / find -delete of /, ~, the working folder, an
--                      unknown folder or a computed list of targets; given
--                      cwd, also of the project by its absolute path and of
--                      the folders that hold it
--   recursive_perms    chmod/chown/chgrp -R of /, ~ or an unknown folder
--   download_to_shell  a download piped, substituted or redirected into a
--                      shell, an interpreter, eval or source
--   fork_bomb          a function that pipes into or backgrounds itself
--   formats_disk       mkfs*, mke2fs, mkswap, wipefs, newfs*
--   writes_disk        dd of=, a redirection, tee, cp, ... to a disk device
-- danger.DOWNLOADERS is the set of programs that fetch from the network;
-- danger.PROGRAMS the RE2 alternatives of the programs the checks look at
-- by name (shell.quick), read from the tables below.

local shell = require("shell")
local paths = require("paths")

-- Places whose recursive removal or change wrecks the machine, the home
-- folder or the project; "computed" is a target only known when the command
-- runs ($(…) output, xargs input), "prefix" an unknown folder ($X/*).
local WRECK = { root = true, home = true, cwd = true, prefix = true, computed = true }
local WRECK_PERMS = { root = true, home = true, prefix = true, computed = true }

local RM = { short = { r = "recursive", R = "recursive", f = "force" },
  long = { "recursive", "force", "dir", "interactive", "one-file-system", "no-preserve-root", "preserve-root",
    "verbose", "help", "version" } }
local CHMOD = { short = { R = "recursive" },
  long = { "recursive", "changes", "silent", "quiet", "verbose", "no-preserve-root", "preserve-root",
    "dereference", "no-dereference", "help", "version" }, long_arg = { "reference", "from" } }
local FIND_TESTS = { ["-name"] = true, ["-iname"] = true, ["-path"] = true, ["-ipath"] = true, ["-wholename"] = true,
  ["-regex"] = true, ["-iregex"] = true, ["-type"] = true, ["-mtime"] = true, ["-mmin"] = true, ["-newer"] = true,
  ["-size"] = true, ["-empty"] = true, ["-user"] = true, ["-perm"] = true, ["-atime"] = true, ["-ctime"] = true }
local DOWNLOADERS = { curl = true, wget = true, fetch = true, aria2c = true, http = true, https = true, xh = true,
  ["lwp-request"] = true, nc = true, ncat = true }
local DEVICES = { "/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*", "/dev/disk*",
  "/dev/rdisk*", "/dev/disk/*/*", "/dev/mapper/*", "/dev/dm-*", "/dev/md*", "/dev/mem", "/dev/kmem", "/dev/port" }
-- The programs the checks look at by name.
local DELETE, FIND, DD = "rm", "find", "dd"
local PERMS = { chmod = true, chown = true, chgrp = true }
local FORMATTERS = { mke2fs = true, mkswap = true, wipefs = true }
local FORMATTER_PREFIXES = { "mkfs", "newfs" }
local DISK_WRITERS = { tee = true, cp = true, mv = true, install = true, shred = true, blkdiscard = true }
local WRITE_REDIRS = { [">"] = true, [">>"] = true, [">|"] = true, ["<>"] = true, ["&>"] = true, ["&>>"] = true,
  [">&"] = true }

-- find_confined reports whether what a find yields stays inside the project:
-- its start folders are not / or home or unknown, and the working folder is
-- searched with a test (-name, -type, ...), not wholesale.
local function find_confined(find)
  if not find or find.name ~= FIND then return false end
  local tested, starts = false, {}
  for _, a in ipairs(find.args) do
    if FIND_TESTS[a.text] then tested = true end
    if #starts == 0 or starts.open then
      if a.text:find("^[-(!]") then starts.open = false else starts[#starts + 1] = a; starts.open = true end
    end
  end
  if #starts == 0 then starts[1] = { text = ".", pat = "." } end
  for _, s in ipairs(starts) do
    local where = shell.target(s)
    if where == "cwd" then
      if not tested then return false end
    elseif where then
      return false
    end
  end
  return true
end

-- wrecks reports whether a target word names one of the places in set; a
-- computed target is let through when it comes from a confined find or
-- mktemp.
local function wrecks(w, set)
  local where = shell.target(w)
  if where ~= "computed" then return set[where] == true end
  if w.producer then return not find_confined(w.producer) end
  if w.source == "subst" and w.subs and #w.subs == 1 and #w.subs[1] == 1 then
    local c = w.subs[1][1]
    return not (c.name == "mktemp" or find_confined(c))
  end
  return true
end

local function any_wrecks(words, set)
  for _, w in ipairs(words) do
    if wrecks(w, set) then return true end
  end
  return false
end

-- project_or_above reports whether a known path word names the project
-- (cwd, given as an absolute path: rm -rf /home/dev/project) or a folder
-- holding it (/home/dev), everything in it (a trailing /*) included.
local function project_or_above(w, cwd)
  if type(cwd) ~= "string" or cwd:sub(1, 1) ~= "/" then return false end
  local p = paths.word(w)
  if not p or w.glob and not p:find("/%*$") then return false end
  local abs = paths.resolve((p:gsub("/%*$", "")), cwd)
  return abs ~= nil and abs:sub(1, 1) == "/" and paths.inside(paths.clean(cwd), abs)
end

local function recursive_delete(c, cwd)
  if c.name == DELETE then
    local o = shell.options(c.args, RM)
    if not (o.flags.recursive or o.unknown) then return false end
    if any_wrecks(o.operands, WRECK) then return true end
    for _, w in ipairs(o.operands) do
      if project_or_above(w, cwd) then return true end
    end
    return false
  end
  if c.name == nil then
    -- an unknown program given a recursive flag and such a target
    local o = shell.options(c.args, RM)
    return o.flags.recursive and any_wrecks(o.operands, WRECK)
  end
  if c.name == FIND then
    for _, a in ipairs(c.args) do
      if a.text == "-delete" then return not find_confined(c) end
    end
  end
  return false
end

local function recursive_perms(c)
  if not PERMS[c.name or ""] then return false end
  local o = shell.options(c.args, CHMOD)
  if not (o.flags.recursive or o.unknown) then return false end
  local targets = {}
  for k = o.flags.reference and 1 or 2, #o.operands do targets[#targets + 1] = o.operands[k] end
  return any_wrecks(targets, WRECK_PERMS)
end

-- downloaded reports whether a word holds the output of a download.
local function downloaded(w)
  local hit = false
  if w then
    shell.producers(w, function(p) hit = hit or DOWNLOADERS[p.name or ""] == true end)
  end
  return hit
end

local function download_to_shell(c)
  local runs_code = c.name == nil or shell.interpreter(c.name) or c.name == "eval" or c.name == "source"
    or c.name == "."
  if not runs_code then return false end
  if c.reads_stdin or c.name == nil then
    local up = c.upstream
    while up do
      if DOWNLOADERS[up.name or ""] then return true end
      up = up.upstream
    end
  end
  if downloaded(c.script) or (c.name == nil and downloaded(c.word)) then return true end
  for _, a in ipairs(c.name == "eval" and c.args or {}) do
    if downloaded(a) then return true end
  end
  for _, r in ipairs(c.redirs) do
    if (r.op == "<<<" or r.op == "<") and downloaded(r.target) then return true end
  end
  return false
end

local function fork_bomb(c)
  return c.func ~= nil and c.word ~= nil and c.word.text == c.func and (c.pipe_in or c.pipe_out or c.bg) == true
end

local function formats_disk(c)
  local n = c.name or ""
  if FORMATTERS[n] then return true end
  for _, p in ipairs(FORMATTER_PREFIXES) do
    if n:sub(1, #p) == p then return true end
  end
  return false
end

local DEVICE_ITEMS = {}
for _, d in ipairs(DEVICES) do DEVICE_ITEMS[#DEVICE_ITEMS + 1] = shell.glob.items(d) end

-- device reports whether a word could name a disk device (a glob or an
-- unknown part included, a whole unknown word not).
local function device(w)
  if w.whole or not w.pat:find("^[/%z]") then return false end
  local items = shell.glob.items((w.pat:gsub("/%./", "/"):gsub("//+", "/")))
  for _, d in ipairs(DEVICE_ITEMS) do
    if shell.glob.meet(items, d) then return true end
  end
  return false
end

local function writes_disk(c)
  for _, r in ipairs(c.redirs) do
    if WRITE_REDIRS[r.op] and device(r.target) then return true end
  end
  local n = c.name
  for _, a in ipairs(c.args) do
    if n == DD then
      local of = a.text:match("^of=(.*)$")
      if of and device({ pat = a.pat:sub(4) }) then return true end
    elseif DISK_WRITERS[n or ""] and device(a) then
      return true
    end
  end
  return false
end

-- PROGRAMS: a command named otherwise, with nothing of its line left
-- unknown and no redirection, makes no check above true (download_to_shell
-- looks at the shells, interpreters, eval and source, which shell.quick
-- takes from shell.args itself).
local PROGRAMS = { re.quote(DELETE), re.quote(FIND), re.quote(DD) }
for _, set in ipairs({ PERMS, FORMATTERS, DISK_WRITERS }) do
  for n in pairs(set) do PROGRAMS[#PROGRAMS + 1] = re.quote(n) end
end
for _, p in ipairs(FORMATTER_PREFIXES) do PROGRAMS[#PROGRAMS + 1] = re.quote(p) .. "[^ /]*" end
table.sort(PROGRAMS)

return {
  PROGRAMS = PROGRAMS,
  recursive_delete = recursive_delete,
  recursive_perms = recursive_perms,
  download_to_shell = download_to_shell,
  fork_bomb = fork_bomb,
  formats_disk = formats_disk,
  writes_disk = writes_disk,
  wrecks = wrecks,
  project_or_above = project_or_above,
  DOWNLOADERS = DOWNLOADERS,
}
