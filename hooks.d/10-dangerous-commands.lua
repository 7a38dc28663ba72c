-- Blocks shell commands that destroy data or hand the machine to the network.
-- A security policy: it still runs under --no-hooks (policy = true) and a
-- failure of this hook denies the call (failure_policy = "closed").
--
-- The command line is read by lib/shell.lua the way a shell reads it: quotes
-- and escapes removed, wrappers (sudo, env, xargs, timeout, ...) and paths
-- (/bin/rm) dropped, variables set on the line, brace expansion, $(…),
-- bash -c '…' and eval followed. Each rule below looks at one simple command.

local shell = require("shell")
local danger = require("danger")
local git = require("git")

local PROTECTED_BRANCHES = { "main", "master" }

local function force_push_main(c)
  return git.force_push_protected(c, PROTECTED_BRANCHES)
end

local rules = {
  { check = danger.recursive_delete, why = "recursive delete of /, ~, * or an unknown folder" },
  { check = danger.fork_bomb, why = "fork bomb" },
  { check = danger.download_to_shell, why = "piping a download into a shell" },
  { check = danger.formats_disk, why = "formatting a file system" },
  { check = danger.writes_disk, why = "writing raw to a disk device" },
  { check = danger.recursive_perms, why = "recursive change of the permissions of /, ~ or an unknown folder" },
  { check = force_push_main, why = "force-pushing to main or deleting it" },
}

-- A line of plain words that runs none of the programs the rules or the
-- parser look at is allowed without parsing it (shell.quick): the common
-- case, a build or a test, costs two regular-expression matches.
local quick = shell.quick({ programs = { danger.PROGRAMS, git.PROGRAMS } })

local function deny(why)
  log.warn("blocked a dangerous command", { rule = why })
  return hook.deny("dangerous command blocked: " .. why ..
    ". If this is really intended, ask the user to run it themselves.")
end

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" or quick(cmd) then
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
