-- shell: stops shell/PowerShell commands that wreck the machine, home or project, or hide what was done; asks on computed scripts
--
-- What it stops, in any command a shell tool (@shell) runs, however it is
-- spelled (quotes, escapes, sudo/env/xargs/timeout wrappers, chains,
-- $(…), sh -c '…', eval; read by lib/shell.lua), and in PowerShell: a
-- PowerShell tool's command, and pwsh -c / powershell -Command /
-- -EncodedCommand in a shell line (read by lib/pwsh.lua: aliases,
-- parameters by prefix, script blocks, Start-Process, cmd /c rd):
--   - a recursive delete of /, ~, the project itself (., $PWD or its
--     absolute path) or a folder that holds it, an unknown folder
--     ($X/*) or a computed list ($(…), xargs, find -exec rm of the whole
--     project), and a recursive delete of any folder outside the project
--     (but inside SETTINGS.scratch; $TMPDIR is the first of them, and
--     inside the home folder's caches, SETTINGS.home_scratch), a
--     scratch folder itself included; and an rm of every file a pattern
--     matches outside them (rm -f /var/data/*, perl unlink glob "/x/*");
--   - moving away /, a folder right below it, ~ or the project (mv ~
--     /tmp/x, mv /home/dev/project /dev/null), and moving anything onto a
--     device file (mv x /dev/null replaces /dev/null); in PowerShell
--     Remove-Item -Recurse of C:\, ~, $env:USERPROFILE, the project or a
--     folder outside it;
--   - rsync --delete (--del, --delete-before, --delete-excluded, …) into
--     a destination outside the project (another host's included) or a
--     scratch folder itself, and rsync --remove-source-files of sources
--     outside it;
--   - chmod that makes files writable by everyone (777, 666, o+w, a+w),
--     and chmod/chown/chgrp -R of /, ~ or an unknown folder;
--   - mkfs and friends (but of an image file inside the project: mkfs.ext4
--     -F ./rootfs.img), dd of=/dev/sdX and other raw writes to disks;
--   - fork bombs [rule fork-bomb]: the shell's (:(){ :|:& };:) and an
--     interpreter's one-liner forking in a loop with no exit, wait or
--     sleep (perl -e 'fork while fork', ruby -e 'loop { fork }');
--   - filling the disk [rule disk-fill]: a file larger than 10 GiB
--     (fallocate -l 100G, dd bs×count, head -c 500G), an endless stream
--     into a file (yes > f, cat /dev/zero > f, dd if=/dev/zero with no
--     count); truncate -s makes a sparse file and passes;
--   - an endless loop that makes something on every turn, with no break,
--     exit, sleep, read or wait [rule endless-loop] (while true; do mkdir
--     x; cd x; done);
--   - a download piped or substituted into a shell (curl … | sh, iwr … |
--     iex, iex (New-Object Net.WebClient).DownloadString(…));
--   - Format-Volume, Clear-Disk, Remove-Partition; Set-ExecutionPolicy
--     Unrestricted or Bypass beyond -Scope Process;
--   - tampering with shell history (history -c, unset HISTFILE,
--     HISTFILE=/dev/null, deleting or overwriting ~/.bash_history,
--     Clear-History, PSReadLine's history file) and with shell start-up
--     files (~/.bashrc, ~/.zshrc, ~/.profile, /etc/profile, $PROFILE, …)
--     which would run code in every later shell;
--   - a line the shell cannot parse [rule parse] (a quote, $(…), `…`,
--     ${…} or ( left open, a | or && with no command after it), and such
--     a script that a line hands to a shell (bash -c "'rm -rf ~", eval,
--     `…`, a here-document or a pipe into sh, python -c's os.system,
--     osascript's do shell script): bash runs none of it, but the reader
--     closes the quote at the end to read the rest, and a shell that reads
--     it otherwise may run what was not judged (SETTINGS.unreadable). One
--     whose every reading runs only programs that change and send nothing
--     (echo 'unterminated, cd "x, rg "a b: the first word, and each word
--     after ; & | ( ` in the text the open quote swallowed) passes;
-- The same in what a line runs indirectly: the command ssh runs on
-- another host (read from the remote home folder: ssh h 'rm -rf build'
-- deletes ~/build there), interpreters' one-liners
-- (python -c 'os.system("…")', shutil.rmtree("/"), node -e execSync,
-- ruby/perl system and `…`, php -r, awk system(), osascript's do shell
-- script "…" and doShellScript("…", as root with administrator
-- privileges)), decoded scripts
-- (printf '\x72\x6d …' | sh, echo … | base64 -d | sh, xxd -r -p), xargs
-- and parallel in their option forms (xargs -0/-d/-J, parallel's words
-- read both joined and quoted, sem), env -S, $PWD, $(pwd) and ${HOME%/}.
-- A program word in Windows form (\rm.exe, C:/Git/bin/git.exe) is the
-- program it names. A cd (pushd, popd, env -C, sudo -D) moves the
-- relative paths of the commands after it: cd .. && rm -rf build deletes
-- ../build. find's -delete is find's own action, not a word of a command
-- its -exec runs (find . -exec echo -delete \; deletes nothing).
-- A script computed at run time (sh -c "$(…)", eval "$X", source <(…),
-- bash <(…), … | sh of text not on the line, python -c with os.system(x))
-- is asked about (SETTINGS.computed_scripts), unless it is the output of
-- an everyday set-up command (SETTINGS.computed_allow: ssh-agent, direnv
-- hook, pyenv init, brew shellenv, `… completion`, …). So is a script
-- that is the data xargs or parallel reads (xargs bash -c, echo ok |
-- xargs -I{} sh -c {}, parallel bash -c {}): read as far as the line
-- shows it, asked about; parallel sh -c ::: 'cmd' reads each literal
-- 'cmd' as the script. And, by the same setting [rule unset-var], a
-- recursive delete of a path that starts with a variable the line does
-- not set ($X/junk, "${X}"/out, find "$X/objs" -delete): unset or empty,
-- it is /junk (rm -rf "$STEAMROOT/"* emptied home folders); ${X:?}/junk,
-- ${X:-dir}/junk, $HOME, $PWD, $TMPDIR and variables the line sets pass.
-- Why: each is irreversible or hides the agent's actions from the user.
-- The reason tells the agent the narrower command to run instead.
--
-- Set them in the config's [packs.shell] table, over the defaults below.
-- Settings (SETTINGS below):
--   computed_scripts  "ask" (default), "deny" or "allow": the verdict on a
--                  script computed at run time ("shell pack: a script
--                  computed at run time …"), and on a recursive delete
--                  of $X/… with $X not set on the line ([rule unset-var])
--   computed_allow  the commands whose output may be evaluated or sourced
--                  ("program word…", "*" any program)
--   unreadable     "deny" (default), "ask" or "allow": the verdict on a
--                  line the shell would refuse to read [rule parse], a
--                  quote, $(…), `…`, ${…} or ( left open or a | with no
--                  command after it, and on such a script the line hands
--                  to a shell (bash -c "'rm -rf ~", eval, `…`, a
--                  here-document into sh, python -c's os.system string):
--                  "shell pack: a command line that cannot be parsed (a '
--                  that is not closed, at byte 1: 'rm -rf ~) runs nothing
--                  in bash …". bash runs nothing of such a line, but the
--                  reader closes the quote at the end of the line to read
--                  the rest, and another shell (zsh, a harness that adds
--                  the quote, a later line) may run what it did not read
--                  as luahook did: when luahook cannot decide, it blocks.
--                  The reader's best reading is judged by every rule first,
--                  whose reasons are the more precise. In a Windows folder
--                  a shell tool may run PowerShell, whose escape is the
--                  backquote: a line there that holds one, or reads as
--                  PowerShell (pwsh.looks), is left out of the rule
--   scratch        folders outside the project where recursive deletes
--                  are fine ({ "/tmp", "/var/tmp" }); $TMPDIR (and in
--                  PowerShell $env:TEMP) is read as the first
--   home_scratch   caches in the home folder that recursive deletes may
--                  remove: a folder and what is in it (~/.npm/_cacache,
--                  ~/go/pkg/mod/cache, …), or with a trailing /* only
--                  what is in it (~/.cache/*: rm -rf ~/.cache/pip is
--                  fine, ~/.cache itself is outside the project)
--   history_files  history files, by name (any folder)
--   startup_files  shell start-up files, by name or path (glob rules of
--                  shell.glob.rules: "name", "dir/name", "dir/")
--
-- What it cannot know: the project is the payload's cwd (a command run
-- from a subfolder treats the rest of the repository as outside); paths
-- are judged as written, so a symbolic link inside the project that leads
-- out of it is not followed; a script file the command runs (./x.sh) is
-- not read. A command the parser cannot read within its limits is denied.
-- Of an interpreter's one-liner only literal commands and paths given to
-- the well-known calls are read (lib/shell/interp.lua lists them); code
-- that builds a command another way runs unseen, and one whose command is
-- a variable is asked about. $PWD and $(pwd) are the payload's cwd even
-- after a cd on the same line; a cd inside ( … ) or $( … ) is taken to
-- last after it (stricter than the shell), one inside sh -c '…' is not.
-- A cd to a folder the line does not spell ($X, cd -) makes the relative
-- paths after it unknown: rm -rf * there is an unknown folder's contents.
-- Words are read as bytes: a Unicode dash (U+2010 in git reset ‐‐hard) is
-- not taken for "-", as no program takes it for an option's dash.
-- Of the remote command of ssh, an absolute path is judged as if it were
-- on this machine.
-- A file named by a variable the line never sets ($OUT) is not judged a
-- history or start-up file. PowerShell runs on Windows too: C:\ paths
-- are judged against a Windows cwd, case-insensitively, and so are a POSIX
-- line's there (Git Bash, Claude Code's Bash tool on Windows: /c/x, C:/x
-- and C:\x are drive C's x, ../x the folder beside the project); of cmd /c only
-- rd, del and format are read (split at & and |, no quoting rules); a
-- script a line downloads and then runs (iwr -OutFile x.ps1; .\x.ps1) is
-- not connected; Set-Location is not followed.

local shell = require("shell")
local sargs = require("shell.args")
local danger = require("danger")
local paths = require("paths")
local pwsh = require("pwsh")

local SETTINGS = hook.settings("shell", {
  scratch = { "/tmp", "/var/tmp" },
  -- caches in the home folder, deleted recursively as scratch: a folder
  -- and what is in it, or with a trailing /* only what is in it (rm -rf
  -- ~/.cache/pip is fine; ~/.cache itself, or ~/.cache/* all at once,
  -- also holds other programs' state and is judged as outside the project)
  home_scratch = { "~/.cache/*", "~/Library/Caches/*", "~/.npm/_cacache", "~/.npm/_npx", "~/.cargo/registry/cache",
    "~/.cargo/git/checkouts", "~/go/pkg/mod/cache", "~/.gradle/caches", "~/.m2/repository", "~/.yarn/cache",
    "~/.local/share/pnpm/store", "~/.pnpm-store", "~/.bun/install/cache", "~/.nuget/packages", "~/.pub-cache",
    "~/.node-gyp", "~/.ccache", "~/.ivy2/cache" },
  -- a script computed at run time (sh -c "$(…)", eval "$X", source <(…),
  -- … | sh of an unknown text, python -c with os.system(x), xargs bash -c),
  -- and a recursive delete of $X/… with $X unset on the line: "ask" the
  -- user (the default), "deny" it, or "allow" it
  computed_scripts = "ask",
  -- a line the shell would refuse to read (a quote, $(…), `…`, ${…} or ( …
  -- ) left open, a | or && with nothing after it), or a script it hands
  -- to a shell that would be refused so (bash -c "'rm -rf ~"): "deny" it
  -- (the default, [rule parse]), "ask" the user, or "allow" it (the
  -- reader's best reading of it is judged by every rule first either way)
  unreadable = "deny",
  -- the everyday computed scripts, allowed whatever computed_scripts says:
  -- the output of these commands (program, then words it must be given;
  -- "*" any program) evaluated or sourced, as shell set-up does
  computed_allow = { "ssh-agent", "direnv hook", "direnv export", "pyenv init", "pyenv virtualenv-init",
    "rbenv init", "nodenv init", "goenv init", "jenv init", "plenv init", "brew shellenv", "fnm env",
    "mise activate", "rtx activate", "starship init", "zoxide init", "atuin init", "thefuck --alias",
    "conda shell.bash hook", "conda shell.zsh hook", "micromamba shell hook", "opam env", "dircolors",
    "keychain", "luarocks path", "fzf --bash", "fzf --zsh", "* completion", "* completions" },
  history_files = { ".bash_history", ".zsh_history", ".history", ".sh_history", "fish_history",
    ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".lesshst" },
  startup_files = { ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", "fish/config.fish", "fish/conf.d/",
    "etc/profile", "etc/profile.d/", "etc/bash.bashrc", "etc/bashrc", "etc/zshrc", "etc/zsh/", "etc/environment" },
})

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
  if paths.in_caches(abs, SETTINGS.home_scratch, cwd) then return false end
  if abs:sub(1, 1) == "~" then return true end
  if paths.inside(abs, cwd) then return false end
  for _, s in ipairs(SETTINGS.scratch) do
    if paths.inside(abs, s) and abs ~= paths.clean(s) then return false end
  end
  return true
end

-- scratch_root reports whether an absolute path is a scratch folder itself.
local function scratch_root(abs)
  for _, s in ipairs(SETTINGS.scratch) do
    if abs == paths.clean(s) then return true end
  end
  return false
end

local function delete_scratch(c, cwd)
  if c.name ~= "rm" and c.name ~= "rmdir" then return false end
  local o = shell.options(c.args, RM)
  if c.name == "rm" and not (o.flags.recursive or o.unknown) then return false end
  for _, w in ipairs(o.operands) do
    local p = paths.word(w)
    local abs = p and paths.resolve((p:gsub("/%*$", "")), cwd)
    if abs and scratch_root(abs) then return true end
  end
  return false
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

-- delete_pattern reports whether an rm that is not recursive deletes
-- every file a pattern matches outside the project and the scratch
-- folders (rm -f /var/data/*, perl -e 'unlink glob "/data/*"').
local function delete_pattern(c, cwd)
  if c.name ~= "rm" and c.name ~= "shred" then return false end
  for _, w in ipairs(shell.options(c.args, RM).operands) do
    if w.glob and outside(w, cwd) then return true end
  end
  return false
end

-- move_away reports whether a mv moves away /, a folder right below it, the
-- home folder or the project (by any spelling: ., $PWD, its absolute
-- path) or a folder that holds it: mv ~ /tmp/x, mv /home/dev/project
-- /dev/null. Every operand but the destination is a source; a glob
-- (mv *.log logs/) moves files, not the folder.
local function move_away(c, cwd)
  if c.name ~= "mv" then return false end
  local srcs, target_dir = {}, false
  for _, a in ipairs(c.args) do
    local t = a.text
    if t == "-t" or t:find("^%-%-target%-directory") then target_dir = true end
    if a.unknown or t:sub(1, 1) ~= "-" then srcs[#srcs + 1] = a end
  end
  -- with -t DIR the destination is the option's value, not the last word
  if not target_dir then srcs[#srcs] = nil end
  for _, w in ipairs(srcs) do
    if not w.glob then
      local where = shell.target(w)
      if where == "root" or where == "home" or where == "cwd" or danger.project_or_above(w, cwd) then return true end
    end
  end
  return false
end

-- recursive_delete is danger.recursive_delete of what find does itself:
-- the words of its -exec actions are the commands they run, judged as
-- such (find . -exec echo -delete \; deletes nothing).
local function recursive_delete(c, cwd)
  return danger.recursive_delete(shell.find_own(c), cwd)
end

-- onto_device reports whether a mv moves files onto a device (/dev/null,
-- /dev/sda): that replaces the device file (or fails), it deletes nothing.
local function onto_device(c)
  if c.name ~= "mv" then return false end
  local last
  for _, a in ipairs(c.args) do
    local t = a.text
    if t == "-t" or t:find("^%-%-target%-directory") then return false end
    if a.unknown or t:sub(1, 1) ~= "-" then last = a end
  end
  return last ~= nil and not last.unknown and last.text:sub(1, 1) == "/"
    and (paths.clean(last.text) .. "/"):find("^/dev/") ~= nil
end

local RSYNC = { short = {}, short_arg = { e = "rsh", B = "block-size", f = "filter", M = "remote-option",
    T = "temp-dir" },
  long = { "delete", "del", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded",
    "delete-missing-args", "remove-source-files" },
  long_arg = { "exclude", "include", "exclude-from", "include-from", "filter", "rsh", "rsync-path", "temp-dir",
    "partial-dir", "compare-dest", "copy-dest", "link-dest", "files-from", "log-file", "log-file-format",
    "out-format", "chmod", "chown", "usermap", "groupmap", "port", "password-file", "backup-dir", "suffix",
    "max-size", "min-size", "max-delete", "timeout", "contimeout", "bwlimit", "iconv", "info", "debug",
    "skip-compress", "block-size", "modify-window", "sockopts", "address", "write-batch", "read-batch",
    "only-write-batch", "remote-option", "compress-choice", "checksum-choice", "stop-after", "stop-at",
    "max-alloc", "outbuf" } }

-- remote reports whether an rsync or scp operand names another host
-- (host:path, user@host:path, rsync://host/path).
local function remote(w)
  return not w.unknown and (w.text:find("^[^/]*[^/\\]:") ~= nil or w.text:find("^rsync://") ~= nil)
end

-- rsync_delete reports whether an rsync deletes files outside the
-- project: --delete (and its kin) in a destination outside it, another
-- host's included, or a scratch folder itself; --remove-source-files of
-- sources outside it.
local function rsync_delete(c, cwd)
  if c.name ~= "rsync" then return false end
  local o = shell.options(c.args, RSYNC)
  local ops = o.operands
  if #ops < 2 then return false end
  local del = false
  for f in pairs(o.flags) do
    if f:find("^del") then del = true end
  end
  if del or o.unknown then
    local d = ops[#ops]
    if remote(d) or outside(d, cwd) then return true end
    local p = paths.word(d)
    local abs = p and paths.resolve(p, cwd)
    if abs and scratch_root(abs) then return true end
  end
  if o.flags["remove-source-files"] then
    for k = 1, #ops - 1 do
      if remote(ops[k]) or outside(ops[k], cwd) then return true end
    end
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

-- names_file reports whether a word could name one of the files of
-- rules. A word all unknown ($OUT, {} of find -exec, xargs input) could
-- name any file: it is not taken for one of these (the recursive delete
-- rules judge such words), or every rm $X would be history tampering.
local function names_file(w, rules)
  if w.whole then return false end
  return shell.glob.could_touch(w.pat, rules)
end

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
    if names_file(w, HISTORY) then return true end
  end
  if n == "rm" or n == "shred" or n == "unlink" or n == "ln" then
    for _, a in ipairs(c.args) do
      if names_file(a, HISTORY) then return true end
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
    if names_file(w, STARTUP) then
      -- a dotfiles repository's own copy is the project's business
      local p = paths.word(w)
      local abs = p and paths.resolve(p, cwd)
      if not (abs and abs:sub(1, 1) == "/" and paths.inside(abs, cwd)) then return true end
    end
  end
  return false
end

local find_where -- forward

-- WHAT names each place a recursive delete wrecks (shell.target and
-- pwsh.target), for the reason.
local WHAT = { root = "of / or a folder right below it", home = "of the home folder",
  cwd = "of the whole project", prefix = "of an unknown folder ($X/…)",
  computed = "of a list computed when it runs ($(…), xargs, pipeline input)" }

local WRECK = { root = true, home = true, cwd = true, prefix = true, computed = true }

-- PLACE names each place shell.target tells apart, for the reason.
local PLACE = { root = "/ or a folder right below it", home = "the home folder", cwd = "the whole project",
  prefix = "an unknown folder", computed = "a folder computed when it runs", variable = "a folder a variable names" }

-- a_home returns the path of a word shell.target calls "root" that is a
-- user's home folder (/home/dev, /Users/ann, /home/dev/project/..), for
-- a reason that names it as such, or nil.
local function a_home(w)
  if w.unknown then return nil end
  local t = paths.clean(w.text)
  if t and (t:find("^/home/[^/]+/?$") or t:find("^/Users/[^/]+/?$")) then return (t:gsub("/$", "")) end
  return nil
end

-- find_where names the first start folder of a find (after a cd before
-- it) that is not confined to a named folder of the project.
function find_where(f)
  local starts = {}
  for _, a in ipairs(f.args) do
    if a.text:find("^[-(!]") then break end
    starts[#starts + 1] = a
  end
  if #starts == 0 then starts[1] = { text = f.dir or ".", pat = f.dir or "." } end
  for _, s in ipairs(starts) do
    local where = shell.target(s)
    if where == "cwd" and ((s.pat .. "/"):find("^%.%./") or (s.pat .. "/"):find("/%.%./")) then
      return "a folder above the project"
    end
    if where and PLACE[where] then
      local t = s.unknown and s.text or paths.clean(s.text)
      return (where == "root" and a_home(s) and "a user's home folder" or PLACE[where]) ..
        " (" .. shell.printable(t, 40) .. ")"
    end
  end
  return "the project"
end

-- delete_what says what a recursive delete the danger module denied
-- would remove.
local function delete_what(c, cwd)
  if c.name == "find" then return "by find -delete of " .. find_where(c) end
  for _, w in ipairs(c.args) do
    if not shell.target(w) and danger.project_or_above(w, cwd) then
      local p = paths.resolve((paths.word(w):gsub("/%*$", "")), cwd)
      if p == paths.clean(cwd) then return WHAT.cwd end
      return "of a folder that holds the project (" .. shell.printable(p) .. ")"
    end
    local where = shell.target(w)
    if where == "computed" and w.producer and w.producer.name == "find" then
      return "of every file find lists in " .. find_where(w.producer) .. " (find -exec rm)"
    elseif where == "computed" and w.source == "find" then
      return "of every file find lists (find -exec rm)"
    end
    if where == "cwd" and ((w.pat .. "/"):find("^%.%./") or (w.pat .. "/"):find("/%.%./")) then
      -- .., $PWD/.., $(pwd)/../..: the folders above the project
      return "of a folder above the project, outside it"
    end
    if where and WHAT[where] and danger.wrecks(w, WRECK) then
      local home = where == "root" and a_home(w)
      if home then return "of a user's home folder (" .. shell.printable(home) .. ")" end
      -- the variable that leads the path, when the line never sets it
      if where == "prefix" and type(w.lead) == "string" and not w.lead:find("^__") then
        return "of an unknown folder ($" .. shell.printable(w.lead, 40) .. "/…)"
      end
      return WHAT[where]
    end
  end
  return "of /, ~, the whole project or an unknown folder"
end

-- formats_image reports whether every operand of a formatter names a file
-- inside the project (mkfs.ext4 -F ./disk.img builds a file system in an
-- image file): no device, nothing unknown, nothing outside.
local function formats_image(c, cwd)
  if type(cwd) ~= "string" or cwd:sub(1, 1) ~= "/" or paths.clean(cwd) == "/" or c.name == "wipefs" then return false end
  local any = false
  for _, a in ipairs(c.args) do
    if a.unknown or a.glob then return false end
    if a.text:sub(1, 1) ~= "-" then
      local p = paths.word(a)
      local abs = p and paths.resolve(p, cwd)
      if not abs or abs:find("^/dev/") or not paths.inside(abs, cwd) then return false end
      any = true
    end
  end
  return any
end

local function formats_disk(c, cwd)
  return danger.formats_disk(c) and not formats_image(c, cwd)
end

-- FORK_CODE: an interpreter's one-liner that forks in a loop with no way
-- out (perl -e 'fork while fork', python -c 'while 1: os.fork()', ruby -e
-- 'loop { fork }'); FORK_LOOP: its endless loop; FORK_EXIT: a way out (a
-- child that exits, a wait, a sleep).
-- B: a word's start, after a \n written in a string too (exec("…\nwhile 1: os.fork()"))
local B = "(?:^|[^\\w]|\\\\[nrt])"
local FORK_CODE = "(?:\\.fork(?:pty)?\\s*\\(|\\bProcess\\.fork\\b|\\bpcntl_fork\\s*\\(|" ..
  "(?:^|[^.\\w$]|\\\\[nrt])fork\\b)"
local FORK_LOOP = B .. "(?:while\\s*\\(?\\s*(?:True|true|1|fork)\\b|loop\\s*(?:\\{|do\\b)|for\\s*\\(\\s*;\\s*;\\s*\\)|" ..
  "until\\s+false\\b|iter\\s*\\(\\s*int\\s*,|itertools\\.count\\b|fork\\s+while\\b)"
local FORK_EXIT = B .. "(?:exit|_exit|break|last|sleep|wait|waitpid|wait4|kill)\\b"
local FORK_INTERPS = { python = true, python2 = true, python3 = true, perl = true, ruby = true, node = true, php = true,
  bun = true, deno = true, pypy = true, pypy3 = true }

-- fork_bomb reports a shell fork bomb (danger.fork_bomb) or an
-- interpreter's one-liner that forks in an endless loop.
local function fork_bomb(c)
  if danger.fork_bomb(c) then return true end
  local n = c.name or ""
  if not (c.inline and c.script and not c.script.unknown) then return false end
  if not FORK_INTERPS[n] and not FORK_INTERPS[(n:gsub("[%d.]+$", ""))] then return false end
  local code = c.script.text
  return re.match(FORK_CODE, code) and re.match(FORK_LOOP, code) and not re.match(FORK_EXIT, code)
end

-- FILL_LIMIT: the largest file the disk-fill rule lets one command make
-- (10 GiB); a larger one, or one fed until the disk is full, is denied.
local FILL_LIMIT = 10 * 1024 ^ 3
local UNITS = { [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4, p = 1024 ^ 5, e = 1024 ^ 6 }

-- size reads a size as fallocate, dd and head write it (100G, 4KiB, 1MB,
-- 512); nil when it is none.
local function size(t)
  local num, unit, rest = t:match("^(%d+%.?%d*)(%a?)(%a*)$")
  if not num then return nil end
  local mult = UNITS[unit:lower()]
  if not mult or not (rest == "" or rest:lower() == "b" or rest:lower() == "ib") then return nil end
  -- KB, MB, … are powers of 1000 to GNU tools; the bound needs no precision
  return tonumber(num) * mult
end

-- ENDLESS: streams that never end (yes, cat of /dev/zero or /dev/urandom)
local ENDLESS_DEVS = { ["/dev/zero"] = true, ["/dev/urandom"] = true, ["/dev/random"] = true }

-- to_file reports whether c writes its output to a file by a redirection
-- (not a device: /dev/null, /dev/stdout).
local function to_file(c)
  for _, r in ipairs(c.redirs) do
    if (r.op == ">" or r.op == ">>" or r.op == ">|" or r.op == "&>" or r.op == "&>>") and (r.fd == nil or r.fd == "1")
      and not r.target.text:find("^/dev/") then
      return true
    end
  end
  return false
end

-- over_limit reports whether a size option of args (-S VALUE, -SVALUE,
-- --LONG=VALUE, --LONG VALUE) asks for more than FILL_LIMIT.
local function over_limit(args, short, long)
  for k, a in ipairs(args) do
    local t = a.text
    local v = t:match("^%-%-" .. long .. "=(.+)$") or t:match("^%-" .. short .. "(.+)$")
    if not v and (t == "-" .. short or t == "--" .. long) and args[k + 1] then v = args[k + 1].text end
    local b = v and size(v)
    if b and b > FILL_LIMIT then return true end
  end
  return false
end

-- disk_fill reports a command that fills the disk: fallocate of more than
-- FILL_LIMIT, dd or head -c writing more, and an endless stream (yes,
-- cat /dev/zero, dd if=/dev/zero with no count) written to a file.
local function disk_fill(c)
  local n = c.name
  if n == "fallocate" then
    return over_limit(c.args, "l", "length")
  elseif n == "dd" then
    local bs, count, from, to = 512, nil, nil, nil
    for _, a in ipairs(c.args) do
      local key, v = a.text:match("^(%a+)=(.*)$")
      if key == "bs" or key == "obs" then bs = size(v) or bs
      elseif key == "count" then count = size(v) or 0
      elseif key == "if" then from = v
      elseif key == "of" then to = v end
    end
    local file = (to and not to:find("^/dev/")) or (not to and to_file(c))
    if not file then return false end
    if count then return bs * count > FILL_LIMIT end
    return ENDLESS_DEVS[from or ""] == true
  elseif n == "head" and to_file(c) then
    return over_limit(c.args, "c", "bytes")
  elseif (n == "yes" or n == "cat") and to_file(c) then
    if n == "yes" then return true end
    for _, a in ipairs(c.args) do
      if ENDLESS_DEVS[a.text] then return true end
    end
  end
  return false
end

-- ENDLESS_LOOP: a shell loop that never ends and makes something on each
-- turn (while true; do mkdir x; cd x; done fills the inode table): read
-- on the raw line, as the reader flattens loops. A loop with a way out or
-- a pause (break, exit, sleep, read, wait) passes.
local ENDLESS_LOOP = "(?s)(?:^|[\\s;&|({'\"])(?:while\\s+(?:true|:|\\[\\s*1\\s*\\]|\\(\\(\\s*1\\s*\\)\\))|until\\s+false|" ..
  "for\\s*\\(\\(\\s*;\\s*;\\s*\\)\\))\\s*;?\\s*do\\s(.*?)\\bdone\\b"
local LOOP_EXIT = "\\b(?:break|exit|return|sleep|read|wait|timeout)\\b"
local LOOP_MAKES = "(?:^|[\\s;&|])(?:mkdir|touch|cp|dd|fallocate|ln|tee)\\s|>>|&\\s*(?:;|done|$)"
local function endless_loop(line)
  if not (line:find("do", 1, true) and line:find("done", 1, true)) then return false end
  local m, body = re.find(ENDLESS_LOOP, line)
  if not m then return false end
  body = body or ""
  return re.match(LOOP_MAKES, body) and not re.match(LOOP_EXIT, body)
end

local rules = {
  { check = delete_scratch, why = "a recursive delete of a whole scratch folder (/tmp, $TMPDIR)",
    instead = "delete the folders you made inside it by name" },
  { check = recursive_delete, why = "a recursive delete", what = delete_what,
    instead = "delete the files or folders you mean by name, inside the project" },
  { check = delete_outside, why = "a recursive delete outside the project",
    instead = "delete only inside the project; ask the user to clean up elsewhere" },
  { check = move_away, why = "moving away /, the home folder, the project or a folder that holds it",
    instead = "move the files you mean by name, inside the project" },
  { check = onto_device, why = "moving files onto a device file (mv … /dev/null replaces the device)",
    instead = "delete the files you mean with rm, inside the project" },
  { check = rsync_delete, why = "a mirror that deletes files outside the project (rsync --delete, "
      .. "--remove-source-files)", instead = "mirror into a folder inside the project, or ask the user to run it" },
  { check = chmod_open, why = "making files writable by everyone",
    instead = "use 755 for folders and programs, 644 for files, or u+w" },
  { check = danger.recursive_perms, why = "a recursive permission change of /, ~ or an unknown folder",
    instead = "change the permissions of the files you mean, inside the project" },
  { check = formats_disk, why = "formatting a file system", instead = "ask the user to do it" },
  { check = danger.writes_disk, why = "writing raw to a disk device", instead = "write to a file instead" },
  { check = fork_bomb, why = "a fork bomb [rule fork-bomb]", instead = "do not run it; start the processes you " ..
    "need by name, a bounded number of times" },
  { check = disk_fill, why = "filling the disk (a file larger than 10 GiB, or an endless stream written to a file) " ..
    "[rule disk-fill]", instead = "make a small file (fallocate -l 100M, head -c 10M /dev/zero > x), or a sparse " ..
    "one (truncate -s 100G x)" },
  { check = danger.download_to_shell, why = "running a download as a script (curl … | sh)",
    instead = "download the script to a file, show it to the user, and run it only once they agree" },
  { check = history, why = "tampering with the shell history",
    instead = "leave the history alone; the user reviews it" },
  { check = startup, why = "changing a shell start-up file",
    instead = "tell the user which line to add to their shell profile" },
  { check = delete_pattern, why = "deleting every file a pattern matches outside the project",
    instead = "delete the files you mean by name, inside the project; ask the user to clean up elsewhere" },
}

-- PowerShell: the same rules, read from pwsh.parse's commands.

-- pwsh_deletes returns the absolute paths a Remove-Item -Recurse names
-- (a trailing \* dropped), those it can resolve.
local function pwsh_deletes(c, cwd)
  local out = {}
  if c.name ~= "remove-item" or not (c.params.recurse or #c.unknown_params > 0) then return out end
  for _, w in ipairs(pwsh.targets(c)) do
    local abs = pwsh.resolve(w, cwd)
    if abs then out[#out + 1] = (abs:gsub("/%*$", "")) end
  end
  return out
end

local function pwsh_scratch(c, cwd)
  for _, abs in ipairs(pwsh_deletes(c, cwd)) do
    if scratch_root(abs) then return true end
  end
  return false
end

-- pwsh_outside reports whether a Remove-Item -Recurse names a folder
-- outside the project and the scratch folders (or a scratch folder itself).
local function pwsh_outside(c, cwd)
  local root = pwsh.cwd(cwd)
  for _, abs in ipairs(pwsh_deletes(c, cwd)) do
    if abs:sub(1, 1) == "~" then return true end
    if not (root and paths.inside(abs, root)) then
      local scratch = false
      for _, s in ipairs(SETTINGS.scratch) do
        if paths.inside(abs, s) and abs ~= paths.clean(s) then scratch = true end
      end
      if not scratch then return true end
    end
  end
  return false
end

local function pwsh_delete_what(c)
  local ts = pwsh.targets(c)
  if #ts == 0 then ts = c.args end
  for _, w in ipairs(ts) do
    local where = pwsh.target(w)
    if WHAT[where or ""] then return WHAT[where] end
  end
  if c.pipe_in then return "of everything a listing of /, ~ or the whole project pipes in" end
  return "of a drive's root, ~, the whole project or an unknown folder"
end

local PWSH_RULES = {
  { check = pwsh_scratch, why = "a recursive delete of a whole scratch folder ($env:TEMP)",
    instead = "delete the folders you made inside it by name" },
  { check = pwsh.recursive_delete, why = "a recursive delete", what = pwsh_delete_what,
    instead = "delete the files or folders you mean by name, inside the project" },
  { check = pwsh_outside, why = "a recursive delete outside the project",
    instead = "delete only inside the project; ask the user to clean up elsewhere" },
  { check = pwsh.formats_disk, why = "formatting or wiping a disk (Format-Volume, Clear-Disk)",
    instead = "ask the user to do it" },
  { check = pwsh.download_to_shell, why = "running a download as a script (iwr … | iex)",
    instead = "download the script to a file (iwr URL -OutFile x.ps1), show it to the user, and run it only once "
      .. "they agree" },
  { check = pwsh.execution_policy, why = "letting every script run unsigned (Set-ExecutionPolicy beyond this "
      .. "process)", instead = "use Set-ExecutionPolicy -Scope Process for this session only" },
  { check = pwsh.history, why = "tampering with the shell history",
    instead = "leave the history alone; the user reviews it" },
  { check = pwsh.startup, why = "changing a shell start-up file ($PROFILE)",
    instead = "tell the user which line to add to their PowerShell profile" },
}

local function deny(why, instead)
  return hook.deny("shell pack: blocked " .. why .. "; " .. instead .. ".")
end

-- ALLOW: SETTINGS.computed_allow as lists of words.
local ALLOW = {}
for _, e in ipairs(SETTINGS.computed_allow) do
  local ws = {}
  for w in e:gmatch("%S+") do ws[#ws + 1] = w end
  ALLOW[#ALLOW + 1] = ws
end

-- everyday reports whether a command is one of SETTINGS.computed_allow:
-- its program, and each word of the entry among its arguments.
local function everyday(c)
  for _, ws in ipairs(ALLOW) do
    if ws[1] == "*" or ws[1] == c.name then
      local all = true
      for k = 2, #ws do
        local found = false
        for _, a in ipairs(c.args) do
          if a.text == ws[k] then found = true; break end
        end
        if not found then all = false; break end
      end
      if all then return true end
    end
  end
  return false
end

-- computed_ok reports whether a computed script comes only from
-- SETTINGS.computed_allow's commands: every command whose output makes
-- the script word ($(…), <(…)), or that pipes into it, is one of them.
local function computed_ok(c)
  local n, ok = 0, true
  local function each(p)
    n = n + 1
    if not everyday(p) then ok = false end
  end
  if c.script then shell.producers(c.script, each) end
  if n == 0 and c.reads_stdin then
    local up = c.upstream
    while up do each(up); up = up.upstream end
  end
  return ok and n > 0
end

-- computed returns the verdict SETTINGS.computed_scripts gives a command
-- whose script is computed at run time, or nil.
local function computed(c)
  if not c.computed or SETTINGS.computed_scripts == "allow" or computed_ok(c) then return nil end
  local reason = "shell pack: a script computed at run time (" .. shell.printable(c.computed, 120)
    .. ") cannot be checked before it runs; write its commands out on the command line, or save it to a file "
    .. "and show it to the user first."
  if SETTINGS.computed_scripts == "deny" then return hook.deny(reason) end
  return hook.ask(reason)
end

-- unset_start returns the word of a recursive delete whose path starts
-- with a variable the line does not set, then "/" ($X/junk, "${X}"/out,
-- find "$X/build" -delete, find $X/b -exec rm -r {} +), or nil: unset or
-- empty, the path is /junk (rm -rf "$STEAMROOT/"* emptied home folders).
-- ${X:?}/junk, ${X:-d}/out and a variable the line assigns are not such
-- words (shell.parse leaves their lead unset).
local function led(w)
  return w.lead ~= nil and w.text:find("^%z+/") ~= nil
end

local function find_led(f)
  for _, a in ipairs(f.args) do
    if a.text:find("^[-(!]") then break end
    if led(a) then return a end
  end
  return nil
end

local function unset_start(c)
  local n = c.name
  if n == "rm" then
    -- recursive by a flag the line spells (rm $X/file deletes one file)
    local o = shell.options(c.args, RM)
    if not o.flags.recursive then return nil end
    for _, w in ipairs(o.operands) do
      if led(w) then return w end
      -- {} of find -exec rm, or xargs's items from a find
      local f = w.producer
      if f and f.name == "find" then
        local s = find_led(f)
        if s then return s end
      end
    end
  elseif n == "find" then
    for _, a in ipairs(shell.find_own(c).args) do
      if a.text == "-delete" then return find_led(c) end
    end
  end
  return nil
end

-- unset_var returns the verdict SETTINGS.computed_scripts gives a
-- recursive delete of a path led by a variable the line does not set
-- [rule unset-var], or nil.
local function unset_var(c)
  if SETTINGS.computed_scripts == "allow" or (c.name ~= "rm" and c.name ~= "find") then return nil end
  local w = unset_start(c)
  if not w then return nil end
  local rest = shell.printable((w.text:gsub("^%z+", "")), 60)
  local reason
  if w.lead:find("^__") then
    -- a value an outer shell expanded into the script (sh -c "rm -rf $D/x"):
    -- the reader's name for it is its own, not the line's
    reason = "shell pack: a recursive delete of a path that starts with a value an outer shell expands into the " ..
      "script [rule unset-var]: when it is empty the path is " .. rest .. ", from the root of the file system; " ..
      "write the variable as ${NAME:?} so that the shell stops when it is unset, or name the folder."
  else
    local name = shell.printable(w.lead, 40)
    reason = "shell pack: a recursive delete of a path that starts with $" .. name .. " [rule unset-var]: "
      .. "when $" .. name .. " is unset or empty the path is " .. rest .. ", from the root of the file system; "
      .. "write ${" .. name .. ":?}" .. rest .. " so that the shell stops when it is unset, or name the folder."
  end
  if SETTINGS.computed_scripts == "deny" then return hook.deny(reason) end
  return hook.ask(reason)
end

-- unreadable returns the verdict SETTINGS.unreadable gives a line the
-- shell would refuse to read, or a script the line hands to a shell that
-- its shell would refuse (bad: shell.parse's third value) [rule parse],
-- or nil.
-- HARMLESS are the programs that, run with any words, change and send
-- nothing: a line the shell cannot parse whose every reading runs only
-- these does no harm however a shell reads it.
local HARMLESS = { echo = true, printf = true, cd = true, pwd = true, ls = true, cat = true, rg = true,
  grep = true, egrep = true, fgrep = true, head = true, tail = true, wc = true, ["true"] = true,
  ["false"] = true, test = true, ["["] = true, [":"] = true, which = true, type = true, man = true, less = true,
  more = true, date = true, whoami = true, id = true, uname = true }

-- starts returns whether every command a text could start runs a program
-- of HARMLESS: its first word, and each word after ; & | ( ` or a newline
-- (a stray quote leaves the rest of the line in one word, which another
-- shell may read as commands).
local function harmless_text(t, first)
  if first then
    local w = t:match("^[%s\"']*([^%s;&|()`\"']+)")
    if w and not HARMLESS[sargs.program(w)] then return false end
  end
  for w in t:gmatch("[;&|(`\n][%s\"']*([^%s;&|()`\"']+)") do
    if not HARMLESS[sargs.program(w)] then return false end
  end
  return true
end

-- harmless reports whether the reader's best reading of a line the shell
-- cannot parse runs only HARMLESS programs (a shell running a script the
-- reader read is its script's commands).
local function harmless(cmds)
  for _, c in ipairs(cmds) do
    if not (sargs.SHELLS[c.name or ""] and c.script and not c.computed) then
      if not c.word or c.word.unknown or not harmless_text(c.word.text, true) then return false end
      for _, a in ipairs(c.args) do
        if not harmless_text(a.text, false) then return false end
      end
    end
  end
  return true
end

local function unreadable(bad, cmds)
  if not bad or SETTINGS.unreadable == "allow" then return nil end
  -- every reading of it harmless (echo 'unterminated, cd "x): it passes
  if harmless(cmds) then return nil end
  local what = bad:match("^a (%S+) that is not closed") or bad:match("^a (%S+) with no command after it")
  local fix = "close the quote or bracket, or finish the command"
  if bad:find("^a [\"'] ") or bad:find("^a %$' ") then fix = "close the quote"
  elseif bad:find("with no command after it") then fix = "finish the command after the " .. (what or "operator")
  elseif what then fix = "close the " .. what end
  local reason = "shell pack: a command line that cannot be parsed (" .. bad .. ") runs nothing in bash, and "
    .. "another shell may read it otherwise than luahook did; " .. fix .. " and send it again [rule parse]."
  if SETTINGS.unreadable == "deny" then return hook.deny(reason) end
  return hook.ask(reason)
end

-- REBASED: the commands whose relative path words a cd before them moves
-- (cd .. && rm -rf build deletes ../build), with the operands before
-- their paths (chmod's mode, chown's owner).
local REBASED = { rm = 0, rmdir = 0, shred = 0, unlink = 0, mv = 0, rsync = 0, find = 0, chmod = 1, chown = 1,
  chgrp = 1 }
local REBASED_REDIRS = { [">"] = true, [">>"] = true, [">|"] = true, ["&>"] = true, ["&>>"] = true, ["<>"] = true,
  ["<"] = true }

-- at_dir returns path word w as seen from the payload's cwd when the
-- command runs in folder dir (shell.parse's dir: a path, "~/…", or "\0"
-- for a folder not known): a relative word is put after dir; an absolute,
-- home, $PWD or unknown-led word is returned as it is.
local rebase -- forward

local function at_dir(w, dir)
  local t = w.text
  if w.producer and w.producer.dir and w.producer.dir ~= "." then
    -- {} of find -exec, or xargs's items from a find: find's start
    -- folders follow the cd before it (cd src && find . -exec rm -r {} \;)
    local o = {}
    for k, v in pairs(w) do o[k] = v end
    o.producer = rebase(w.producer)
    return o
  end
  if w.whole or w.home or w.cwd or t == "" or t:find("^[/~%z-]") then return w end
  if dir:find("%z") then
    return { text = "\0/" .. t, pat = "\0/" .. w.pat, glob = w.glob, unknown = true, source = "var" }
  end
  return { text = dir .. "/" .. t, pat = dir:gsub("[\\*?%[%]]", "\\%0") .. "/" .. w.pat, glob = w.glob,
    unknown = w.unknown, source = w.source, producer = w.producer, home = dir:sub(1, 1) == "~" or nil }
end

-- rebase returns the command as run from the payload's cwd: when a cd
-- (env -C, sudo -D) put it in another folder, its relative path words and
-- redirection targets are put after that folder.
function rebase(c)
  local dir = c.dir
  if not dir or dir == "." then return c end
  local skip = REBASED[c.name or ""]
  if not skip then
    -- most commands: only a redirection to a file may move
    local moves = false
    for _, r in ipairs(c.redirs) do
      if REBASED_REDIRS[r.op] then moves = true; break end
    end
    if not moves then return c end
  end
  local o = {}
  for k, v in pairs(c) do o[k] = v end
  if skip then
    o.args = {}
    local starts = true
    for _, a in ipairs(c.args) do
      local t = a.text
      if c.name == "find" and (t:find("^[-(!]") or not starts) then
        starts = false
        o.args[#o.args + 1] = a
      elseif skip > 0 and not a.unknown and t:sub(1, 1) ~= "-" then
        skip = skip - 1
        o.args[#o.args + 1] = a
      else
        o.args[#o.args + 1] = at_dir(a, dir)
      end
    end
  end
  o.redirs = {}
  for k, r in ipairs(c.redirs) do
    o.redirs[k] = REBASED_REDIRS[r.op] and { op = r.op, fd = r.fd, target = at_dir(r.target, dir) } or r
  end
  return o
end

local function judge(rs, c, cwd)
  c = rebase(c)
  for _, r in ipairs(rs) do
    if r.check(c, cwd) then
      return deny(r.what and (r.why .. " " .. r.what(c, cwd)) or r.why, r.instead)
    end
  end
  return nil
end

local judge_posix -- forward

-- POSIX_SHELLS are the programs a PowerShell line hands a POSIX line to.
local POSIX_SHELLS = { bash = true, sh = true, zsh = true, dash = true }

-- judge_pwsh judges a PowerShell line: the PowerShell tool's command, or
-- the code of a pwsh/powershell in a shell line (depth: how many such
-- hand-overs led here, at most 4).
local function judge_pwsh(line, cwd, depth)
  local cmds, err = pwsh.parse(line)
  for _, c in ipairs(cmds) do
    local r = judge(PWSH_RULES, c, cwd)
    if r then return r end
    if POSIX_SHELLS[c.name or ""] and depth < 4 then
      local parts = { c.name }
      for _, a in ipairs(c.args) do parts[#parts + 1] = shell.quote(a.text) end
      r = judge_posix(table.concat(parts, " "), cwd, depth + 1)
      if r then return r end
    end
  end
  if err then
    return deny("a PowerShell command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
  return nil
end

-- with_scratch spells $TMPDIR as the first scratch folder when the line
-- never sets it (every TMPDIR in it is $TMPDIR or ${TMPDIR}), so that
-- rm -rf $TMPDIR/x is judged as a delete in the scratch folder.
local function with_scratch(line)
  if not line:find("TMPDIR", 1, true) then return line end
  local _, all = line:gsub("TMPDIR", "")
  local out, n = line:gsub("%${TMPDIR}", SETTINGS.scratch[1])
  local out2, m = out:gsub("%$TMPDIR%f[^%w_]", SETTINGS.scratch[1])
  if n + m ~= all then return line end
  return out2
end

function judge_posix(line, cwd, depth, may_pwsh)
  if line:find("HIST[%u]*%s*=") and re.match([[(^|[\s;&|({`'"])(HISTFILE|HISTSIZE|HISTFILESIZE|SAVEHIST)=]], line) then
    return deny("tampering with the shell history", "leave the history alone; the user reviews it")
  end
  if endless_loop(line) then
    return deny("an endless loop that makes something on every turn (it fills the disk or the process table) " ..
      "[rule endless-loop]", "bound the loop (for i in $(seq 10)), or give it a way out (break, sleep)")
  end
  local cmds, err, bad = shell.parse(with_scratch(line))
  -- a computed script is judged after every command passed the rules
  local pending
  for _, c in ipairs(cmds) do
    local r = judge(rules, c, cwd)
    if r then return r end
    pending = pending or computed(c) or unset_var(c)
    if pwsh.CMD[c.name or ""] then
      local ws, cerr = pwsh.cmd(c.args)
      for _, x in ipairs(ws) do
        r = judge(PWSH_RULES, x, cwd)
        if r then return r end
      end
      if cerr then return deny("a command that could not be checked (" .. cerr .. ")", "split it into shorter commands") end
    end
    if pwsh.HOSTS[c.name or ""] then
      local inv = pwsh.invocation(c.args)
      if inv.code and depth < 4 then
        r = judge_pwsh(inv.code, cwd, depth + 1)
        if r then return r end
      elseif inv.bad then
        return deny("a PowerShell -EncodedCommand that is not base64 of UTF-16LE text", "pass the command as text")
      end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
  -- a line the shell cannot read is stopped after every rule had its say
  -- on the reader's best reading of it (their reasons are the more
  -- precise); may_pwsh: the line may be PowerShell's, read as such next
  local parse = not may_pwsh and unreadable(bad, cmds)
  if parse and SETTINGS.unreadable == "deny" then return parse end
  -- the ask of a computed script or of a line the shell cannot read comes
  -- second: a PowerShell reading of the line may still deny it
  return nil, pending or parse or nil
end

-- A line of plain words whose program none of the rules look at is
-- allowed without parsing it (shell.quick): the common case, a build or a
-- test, costs one regular-expression match. The programs: the danger
-- module's, the PowerShell cmdlets and aliases that mark a line as
-- PowerShell's, and the history, start-up file and cmd /c rules' own;
-- the words: history (HISTFILE=, Clear-History) and profile ($PROFILE's
-- file), which a plain word could name.
local quick = shell.quick({ programs = { danger.PROGRAMS, pwsh.PROGRAMS, { "rmdir", "unlink", "ln", "history",
  "unset", "export", "declare", "typeset", "readonly", "local", "set", "touch", "truncate", "rsync", "scp", "sed",
  "gsed", "fallocate", "cmd", "cmd\\.exe", "pwsh\\.exe", "powershell\\.exe", "pwsh-preview" } }, words = "(?i)hist|profile" })

hook.register("PreToolUse", "@shell", function(input)
  -- The command line, read here as shell.command reads it: a hook that
  -- hands no table of its input to another function (ipairs included)
  -- keeps the input's tables for the next call, so the quick path
  -- allocates nothing.
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for k = 1, #line do parts[k] = shell.quote(tostring(line[k])) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  if quick(line) then return nil end
  if pwsh.tool(input.toolName) then return judge_pwsh(line, input.cwd, 0) end
  -- a POSIX line in a Windows folder is Git Bash's (Claude Code's Bash
  -- tool): its paths resolve against the folder in pwsh.cwd's form
  -- (/c:/users/dev/project), where /c/x and C:/x are drive C's
  local cwd = input.cwd
  if type(cwd) == "string" and cwd:find("^%a:[\\/]") then cwd = pwsh.cwd(cwd) end
  -- a shell tool in a Windows folder may run PowerShell (Cursor's,
  -- Codex's and Copilot's do; Claude Code's runs Git Bash), whose escape
  -- is the backquote: a line there that holds one, or reads as
  -- PowerShell, is not judged by rule parse
  local may_pwsh = cwd ~= input.cwd and (line:find("`", 1, true) ~= nil or pwsh.looks(line))
  local r, pending = judge_posix(line, cwd, 0, may_pwsh)
  if r == nil and pwsh.looks(line) then
    -- a PowerShell line a tool of another name runs (Cursor's Shell on
    -- Windows): judged as PowerShell too
    r = judge_pwsh(line, input.cwd, 0)
  end
  return r or pending
end, { name = "pack-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
