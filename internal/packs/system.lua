-- system: stops machine administration: shutdown, accounts, root shells, persistence, defenses off, reverse shells
--
-- What it stops, in any command a shell tool (@shell) runs, however it is
-- spelled (quotes, sudo/doas/env/xargs/timeout wrappers, absolute program
-- paths, chains, $(…), sh -c '…', find -exec; read by lib/shell.lua). Each
-- deny names its rule ([rule NAME]):
--   power        shutdown, reboot, halt, poweroff, systemctl reboot/…,
--                init 0/6, kill of PID 1 or of every process, sysrq;
--                PowerShell's Stop-Computer, Restart-Computer (not -WhatIf)
--   accounts     useradd, userdel, usermod, groupadd, passwd, chpasswd,
--                adduser, deluser, chsh, …, writes to /etc/passwd, shadow, group;
--                Windows: net user NAME PASS /add, net user NAME /delete, net
--                localgroup administrators NAME /add, New-LocalUser,
--                Add-LocalGroupMember, … (net user and net localgroup list)
--   sudoers      visudo (but visudo -c), writes to /etc/sudoers(.d)
--   root-shell   sudo/doas/pkexec/su/run0 opening a shell (sudo -i, sudo
--                bash, su -, su - root), su -c running a command as root
--                (su -c 'id', su root -c …; su postgres -c … is judged like
--                any command), a privileged interactive program whose shell
--                escape gives a root shell (sudo vim/less/man/…, sudo git
--                -p/help/commit without -m: its pager or editor), a
--                privileged program told to run another (sudo tar
--                --checkpoint-action/--to-command/-I, zip -TT, rsync -e, man
--                -P, ssh -o ProxyCommand, git -c core.pager=…), and the shell
--                escapes of common programs run with privilege (sudo find
--                -exec /bin/sh, sudo awk 'BEGIN{system("/bin/sh")}', sudo
--                python -c '…os.system("/bin/sh")', …): denied, not asked, as
--                the escape is typed where no hook sees it
--   setuid       chmod u+s/g+s/4755, install -m 4755, setcap
--   persistence  systemctl enable/disable/mask/link/edit/set-default,
--                launchctl load, update-rc.d, chkconfig, writes to unit and
--                autostart folders (/etc/systemd, ~/.config/systemd,
--                /etc/init.d, ~/Library/LaunchAgents, /etc/ld.so.preload, …)
--   ssh-keys     writes to authorized_keys, ssh-copy-id
--   cron         crontab -r/-e/FILE, at, writes to /etc/cron*, /var/spool/cron
--   firewall     iptables/ip6tables changes (-F, -X, -P, -A, -D, …),
--                iptables-restore, nft changes (flush ruleset, delete, add,
--                -f), ufw changes (disable, reset, allow, …), firewall-cmd
--                changes, pfctl -d, netsh advfirewall
--   disks        fdisk, sfdisk, gdisk, sgdisk, parted changes, wipefs -a,
--                mkfs, raw writes to disk devices, cryptsetup/mdadm erasures
--   kernel       insmod, rmmod, modprobe (load or -r), kexec, sysctl -w,
--                writes to /proc/sys
--   boot         grub-install, update-grub, grub-mkconfig -o, efibootmgr
--                changes, bootctl changes, bcdedit
--   audit        auditctl -D/-d/-W/-e 0 and never rules
--   mac          setenforce 0, setsebool, semanage permissive, semodule -d/-r,
--                aa-teardown, aa-disable, aa-complain, apparmor_parser -R;
--                macOS Gatekeeper off (spctl --master-disable/--global-disable,
--                --add) and SIP off (csrutil disable/clear)
--   mounts       mount -o remount (sudo mount -o remount,rw /), a mount over
--                / or a system folder (mount --bind x /etc), umount of one
--   security-services  stopping, disabling, masking or killing a security
--                service (SETTINGS.security_services): systemctl, service,
--                /etc/init.d/X stop, update-rc.d, chkconfig, rc-service,
--                kill/pkill/killall; Microsoft Defender off (Set-MpPreference
--                -Disable… $true, Set-/Add-MpPreference -Exclusion…)
--   services     the same for the services the machine needs to be reached
--                and to run (SETTINGS.critical_services: sshd, networking,
--                NetworkManager, dbus, cron, …)
--   logs         deleting or truncating files under /var/log (appends are
--                fine), journalctl --vacuum-*, dmesg -C
--   reverse-shell  /dev/tcp and /dev/udp to a host that is not the machine
--                itself, nc/ncat -e/-c, socat with EXEC/SYSTEM and a
--                network address, a pipeline joining a shell and a raw
--                network client (mkfifo … | sh -i | nc …), interpreter
--                one-liners with a socket and a shell or exec
--                (python/perl/ruby/php/node/lua/pwsh), pty.spawn, gawk /inet/
--   recovery     deleting snapshots and backups: lvremove, vgremove,
--                zfs/zpool destroy, btrfs subvolume delete, timeshift
--                --delete(-all), snapper delete, tmutil delete/disable,
--                vssadmin, wbadmin (backup programs with a repository, restic,
--                borg, rclone, are the cloud pack's), a
--                recursive rm or find -delete of a backup folder
--                (SETTINGS.backup_folders) anywhere, and rm of a file in one
--                outside the project
--   system-files writes, moves, deletes and permission changes of files in
--                the system folders (SETTINGS.system_folders, but
--                SETTINGS.writable): cp, mv, tee, redirections, sed -i, rm,
--                chmod, chattr, mkdir, sudoedit, find -delete
-- Why: each changes the machine rather than the project, turns a defense
-- off, opens it to the network or destroys the way back; a coding agent
-- needs none of it, and the user can run the command themselves.
--
-- PowerShell (the PowerShell tool, pwsh/powershell -c in a shell line,
-- cmd /c, a line that reads as PowerShell) is read by lib/pwsh.lua.
--
-- What passes: reading the system (id, whoami, sudo -l, sudo -v, crontab -l,
-- iptables -L, nft list ruleset, ufw status, firewall-cmd --list-all,
-- getenforce, aa-status, auditctl -l, systemctl status/start/restart,
-- journalctl -u x, fdisk -l, lsmod, sysctl -a, mount, findmnt, spctl
-- --status, csrutil status, Get-MpPreference, net user, ls /etc, cat /etc/os-release,
-- cp /etc/x ./), running a program or script with sudo (sudo systemctl
-- restart nginx, sudo bash -c '…' whose commands are judged one by one),
-- writes below SETTINGS.writable (/usr/local) and anything inside the
-- project (the payload's cwd). Installing packages (sudo apt-get install …)
-- is the packages pack's business, not this one's.
--
-- Set them in the config's [packs.system] table, over the defaults below.
-- Settings (SETTINGS below):
--   allow              names of the rules above to turn off ({ "power" }
--                      lets the agent reboot a throwaway machine)
--   security_services  the services whose stop, disable, mask or kill is
--                      turning a defense off (unit names, any .service suffix)
--   critical_services  the services whose stop, disable, mask or kill cuts
--                      the machine off or breaks it
--   system_folders     folders whose files belong to the system
--   writable           folders inside system_folders where writes are fine
--   backup_folders     folder names whose deletion is destroying backups
--
-- What it cannot know: a script the command runs (./setup.sh, sudo bash
-- install.sh) is not read; a shell escape typed inside an interactive
-- program is not seen (which is why a privileged pager or editor is
-- denied outright); paths are judged as written (a symbolic link into /etc
-- is not followed, and the project is the payload's cwd); a host name is
-- not resolved (only localhost and 127.x/::1 count as the machine itself).
-- A command the parser cannot read within its limits is denied.

local shell = require("shell")
local danger = require("danger")
local paths = require("paths")
local pwsh = require("pwsh")

local SETTINGS = hook.settings("system", {
  allow = {},
  security_services = { "auditd", "apparmor", "selinux", "firewalld", "ufw", "nftables", "iptables", "ip6tables",
    "netfilter-persistent", "fail2ban", "clamav-daemon", "clamav-freshclam", "clamd", "freshclam", "falcon-sensor",
    "falcond", "osqueryd", "wazuh-agent", "wazuh-manager", "ossec", "sysmon", "sysmonforlinux", "mdatp",
    "sentinelone", "sentinel-agent", "cbagentd", "elastic-agent", "elastic-endpoint", "auditbeat", "rsyslog",
    "syslog", "syslog-ng", "systemd-journald", "aide", "tripwire", "snort", "suricata", "zeek", "falco", "tetragon",
    "crowdstrike", "qualys-cloud-agent", "amazon-guardduty-agent", "google-guest-agent" },
  critical_services = { "ssh", "sshd", "openssh-server", "networking", "network", "NetworkManager", "systemd-networkd",
    "systemd-resolved", "dbus", "dbus-broker", "systemd-logind", "cron", "crond", "polkit", "getty@tty1", "chronyd",
    "systemd-timesyncd", "containerd" },
  system_folders = { "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys",
    "/proc/sys", "/System", "/Library" },
  writable = { "/usr/local" },
  backup_folders = { "backup", "backups", ".snapshots", "snapshots", "timeshift", "Backups.backupdb", ".zfs",
    ".backup", ".backups" },
})

-- unit_name returns a unit name without its type suffix or instance,
-- lower-cased ("sshd.service" -> "sshd", "getty@tty1" -> "getty").
local function unit_name(s)
  return (s:lower():gsub("%.service$", ""):gsub("%.socket$", ""):gsub("%.timer$", ""):gsub("@.*$", ""))
end

local ALLOWED = {}
for _, n in ipairs(SETTINGS.allow) do ALLOWED[n] = true end
local SECURITY = {}
for _, n in ipairs(SETTINGS.security_services) do SECURITY[unit_name(n)] = true end
local CRITICAL = {}
for _, n in ipairs(SETTINGS.critical_services) do CRITICAL[unit_name(n)] = true end
local BACKUPS = {}
for _, n in ipairs(SETTINGS.backup_folders) do BACKUPS[n:lower()] = true end

local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true, yash = true,
  posh = true, fish = true, csh = true, tcsh = true, rbash = true }

-- A shell named inside a word: "/bin/sh", "exec=/bin/bash", "'!sh'",
-- "sh -c …", "system(\"bash\")"; not "x.sh" or "zsh-completions".
local SHELL_REF = "(?i)(?:^|[\\s/!=:;'\"(|&`,])(?:ba|z|da|k|mk|tc|c|fi|a|rba)?sh(?:$|[\\s'\";)&|`,])"

-- set makes a lookup table of a list.
local function set(list)
  local t = {}
  for _, v in ipairs(list) do t[v] = true end
  return t
end

-- flag reports whether an option is given: a short letter of shorts (in a
-- cluster: -rf) or a long name of longs, a string of names separated by
-- spaces (--name or --name=value). Strings, not tables: a rule runs on
-- every command of every call, and a table literal would be built each time.
local function flag(c, shorts, longs)
  for _, a in ipairs(c.args) do
    local t = a.text
    if t == "--" then return false end
    if t:sub(1, 2) == "--" then
      if longs and (" " .. longs .. " "):find(" " .. t:sub(3):match("^[^=]*") .. " ", 1, true) then return true end
    elseif shorts and t:sub(1, 1) == "-" and #t > 1 and t:sub(2):find("^[%w]+$") then
      if t:sub(2):find("[" .. shorts .. "]") then return true end
    end
  end
  return false
end

-- operands returns the words of c that are not options, lower-cased texts
-- in the second list.
local function operands(c)
  local ws, ts = {}, {}
  for _, a in ipairs(c.args) do
    if a.unknown or a.text:sub(1, 1) ~= "-" then
      ws[#ws + 1] = a
      ts[#ts + 1] = a.text:lower()
    end
  end
  return ws, ts
end

-- any_arg reports whether an RE2 pattern matches one of c's arguments.
local function any_arg(c, pattern)
  for _, a in ipairs(c.args) do
    if re.match(pattern, a.text) then return true end
  end
  return false
end

-- privileged reports whether c runs with another user's rights: behind
-- sudo, doas, pkexec or run0, or reached through su -c / runuser -c.
local PRIV = set({ "sudo", "doas", "pkexec", "run0" })
local function privileged(c)
  for _, w in ipairs(c.wrappers) do
    if PRIV[w] then return true end
  end
  return c.via == "su -c" or c.via == "runuser -c"
end

-- place returns the absolute, clean path a word names, resolved against
-- cwd, or nil when part of the word is unknown ($X, $(…)).
local function place(w, cwd)
  local p = paths.word(w)
  return p and paths.resolve(p, cwd) or nil
end

-- under reports whether abs is one of folders or below one.
local function under(abs, folders)
  for _, f in ipairs(folders) do
    if paths.inside(abs, f) then return true end
  end
  return false
end

-- project reports whether abs is inside the payload's cwd, when that is a
-- project and not / or a system folder itself.
local SYSTEM_ROOTS = set(SETTINGS.system_folders)
local function project(abs, cwd)
  if type(cwd) ~= "string" or cwd == "/" or SYSTEM_ROOTS[paths.clean(cwd)] or cwd:sub(1, 1) ~= "/" then
    return false
  end
  return paths.inside(abs, cwd)
end

local REMOVERS = set({ "rm", "rmdir", "shred", "unlink", "wipe", "srm" })
local CHANGERS = set({ "chmod", "chown", "chgrp", "chattr", "setfacl", "mkdir", "mknod", "mkfifo" })

-- targets returns what c writes, moves, deletes or changes: { word, kind }
-- with kind "append" for >> and tee -a, "delete" for removals, "write"
-- otherwise.
local function targets(c)
  local out = {}
  for _, r in ipairs(c.redirs) do
    local op = r.op
    if op == ">>" or op == "&>>" then
      out[#out + 1] = { r.target, "append" }
    elseif op == ">" or op == ">|" or op == "&>" or op == "<>"
      or (op == ">&" and not r.target.text:find("^%d*%-?$")) then
      out[#out + 1] = { r.target, "write" }
    end
  end
  local n = c.name
  if not n or n == "" then return out end
  local appending = n == "tee" and flag(c, "a", "append")
  for _, w in ipairs(paths.writes({ name = n, args = c.args, redirs = {} })) do
    out[#out + 1] = { w, appending and "append" or "write" }
  end
  local ws = operands(c)
  if REMOVERS[n] then
    for _, w in ipairs(ws) do out[#out + 1] = { w, "delete" } end
  elseif n == "mv" then
    for k = 1, #ws - 1 do out[#out + 1] = { ws[k], "delete" } end
  elseif CHANGERS[n] or n == "sudoedit" or (n == "sudo" and flag(c, "e", "edit")) then
    for _, w in ipairs(ws) do out[#out + 1] = { w, "write" } end
  elseif n == "find" then
    local acts = false
    for _, a in ipairs(c.args) do
      if a.text == "-delete" or a.text == "-exec" or a.text == "-execdir" then acts = true end
    end
    if acts then
      for _, a in ipairs(c.args) do
        if a.text:find("^[-(!]") then break end
        out[#out + 1] = { a, "delete" }
      end
    end
  end
  return out
end

-- outside returns the targets of c (computed once per command, as most
-- rules look at them) and those of them outside the project, as
-- { abs, kind, word }.
local function outside(c, cwd)
  local t = c.system_targets
  if t then return t, c.system_outside end
  t = targets(c)
  local out = {}
  for _, x in ipairs(t) do
    local abs = place(x[1], cwd)
    if abs and not project(abs, cwd) then out[#out + 1] = { abs, x[2], x[1] } end
  end
  c.system_targets, c.system_outside = t, out
  return t, out
end

-- has_outside reports whether c has a target outside the project: rules
-- test it first so that a command without one builds no closure.
local function has_outside(c, cwd)
  local _, out = outside(c, cwd)
  return #out > 0
end

-- touches calls fn(abs, kind) for every target of c outside the project,
-- until fn returns true.
local function touches(c, cwd, fn)
  local _, out = outside(c, cwd)
  for _, x in ipairs(out) do
    if fn(x[1], x[2]) then return true end
  end
  return false
end

local unit = unit_name

-- systemctl returns the verb of a systemctl command and its units.
local SYSTEMCTL_ARG = set({ "-H", "-M", "-t", "-p", "-n", "-o", "-s", "--host", "--machine", "--type", "--property",
  "--lines", "--output", "--signal", "--state", "--root", "--kill-whom", "--job-mode", "--what", "--message" })
local function systemctl(c)
  local verb, units, k = nil, {}, 1
  while c.args[k] do
    local t = c.args[k].text
    if SYSTEMCTL_ARG[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" then
      if verb then units[#units + 1] = unit(t) else verb = t:lower() end
    end
    k = k + 1
  end
  return verb, units
end

-- service returns the service name and action of service/rc-service/
-- /etc/init.d/NAME commands, or nil.
local function service(c)
  local _, ts = operands(c)
  if c.name == "service" or c.name == "rc-service" then return ts[1] and unit(ts[1]), ts[2] end
  if c.word and not c.word.unknown and c.word.text:find("^/etc/init%.d/") then return unit(c.name), ts[1] end
  if c.name == "update-rc.d" then return ts[1] and unit(ts[1]), ts[2] end
  if c.name == "chkconfig" then
    if flag(c, nil, "del") then return ts[1] and unit(ts[1]), "off" end
    return ts[1] and unit(ts[1]), ts[2]
  end
  if c.name == "rc-update" then return ts[2] and unit(ts[2]), ts[1] end
  return nil
end

-- Rules, each c, cwd -> true when c breaks it.

local POWER_VERBS = set({ "reboot", "poweroff", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep",
  "suspend-then-hibernate", "rescue", "emergency", "soft-reboot" })
local POWER_TARGETS = set({ "reboot.target", "poweroff.target", "halt.target", "rescue.target", "emergency.target",
  "kexec.target", "rescue", "emergency", "reboot", "poweroff", "halt" })
local function power(c)
  local n = c.name
  if n == "shutdown" then
    return not flag(c, "c", "help")
  elseif n == "reboot" or n == "halt" or n == "poweroff" then
    return not flag(c, nil, "help")
  elseif n == "systemctl" then
    local verb, units = systemctl(c)
    if POWER_VERBS[verb or ""] then return true end
    if verb == "isolate" or verb == "start" then
      for _, u in ipairs(c.args) do
        if POWER_TARGETS[u.text:lower()] then return true end
      end
    end
  elseif n == "init" or n == "telinit" then
    local _, ts = operands(c)
    return ts[1] ~= nil and ts[1]:find("^[0156sS]$") ~= nil
  elseif n == "loginctl" then
    local _, ts = operands(c)
    return POWER_VERBS[ts[1] or ""] or ts[1] == "terminate-user" or ts[1] == "kill-user"
  elseif n == "kill" then
    local _, ts = operands(c)
    for _, t in ipairs(ts) do
      if t == "1" then return true end
    end
    for _, a in ipairs(c.args) do
      if a.text == "-1" and a ~= c.args[1] then return true end
    end
    return #c.args == 2 and c.args[2].text == "-1"
  elseif n == "killall5" then
    return true
  end
  for _, r in ipairs(c.redirs) do
    if r.target.text == "/proc/sysrq-trigger" and r.op:find(">") then return true end
  end
  return false
end

local net_account -- defined below

local ACCOUNT_TOOLS = set({ "useradd", "userdel", "usermod", "groupadd", "groupdel", "groupmod", "adduser",
  "deluser", "addgroup", "delgroup", "chpasswd", "chgpasswd", "newusers", "chsh", "chfn", "vipw", "vigr", "gpasswd",
  "pwconv", "pwunconv", "grpconv", "grpunconv", "sysadminctl", "pw", "lusermod", "luseradd", "luserdel" })
local ACCOUNT_FILES = { "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/master.passwd",
  "/etc/subuid", "/etc/subgid", "/etc/login.defs", "/etc/pam.d", "/etc/security" }
local function accounts(c, cwd)
  local n = c.name
  if ACCOUNT_TOOLS[n] then
    return not flag(c, nil, "help")
  elseif n == "passwd" then
    return not flag(c, "S", "status help")
  elseif n == "chage" then
    return not flag(c, "l", "list help")
  elseif n == "dscl" then
    return any_arg(c, "^-(?:create|delete|append|passwd|merge|change)$")
  elseif n == "net" or n == "net1" then
    return net_account(select(2, operands(c)))
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs) return under(abs, ACCOUNT_FILES) end)
end

-- net_account reports whether Windows' net (its operands, lower-cased)
-- changes an account or a group: net user NAME PASS /add, net user NAME
-- /delete, net localgroup administrators NAME /add, a password set (net
-- user NAME PASS or *). net user and net localgroup NAME list.
function net_account(ts)
  local v = ts[1]
  if v ~= "user" and v ~= "users" and v ~= "localgroup" and v ~= "group" then return false end
  for _, t in ipairs(ts) do
    if t == "/add" or t == "/delete" or t == "/del" or t:find("^/active") or t:find("^/passwordreq")
      or t:find("^/expires") then
      return true
    end
  end
  return (v == "user" or v == "users") and #ts >= 3
end

local function sudoers(c, cwd)
  if c.name == "visudo" then
    return not flag(c, "c", "check help version")
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs)
    return paths.inside(abs, "/etc/sudoers") or paths.inside(abs, "/etc/sudoers.d")
      or paths.inside(abs, "/usr/local/etc/sudoers") or paths.inside(abs, "/etc/doas.conf")
  end)
end

local su_root, git_escape, RUNS_PROGRAM -- defined below, before root_shell

-- Programs whose own prompt offers a shell escape (!sh, :shell): run with
-- privilege they give a root shell, and the escape is typed, not seen.
local INTERACTIVE = set({ "vi", "vim", "nvim", "view", "vimdiff", "rvim", "ex", "ed", "nano", "pico", "emacs", "less",
  "more", "most", "pg", "man", "ftp", "gdb", "tmux", "screen", "script", "expect", "tclsh", "wish", "irb", "top",
  "htop", "mc", "ranger", "aptitude", "telnet", "capsh", "nsenter", "unshare", "jjs", "crash", "ghci", "scala",
  "rlwrap", "multitime" })
-- Package managers name packages in their operands (apt-get install zsh):
-- only their option values are read for a shell.
local PACKAGERS = set({ "apt", "apt-get", "dnf", "yum", "zypper", "pacman", "apk", "brew", "snap", "pip", "pip3",
  "npm", "pnpm", "yarn", "gem", "cargo", "go", "dpkg", "rpm", "flatpak", "nix-env", "port" })

-- su_root reports whether su/runuser -c runs as root: no user named, or
-- root (or UID 0) named. The values of -c, -s, -g, -G and -w are skipped.
local SU_ARG = set({ "-c", "--command", "--session-command", "-s", "--shell", "-g", "--group", "-G",
  "--supp-group", "-w", "--whitelist-environment", "-u", "--user" })
function su_root(c)
  local k = 1
  while c.args[k] do
    local a = c.args[k]
    local t = a.text
    if SU_ARG[t] then
      k = k + 1
    elseif t ~= "-" and t ~= "--" and (a.unknown or t:sub(1, 1) ~= "-") then
      return t == "root" or t == "0" or a.unknown
    end
    k = k + 1
  end
  return true
end

-- git_escape reports whether a git command opens a pager or an editor (or
-- sets the program it runs for one), whose shell escape (!sh) is typed at
-- its prompt: -p/--paginate, help, -c core.pager/core.editor/…, commit
-- without a message, rebase -i, config -e.
function git_escape(c)
  if flag(c, "p", "paginate") or any_arg(c, "(?i)^(?:core\\.(?:pager|editor|sshcommand|fsmonitor|hookspath)|" ..
    "(?:pager|sequence)\\.|sequence\\.editor|diff\\..*\\.(?:textconv|command)|alias\\.)") then
    return true
  end
  local _, ts = operands(c)
  local verb = ts[1]
  if verb == "help" or (verb == "config" and flag(c, "e", "edit")) or (verb == "rebase" and flag(c, "i", "interactive"))
    or (verb == "commit" and not flag(c, "mFC", "message file reuse-message no-edit fixup")) then
    return true
  end
  return false
end

-- RUNS_PROGRAM: options by which a program runs another program of the
-- caller's choosing; run with privilege, that program runs as root and is
-- not read (tar --checkpoint-action=exec=…, zip -TT …, rsync -e …).
RUNS_PROGRAM = {
  tar = "^(?:--checkpoint-action|--to-command|--use-compress-program|--info-script|--new-volume-script|-I|-F)",
  gtar = "^(?:--checkpoint-action|--to-command|--use-compress-program|--info-script|--new-volume-script|-I|-F)",
  zip = "^(?:-TT|--unzip-command)",
  rsync = "^(?:-e|--rsh|--rsync-path)",
  man = "^(?:-P|--pager|-H|--html)",
  ssh = "(?i)^(?:-o\\s*)?(?:ProxyCommand|LocalCommand|PermitLocalCommand)",
  scp = "(?i)^(?:-S|-o\\s*ProxyCommand)",
}

local function root_shell(c)
  local n = c.name
  if n == "sudo" or n == "doas" or n == "run0" or n == "pkexec" then
    -- sudo -i / -s / --login / --shell with no program, doas -s, bare run0/pkexec
    for _, a in ipairs(c.argv or {}) do
      local t = a.text
      if t == "--login" or t == "--shell" or (t:find("^%-%a+$") and t:find("[is]")) then return true end
    end
    return (n == "run0" or n == "pkexec") and #c.args == 0
  end
  if n == "su" or n == "runuser" or n == "sg" or n == "newgrp" then
    -- su without -c opens a shell as the user it names (root by default);
    -- su -c runs its command as root unless it names another user, whose
    -- command is then judged like any other
    if flag(c, nil, "help version") then return false end
    if not flag(c, "c", "command session-command") and not any_arg(c, "^-c.")
      and not (n == "runuser" and any_arg(c, "^--$")) then
      return true
    end
    return (n == "su" or n == "runuser") and su_root(c)
  end
  if n == "machinectl" then
    local _, ts = operands(c)
    return ts[1] == "shell" or ts[1] == "login"
  end
  if not privileged(c) then return false end
  -- a program only known when it runs (sudo $X, sudo $(cat cmd)), run
  -- with privilege: it may be a shell
  if not n then return c.word ~= nil and c.word.unknown == true end
  if SHELLS[n] then
    -- an interactive root shell; with -c or a script, what it runs is judged
    local heredoc = false
    for _, r in ipairs(c.redirs) do
      if r.op:find("^<<") then heredoc = true end
    end
    -- a pipe into xargs is xargs's input, not the shell's script
    local piped = c.pipe_in
    for _, w in ipairs(c.wrappers) do
      if w == "xargs" then piped = false end
    end
    return not c.script and not c.inline and not piped and not heredoc
  end
  if shell.interpreter(n) then
    -- inline code that starts a shell; a REPL, whose prompt runs anything;
    -- a script file is not read
    if c.inline then
      return any_arg(c, SHELL_REF)
        or any_arg(c, "(?i)pty|os\\.(?:system|exec|spawn|popen)|subprocess|exec|system\\s*\\(")
    end
    return not c.script and not c.pipe_in
  end
  if INTERACTIVE[n] then return true end
  if n == "git" and git_escape(c) then return true end
  local opts = RUNS_PROGRAM[n]
  if opts and any_arg(c, opts) then return true end
  if n == "nmap" and any_arg(c, "^--(?:interactive|script)") then return true end
  if PACKAGERS[n] then
    for _, a in ipairs(c.args) do
      if a.text:find("[=:]") and re.match(SHELL_REF, a.text) then return true end
    end
    return false
  end
  return any_arg(c, SHELL_REF)
end

local function setuid_mode(t)
  local oct = t:match("^([0-7]?)[0-7][0-7][0-7]$")
  if oct and oct ~= "" then
    local d = tonumber(oct)
    return d == 2 or d == 3 or d == 4 or d == 5 or d == 6 or d == 7
  end
  for clause in t:gmatch("[^,]+") do
    local who, op, perm = clause:match("^([ugoa]*)([+=])([rwxXst]*)$")
    if who and perm:find("s") and (who == "" or who:find("[uga]")) then return true end
  end
  return false
end

local function setuid(c)
  local n = c.name
  if n == "chmod" then
    for _, a in ipairs(c.args) do
      if not a.unknown and setuid_mode(a.text) then return true end
    end
  elseif n == "install" then
    for k, a in ipairs(c.args) do
      local m = a.text:match("^%-%-mode=(.*)$") or a.text:match("^%-m(.+)$")
      if not m and a.text == "-m" and c.args[k + 1] then m = c.args[k + 1].text end
      if m and setuid_mode(m) then return true end
    end
  elseif n == "setcap" then
    return not flag(c, "rv", "help")
  end
  return false
end

local UNIT_VERBS = set({ "enable", "disable", "reenable", "mask", "unmask", "link", "preset", "preset-all",
  "set-default", "edit", "add-wants", "add-requires", "revert" })
local UNIT_PLACES = { "/etc/systemd/", "/lib/systemd/", "/usr/lib/systemd/", "/run/systemd/system/",
  "/.config/systemd/", "/.local/share/systemd/", "/etc/init.d/", "/etc/rc.local", "/etc/rc%d?%.d/",
  "/etc/xdg/autostart/", "/.config/autostart/", "/Library/LaunchAgents/", "/Library/LaunchDaemons/",
  "/etc/ld.so.preload", "/etc/update%-motd.d/", "/etc/init/", "/etc/inittab", "/etc/profile.d/" }
local function persistence(c, cwd)
  local n = c.name
  if n == "systemctl" then
    local verb = systemctl(c)
    if UNIT_VERBS[verb or ""] then return true end
  elseif n == "launchctl" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    return v == "load" or v == "bootstrap" or v == "enable" or v == "submit" or v == "unload" or v == "bootout"
      or v == "disable"
  elseif n == "update-rc.d" or n == "rc-update" or n == "systemd-run" then
    return n ~= "systemd-run" or flag(c, nil, "on-calendar on-boot on-startup on-active timer-property")
  elseif n == "chkconfig" then
    local _, ts = operands(c)
    return #ts >= 2 or flag(c, nil, "add del")
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs)
    local p = "/" .. abs .. "/"
    for _, u in ipairs(UNIT_PLACES) do
      if p:find(u) then return true end
    end
    return false
  end)
end

local function ssh_keys(c, cwd)
  if c.name == "ssh-copy-id" then return true end
  for _, t in ipairs((outside(c, cwd))) do
    local w = t[1]
    if w.text:find("authorized_keys2?$") then
      -- a key file of the project's own (a test fixture) is its business
      local abs = place(w, cwd)
      if not (abs and project(abs, cwd)) then return true end
    end
  end
  return false
end

local CRON_PLACES = { "/etc/cron", "/var/spool/cron", "/etc/anacrontab", "/var/spool/anacron", "/var/at",
  "/var/spool/at", "/usr/lib/cron/tabs", "/var/cron" }
local function cron(c, cwd)
  local n = c.name
  if n == "crontab" then
    if flag(c, "l", "list help") then return false end
    local o = shell.options(c.args, { short_arg = { u = "user" } })
    return flag(c, "rei", nil) or #o.operands > 0 or c.pipe_in or #c.redirs > 0
  elseif n == "at" or n == "batch" then
    return not flag(c, "lcdrV", "help")
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs)
    for _, p in ipairs(CRON_PLACES) do
      if abs:sub(1, #p) == p then return true end
    end
    return false
  end)
end

local IPTABLES = set({ "iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft",
  "ip6tables-nft", "ebtables", "arptables", "xtables-legacy-multi", "xtables-nft-multi" })
local function firewall(c)
  local n = c.name
  if IPTABLES[n] then
    return flag(c, "AIDRFXPNEZ", "append insert delete replace flush delete-chain policy new-chain rename-chain zero")
  elseif n == "iptables-restore" or n == "ip6tables-restore" or n == "iptables-legacy-restore"
    or n == "iptables-nft-restore" then
    return not flag(c, "th", "test help")
  elseif n == "nft" then
    local _, ts = operands(c)
    if flag(c, "f", "file") and not flag(c, "c", "check") then return true end
    local v = ts[1] or ""
    return not (v == "" or v == "list" or v == "describe" or v == "monitor" or v == "get" or v == "help")
      and not flag(c, "cv", "check version help")
  elseif n == "ufw" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    return not (v == "" or v == "status" or v == "show" or v == "version" or v == "enable" or v == "help"
      or (v == "app" and (ts[2] == "list" or ts[2] == "info")))
      and not flag(c, nil, "dry-run help version")
  elseif n == "firewall-cmd" or n == "firewall-offline-cmd" then
    for _, a in ipairs(c.args) do
      local t = a.text
      if t:sub(1, 2) == "--" and not (t:find("^%-%-list") or t:find("^%-%-get") or t:find("^%-%-query")
        or t:find("^%-%-info") or t:find("^%-%-state") or t == "--reload" or t == "--complete-reload"
        or t:find("^%-%-zone") or t == "--permanent" or t == "--help" or t == "--version"
        or t:find("^%-%-check")) then
        return true
      end
    end
  elseif n == "pfctl" then
    return flag(c, "dF", "disable flush")
  elseif n == "netsh" then
    for _, a in ipairs(c.args) do
      if a.text:lower():find("firewall") then
        return any_arg(c, "(?i)^(?:off|reset|disable|delete|set|add)$")
      end
    end
  end
  return false
end

local PARTITIONERS = set({ "fdisk", "sfdisk", "cfdisk", "gdisk", "cgdisk", "sgdisk", "parted", "gparted",
  "partprobe", "diskutil", "blkdiscard", "mdadm", "cryptsetup", "hdparm", "nvme", "sg_format", "dmsetup", "gpart" })
local function disks(c)
  local n = c.name
  if danger.formats_disk(c) or danger.writes_disk(c) then
    return not (n == "wipefs" and not flag(c, "ao", "all offset"))
  end
  if not PARTITIONERS[n] then return false end
  local _, ts = operands(c)
  if n == "fdisk" or n == "cfdisk" or n == "gdisk" or n == "cgdisk" then
    return not flag(c, "lsV", "list getsz version help")
  elseif n == "sfdisk" then
    return not flag(c, "lsdgJV", "list show-size dump show-geometry json verify version help list-types list-free")
  elseif n == "sgdisk" then
    return not (flag(c, "piLOv", "print info list-types print-mbr verify version help")
      and not flag(c, "nodtczZgGcCNrRsxaABfFhl", "new delete typecode clear zap zap-all mbrtogpt change-name " ..
        "transform-bsd randomize-guids replicate load-backup backup"))
  elseif n == "parted" or n == "gparted" then
    if n == "gparted" then return true end
    if flag(c, "lv", "list version help") then return false end
    for _, t in ipairs(ts) do
      if t == "print" or t == "p" then return false end
    end
    return true
  elseif n == "partprobe" then
    return false
  elseif n == "diskutil" then
    local v = ts[1] or ""
    return v:find("^erase") ~= nil or v:find("^partition") ~= nil or v:find("^zero") ~= nil
      or v:find("^secure") ~= nil or v == "apfs" and (ts[2] or ""):find("^delete") ~= nil
  elseif n == "mdadm" then
    return flag(c, "CS", "create zero-superblock stop remove fail")
  elseif n == "cryptsetup" then
    for _, t in ipairs(ts) do
      if t == "luksformat" or t == "erase" or t == "lukserase" or t == "lukskillslot" or t == "luksremovekey"
        or t == "reencrypt" then
        return true
      end
    end
  elseif n == "hdparm" then
    return any_arg(c, "^--(?:security-erase|security-erase-enhanced|trim-sector-ranges|write-sector|make-bad-sector)")
  elseif n == "nvme" then
    return ts[1] == "format" or ts[1] == "sanitize" or ts[1] == "delete-ns"
  elseif n == "sg_format" then
    return flag(c, "F", "format")
  elseif n == "dmsetup" then
    return ts[1] == "remove" or ts[1] == "remove_all" or ts[1] == "wipe_table"
  elseif n == "gpart" then
    return ts[1] == "destroy" or ts[1] == "delete" or ts[1] == "create" or ts[1] == "add"
  end
  return false
end

local function kernel(c, cwd)
  local n = c.name
  if n == "insmod" or n == "rmmod" then
    return not flag(c, "V", "help version")
  elseif n == "modprobe" then
    return not flag(c, "ncDRV", "dry-run show showconfig show-config show-depends resolve-alias help version " ..
      "show-modversions dump-modversions")
  elseif n == "kexec" then
    return flag(c, "lep", "load exec load-panic")
  elseif n == "sysctl" then
    if flag(c, "wp", "write load system") then return true end
    for _, a in ipairs(c.args) do
      if a.text:find("^[%w_.%-/]+=") then return true end
    end
    return false
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs, kind)
    return paths.inside(abs, "/proc/sys") or (paths.inside(abs, "/sys") and kind ~= "delete")
  end)
end

-- mounts: remounting a folder of the system (mount -o remount,rw /), a
-- mount over one (mount --bind x /etc), or its unmount. Listing the mounts
-- and mounting a device on a folder of one's own pass.
local function mounts(c, cwd)
  local n = c.name
  if n ~= "mount" and n ~= "umount" and n ~= "umount2" then return false end
  if flag(c, nil, "help version") then return false end
  if n == "mount" and any_arg(c, "(?:^|,)remount(?:,|$)") then return true end
  local ws = operands(c)
  for k, w in ipairs(ws) do
    local abs = place(w, cwd)
    -- mount's last operand is where it mounts; umount's every operand
    if abs and (n ~= "mount" or k == #ws) and not project(abs, cwd)
      and (abs == "/" or under(abs, SETTINGS.system_folders)) and not under(abs, SETTINGS.writable) then
      return true
    end
  end
  return false
end

local function boot(c)
  local n = c.name
  if n == "grub-install" or n == "grub2-install" or n == "update-grub" or n == "update-grub2"
    or n == "grub-reboot" or n == "grub-set-default" or n == "grub2-set-default" or n == "grubby" then
    return not flag(c, nil, "help version info default-kernel default-index default-title")
  elseif n == "grub-mkconfig" or n == "grub2-mkconfig" then
    return flag(c, "o", "output")
  elseif n == "efibootmgr" then
    return flag(c, "BcoOnNaAbw", "delete-bootnum create bootorder delete-bootorder bootnext delete-bootnext " ..
      "active inactive bootnum write-signature create-only")
  elseif n == "bootctl" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    return v == "install" or v == "remove" or v == "update" or v == "set-default" or v == "set-oneshot"
      or v == "unlink" or v == "cleanup"
  elseif n == "bcdedit" or n == "bcdedit.exe" then
    return any_arg(c, "(?i)^/(?:set|delete|deletevalue|create|import|default|bootsequence)$")
  end
  return false
end

local function audit(c)
  if c.name ~= "auditctl" then return false end
  if flag(c, "DdW", "delete") then return true end
  for k, a in ipairs(c.args) do
    if a.text == "-e" and c.args[k + 1] and c.args[k + 1].text == "0" then return true end
    if a.text == "-e0" then return true end
    if (a.text == "-a" or a.text == "-A") and c.args[k + 1] and c.args[k + 1].text:find("never") then return true end
  end
  return false
end

local function mac(c)
  local n = c.name
  if n == "setenforce" then
    local _, ts = operands(c)
    return ts[1] ~= "1" and ts[1] ~= "enforcing"
  elseif n == "setsebool" or n == "aa-teardown" or n == "aa-disable" or n == "aa-complain" or n == "aa-audit" then
    return not flag(c, nil, "help")
  elseif n == "semanage" then
    local _, ts = operands(c)
    return ts[1] == "permissive" or flag(c, nil, "delete deleteall")
  elseif n == "semodule" then
    return flag(c, "dr", "disable remove")
  elseif n == "apparmor_parser" then
    return flag(c, "R", "remove")
  elseif n == "spctl" then
    -- macOS Gatekeeper off, or a program let past it
    return flag(c, nil, "master-disable global-disable disable add remove")
  elseif n == "csrutil" then
    -- macOS System Integrity Protection off
    local _, ts = operands(c)
    for _, t in ipairs(ts) do
      if t == "disable" or t == "clear" then return true end
    end
  end
  return false
end

local STOP_VERBS = set({ "stop", "disable", "mask", "kill", "freeze" })
local KILLERS = set({ "kill", "pkill", "killall", "skill" })
local function stops(c, services)
  local n = c.name
  if n == "systemctl" then
    local verb, units = systemctl(c)
    if STOP_VERBS[verb or ""] then
      for _, u in ipairs(units) do
        if services[u] then return true end
      end
    end
    return false
  elseif KILLERS[n] then
    local ws, ts = operands(c)
    for _, t in ipairs(ts) do
      if services[unit(shell.basename(t))] then return true end
    end
    -- kill $(pidof auditd), kill `pgrep falcon-sensor`
    local hit = false
    for _, w in ipairs(ws) do
      shell.producers(w, function(p)
        if p.name == "pidof" or p.name == "pgrep" then
          local _, pts = operands(p)
          for _, t in ipairs(pts) do hit = hit or services[unit(shell.basename(t))] == true end
        end
      end)
    end
    return hit
  end
  if not (n == "service" or n == "rc-service" or n == "update-rc.d" or n == "chkconfig" or n == "rc-update"
    or (c.word and c.word.text:find("^/etc/init%.d/"))) then
    return false
  end
  local name, action = service(c)
  if name and services[name] then
    action = action or ""
    return action == "stop" or action == "disable" or action == "remove" or action == "off" or action == "del"
      or action == "delete" or action == "force-stop" or action == "-f"
  end
  return false
end

local function security_services(c) return stops(c, SECURITY) end
local function services(c) return stops(c, CRITICAL) end

local function logs(c, cwd)
  local n = c.name
  if n == "journalctl" then
    return any_arg(c, "^--vacuum")
  elseif n == "dmesg" then
    return flag(c, "cC", "clear read-clear")
  end
  return has_outside(c, cwd) and touches(c, cwd, function(abs, kind)
    return kind ~= "append" and (paths.inside(abs, "/var/log") or paths.inside(abs, "/var/adm")
      or paths.inside(abs, "/Library/Logs") or paths.inside(abs, "/private/var/log"))
  end)
end

-- A host that is the machine itself.
local function loopback(h)
  h = h:lower()
  return h == "localhost" or h:find("^127%.") ~= nil or h == "::1" or h == "0.0.0.0" or h == "[::1]"
end

-- raw_socket reports whether a word names /dev/tcp or /dev/udp to another host.
local function raw_socket(w)
  local host = w.text:match("/dev/[tu][cd]p/([^/]*)")
  if not host then return false end
  return host:find("\0") ~= nil or not loopback(host)
end

local NETCAT = set({ "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "pwncat", "telnet", "socat", "ztcp",
  "openssl", "sbd", "cryptcat" })
local SOCKET_CODE = "(?i)socket|fsockopen|TCPClient|TCPSocket|UDPSocket|net\\.connect|createConnection|" ..
  "require\\(\\s*['\"]net['\"]\\s*\\)|/dev/tcp/|/inet/tcp|LuaSocket|stream_socket_client|" ..
  "\\bnc\\s+-[a-z]*e|ncat\\s|socat\\s"
local EXEC_CODE = "(?i)dup2|pty|spawn|popen|proc_open|shell_exec|passthru|child_process|os\\.execute|" ..
  "\\bexec\\b|\\bsystem\\s*[(\"'$]|iex\\b|invoke-expression|GetStream|subprocess|fdopen|/bin/|cmd\\.exe"

local function reverse_shell(c, cwd, ctx)
  local n = c.name
  for _, r in ipairs(c.redirs) do
    if raw_socket(r.target) then return true end
  end
  for _, a in ipairs(c.args) do
    if raw_socket(a) then return true end
  end
  if not n then return false end
  if n == "nc" or n == "ncat" or n == "netcat" or n == "nc.traditional" or n == "nc.openbsd" or n == "sbd"
    or n == "cryptcat" or n == "pwncat" then
    if flag(c, "ec", "exec sh-exec lua-exec") then return true end
  elseif n == "socat" then
    local exec, net = false, false
    for _, a in ipairs(c.args) do
      local t = a.text:lower()
      if t:find("^exec:") or t:find("^system:") or t:find("^exec,") then exec = true end
      if t:find("^tcp") or t:find("^udp") or t:find("^ssl") or t:find("^openssl") or t:find("^sctp")
        or t:find("^socks") or t:find("^proxy") or t:find("^ip%d?[-:]") then
        net = true
      end
    end
    if exec and net then return true end
  elseif (n == "awk" or n == "gawk") and any_arg(c, "/inet[46]?/(?:tcp|udp)/") then
    return true
  end
  if shell.interpreter(n) and not SHELLS[n] then
    local code = {}
    for _, a in ipairs(c.args) do code[#code + 1] = a.text end
    code = table.concat(code, " ")
    if re.match("(?i)pty\\.spawn|pty\\.fork", code) then return true end
    if re.match(SOCKET_CODE, code) and re.match(EXEC_CODE, code) then return true end
  end
  -- a shell and a raw network client in one pipeline (mkfifo f; cat f | sh -i | nc h p > f)
  if c.pipeline and (NETCAT[n] or (SHELLS[n] and c.reads_stdin and not c.script)) then
    for _, o in ipairs(ctx.cmds) do
      if o ~= c and o.pipeline == c.pipeline and o.depth == c.depth and o.name then
        if NETCAT[n] and SHELLS[o.name] and o.reads_stdin and not o.script then return true end
        if SHELLS[n] and NETCAT[o.name] then return true end
      end
    end
  end
  return false
end

local function backup_word(w)
  if w.unknown then return false end
  for part in w.text:gmatch("[^/]+") do
    if BACKUPS[part:lower()] then return true end
  end
  return false
end

local RECOVERY_TOOLS = set({ "lvremove", "vgremove", "pvremove", "lvreduce", "zfs", "zpool", "btrfs", "timeshift",
  "snapper", "tmutil", "vssadmin", "vssadmin.exe", "wmic", "wmic.exe", "wbadmin",
  "wbadmin.exe" })
local function recovery(c, cwd)
  local n = c.name
  local ts = RECOVERY_TOOLS[n or ""] and select(2, operands(c))
  if not ts then
    -- not a snapshot or backup tool: only its deletes are read, below
  elseif n == "lvremove" or n == "vgremove" or n == "pvremove" or n == "lvreduce" then
    return not flag(c, nil, "help version")
  elseif n == "zfs" or n == "zpool" then
    return ts[1] == "destroy" or (n == "zfs" and ts[1] == "rollback" and flag(c, "rR", nil))
      or (n == "zpool" and (ts[1] == "labelclear"))
  elseif n == "btrfs" then
    return (ts[1] or ""):find("^sub") ~= nil and (ts[2] or ""):find("^del") ~= nil
  elseif n == "timeshift" then
    return flag(c, nil, "delete delete-all")
  elseif n == "snapper" then
    for _, t in ipairs(ts) do
      if t == "delete" or t == "remove" or t == "rm" or t == "delete-config" then return true end
    end
  elseif n == "tmutil" then
    local v = ts[1] or ""
    return v == "delete" or v == "deletelocalsnapshots" or v == "disable" or v == "thinlocalsnapshots"
      or v == "disablelocal" or v == "removedestination"
  elseif n == "vssadmin" or n == "vssadmin.exe" then
    return ts[1] == "delete" or ts[1] == "resize"
  elseif n == "wmic" or n == "wmic.exe" then
    local joined = table.concat(ts, " ")
    return joined:find("shadowcopy") ~= nil and joined:find("delete") ~= nil
  elseif n == "wbadmin" or n == "wbadmin.exe" then
    return ts[1] == "delete" or ts[1] == "disable"
  end
  -- a backup folder's removal anywhere; a single backup file's outside the
  -- project (a project's own backups/old.sql is its business)
  local all = outside(c, cwd)
  local recursive = n == "find" or (REMOVERS[n or ""] and flag(c, "rR", "recursive"))
  for _, t in ipairs(all) do
    if t[2] == "delete" and backup_word(t[1]) then
      if recursive then return true end
      local abs = place(t[1], cwd)
      if not (abs and project(abs, cwd)) then return true end
    end
  end
  return false
end

local function system_files(c, cwd)
  return has_outside(c, cwd) and touches(c, cwd, function(abs, kind)
    return under(abs, SETTINGS.system_folders) and not under(abs, SETTINGS.writable)
  end)
end

local rules = {
  { name = "reverse-shell", check = reverse_shell, why = "a reverse shell (a shell wired to a network connection)",
    instead = "do not open shells to the network; ask the user if you need remote access" },
  { name = "power", check = power, why = "shutting down or rebooting the machine",
    instead = "ask the user to do it" },
  { name = "sudoers", check = sudoers, why = "a change to sudoers",
    instead = "tell the user which rule to add; do not grant yourself privileges" },
  { name = "accounts", check = accounts, why = "a change to user accounts, groups or passwords",
    instead = "tell the user which account change is needed and let them make it" },
  { name = "setuid", check = setuid, why = "setting a setuid/setgid bit or file capabilities",
    instead = "use ordinary permissions (755, 644, u+x)" },
  { name = "ssh-keys", check = ssh_keys, why = "installing SSH keys (authorized_keys)",
    instead = "ask the user to add the key" },
  { name = "cron", check = cron, why = "a change to scheduled jobs (crontab, at, /etc/cron*)",
    instead = "show the user the job to schedule; crontab -l lists the current ones" },
  { name = "security-services", check = security_services, why = "stopping or disabling a security service",
    instead = "leave security services running; ask the user if one is in the way" },
  { name = "services", check = services, why = "stopping or disabling a service the machine needs (ssh, network, …)",
    instead = "restart it if you must (systemctl restart NAME), or ask the user" },
  { name = "audit", check = audit, why = "turning auditing off or deleting audit rules",
    instead = "leave auditing alone; auditctl -l lists the rules" },
  { name = "mac", check = mac, why = "turning SELinux, AppArmor, Gatekeeper or SIP off or loosening it",
    instead = "leave it enforcing; getenforce and aa-status show the state, ask the user about a denial" },
  { name = "firewall", check = firewall, why = "a firewall change",
    instead = "leave the firewall alone; list its rules (iptables -L, nft list ruleset, ufw status) and ask the user" },
  { name = "logs", check = logs, why = "deleting or truncating system logs",
    instead = "leave logs alone; read them with journalctl or less" },
  { name = "persistence", check = persistence, why = "a change to services or programs started at boot or login",
    instead = "run the program in the foreground, or tell the user how to install the service" },
  { name = "recovery", check = recovery, why = "deleting snapshots or backups",
    instead = "leave snapshots and backups alone; ask the user to prune them" },
  { name = "disks", check = disks, why = "changing disks or partitions",
    instead = "ask the user to do it; fdisk -l and lsblk show the disks" },
  { name = "kernel", check = kernel, why = "a change to the kernel's modules or settings",
    instead = "ask the user to do it; lsmod and sysctl -a show the state" },
  { name = "mounts", check = mounts, why = "remounting or unmounting a system folder",
    instead = "leave the system's mounts alone; findmnt and mount list them, ask the user to change one" },
  { name = "boot", check = boot, why = "a change to the boot loader",
    instead = "ask the user to do it" },
  { name = "root-shell", check = root_shell, why = "a root shell or a privileged program's shell escape",
    instead = "run the one command you need, non-interactively, and only with the privilege it needs" },
  { name = "system-files", check = system_files, why = "writing, moving or deleting system files",
    instead = "work inside the project; tell the user which system file to change and how" },
}
local active = {}
for _, r in ipairs(rules) do
  if not ALLOWED[r.name] then active[#active + 1] = r end
end

-- The programs the rules look at by name, for shell.quick: a plain line
-- running none of them, with no /dev/tcp or /inet/ in it, is allowed
-- without parsing.
local PROGRAMS = {}
do
  local names = { "shutdown", "reboot", "halt", "poweroff", "kexec", "systemctl", "init", "telinit", "loginctl",
    "kill", "killall5", "pkill", "killall", "skill", "passwd", "chage", "dscl", "visudo", "sudoedit", "su", "runuser",
    "sg", "newgrp", "machinectl", "run0", "install", "setcap", "chmod", "launchctl", "update-rc.d", "rc-update",
    "systemd-run", "chkconfig", "service", "rc-service", "ssh-copy-id", "crontab", "at", "batch", "nft", "ufw",
    "firewall-cmd", "firewall-offline-cmd", "pfctl", "netsh", "insmod", "rmmod", "modprobe", "sysctl", "auditctl",
    "setenforce", "setsebool", "aa-teardown", "aa-disable", "aa-complain", "aa-audit", "semanage", "semodule",
    "apparmor_parser", "spctl", "csrutil", "mount", "umount", "net", "net1", "journalctl", "dmesg", "awk", "gawk", "lvremove", "vgremove", "pvremove", "lvreduce", "zfs",
    "zpool", "btrfs", "timeshift", "snapper", "tmutil", "vssadmin", "wmic", "wbadmin",
    "grub-install", "grub2-install", "update-grub", "update-grub2", "grub-reboot", "grub-set-default",
    "grub2-set-default", "grubby", "grub-mkconfig", "grub2-mkconfig", "efibootmgr", "bootctl", "bcdedit",
    "stop-computer", "restart-computer", "set-mppreference", "add-mppreference", "new-localuser",
    "remove-localuser", "set-localuser", "enable-localuser", "rename-localuser", "add-localgroupmember",
    "remove-localgroupmember", "new-localgroup", "remove-localgroup", "pwsh", "powershell", "pwsh.exe",
    "powershell.exe", "cmd", "cmd.exe", "mv", "cp", "ln", "rsync", "scp", "tee", "touch", "truncate", "sed", "gsed", "dd" }
  for _, set_ in ipairs({ ACCOUNT_TOOLS, REMOVERS, CHANGERS, IPTABLES, PARTITIONERS, NETCAT }) do
    for k in pairs(set_) do names[#names + 1] = k end
  end
  for _, k in ipairs(names) do PROGRAMS[#PROGRAMS + 1] = re.quote(k) end
  for _, k in ipairs(danger.PROGRAMS) do PROGRAMS[#PROGRAMS + 1] = k end
  PROGRAMS[#PROGRAMS + 1] = "ip6?tables-[a-z-]+"
  table.sort(PROGRAMS)
end
local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { PROGRAMS }, words = "/dev/|/inet|/etc/init\\.d/" })

-- PowerShell: the PowerShell tool's command, pwsh/powershell -c in a shell
-- line, and a line of another tool that reads as PowerShell (pwsh.looks)
-- are read by lib/pwsh.lua; its commands are judged by these rules, named
-- as the shell rules are.
local PWSH_ACCOUNTS = set({ "new-localuser", "remove-localuser", "set-localuser", "enable-localuser",
  "rename-localuser", "add-localgroupmember", "remove-localgroupmember", "new-localgroup", "remove-localgroup" })
-- PWSH_NAMES are the cmdlets pwsh_rule reads: a line of a tool not named
-- PowerShell that runs one is read as PowerShell too.
local PWSH_NAMES = set({ "stop-computer", "restart-computer", "set-mppreference", "add-mppreference" })
for k in pairs(PWSH_ACCOUNTS) do PWSH_NAMES[k] = true end
local BY_NAME = {}
for _, r in ipairs(active) do BY_NAME[r.name] = r end

-- defender_off reports whether Set-/Add-MpPreference turns a part of
-- Microsoft Defender off (-Disable…, but -Disable… $false / 0) or excludes
-- files, folders, processes or extensions from its scans (-Exclusion…).
local function defender_off(c, line)
  for _, w in ipairs(c.unknown_params) do
    if w:lower():find("^%-exclusion") then return true end
  end
  for name in pairs(c.params) do
    if name:lower():find("^exclusion") then return true end
  end
  for value in line:lower():gmatch("%-disable[%w]+[%s:]*([^%s;|]*)") do
    if value ~= "$false" and value ~= "0" then return true end
  end
  return false
end

local function pwsh_rule(c, line)
  local n = c.name or ""
  if n == "stop-computer" or n == "restart-computer" then
    return not (c.params.whatif or re.match("(?i)-whatif\\b", line)) and BY_NAME.power
  elseif PWSH_ACCOUNTS[n] then
    return BY_NAME.accounts
  elseif n == "net" or n == "net1" then
    local ts = {}
    for _, a in ipairs(c.args) do ts[#ts + 1] = a.text:lower() end
    return net_account(ts) and BY_NAME.accounts
  elseif n == "set-mppreference" or n == "add-mppreference" then
    return defender_off(c, line) and BY_NAME["security-services"]
  end
  return false
end

-- judge_pwsh returns the rule a PowerShell line breaks, or nil, and the
-- parser's error.
local function judge_pwsh(line)
  local cmds, err = pwsh.parse(line)
  for _, c in ipairs(cmds) do
    local r = pwsh_rule(c, line)
    if r then return r end
  end
  return nil, err
end

local function deny(r)
  return hook.deny("system pack: blocked " .. r.why .. " [rule " .. r.name .. "]; " .. r.instead .. ".")
end

hook.register("PreToolUse", "@shell", function(input)
  -- The command line, read here as shell.command reads it: a hook that
  -- hands no table of its input to another function keeps the input's
  -- tables for the next call (the usual call allocates nothing).
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  if #line < QUICK_MAX and not re.match(QUICK_STOP, line) then return nil end
  local cwd = input.cwd
  local tool = pwsh.tool(input.toolName)
  if tool then
    -- the PowerShell tool's line, read as PowerShell; the rules below
    -- read it as a shell line too (vssadmin, bcdedit, net are programs
    -- in both)
    local r = judge_pwsh(line)
    if r then return deny(r) end
  end
  local cmds, err = shell.parse(line)
  local ctx = { cmds = cmds }
  local ps = false
  for _, c in ipairs(cmds) do
    for _, r in ipairs(active) do
      if r.check(c, cwd, ctx) then return deny(r) end
    end
    ps = ps or PWSH_NAMES[c.name or ""] == true
    if pwsh.CMD[c.name or ""] then
      -- cmd /c net user … /add
      for _, x in ipairs((pwsh.cmd(c.args))) do
        local r = pwsh_rule(x, line)
        if r then return deny(r) end
      end
    end
    if pwsh.HOSTS[c.name or ""] then
      local inv = pwsh.invocation(c.args)
      local r = inv.code and judge_pwsh(inv.code)
      if r then return deny(r) end
    end
  end
  if not tool and (ps or pwsh.looks(line)) then
    -- a PowerShell line a tool of another name runs (Cursor's Shell): one
    -- that reads as PowerShell, or runs a cmdlet these rules look at
    local r = judge_pwsh(line)
    if r then return deny(r) end
  end
  if err then
    return hook.deny("system pack: blocked a command that could not be checked (" .. err ..
      ") [rule parse]; split it into shorter commands.")
  end
end, { name = "pack-system", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
