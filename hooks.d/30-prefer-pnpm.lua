-- This repository uses pnpm: rewrite npm commands into their pnpm form instead
-- of letting the agent create a package-lock.json. A mutate-stage hook: the
-- validators (and the tool's schema) see the rewritten command.
--
-- Rewritten, in each command of a chain (cd web && npm install, a ; b,
-- a || b) up to the first one with an expansion, a pipe or a redirection,
-- which is left as it is with all that follows:
--   npm install, npm i             pnpm install
--   npm install X, npm i -D X      pnpm add X, pnpm add -D X (-D -E -O -P
--                                  and their long forms only)
--   npm ci                         pnpm install --frozen-lockfile
--   npm run NAME [--] ARGS         pnpm run NAME ARGS (pnpm passes a "--"
--                                  on to the script: it is dropped)
--   npx [--yes|-y] X ARGS          pnpm dlx X ARGS
-- Left alone, because pnpm would not mean the same: a global install
-- (-g, --global, --location=global: it does not touch the project), any
-- other option (--legacy-peer-deps, npm run --silent, npx -p), and
-- everything else npm does (npm test, npm publish, npm --version).
--
-- What it looks at: it rewrites only when the nearest folder holding a
-- lockfile, from the payload's cwd (and the folder a leading "cd DIR &&"
-- moves to) upwards, holds pnpm-lock.yaml and no other package manager's
-- lockfile (package-lock.json, npm-shrinkwrap.json, yarn.lock, bun.lock,
-- bun.lockb). A project with no lockfile, one of npm's, or a call with no
-- cwd is left alone: rewriting npm in an npm project would break it.
-- By default it looks through the fs module, which reaches the project
-- folder (the cwd) and nothing above it: a lockfile in a folder above the
-- cwd is not seen, and the command is left alone. Where the config grants
-- the io library (luahook.toml: [lua] allow_libs = ["io"]) it also climbs
-- above the cwd, as far as the file system's root.

-- io when the config grants it (rawget: reading an absent global is a lint
-- warning), nil in the default sandbox.
local IO = rawget(_G, "io")

-- LOCKFILES: each lockfile and the package manager that writes it.
local LOCKFILES = { ["pnpm-lock.yaml"] = "pnpm", ["package-lock.json"] = "npm", ["npm-shrinkwrap.json"] = "npm",
  ["yarn.lock"] = "yarn", ["bun.lock"] = "bun", ["bun.lockb"] = "bun" }

-- nearest_is_pnpm reports whether, from folder dir up to folder top, the
-- nearest folder holding a lockfile holds pnpm's and no other; exists(path)
-- says whether a file is there. At most 64 folders up.
local function nearest_is_pnpm(dir, top, exists)
  for _ = 1, 64 do
    local found, any = {}, false
    for name, manager in pairs(LOCKFILES) do
      if exists(dir == "." and name or dir .. "/" .. name) then
        found[manager] = true
        any = true
      end
    end
    if any then return found.pnpm == true and not (found.npm or found.yarn or found.bun) end
    if dir == top then return false end
    dir = dir:match("^(.*)/[^/]*$") or top
  end
  return false
end

-- opens reports whether the io library opens path for reading.
local function opens(path)
  local f = IO.open(path, "r")
  if not f then return false end
  f:close()
  return true
end

-- uses_pnpm reports whether the project around folder dir (an absolute
-- path) uses pnpm by its lockfiles, through io, up to the file system's
-- root. Paths of at most 4 KiB.
local function uses_pnpm(dir)
  if type(dir) ~= "string" or dir:sub(1, 1) ~= "/" or #dir > 4096 or dir:find("%z") then return false end
  return nearest_is_pnpm(dir:gsub("/+$", ""), "", opens)
end

-- uses_pnpm_here reports the same through the fs module, for dir a folder
-- relative to the payload's cwd ("." is the cwd): from dir up to the cwd,
-- never above it. Anything fs refuses or cannot answer (no cwd, a cd that
-- leaves the project) is false.
local function uses_pnpm_here(dir)
  local ok, yes = pcall(nearest_is_pnpm, dir, ".", fs.exists)
  return ok and yes == true
end

-- join returns the folder "cd target" moves to from dir, or nil when the
-- line does not show it (~, -, a variable: those words are never plain).
local function join(dir, target)
  if not dir or target == "" or target:find("^[~%-]") then return nil end
  if target:sub(1, 1) == "/" then return target end
  return dir .. "/" .. target
end

local SAVE = { ["-D"] = true, ["--save-dev"] = true, ["-E"] = true, ["--save-exact"] = true, ["-O"] = true,
  ["--save-optional"] = true, ["-P"] = true, ["--save-prod"] = true }

