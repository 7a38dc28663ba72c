-- Blocks shell commands that destroy data or hand the machine to the network.
-- A security policy: it still runs under --no-hooks (policy = true) and a
-- failure of this hook denies the call (failure_policy = "closed").
--
-- The command line is read by lib/shell.lua the way a shell reads it: quotes
-- and escapes removed, wrappers (sudo, env, xargs, timeout, ...) and paths
-- (/bin/rm) dropped, variables set on the line, brace expansion, $(…),
-- bash -c '…' and eval followed. Each rule below looks at one simple command.

local shell = require("shell")

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
local WRITE_REDIRS = { [">"] = true, [">>"] = true, [">|"] = true, ["<>"] = true, ["&>"] = true, ["&>>"] = true,
  [">&"] = true }
local PROTECTED_BRANCHES = { "main", "master" }

-- find_confined reports whether what a find yields stays inside the project:
-- its start folders are not / or home or unknown, and the working folder is
-- searched with a test (-name, -type, ...), not wholesale.
local function find_confined(find)
  if not find or find.name ~= "find" then return false end
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

local function recursive_delete(c)
  if c.name == "rm" then
    local o = shell.options(c.args, RM)
    return (o.flags.recursive or o.unknown) and any_wrecks(o.operands, WRECK)
  end
  if c.name == nil then
    -- an unknown program given a recursive flag and such a target
    local o = shell.options(c.args, RM)
    return o.flags.recursive and any_wrecks(o.operands, WRECK)
  end
  if c.name == "find" then
    for _, a in ipairs(c.args) do
      if a.text == "-delete" then return not find_confined(c) end
    end
  end
  return false
end

local function recursive_perms(c)
  if c.name ~= "chmod" and c.name ~= "chown" and c.name ~= "chgrp" then return false end
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
  return n:find("^mkfs") ~= nil or n == "mke2fs" or n == "mkswap" or n == "wipefs" or n:find("^newfs") ~= nil
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
    if n == "dd" then
      local of = a.text:match("^of=(.*)$")
      if of and device({ pat = a.pat:sub(4) }) then return true end
    elseif (n == "tee" or n == "cp" or n == "mv" or n == "install" or n == "shred" or n == "blkdiscard")
      and device(a) then
      return true
    end
  end
  return false
end

local GIT_GLOBAL = { short_arg = { C = "C", c = "c" }, long_arg = { "git-dir", "work-tree", "namespace",
  "super-prefix", "config-env", "exec-path", "list-cmds" }, posix = true }
local PUSH = { short = { f = "force", d = "delete" }, short_arg = { o = "push-option" },
  long = { "force", "force-with-lease", "force-if-includes", "delete", "mirror", "all", "branches", "tags",
    "set-upstream", "dry-run", "porcelain", "prune", "follow-tags", "atomic", "no-atomic", "verify", "no-verify",
    "quiet", "verbose", "progress", "no-force-with-lease", "thin", "no-thin", "ipv4", "ipv6", "signed", "no-signed" },
  long_arg = { "repo", "push-option", "receive-pack", "exec", "recurse-submodules" } }

-- protected reports whether a ref (a word's pattern) could be main or master.
local function protected(pat)
  pat = pat:gsub("^refs/heads/", "")
  for _, b in ipairs(PROTECTED_BRANCHES) do
    if shell.glob.could_match(pat, b) then return true end
  end
  return false
end

local function force_push_main(c)
  if c.name ~= "git" then return false end
  local g = shell.options(c.args, GIT_GLOBAL)
  local sub = g.operands[1]
  if not sub or (sub.text ~= "push" and not sub.unknown) then return false end
  local rest = {}
  for k = 2, #g.operands do rest[#rest + 1] = g.operands[k] end
  local o = shell.options(rest, PUSH)
  local f = o.flags
  local force = f.force or f["force-with-lease"] or f["force-if-includes"] or o.unknown
  if force and (f.all or f.mirror or f.branches) then return true end
  for k = 2, #o.operands do
    local w = o.operands[k]
    local pat = w.pat
    local plus = pat:sub(1, 1) == "+"
    if plus then pat = pat:sub(2) end
    local dst = pat:match(":([^:]*)$") or pat
    local delete = f.delete or pat:sub(1, 1) == ":"
    if (force or plus or delete) and protected(dst) then return true end
  end
  return false
end

local rules = {
  { check = recursive_delete, why = "recursive delete of /, ~, * or an unknown folder" },
  { check = fork_bomb, why = "fork bomb" },
  { check = download_to_shell, why = "piping a download into a shell" },
  { check = formats_disk, why = "formatting a file system" },
  { check = writes_disk, why = "writing raw to a disk device" },
  { check = recursive_perms, why = "recursive change of the permissions of /, ~ or an unknown folder" },
  { check = force_push_main, why = "force-pushing to main or deleting it" },
}

local function deny(why)
  log.warn("blocked a dangerous command", { rule = why })
  return hook.deny("dangerous command blocked: " .. why ..
    ". If this is really intended, ask the user to run it themselves.")
end

hook.register("PreToolUse", "bash", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" then
    return nil
  end
  local cmds, err = shell.parse(cmd)
  for _, c in ipairs(cmds) do
    for _, rule in ipairs(rules) do
      if rule.check(c) then return deny(rule.why) end
    end
  end
  if err then
    return deny("the command could not be checked: " .. err)
  end
end, {
  name = "dangerous-commands",
  stage = "validate",
  timeout_ms = 1000,
  failure_policy = "closed",
  policy = true,
})
