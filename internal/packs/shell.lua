-- shell: stops shell commands that wreck the machine, the home folder or the project, or hide what was done
--
-- What it stops, in any command a shell tool (@shell) runs, however it is
-- spelled (quotes, escapes, sudo/env/xargs/timeout wrappers, chains,
-- $(…), sh -c '…', eval; read by lib/shell.lua):
--   - a recursive delete of /, ~, the project itself, an unknown folder
--     ($X/*) or a computed list ($(…), xargs), and a recursive delete
--     of any folder outside the project (but SETTINGS.scratch);
--   - chmod that makes files writable by everyone (777, 666, o+w, a+w),
--     and chmod/chown/chgrp -R of /, ~ or an unknown folder;
--   - mkfs and friends, dd of=/dev/sdX and other raw writes to disks;
--   - fork bombs;
--   - a download piped or substituted into a shell (curl … | sh);
--   - tampering with shell history (history -c, unset HISTFILE,
--     HISTFILE=/dev/null, deleting or overwriting ~/.bash_history) and
--     with shell start-up files (~/.bashrc, ~/.zshrc, ~/.profile,
--     /etc/profile, …) which would run code in every later shell.
-- Why: each is irreversible or hides the agent's actions from the user.
-- The reason tells the agent the narrower command to run instead.
--
-- Settings (SETTINGS below):
--   scratch        folders outside the project where recursive deletes
--                  are fine ({ "/tmp", "/var/tmp" })
--   history_files  history files, by name (any folder)
--   startup_files  shell start-up files, by name or path (glob rules of
--                  shell.glob.rules: "name", "dir/name", "dir/")
--
-- What it cannot know: the project is the payload's cwd (a command run
-- from a subfolder treats the rest of the repository as outside); paths
-- are judged as written, so a symbolic link inside the project that leads
-- out of it is not followed; a script file the command runs (./x.sh) is
-- not read. A command the parser cannot read within its limits is denied.

local shell = require("shell")
local danger = require("danger")
local paths = require("paths")

local SETTINGS = {
  scratch = { "/tmp", "/var/tmp" },
  history_files = { ".bash_history", ".zsh_history", ".history", ".sh_history", "fish_history",
    ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".lesshst" },
  startup_files = { ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", "fish/config.fish", "fish/conf.d/",
    "etc/profile", "etc/profile.d/", "etc/bash.bashrc", "etc/bashrc", "etc/zshrc", "etc/zsh/", "etc/environment" },
}

local HISTORY = shell.glob.rules(SETTINGS.history_files)
local STARTUP = shell.glob.rules(SETTINGS.startup_files)

local RM = { short = { r = "recursive", R = "recursive", f = "force" },
  long = { "recursive", "force", "dir", "interactive", "one-file-system", "no-preserve-root", "preserve-root",
    "verbose", "help", "version" } }

-- outside reports whether a path word names a place outside the project
-- and the scratch folders; a word with an unknown part is not judged here
-- (danger.recursive_delete judges those).
local function outside(w, cwd)
  -- $(pwd)/.. and $X/../..: wherever it is, it climbs out
  if w.unknown and (w.pat .. "/"):find("/%.%./") then return true end
  local p = paths.word(w)
  if not p then return false end
  local abs = paths.resolve((p:gsub("/%*$", "")), cwd)
  if not abs then return false end
  if abs:sub(1, 1) == "~" then return true end
  if paths.inside(abs, cwd) then return false end
  for _, s in ipairs(SETTINGS.scratch) do
    if paths.inside(abs, s) and abs ~= paths.clean(s) then return false end
  end
  return true
end

local function delete_outside(c, cwd)
  if c.name ~= "rm" and c.name ~= "rmdir" and c.name ~= "shred" then return false end
  local o = shell.options(c.args, RM)
  if c.name == "rm" and not (o.flags.recursive or o.unknown) then return false end
  for _, w in ipairs(o.operands) do
    if outside(w, cwd) then return true end
  end
  return false
end

-- world_writable reports whether a chmod mode word gives everyone write.
local function world_writable(mode)
  local oct = mode:match("^[0-7]?[0-7]?([0-7][0-7][0-7])$")
  if oct then
    local other = tonumber(oct:sub(3, 3))
    return other == 2 or other == 3 or other == 6 or other == 7
  end
  for clause in mode:gmatch("[^,]+") do
    local who, op, perm = clause:match("^([ugoa]*)([+=])([rwxXst]*)$")
    if who and perm:find("w") and (who:find("[oa]") or (who == "" and op == "=")) then return true end
  end
  return false
end

local function chmod_open(c)
  if c.name ~= "chmod" then return false end
  for _, a in ipairs(c.args) do
    if not a.unknown and (a.text:find("^[0-7]+$") or a.text:find("^[ugoa]*[+=-]")) and world_writable(a.text) then
      return true
    end
  end
  return false
end

local HISTORY_SET = { HISTFILE = true, HISTSIZE = true, HISTFILESIZE = true, HISTCONTROL = true, HISTIGNORE = true,
  SAVEHIST = true }

local function history(c)
  local n = c.name
  if n == "history" then
    for _, a in ipairs(c.args) do
      if a.text:find("^%-[^-]*[cdw]") then return true end
    end
  elseif n == "unset" or n == "export" or n == "declare" or n == "typeset" or n == "readonly" or n == "local" then
    for _, a in ipairs(c.args) do
      if HISTORY_SET[a.text:match("^([%w_]+)") or ""] then return true end
    end
  elseif n == "set" then
    for k, a in ipairs(c.args) do
      if a.text == "+o" and c.args[k + 1] and c.args[k + 1].text == "history" then return true end
    end
  end
  for _, w in ipairs(paths.writes(c)) do
    if shell.glob.could_touch(w.pat, HISTORY) then return true end
  end
  if n == "rm" or n == "shred" or n == "unlink" or n == "ln" then
    for _, a in ipairs(c.args) do
      if shell.glob.could_touch(a.pat, HISTORY) then return true end
    end
  end
  return false
end

local function startup(c, cwd)
  local words = paths.writes(c)
  if c.name == "rm" or c.name == "unlink" or c.name == "shred" then
    for _, a in ipairs(c.args) do words[#words + 1] = a end
  end
  for _, w in ipairs(words) do
    if shell.glob.could_touch(w.pat, STARTUP) then
      -- a dotfiles repository's own copy is the project's business
      local p = paths.word(w)
      local abs = p and paths.resolve(p, cwd)
      if not (abs and abs:sub(1, 1) == "/" and paths.inside(abs, cwd)) then return true end
    end
  end
  return false
end

local rules = {
  { check = danger.recursive_delete, why = "a recursive delete of /, ~, the whole project or an unknown folder",
    instead = "delete the files or folders you mean by name, inside the project" },
  { check = delete_outside, why = "a recursive delete outside the project",
    instead = "delete only inside the project; ask the user to clean up elsewhere" },
  { check = chmod_open, why = "making files writable by everyone",
    instead = "use 755 for folders and programs, 644 for files, or u+w" },
  { check = danger.recursive_perms, why = "a recursive permission change of /, ~ or an unknown folder",
    instead = "change the permissions of the files you mean, inside the project" },
  { check = danger.formats_disk, why = "formatting a file system", instead = "ask the user to do it" },
  { check = danger.writes_disk, why = "writing raw to a disk device", instead = "write to a file instead" },
  { check = danger.fork_bomb, why = "a fork bomb", instead = "do not run it" },
  { check = danger.download_to_shell, why = "running a download as a script (curl … | sh)",
    instead = "download the script to a file, show it to the user, and run it only once they agree" },
  { check = history, why = "tampering with the shell history",
    instead = "leave the history alone; the user reviews it" },
  { check = startup, why = "changing a shell start-up file",
    instead = "tell the user which line to add to their shell profile" },
}

local function deny(why, instead)
  return hook.deny("shell pack: blocked " .. why .. "; " .. instead .. ".")
end

hook.register("PreToolUse", "@shell", function(input)
  local line = shell.command(input.toolInput)
  if not line then return nil end
  local cwd = input.cwd
  if line:find("HIST[%u]*%s*=") and re.match([[(^|[\s;&|(])(HISTFILE|HISTSIZE|HISTFILESIZE|SAVEHIST)=]], line) then
    return deny("tampering with the shell history", "leave the history alone; the user reviews it")
  end
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    for _, r in ipairs(rules) do
      if r.check(c, cwd) then return deny(r.why, r.instead) end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
end, { name = "pack-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