-- rewrite returns the pnpm form of one command's words, or nil.
local function rewrite(w)
  local prog, sub = w[1], w[2]
  if prog == "npm" then
    if sub == "install" or sub == "i" or sub == "add" then
      local pkgs = 0
      for k = 3, #w do
        if w[k]:sub(1, 1) == "-" then
          if not SAVE[w[k]] then return nil end
        else
          pkgs = pkgs + 1
        end
      end
      if pkgs == 0 then return #w == 2 and "pnpm install" or nil end
      return "pnpm add " .. table.concat(w, " ", 3)
    elseif sub == "ci" and #w == 2 then
      return "pnpm install --frozen-lockfile"
    elseif sub == "run" or sub == "run-script" then
      if #w == 2 then return "pnpm run" end
      if w[3]:sub(1, 1) == "-" then return nil end
      local out = { "pnpm", "run", w[3] }
      for k = 4, #w do
        if not (k == 4 and w[k] == "--") then out[#out + 1] = w[k] end
      end
      return table.concat(out, " ")
    end
    return nil
  elseif prog == "npx" then
    local k = 2
    if w[k] == "--yes" or w[k] == "-y" then k = k + 1 end
    if not w[k] or w[k]:sub(1, 1) == "-" then return nil end
    return "pnpm dlx " .. table.concat(w, " ", k)
  end
  return nil
end

-- words splits a plain command (see segments) at blanks, quotes kept.
local function words(text)
  local out = {}
  local pos = 1
  while pos <= #text do
    local s = text:find("[^ \t]", pos)
    if not s then break end
    local e = s
    while e <= #text and not text:sub(e, e):find("[ \t]") do
      local q = text:sub(e, e)
      if q == "'" or q == '"' then
        e = text:find(q, e + 1, true) or #text
      end
      e = e + 1
    end
    out[#out + 1] = text:sub(s, e - 1)
    pos = e
  end
  return out
end

-- segments splits the head of a line into plain commands and the
-- separators between them (&&, ||, ;): { text, sep } each. A command is
-- plain when the shell reads it as words (quotes with no $, ` or \ in
-- them allowed); the first one that is not, and all after it, are the
-- returned rest, kept as written.
local function segments(line)
  local out = {}
  local start, k, n = 1, 1, #line
  while k <= n do
    local ch = line:sub(k, k)
    if ch == "'" then
      local e = line:find("'", k + 1, true)
      if not e then break end
      k = e + 1
    elseif ch == '"' then
      local e = line:find('"', k + 1, true)
      if not e or line:sub(k + 1, e - 1):find("[$`\\]") then break end
      k = e + 1
    elseif line:sub(k, k + 1) == "&&" or line:sub(k, k + 1) == "||" then
      out[#out + 1] = { text = line:sub(start, k - 1), sep = line:sub(k, k + 1) }
      k = k + 2
      start = k
    elseif ch == ";" then
      out[#out + 1] = { text = line:sub(start, k - 1), sep = ";" }
      k = k + 1
      start = k
    elseif ch:find("[$`\\|&<>()\n\r#{}]") then
      break
    else
      k = k + 1
    end
  end
  if k > n then
    out[#out + 1] = { text = line:sub(start), sep = "" }
    return out, ""
  end
  return out, line:sub(start)
end

-- A line names npm or npx as a word, or the hook has nothing to do: one
-- match rules out the rest.
local ANY = [[(?:^|[ ;&|(])np[mx](?:$|[ ;&|)])]]

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" or not re.match(ANY, cmd) then return nil end
  local segs, rest = segments(cmd)
  -- dir: the folder the command runs in, absolute with io, else relative
  -- to the cwd (fs reaches nothing else); nil when the line does not show it.
  local dir = "."
  if IO then
    dir = input.cwd
    if type(dir) ~= "string" then dir = nil end
  end
  local out, changed = {}, false
  for _, s in ipairs(segs) do
    local w = words(s.text)
    local new = rewrite(w)
    if new and not dir then
      new = nil
    elseif new and IO then
      if not uses_pnpm(dir) then new = nil end
    elseif new and not uses_pnpm_here(dir) then
      new = nil
    end
    if new then
      local lead, trail = s.text:match("^([ \t]*)"), s.text:match("([ \t]*)$")
      out[#out + 1] = lead .. new .. trail .. s.sep
      changed = true
    else
      out[#out + 1] = s.text .. s.sep
    end
    if w[1] == "cd" and #w == 2 and not w[2]:find("[\"']") then
      dir = join(dir, w[2])
    elseif w[1] == "cd" then
      dir = nil
    end
  end
  if not changed then return nil end
  -- The input table is this call's own copy: change the command, keep the
  -- rest. (tostring: a value the reuse analysis knows to be no table may be
  -- written into the input, which then keeps its tables for the next call.)
  args.command = tostring(table.concat(out) .. rest)
  return hook.mutate(args, "this repository uses pnpm")
end, { name = "prefer-pnpm", stage = "mutate" })
