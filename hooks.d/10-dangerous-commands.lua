-- Blocks shell commands that destroy data or hand the machine to the network.
-- A security policy: it still runs under --no-hooks (policy = true) and a
-- failure of this hook denies the call (failure_policy = "closed").
--
-- The command line is read by lib/shell.lua the way a shell reads it: quotes
-- and escapes removed, wrappers (sudo, env, xargs, timeout, ...) and paths
-- (/bin/rm) dropped, variables set on the line, brace expansion, $(…),
-- bash -c '…' and eval followed. Each rule below looks at one simple command.
-- A line the shell cannot parse (a quote left open: 'rm -rf ~), or such
-- a script it hands to a shell, is denied after the rules [rule parse].
--
-- A PowerShell line (the PowerShell tool's command, pwsh -c / powershell
-- -Command / -EncodedCommand in a shell line, or a line of another shell
-- tool that reads as PowerShell) is read by lib/pwsh.lua, and the
-- PowerShell forms of the same rules are denied: Remove-Item -Recurse of
-- C:\, ~ or the project, iwr … | iex, Format-Volume and Clear-Disk.

local shell = require("shell")
local danger = require("danger")
local git = require("git")
local pwsh = require("pwsh")

local PROTECTED_BRANCHES = { "main", "master" }

local function force_push_main(c)
  return git.force_push_protected(c, PROTECTED_BRANCHES)
end

-- recursive_delete judges what find does itself, not the words of the
-- commands its -exec actions run (find . -exec echo -delete \; deletes
-- nothing).
local function recursive_delete(c, cwd)
  return danger.recursive_delete(shell.find_own(c), cwd)
end

local rules = {
  { check = recursive_delete, why = "recursive delete of /, ~, * or an unknown folder" },
  { check = danger.fork_bomb, why = "fork bomb" },
  { check = danger.download_to_shell, why = "piping a download into a shell" },
  { check = danger.formats_disk, why = "formatting a file system" },
  { check = danger.writes_disk, why = "writing raw to a disk device" },
  { check = danger.recursive_perms, why = "recursive change of the permissions of /, ~ or an unknown folder" },
  { check = force_push_main, why = "force-pushing to main or deleting it" },
}

local pwsh_rules = {
  { check = pwsh.recursive_delete, why = "recursive delete of /, ~, * or an unknown folder" },
  { check = pwsh.download_to_shell, why = "piping a download into a shell" },
  { check = pwsh.formats_disk, why = "formatting a file system" },
}

-- A line of plain words that runs none of the programs the rules or the
-- parser look at is allowed without parsing it (shell.quick): the common
-- case, a build or a test, costs two regular-expression matches. The
-- cmdlets that mark a PowerShell line, and powershell.exe, stop it too.
-- Of git only a push is judged (force_push_main): a plain git line
-- without the word push anywhere (git status, git diff) is quick too.
local quick = shell.quick({ programs = { danger.PROGRAMS, pwsh.PROGRAMS,
  { "pwsh\\.exe", "powershell\\.exe" } }, words = "push" })

-- The tool names of PowerShell tools (Claude Code's, Copilot's).
local PWSH_TOOLS = { PowerShell = true, powershell = true, Powershell = true, pwsh = true }

local function deny(why)
  log.warn("blocked a dangerous command", { rule = why })
  return hook.deny("dangerous command blocked: " .. why ..
    ". If this is really intended, ask the user to run it themselves.")
end

-- judge_pwsh judges a PowerShell line (pwsh.parse reads the powershell -c
-- inside it).
local function judge_pwsh(line)
  local cmds, err = pwsh.parse(line)
  for _, c in ipairs(cmds) do
    for _, rule in ipairs(pwsh_rules) do
      if rule.check(c) then return deny(rule.why) end
    end
  end
  if err then
    return deny("the PowerShell command could not be checked: " .. err)
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  -- A quick line is one command of plain words whose program is none of
  -- the rules' (the PowerShell cmdlets and aliases among them): harmless
  -- read as PowerShell too, so the quick path serves both.
  if type(cmd) ~= "string" or quick(cmd) then
    return nil
  end
  if PWSH_TOOLS[input.toolName] then
    return judge_pwsh(cmd)
  end
  local cmds, err, bad = shell.parse(cmd)
  for _, c in ipairs(cmds) do
    for _, rule in ipairs(rules) do
      if rule.check(c) then return deny(rule.why) end
    end
    if pwsh.CMD[c.name or ""] then
      local ws, cerr = pwsh.cmd(c.args)
      for _, x in ipairs(ws) do
        for _, rule in ipairs(pwsh_rules) do
          if rule.check(x) then return deny(rule.why) end
        end
      end
      if cerr then return deny("the command could not be checked: " .. cerr) end
    end
    if pwsh.HOSTS[c.name or ""] then
      local inv = pwsh.invocation(c.args)
      if inv.code then
        local r = judge_pwsh(inv.code)
        if r then return r end
      elseif inv.bad then
        return deny("the command could not be checked: a PowerShell -EncodedCommand that is not base64 text")
      end
    end
  end
  if err then
    return deny("the command could not be checked: " .. err)
  end
  -- A line the shell cannot parse (a quote, $(…) or `…` left open, a |
  -- with nothing after it), or such a script it hands to a shell (bash -c
  -- "'rm -rf ~"): bash runs none of it, but the reader closes the quote at
  -- the end to read the rest, and a shell that reads it otherwise may run
  -- what was not judged. In a Windows folder a shell tool may run
  -- PowerShell, whose escape is the backquote: a line there that holds
  -- one, or reads as PowerShell, is left to the PowerShell reading.
  if bad and not (type(input.cwd) == "string" and input.cwd:find("^%a:[\\/]")
      and (cmd:find("`", 1, true) or pwsh.looks(cmd))) then
    log.warn("blocked a command line that cannot be parsed", { rule = "parse" })
    return hook.deny("a command line that cannot be parsed (" .. bad .. ") runs nothing in bash, and another " ..
      "shell may read it otherwise than luahook did; close the quote or bracket, or finish the command, and send " ..
      "it again [rule parse].")
  end
  if pwsh.looks(cmd) then
    -- a PowerShell line a tool of another name runs (Cursor's Shell on
    -- Windows): judged as PowerShell too
    return judge_pwsh(cmd)
  end
end, {
  name = "dangerous-commands",
  stage = "validate",
  timeout_ms = 1000,
  failure_policy = "closed",
  policy = true,
})
