-- git: a git command line (a shell.parse command) read the way git reads
-- it, for policies about pushes, branches and the work tree.
--
--   local git = require("git")
--   local g = git.parse(cmd)        -- nil unless cmd runs git
--   -- g.sub: the subcommand word ("push"), g.args: the words after it,
--   -- g.config: the values of -c/--config-env ("core.hooksPath=/dev/null")
--   if g and g.sub.text == "push" then
--     local p = git.push(g)         -- flags, refspecs
--   end
--   git.protected("refs/heads/main", { "main", "release/*" }) --> true
--
-- A subcommand word whose value is unknown ($X) has sub.unknown set: a
-- policy should treat it as any subcommand.

local shell = require("shell")

local M = {}

-- PROGRAMS: the RE2 alternatives of the program names parse and
-- force_push_protected look at (shell.quick).
local GIT = "git"
M.PROGRAMS = { re.quote(GIT) }

local GLOBAL = { short_arg = { C = "C", c = "c" }, long_arg = { "git-dir", "work-tree", "namespace",
  "super-prefix", "config-env", "exec-path", "list-cmds" }, posix = true }

-- parse returns the git invocation cmd makes, or nil.
function M.parse(cmd)
  if cmd.name ~= GIT then return nil end
  local o = shell.options(cmd.args, GLOBAL)
  local sub = o.operands[1]
  if not sub then return nil end
  local config = {}
  for k, a in ipairs(cmd.args) do
    if a == sub then break end
    local t = a.text
    if (t == "-c" or t == "--config-env") and cmd.args[k + 1] then
      config[#config + 1] = cmd.args[k + 1].text
    elseif t:find("^%-c.") then
      config[#config + 1] = t:sub(3)
    elseif t:find("^%-%-config%-env=") then
      config[#config + 1] = t:sub(14)
    end
  end
  local args = {}
  for k = 2, #o.operands do args[#args + 1] = o.operands[k] end
  return { sub = sub, args = args, config = config, unknown = o.unknown }
end

-- is reports whether g runs subcommand name (or an unknown one).
function M.is(g, name)
  return g ~= nil and (g.sub.text == name or g.sub.unknown == true)
end

local PUSH = { short = { f = "force", d = "delete", n = "dry-run" }, short_arg = { o = "push-option" },
  long = { "force", "force-with-lease", "force-if-includes", "delete", "mirror", "all", "branches", "tags",
    "set-upstream", "dry-run", "porcelain", "prune", "follow-tags", "atomic", "no-atomic", "verify", "no-verify",
    "quiet", "verbose", "progress", "no-force-with-lease", "thin", "no-thin", "ipv4", "ipv6", "signed", "no-signed" },
  long_arg = { "repo", "push-option", "receive-pack", "exec", "recurse-submodules" } }

-- push reads a push: { flags, remote = word, refs = { { dst = pattern,
-- plus = bool, delete = bool, word = word } }, force = true when any force
-- flag (or an unknown option) is given, lease = only --force-with-lease }.
function M.push(g)
  local o = shell.options(g.args, PUSH)
  local f = o.flags
  local p = { flags = f, remote = o.operands[1], refs = {} }
  p.force = (f.force or f["force-with-lease"] or f["force-if-includes"] or o.unknown) and true or false
  p.lease = p.force and not f.force and not o.unknown and f["force-with-lease"] ~= nil
  p.all = (f.all or f.mirror or f.branches) and true or false
  for k = 2, #o.operands do
    local w = o.operands[k]
    local pat = w.pat
    local plus = pat:sub(1, 1) == "+"
    if plus then pat = pat:sub(2) end
    local dst = pat:match(":([^:]*)$") or pat
    p.refs[#p.refs + 1] = { dst = dst, plus = plus, delete = f.delete or pat:sub(1, 1) == ":", word = w }
  end
  return p
end

-- protected reports whether a ref pattern (a word's pat) could name one
-- of branches, which are globs ("release/*").
function M.protected(pat, branches)
  pat = pat:gsub("^refs/heads/", "")
  for _, b in ipairs(branches) do
    if shell.glob.meet(shell.glob.items(pat), shell.glob.items(b)) then return true end
  end
  return false
end

-- force_push_protected reports whether cmd force-pushes to, or deletes,
-- one of branches (or force-pushes every branch).
function M.force_push_protected(cmd, branches)
  if cmd.name ~= GIT then return false end
  -- the common case (a git command that is not a push) builds nothing more
  local sub = shell.options(cmd.args, GLOBAL).operands[1]
  if not sub or (sub.text ~= "push" and not sub.unknown) then return false end
  local g = M.parse(cmd)
  local p = M.push(g)
  if p.force and p.all then return true end
  for _, r in ipairs(p.refs) do
    if (p.force or r.plus or r.delete) and M.protected(r.dst, branches) then return true end
  end
  return false
end

return M
