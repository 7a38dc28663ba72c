-- shell.args: command-line options, and the programs that run another
-- program (sudo, env, xargs, timeout, sh -c, eval, find -exec, ...).

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local interp = require("shell.interp")
local M = {}

-- basename drops the folders of a program path ("/usr/bin/rm" -> "rm").
function M.basename(s)
  return (s:gsub("/+$", ""):match("[^/]*$"))
end

-- program returns the name a program word runs: its folders dropped (at
-- "/", and at "\\" as a Windows path spells them), lower-cased, and a
-- Windows ".exe" dropped: "C:/Git/bin/git.exe", "\\rm.exe" and
-- "python3.11.exe" run git, rm and python3.11.
function M.program(s)
  local n = s:gsub("[/\\]+$", ""):match("[^/\\]*$"):lower()
  if n:sub(-4) == ".exe" and #n > 4 then n = n:sub(1, -5) end
  return n
end

-- clean folds the "//", "/./" and "a/.." of a path the way the kernel
-- reads them ("/usr/bin/../bin/rm" -> "/usr/bin/rm", "/./etc/init.d/x" ->
-- "/etc/init.d/x"); a relative path keeps its leading "./" or "../".
function M.clean(s)
  local abs = s:sub(1, 1) == "/"
  local parts, lead = {}, 0
  for seg in s:gmatch("[^/]+") do
    if seg == ".." then
      if #parts > lead then
        parts[#parts] = nil
      elseif not abs then
        parts[#parts + 1] = ".."; lead = lead + 1
      end
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  local out = table.concat(parts, "/")
  if abs then return "/" .. out end
  if lead == 0 and s:sub(1, 2) == "./" then return "./" .. out end
  return out
end

-- program_path returns a program word in path form with its path cleaned
-- (M.clean), so that a policy reading the word's text sees the file the
-- kernel runs; a word that is clean already is returned as it is.
function M.program_path(w)
  local t = M.clean(w.text)
  if t == w.text or t == "" then return w end
  local c = {}
  for k, v in pairs(w) do c[k] = v end
  c.text, c.pat = t, (t:gsub("[\\\0]", "\\%0"))
  return c
end

-- long returns the long option names that the (possibly abbreviated) name
-- selects: the exact one if it is there, else every name it is a prefix
-- of (GNU getopt_long accepts any unique prefix; an ambiguous prefix is an
-- error there, and here it selects every candidate, which can only make a
-- policy stricter).
function M.long(name, names)
  local hits = {}
  for _, n in ipairs(names) do
    if n == name then return { n } end
    if name ~= "" and n:sub(1, #name) == name then hits[#hits + 1] = n end
  end
  return hits
end

-- options parses words as a GNU program would. spec:
--   short     = { r = "recursive", f = "force" }   letters of flags
--   short_arg = { o = "output" }                   letters that take a value
--   long      = { "recursive", "force" }           long flags (abbreviable)
--   long_arg  = { "output" }                       long options with a value
--   posix     = true                               options end at the first operand
-- It returns { flags = { name = true or value }, operands = { words },
-- unknown = true } where unknown says that a word whose value is unknown
-- stood where an option could (so any flag may be set).
function M.options(words, spec)
  local res = { flags = {}, operands = {} }
  local longs = {}
  for _, n in ipairs(spec.long or {}) do longs[#longs + 1] = n end
  for _, n in ipairs(spec.long_arg or {}) do longs[#longs + 1] = n end
  local takes = {}
  for _, n in ipairs(spec.long_arg or {}) do takes[n] = true end
  local short, short_arg = spec.short or {}, spec.short_arg or {}
  local k, done = 1, false
  while words[k] do
    local w = words[k]
    local t = w.text
    if done then
      res.operands[#res.operands + 1] = w
    elseif w.unknown and (t:sub(1, 1) == "-" or t:sub(1, 1) == "\0") then
      res.unknown = true
      res.operands[#res.operands + 1] = w
    elseif t == "--" then
      done = true
    elseif t:sub(1, 2) == "--" then
      local name, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
      local hits = M.long(name, longs)
      for _, h in ipairs(hits) do
        if takes[h] then
          if eq == "" then
            val = words[k + 1] and words[k + 1].text
            if #hits == 1 then k = k + 1 end
          end
          res.flags[h] = val or true
        else
          res.flags[h] = true
        end
      end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for j = 2, #t do
        local c = t:sub(j, j)
        if short_arg[c] then
          local val = t:sub(j + 1)
          if val == "" then
            k = k + 1
            val = words[k] and words[k].text or ""
          end
          res.flags[short_arg[c]] = val
          break
        elseif short[c] then
          res.flags[short[c]] = true
        end
      end
    else
      res.operands[#res.operands + 1] = w
      if spec.posix then done = true end
    end
    k = k + 1
  end
  return res
end

-- WRAPPERS lists the programs that run the program named after their own
-- options: letters and long names of their options that take a value,
-- letters that mean they run nothing (sudo -e edits, command -v looks up),
-- operands to skip before the program (timeout's duration, chroot's root).
local WRAPPERS = {
  sudo = { short_arg = "ugprCDhTUtc", long_arg = { "user", "group", "prompt", "role", "close-from", "chdir",
    "host", "type", "command-timeout", "other-user", "login-class" }, assigns = true, stop = "elvVK", chdir = "D" },
  doas = { short_arg = "uC", stop = "L" },
  pkexec = { long_arg = { "user" } },
  env = { short_arg = "uCSP", long_arg = { "unset", "chdir", "split-string", "block-signal", "default-signal",
    "ignore-signal" }, assigns = true, split = "S", split_long = "split-string", dash = true, chdir = "C" },
  nice = { short_arg = "n", long_arg = { "adjustment" } },
  nohup = {},
  setsid = {},
  unbuffer = {},
  builtin = {},
  exec = { short_arg = "a" },
  command = { stop = "vV" },
  time = {},
  timeout = { short_arg = "sk", long_arg = { "signal", "kill-after" }, skip = 1 },
  stdbuf = { short_arg = "ioe", long_arg = { "input", "output", "error" } },
  ionice = { short_arg = "cnpPu", long_arg = { "class", "classdata", "pid", "pgid", "uid" }, stop = "pPu" },
  chroot = { long_arg = { "userspec", "groups" }, skip = 1 },
  chrt = { skip = 1, stop = "p" },
  taskset = { skip = 1, stop = "p" },
  flock = { short_arg = "wEc", long_arg = { "timeout", "conflict-exit-code", "command" }, skip = 1, stop = "c" },
  caffeinate = { short_arg = "tw" },
  xargs = { short_arg = "adEIJLnPRs", long_arg = { "arg-file", "delimiter", "max-args", "max-procs", "max-chars",
    "process-slot-var" }, xargs = true },
  watch = { short_arg = "nq", long_arg = { "interval", "equexit" }, join = true },
  busybox = {},
  fakeroot = {},
  torsocks = {},
  proxychains = { short_arg = "f" },
  proxychains4 = { short_arg = "f" },
  firejail = {},
  ["strace"] = { short_arg = "eoOpPsSuIXabE" },
  ltrace = { short_arg = "eoOpuaAlLnsS" },
  nocorrect = {},
  noglob = {},
  -- env and secret runners that run their operands as a command
  dotenv = { short_arg = "ecvf" },
  ["with-contenv"] = {},
  envchain = { skip = 1, stop = "s" },
  -- session, sandbox and process tools (keep: the ones a pack reads by
  -- name, as a timer or a program that starts a shell; see Runners below)
  ["dbus-run-session"] = { keep = true, long_arg = { "config-file", "dbus-daemon" } },
  ["dbus-launch"] = { long_arg = { "autolaunch", "config-file" } },
  ["systemd-run"] = { keep = true, short_arg = "upEMHs", long_arg = { "unit", "property", "setenv", "machine", "host",
    "description", "slice", "uid", "gid", "nice", "working-directory", "on-active", "on-boot", "on-startup",
    "on-unit-active", "on-unit-inactive", "on-calendar", "on-clock-change", "on-timezone-change",
    "timer-property", "path-property", "socket-property", "service-type", "slice-inherit", "expand-environment" } },
  ["systemd-inhibit"] = { long_arg = { "what", "who", "why", "mode" }, stop = "l" },
  unshare = { keep = true, short_arg = "SGRw", long_arg = { "setuid", "setgid", "root", "wd", "map-user", "map-group",
    "map-users", "map-groups", "propagation", "setgroups", "load-interp" } },
  nsenter = { keep = true, short_arg = "tSG", long_arg = { "target", "setuid", "setgid", "env" } },
  bwrap = { keep = true, long_arg = { "chdir", "tmpfs", "proc", "dev", "dir", "unsetenv", "uid", "gid", "hostname",
    "lock-file", "seccomp", "remount-ro", "cap-add", "cap-drop", "perms", "size", "info-fd", "json-status-fd",
    "userns", "userns2", "pidns", "exec-label", "file-label", "sync-fd", "block-fd", "userns-block-fd", "args",
    "add-seccomp-fd", "overlay-src", "tmp-overlay", "ro-overlay", "argv0" },
    long_arg2 = { bind = true, ["ro-bind"] = true, ["dev-bind"] = true, ["bind-try"] = true, ["ro-bind-try"] = true,
    ["dev-bind-try"] = true, symlink = true, setenv = true, file = true, ["bind-data"] = true,
    ["ro-bind-data"] = true, chmod = true, overlay = true, ["bind-fd"] = true, ["ro-bind-fd"] = true } },
  proot = { keep = true, short_arg = "rbwqkm", long_arg = { "rootfs", "bind", "mount", "cwd", "pwd", "qemu", "kernel-release" } },
  ["xvfb-run"] = { short_arg = "nsfep", long_arg = { "server-num", "server-args", "auth-file", "error-file",
    "xauth-protocol" } },
  tini = { short_arg = "pe" },
  ["dumb-init"] = { short_arg = "r", long_arg = { "rewrite" } },
  gosu = { skip = 1 },
  ["su-exec"] = { skip = 1 },
  ["s6-setuidgid"] = { skip = 1 },
  setpriv = { long_arg = { "reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "inh-caps",
    "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile",
    "landlock-access", "landlock-rule", "seccomp-filter" }, stop = "d" },
  chpst = { short_arg = "uUbe/nlLmdopfcrt" },
  cgexec = { short_arg = "g" },
  numactl = { short_arg = "NmCipPwb", long_arg = { "cpunodebind", "membind", "physcpubind", "interleave",
    "preferred", "preferred-many", "weighted-interleave", "balancing" }, stop = "sH" },
  prlimit = { stop = "p" },
  rlwrap = { keep = true, short_arg = "bCDefgHlMOpPqsStwz" },
  chronic = {},
  faketime = { long_arg = { "date-prog" }, skip = 1 },
  valgrind = {},
  catchsegv = {},
  entr = { join = true },
  watchexec = { short_arg = "ewidfWsp", long_arg = { "exts", "watch", "ignore", "debounce", "filter",
    "filter-file", "signal", "stop-signal", "stop-timeout", "shell", "project-origin", "workdir", "env",
    "delay-run", "poll", "emit-events-to", "on-busy-update", "restart-signal", "ignore-file", "fs-events",
    "watch-file", "wrap-process", "timings", "log-file", "color", "notify", "print-events", "quiet", "bell",
    "screen-clear", "filter-prog", "watch-non-recursive" }, join = true },
  -- Runners: programs that run a command given after their own words
  -- (keep: the runner stays the command with its words, as the rules that
  -- read it know it, and the command it runs is read as well, with the
  -- runner's name among its wrappers). sub: the subcommand (or one of
  -- them) that runs a command; opt_only: operands are not the command,
  -- only the words after --, after a cmd option (nix develop -c) or the
  -- value of a line option (script -c 'cmd', read by a shell); lines:
  -- each operand left is such a line (hyperfine 'cmd' ..., sops exec-env
  -- FILE 'cmd'); skip: operands before the command (aws-vault exec
  -- PROFILE). The option letters and names that take a value are given
  -- for the subcommand.
  dotenvx = { keep = true, sub = "run", short_arg = "fe", long_arg = { "env-file", "env", "env-keys-file",
    "convention", "log-level" } },
  op = { keep = true, sub = "run", long_arg = { "env-file", "account", "config", "encoding", "session", "cache" } },
  doppler = { keep = true, sub = "run", short_arg = "pc", long_arg = { "project", "config", "token", "scope",
    "fallback", "mount", "mount-format", "mount-template", "name-transformer", "api-host", "dashboard-host",
    "configuration", "passphrase", "mount-max-reads", "only-secrets" }, line_long = { "command" } },
  infisical = { keep = true, sub = "run", long_arg = { "env", "projectId", "path", "token", "tags", "domain",
    "project-config-dir", "watch-interval" }, line_long = { "command" } },
  ["aws-vault"] = { keep = true, sub = "exec", short_arg = "dt", long_arg = { "duration", "mfa-token", "region",
    "ec2-server", "prompt", "backend", "keychain" }, skip = 1 },
  chamber = { keep = true, sub = "exec", opt_only = true, long_arg = { "backend", "kms-key-alias" } },
  sops = { keep = true, sub = { ["exec-env"] = true, ["exec-file"] = true }, long_arg = { "output-type",
    "input-type", "filename", "user" }, skip = 1, lines = true },
  uv = { keep = true, sub = "run", short_arg = "pw", long_arg = { "with", "with-editable", "with-requirements",
    "python", "package", "directory", "project", "extra", "group", "no-group", "only-group", "index",
    "default-index", "index-url", "extra-index-url", "find-links", "env-file", "config-file", "cache-dir",
    "python-preference", "resolution", "prerelease", "exclude-newer", "refresh-package", "reinstall-package",
    "upgrade-package", "link-mode", "index-strategy", "keyring-provider", "color" } },
  poetry = { keep = true, sub = "run", short_arg = "CP", long_arg = { "directory", "project" } },
  pipenv = { keep = true, sub = "run" },
  pdm = { keep = true, sub = "run", short_arg = "pg", long_arg = { "project", "venv" } },
  hatch = { keep = true, sub = "run" },
  rye = { keep = true, sub = "run", long_arg = { "pyproject" } },
  pixi = { keep = true, sub = { run = true, exec = true }, short_arg = "es", long_arg = { "environment",
    "manifest-path", "spec", "channel", "platform" } },
  conda = { keep = true, sub = "run", short_arg = "np", long_arg = { "name", "prefix", "cwd" } },
  mamba = { keep = true, sub = "run", short_arg = "np", long_arg = { "name", "prefix", "cwd" } },
  micromamba = { keep = true, sub = "run", short_arg = "np", long_arg = { "name", "prefix", "cwd", "root-prefix" } },
  bundle = { keep = true, sub = "exec", long_arg = { "gemfile" } },
  pnpm = { keep = true, sub = "exec", short_arg = "C", long_arg = { "dir", "filter", "workspace-concurrency",
    "reporter" }, lines_short = "c", lines_long = { "shell-mode" } },
  npm = { keep = true, sub = "exec", long_arg = { "package", "workspace" }, short_arg = "w",
    line_short = "c", line_long = { "call" } },
  yarn = { keep = true, sub = "exec" },
  mise = { keep = true, sub = { exec = true, x = true }, opt_only = true, short_arg = "jC", long_arg = { "jobs",
    "cd" }, line_short = "c", line_long = { "command" } },
  asdf = { keep = true, sub = "exec" },
  direnv = { keep = true, sub = "exec", skip = 1 },
  devbox = { keep = true, sub = "run", short_arg = "ec", long_arg = { "env", "env-file", "config", "environment" } },
  nix = { keep = true, sub = { develop = true, shell = true }, opt_only = true, long_arg = { "profile", "arg",
    "argstr", "override-input", "include", "option", "file", "expr", "redirect", "phase", "keep", "unset" },
    short_arg = "Ifk", cmd_short = "c", cmd_long = { "command" } },
  ["nix-shell"] = { keep = true, opt_only = true, short_arg = "IAp", long_arg = { "arg", "argstr", "attr",
    "include", "option", "keep", "packages" }, line_long = { "run", "command" } },
  script = { keep = true, opt_only = true, short_arg = "EIOBTm", long_arg = { "echo", "log-in", "log-out",
    "log-io", "log-timing", "logging-format", "output-limit", "timing" }, line_short = "c",
    line_long = { "command" } },
  hyperfine = { keep = true, short_arg = "wrmMsPpcLSnuo", long_arg = { "warmup", "min-runs", "max-runs", "runs",
    "setup", "prepare", "conclude", "cleanup", "parameter-scan", "parameter-step-size", "parameter-list", "style",
    "sort", "time-unit", "export-asciidoc", "export-csv", "export-json", "export-markdown", "export-orgmode",
    "show-output", "output", "input", "command-name", "shell" }, lines = true,
    line_short = "psc", line_long = { "setup", "prepare", "conclude", "cleanup" } },
  gdb = { keep = true, opt_only = true, cmd_long = { "args" } },
  perf = { keep = true, sub = { record = true, stat = true, trace = true }, short_arg = "eocFCmGutTEr",
    long_arg = { "event", "output", "count", "freq", "cpu", "mmap-pages", "cgroup", "uid", "tid", "repeat",
    "call-graph", "delay", "pid" }, stop = "p" },
}
M.WRAPPERS = WRAPPERS

local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true,
  yash = true, posh = true, fish = true, csh = true, tcsh = true, rbash = true }
M.SHELLS = SHELLS

-- INTERPRETERS run a script from stdin or from an option's value.
local INTERPRETERS = { python = "c", perl = "eE", ruby = "e", node = "ep", nodejs = "ep", php = "r", lua = "e",
  deno = "", bun = "e", osascript = "e", pwsh = "c", powershell = "c", julia = "eE", Rscript = "e", R = "e" }
M.INTERPRETERS = INTERPRETERS

-- FOLLOWS are the other programs whose operands unwrap reads as commands
-- or scripts, by what it does with them.
local FOLLOWS = { eval = "eval", source = "source", ["."] = "source", su = "su", runuser = "su", alias = "alias",
  sg = "su", find = "find", awk = "awk", gawk = "awk", mawk = "awk", nawk = "awk", parallel = "parallel", sem = "parallel",
  ssh = "ssh" }
M.FOLLOWS = FOLLOWS

-- interpreter returns the inline-code option letters of an interpreter
-- name ("python3.12" included), or nil.
function M.interpreter(name)
  if not name then return nil end
  if SHELLS[name] then return "c" end
  return INTERPRETERS[name] or INTERPRETERS[(name:gsub("[%d.]+$", ""))]
end

local function sq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function plain(text)
  return { text = text, pat = (text:gsub("[\\\0]", "\\%0")), glob = text:find("[*?%[]") and true or nil }
end

-- upstream returns the command before cmd in its pipeline, from out.
local function upstream(cmd, out)
  if not cmd.pipe_in then return nil end
  -- a runner's command: the runner's
  if cmd.upstream then return cmd.upstream end
  for k = #out, 1, -1 do
    local c = out[k]
    if c.pipeline == cmd.pipeline and c.pipe_out then return c end
  end
  return nil
end

-- nested parses a script text found in cmd and gives its commands cmd's
-- function and place.
local function nested(p, text, via)
  return p.sub_parse(p, text, via)
end

-- join returns the texts of words k.. joined by spaces, or nil if one is unknown.
local function join(words, k)
  local parts = {}
  for j = k, #words do
    if words[j].unknown then return nil end
    parts[#parts + 1] = words[j].text
  end
  return table.concat(parts, " ")
end

-- written returns the text of a script word (sh -c's, eval's, a
-- here-document's) with each unknown part that is a variable's value
-- spelled as a variable never set, so that the nested parse reads the
-- script around it ("cd $DIR && make") and the value as unknown; nil when
-- the script itself is computed: all of it unknown, or a part that is a
-- command's output ($(…)) or items read when it runs.
local function written(w)
  if not w.unknown then return w.text end
  if w.whole or w.subs or (w.source ~= "var" and w.source ~= "arg") then return nil end
  return (w.text:gsub("%z", "${__unknown}"))
end

-- joined returns the written texts of words k.. joined by spaces, or nil.
local function joined(words, k)
  local parts = {}
  for j = k, #words do
    parts[#parts + 1] = written(words[j])
    if not parts[#parts] then return nil end
  end
  return table.concat(parts, " ")
end

-- STDIN_FILES name standard input as a script file (bash /dev/stdin).
local STDIN_FILES = { ["/dev/stdin"] = true, ["/dev/fd/0"] = true, ["/proc/self/fd/0"] = true }

local from_stdin -- forward
local fallback, runuser -- forward

-- VALUED: the letters of interpreters' options that take a value.
local VALUED = { python = "WX", ruby = "rIC", perl = "MmI", node = "r", nodejs = "r", bun = "r", deno = "r",
  osascript = "ls" }

-- computed marks cmd as running a script known only when it runs, with
-- the reason (the first one found stays).
local function computed(cmd, why)
  cmd.computed = cmd.computed or why
end

-- code reads the script text of a shell or interpreter found on the line.
local function code(p, cmd, text, via)
  if SHELLS[cmd.name] or FOLLOWS[cmd.name] == "source" then
    nested(p, text, via)
  else
    local why = interp.read(p, cmd.name, text, via)
    if why then computed(cmd, "its code runs " .. why) end
  end
end

-- script finds what a shell or interpreter runs: the inline code (-c '…'),
-- a script operand, or stdin.
local function script(p, cmd, out, letters)
  local a = cmd.args
  local k, inline, stdin = 1, false, false
  local valued = VALUED[cmd.name] or VALUED[(cmd.name:gsub("[%d.]+$", ""))] or "%z"
  if cmd.name == "deno" and a[1] and a[1].text == "eval" then
    -- deno eval [options] code
    k, inline = 2, true
    while a[k] and not a[k].unknown and a[k].text:sub(1, 1) == "-" do k = k + 1 end
  end
  while a[k] and not inline do
    local w = a[k]
    local t = w.text
    if w.unknown then break end
    if t == "-" or t == "--" then k = k + 1; if t == "-" then stdin = true end; break end
    if t:sub(1, 2) == "--" then
      if t == "--rcfile" or t == "--init-file" then k = k + 1 end
      if t == "--eval" or t == "--command" or t == "--print" then inline = true; k = k + 1; break end
    elseif t:find("^[-+].") then
      local body = t:sub(2)
      local at = letters ~= "" and body:find("[" .. letters .. "]")
      -- ruby -rfileutils, perl -Mstrict: the letters after one that takes a value are the value
      if at and not SHELLS[cmd.name] and body:sub(1, at - 1):find("[" .. valued .. "]") then at = nil end
      if at and t:sub(1, 1) == "-" then
        inline = true
        if at < #body and not SHELLS[cmd.name] then
          -- python -c'code': the code is the rest of the word
          cmd.script, cmd.inline = plain(body:sub(at + 1)), true
          code(p, cmd, cmd.script.text, cmd.name .. " -" .. body:sub(at, at))
          return
        end
      end
      if body:find("s") and SHELLS[cmd.name] then stdin = true end
      if body:find("[oO]") and SHELLS[cmd.name] then k = k + 1 end
      if body == "m" and not SHELLS[cmd.name] then
        -- python -m module: the module is the script
        cmd.script = a[k + 1]
        return
      end
      if not inline and body:find("^[" .. valued .. "]$") and not SHELLS[cmd.name] then k = k + 1 end
    else
      break
    end
    k = k + 1
    if inline then break end
  end
  if inline and SHELLS[cmd.name] then
    -- options after -c are still options (bash -c -e 'cmd', sh -c -- 'cmd'):
    -- the script is the first word that is not one
    while a[k] and not a[k].unknown do
      local t = a[k].text
      if t == "--" or t == "-" then k = k + 1; break end
      if not t:find("^[-+].") then break end
      if t:find("^[-+][^-]*[oO]$") then k = k + 1 end
      k = k + 1
    end
  end
  local w = a[k]
  if inline and cmd.name == "osascript" and w and a[k + 1] then
    -- osascript -e LINE -e LINE …: the lines of one script
    local ws, j = { w }, k + 1
    while a[j] and a[j].text == "-e" and a[j + 1] do ws[#ws + 1] = a[j + 1]; j = j + 2 end
    if #ws > 1 then
      local parts, all = {}, true
      for n, x in ipairs(ws) do
        parts[n] = written(x) or ""
        if not written(x) then all = false end
      end
      local joined_text = all and table.concat(parts, "\n") or nil
      w = { text = joined_text or "\0", pat = joined_text or "\0", unknown = not joined_text or nil,
        whole = not joined_text or nil, source = "var" }
    end
  end
  if inline then
    local text = w and written(w)
    if text and SHELLS[cmd.name] then
      -- sh -c 'script' name args: $0, $1, ... and $@ are the words after it
      local vars, saved, rest = p.vars, {}, {}
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do saved[n] = vars[n] end
      for n = 0, 9 do vars[tostring(n)] = a[k + 1 + n] and { a[k + 1 + n] } or nil end
      for j = k + 2, #a do rest[#rest + 1] = a[j] end
      vars["@"] = #rest > 0 and rest or nil
      vars["*"] = vars["@"]
      nested(p, text, cmd.name .. " -c")
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do vars[n] = saved[n] end
    elseif text then
      code(p, cmd, text, cmd.name .. " " .. (a[k - 1] and a[k - 1].text or "-c"))
    elseif w then
      computed(cmd, "the code of " .. cmd.name .. " " .. (a[k - 1] and a[k - 1].text or "-c") .. " is computed when it runs")
    end
    if w and w.read then
      -- the whole script is an item xargs reads (xargs bash -c, xargs -I{}
      -- sh -c {}): data, read above as far as the line shows it
      computed(cmd, "the code of " .. cmd.name .. " -c is what xargs reads from its input")
    end
    cmd.script = w
    cmd.inline = true
    return
  end
  if w and not stdin and not STDIN_FILES[w.text] then
    -- a script file: computed when the whole name is ($X, <(…)), not when
    -- only its folder is unknown ("$VENV/bin/activate" is a file on disk)
    cmd.script = w
    if w.whole then computed(cmd, "the script file " .. cmd.name .. " runs is computed when it runs") end
    return
  end
  from_stdin(p, cmd, out)
end

-- from_stdin reads the script a shell or interpreter (or source
-- /dev/stdin) reads from its standard input: a here-document or
-- here-string, a file (<), or the output of the command piped in.
function from_stdin(p, cmd, out)
  cmd.reads_stdin = true
  for _, r in ipairs(cmd.redirs) do
    if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and r.target then
      local text = written(r.target)
      if text then
        code(p, cmd, text, cmd.name .. " <<")
      else
        cmd.script = r.target
        computed(cmd, "the here-document " .. cmd.name .. " reads is computed when it runs")
      end
      return
    elseif r.op == "<" then
      -- a script file: read as a script operand is
      cmd.script = r.target
      return
    end
  end
  local up = upstream(cmd, out)
  if not up then return end
  local text = p.output(up, p)
  if text then
    code(p, cmd, text, "| " .. cmd.name)
  else
    computed(cmd, cmd.name .. " runs what " .. (up.name or "a command") .. " prints, known only when it runs")
  end
end

-- ESCAPES: the escapes of xargs -d's delimiter.
local ESCAPES = { ["\\n"] = "\n", ["\\t"] = "\t", ["\\0"] = "\0", ["\\\\"] = "\\" }

-- xargs_items splits the text xargs reads into items: at each delimiter
-- (-0, -d D), at lines (-I R), or else at blanks outside quotes, quotes
-- removed and a backslash keeping the next character, as xargs does by
-- default (echo "'rm -rf /'" | xargs sh -c runs one item).
local function xargs_items(text, delim, repl)
  local out = {}
  if delim then
    local d = ESCAPES[delim] or delim:sub(1, 1)
    if d == "" then d = "\n" end
    local from = 1
    while from <= #text do
      local at = text:find(d, from, true) or #text + 1
      if at > from then out[#out + 1] = text:sub(from, at - 1) end
      from = at + 1
    end
    return out
  end
  if repl then
    for l in text:gmatch("[^\n]+") do out[#out + 1] = (l:gsub("^%s+", "")) end
    return out
  end
  if not text:find("[\"'\\]") then
    for f in text:gmatch("%S+") do out[#out + 1] = f end
    return out
  end
  local cur, q, any, k = {}, nil, false, 1
  while k <= #text do
    local ch = text:sub(k, k)
    if q then
      if ch == q then q = nil else cur[#cur + 1] = ch end
    elseif ch == "'" or ch == '"' then
      q, any = ch, true
    elseif ch == "\\" and k < #text then
      k = k + 1
      cur[#cur + 1] = text:sub(k, k)
    elseif ch:find("%s") then
      if any or #cur > 0 then out[#out + 1] = table.concat(cur) end
      cur, any = {}, false
    else
      cur[#cur + 1] = ch
    end
    k = k + 1
  end
  if any or #cur > 0 then out[#out + 1] = table.concat(cur) end
  return out
end

-- XARGS_OPTIONAL: xargs's long options whose value is optional (=R only).
local XARGS_OPTIONAL = { "replace", "max-lines", "eof" }

-- replaced returns words with the replace string R of xargs -I R or
-- parallel put in place by item (an unknown item makes the word unknown).
local function replaced(words, repl, item)
  local out = {}
  local pat = repl:gsub("%W", "%%%0")
  for _, w in ipairs(words) do
    if repl ~= "" and not w.unknown and w.text:find(repl, 1, true) then
      if w.text == repl then
        out[#out + 1] = item
      else
        out[#out + 1] = { text = (w.text:gsub(pat, (item.text:gsub("%%", "%%%%")))),
          pat = (w.pat:gsub(pat, (item.pat:gsub("%%", "%%%%")))), glob = w.glob, home = w.home, cwd = w.cwd,
          unknown = item.unknown, source = item.source, producer = item.producer }
      end
    else
      out[#out + 1] = w
    end
  end
  return out
end

local STDIN_ITEM = { text = "\0", pat = "\0", unknown = true, whole = true, source = "stdin" }

-- awk reads an awk program given on the command line (not -f file).
local function awk(p, cmd)
  local a, k = cmd.args, 1
  while a[k] and not a[k].unknown do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:find("^%-f") or t:find("^%-%-file") then return end
    if t == "-e" or t == "--source" then k = k + 1; break end
    if t == "-F" or t == "-v" or t == "--field-separator" or t == "--assign" then k = k + 1
    elseif not (t:sub(1, 1) == "-" and #t > 1) then break end
    k = k + 1
  end
  local w = a[k]
  if not w then return end
  cmd.script, cmd.inline = w, true
  if w.unknown then
    computed(cmd, "the awk program is computed when it runs")
  else
    local why = interp.read(p, "awk", w.text, cmd.name)
    if why then computed(cmd, "its program runs " .. why) end
  end
end

-- The options of GNU parallel that take a value (as a separate word).
local PARALLEL_SHORT = "jSaICdELNnP"
local PARALLEL_LONG = { jobs = true, sshlogin = true, ["arg-file"] = true, colsep = true, delimiter = true,
  ["max-lines"] = true, ["max-args"] = true, joblog = true, results = true, tmpdir = true, workdir = true,
  wd = true, timeout = true, halt = true, retries = true, delay = true, memfree = true, load = true,
  sshloginfile = true, slf = true, ["tag-string"] = true, env = true, basefile = true, ["return"] = true,
  transferfile = true, nice = true, ["arg-sep"] = true, ["arg-file-sep"] = true, id = true, semaphorename = true,
  ["semaphore-timeout"] = true, st = true }


-- item_script reports whether the script of a shell's -c in parallel's
-- command words is the item itself: no script (parallel bash -c) or only
-- a placeholder (parallel sh -c {}); pat matches a placeholder.
local function item_script(parts, pat)
  if not (parts[1] and SHELLS[M.program(parts[1])]) then return false end
  for n = 2, #parts do
    if parts[n]:find("^%-[^-]*c") then
      local k = n + 1
      while parts[k] and parts[k]:find("^[-+]") do k = k + 1 end
      return parts[k] == nil or (parts[k]:gsub(pat, "")) == ""
    end
    if parts[n]:sub(1, 1) ~= "-" then return false end
  end
  return false
end

-- parallel reads GNU parallel: its command (run by a shell, {} and its
-- kin replaced by each item, or the item appended) with the items after
-- ::: or from its input; with no command, each item is a command line.
local function parallel(p, cmd, out)
  local a, k, repl, from_file = cmd.args, 1, nil, false
  while a[k] and not a[k].unknown and not a[k].text:find("^::::?%+?$") do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:sub(1, 2) == "--" then
      local n, eq = t:match("^%-%-([^=]*)(=?)")
      if n == "arg-file" then from_file = true end
      if PARALLEL_LONG[n] and eq == "" then k = k + 1 end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      local c = t:sub(2, 2)
      if c == "a" then from_file = true end
      if c == "I" then repl = #t > 2 and t:sub(3) or (a[k + 1] and a[k + 1].text) end
      if PARALLEL_SHORT:find(c, 1, true) and #t == 2 then k = k + 1 end
    else
      break
    end
    k = k + 1
  end
  local parts, items, unknown = {}, {}, from_file
  while a[k] and not a[k].text:find("^::::?%+?$") do
    if a[k].unknown then computed(cmd, "parallel runs a command computed when it runs"); return end
    parts[#parts + 1] = a[k].text
    k = k + 1
  end
  -- parallel joins its words with spaces for the shell; with -q it quotes
  -- them: both readings are judged (parallel bash -c 'rm -rf {}' ::: /)
  local line = table.concat(parts, " ")
  local quoted = {}
  for n, t in ipairs(parts) do quoted[n] = t:find("[^%w%-%./_:=,@+%%{}]") and sq(t) or t end
  local lines = { line }
  quoted = table.concat(quoted, " ")
  if quoted ~= line and #parts > 1 then lines[2] = quoted end
  if cmd.name == "sem" then
    -- sem (parallel --semaphore) runs its command once
    for _, l in ipairs(#parts > 0 and lines or {}) do nested(p, l, "sem") end
    return
  end
  local sep
  while a[k] do
    if a[k].text:find("^::::?%+?$") then sep = a[k].text
    elseif sep:find("^::::") or a[k].unknown then unknown = true
    else items[#items + 1] = a[k].text end
    k = k + 1
  end
  if not sep and not from_file then
    local up = upstream(cmd, out)
    local text = up and p.output(up, p)
    if text then
      for l in text:gmatch("[^\n]+") do items[#items + 1] = l end
    else
      unknown = true
    end
  end
  -- ::: with no item after it: the command is read once, its item unknown
  if sep and #items == 0 and #parts > 0 then unknown = true end
  local pat = repl and repl:gsub("%W", "%%%0") or "{[%./#%%]*%d*[%./]*}"
  if not sep and not from_file and item_script(parts, pat) then
    -- each line it reads is the script (echo ok | parallel bash -c {}):
    -- data, read below as far as the line shows it
    computed(cmd, "parallel runs each line it reads as the script of " .. parts[1] .. " -c")
  end
  local function with(l, item)
    local r, n = l:gsub(pat, (item:gsub("%%", "%%%%")))
    if n == 0 then r = l .. " " .. item end
    return r
  end
  for n, it in ipairs(items) do
    if n > p.limits.fields then break end
    for _, l in ipairs(lines) do nested(p, line == "" and it or with(l, sq(it)), "parallel") end
  end
  if unknown then
    if line == "" then
      computed(cmd, "parallel runs command lines it reads when it runs")
    else
      local saved = p.vars.__parallel_item
      p.vars.__parallel_item = { STDIN_ITEM }
      for _, l in ipairs(lines) do nested(p, with(l, "$__parallel_item"), "parallel") end
      p.vars.__parallel_item = saved
    end
  end
end

-- SSH_VALUED: the letters of ssh's options that take a value.
local SSH_VALUED = "BbcDEeFIiJLlmOopQRSWw"

-- ssh reads the command ssh runs on the remote host: the words after the
-- destination, joined by spaces as ssh sends them, read as a shell line
-- that starts in the remote home folder (its dir "~").
local function ssh(p, cmd)
  local a, k = cmd.args, 1
  while a[k] and not a[k].unknown do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:sub(1, 1) ~= "-" or #t < 2 then break end
    for j = 2, #t do
      if SSH_VALUED:find(t:sub(j, j), 1, true) then
        if j == #t then k = k + 1 end
        break
      end
    end
    k = k + 1
  end
  if not a[k + 1] then return end
  local text = joined(a, k + 1)
  if not text then
    cmd.script = a[k + 1]
    computed(cmd, "the command ssh runs on the remote host is computed when it runs")
    return
  end
  local saved = p.dir
  p.dir = "~"
  nested(p, text, "ssh")
  p.dir = saved
end

-- FIND_EXEC are the find actions that run a command.
local FIND_EXEC = { ["-exec"] = true, ["-execdir"] = true, ["-ok"] = true, ["-okdir"] = true }

-- follow_up reads what a command runs in turn, once it is emitted: the
-- strings of env -S and watch (later), the other items of xargs -I
-- (extra), and the scripts of shells, interpreters, eval, source, su,
-- awk, parallel, ssh, alias and find -exec.
-- RUN_VARS are the environment variables whose value a program runs as a
-- shell command line: git's and man's pagers, editors, ssh and askpass
-- programs, less's input filter (GIT_PAGER='sh -c …' git log runs it).
local RUN_VARS = { GIT_PAGER = true, PAGER = true, MANPAGER = true, SYSTEMD_PAGER = true, GIT_EDITOR = true,
  EDITOR = true, VISUAL = true, GIT_SEQUENCE_EDITOR = true, GIT_SSH_COMMAND = true, GIT_SSH = true,
  GIT_ASKPASS = true, SSH_ASKPASS = true, SUDO_ASKPASS = true, GIT_EXTERNAL_DIFF = true, GIT_PROXY_COMMAND = true,
  LESSOPEN = true, LESSCLOSE = true, PROMPT_COMMAND = true, BROWSER = true }
M.RUN_VARS = RUN_VARS

-- run_var returns the command line a NAME=value word gives a program to
-- run (RUN_VARS), with a lessopen "|" dropped, or nil.
function M.run_var(name, text)
  if not RUN_VARS[name] or text == "" then return nil end
  if name == "LESSOPEN" or name == "LESSCLOSE" then text = text:gsub("^||?", "") end
  return text
end

-- GIT_RUNS are the git settings whose value git runs as a shell command
-- line (as lower-cased patterns of the key); an alias or a credential
-- helper only when it starts with "!".
local GIT_RUNS = { "^core%.pager$", "^pager%.", "^core%.editor$", "^sequence%.editor$", "^core%.sshcommand$",
  "^core%.askpass$", "^core%.fsmonitor$", "^diff%.external$", "^diff%..+%.textconv$", "^diff%..+%.command$",
  "^difftool%..+%.cmd$", "^mergetool%..+%.cmd$", "^merge%..+%.driver$", "^filter%..+%.clean$",
  "^filter%..+%.smudge$", "^filter%..+%.process$", "^uploadpack%.packobjectshook$", "^gpg%.program$",
  "^gpg%..+%.program$", "^core%.gitproxy$", "^remote%..+%.uploadpack$", "^remote%..+%.receivepack$",
  "^browser%..+%.cmd$", "^man%..+%.cmd$", "^alias%.", "^credential%.helper$", "^credential%..+%.helper$" }

-- git_runs returns the command line git runs for setting key = value, or
-- nil: an alias or a credential helper runs a shell only after "!", and
-- core.fsmonitor's true or false runs none.
local function git_runs(key, value)
  key = key:lower()
  local hit = false
  for _, pat in ipairs(GIT_RUNS) do
    if key:find(pat) then hit = true; break end
  end
  if not hit or value == "" then return nil end
  if key:find("^alias%.") or key:find("^credential%.") then
    return value:match("^!(.+)$")
  end
  if key == "core.fsmonitor" and (value == "true" or value == "false") then return nil end
  return value
end

-- GIT_CONFIG_OPTS are git config's options that take the next word.
local GIT_CONFIG_OPTS = { ["--file"] = true, ["-f"] = true, ["--blob"] = true, ["--type"] = true,
  ["--default"] = true, ["--comment"] = true, ["--value"] = true }

-- git_settings reads the settings a git command gives (git -c KEY=VALUE
-- …, git config [set] KEY VALUE) whose value git runs, as nested lines.
local function git_settings(p, cmd)
  local a = cmd.args
  local k = 1
  while a[k] do
    local t = a[k].text
    if t == "-c" and a[k + 1] then
      local w = a[k + 1]
      local key, value = w.text:match("^([^=]+)=(.*)$")
      local run = not w.unknown and key and git_runs(key, value)
      if run then nested(p, run, "git -c " .. key) end
      k = k + 2
    elseif t == "-C" or t == "--git-dir" or t == "--work-tree" or t == "--namespace" or t == "--exec-path" then
      k = k + 2
    elseif t:sub(1, 1) == "-" then
      k = k + 1
    else
      break
    end
  end
  if a[k] and a[k].text == "submodule" then
    -- git submodule [--quiet] foreach [--recursive] CMD…: a shell runs the
    -- command in each submodule
    local j = k + 1
    while a[j] and a[j].text:sub(1, 1) == "-" and not a[j].unknown do j = j + 1 end
    if not (a[j] and a[j].text == "foreach") then return end
    j = j + 1
    while a[j] and (a[j].text == "--recursive" or a[j].text == "-q" or a[j].text == "--quiet") do j = j + 1 end
    if a[j] and a[j].text == "--" then j = j + 1 end
    if not a[j] then return end
    local text = joined(a, j)
    if text then
      nested(p, text, "git submodule foreach")
    else
      cmd.script = a[j]
      computed(cmd, "the command of git submodule foreach is computed when it runs")
    end
    return
  end
  if not a[k] or a[k].text ~= "config" then return end
  local ops = {}
  k = k + 1
  while a[k] do
    local t = a[k].text
    if GIT_CONFIG_OPTS[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" or a[k].unknown then
      ops[#ops + 1] = a[k]
    end
    k = k + 1
  end
  if ops[1] and ops[1].text == "set" then table.remove(ops, 1) end
  local key, value = ops[1], ops[2]
  if key and value and not key.unknown and not value.unknown then
    local run = git_runs(key.text, value.text)
    if run then nested(p, run, "git config " .. key.text) end
  end
end

local function follow_up(p, cmd, out, emit, later, extra)
  for _, l in ipairs(later) do nested(p, l[1], l[2]) end
  for _, l in ipairs(extra) do
    if not p.charge(p, "commands", 1) then return end
    M.unwrap(p, { argv = l, redirs = {}, wrappers = { "xargs" }, via = cmd.via, depth = cmd.depth, func = cmd.func,
      pipeline = -1 }, out, emit)
  end
  local name, a = cmd.name, cmd.args
  if not name then return end
  local letters = M.interpreter(name)
  local follow = FOLLOWS[name]
  if name == "git" then git_settings(p, cmd) end
  if letters then
    script(p, cmd, out, letters)
  elseif follow == "eval" then
    local text = joined(a, 1)
    if text then nested(p, text, "eval")
    elseif a[1] then
      cmd.script = a[1]
      computed(cmd, "eval runs a string computed when it runs")
    end
  elseif follow == "source" then
    cmd.script = a[1]
    if a[1] and STDIN_FILES[a[1].text] then
      from_stdin(p, cmd, out)
    elseif a[1] and a[1].whole then
      computed(cmd, name .. " reads a script computed when it runs")
    end
  elseif follow == "su" then
    if name == "sg" and a[1] and a[2] and a[1].text:sub(1, 1) ~= "-" and a[2].text:sub(1, 1) ~= "-" then
      -- sg GROUP 'cmd': the command is a line its shell runs
      local text = written(a[2])
      if text then nested(p, text, "sg") end
      return
    end
    for k, x in ipairs(a) do
      local t = x.text
      local v = t:match("^%-%-command=(.*)$") or t:match("^%-c(.+)$")
      if v then nested(p, v, name .. " -c"); break end
      if (t == "-c" or t == "--command") and a[k + 1] then
        local text = written(a[k + 1])
        if text then
          nested(p, text, name .. " -c")
        else
          cmd.script = a[k + 1]
          computed(cmd, "the command of " .. name .. " -c is computed when it runs")
        end
        break
      end
    end
  elseif follow == "awk" then
    awk(p, cmd)
  elseif follow == "parallel" then
    parallel(p, cmd, out)
  elseif follow == "ssh" then
    ssh(p, cmd)
  elseif follow == "alias" then
    for _, x in ipairs(a) do
      local v = not x.unknown and x.text:match("^[^=]+=(.*)$")
      if v then nested(p, v, "alias") end
    end
  elseif follow == "find" then
    local k = 1
    while a[k] do
      if FIND_EXEC[a[k].text] then
        local sub = { argv = {}, redirs = {}, wrappers = {}, via = "find " .. a[k].text, depth = cmd.depth,
          func = cmd.func, pipeline = -1 }
        k = k + 1
        while a[k] and a[k].text ~= ";" and a[k].text ~= "+" do
          local x = a[k]
          if x.text == "{}" then
            x = { text = "\0", pat = "\0", unknown = true, whole = true, source = "find", producer = cmd }
          end
          sub.argv[#sub.argv + 1] = x
          k = k + 1
        end
        if #sub.argv > 0 then M.unwrap(p, sub, out, emit) end
      end
      k = k + 1
    end
  end
end

-- is_sub reports whether t is the subcommand (or one of them) of a runner.
local function is_sub(sub, t)
  if type(sub) == "table" then return sub[t] == true end
  return sub == t
end

-- runner reads the words of a runner (WRAPPERS entries with keep) at
-- argv[i]: it returns the index in argv where the command it runs
-- starts, or nil, and the command lines (shell text) it runs, or nil.
local function runner(argv, i, spec)
  local j = i + 1
  if spec.sub then
    -- its options before the subcommand take no value here (uv -q run)
    while argv[j] and not argv[j].unknown and argv[j].text:sub(1, 1) == "-" and argv[j].text ~= "--" do j = j + 1 end
    if not argv[j] or argv[j].unknown or not is_sub(spec.sub, argv[j].text) then return nil end
    j = j + 1
  end
  local skip, lines, as_lines = spec.skip or 0, nil, spec.lines
  local function line(w)
    local text = w and written(w)
    if text then lines = lines or {}; lines[#lines + 1] = text end
  end
  while argv[j] do
    local a = argv[j]
    local t = a.text
    if a.unknown then return nil, lines end
    if t == "--" then
      j = j + 1
      break
    elseif t:sub(1, 2) == "--" then
      local lname, eq = t:match("^%-%-([^=]*)(=?)")
      local val = eq ~= "" and { text = t:match("=(.*)$") } or argv[j + 1]
      local step = eq == "" and 1 or 0
      if spec.cmd_long and M.long(lname, spec.cmd_long)[1] then return j + 1, lines end
      if spec.line_long and M.long(lname, spec.line_long)[1] then
        line(val); j = j + step
      elseif spec.lines_long and M.long(lname, spec.lines_long)[1] then
        as_lines = true
      elseif spec.long_arg2 and spec.long_arg2[lname] then
        j = j + 2
      elseif spec.long_arg and M.long(lname, spec.long_arg)[1] then
        j = j + step
      end
      j = j + 1
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for k = 2, #t do
        local c = t:sub(k, k)
        if spec.stop and spec.stop:find(c, 1, true) then return nil, lines end
        if spec.cmd_short and spec.cmd_short:find(c, 1, true) then return j + 1, lines end
        if spec.lines_short and spec.lines_short:find(c, 1, true) then as_lines = true end
        local valued = spec.line_short and spec.line_short:find(c, 1, true)
        if valued or (spec.short_arg and spec.short_arg:find(c, 1, true)) then
          local val = t:sub(k + 1)
          if val == "" then j = j + 1; val = argv[j] else val = { text = val } end
          if valued then line(val) end
          break
        end
      end
      j = j + 1
    elseif skip > 0 then
      skip = skip - 1
      j = j + 1
    elseif spec.opt_only then
      j = j + 1
    else
      break
    end
  end
  if not argv[j] then return nil, lines end
  if as_lines then
    for k = j, #argv do
      if argv[k].unknown and not written(argv[k]) then return nil, lines end
      line(argv[k])
    end
    return nil, lines
  end
  return j, lines
end

-- GUARDED: the programs that, as the first operand of a program the
-- reader does not know, are read as the command it runs (tool rm -rf /),
-- with the shells (SHELLS) and mkfs.*.
local GUARDED = { rm = true, rmdir = true, unlink = true, shred = true, srm = true, wipe = true, dd = true,
  find = true, mke2fs = true, mkswap = true, wipefs = true, fdisk = true, sfdisk = true, parted = true,
  truncate = true, chmod = true, chown = true, chgrp = true, chattr = true, git = true, sudo = true,
  doas = true, su = true, eval = true, xargs = true }
M.GUARDED = GUARDED

-- KNOWN: programs the reader does not unwrap that the fallback leaves as
-- they are, as their own words are theirs (docker rm, git rm, npm rm,
-- kubectl exec pod -- cmd, cargo run -- args, grep rm file, man rm): the
-- guarded programs, text and lookup tools, and the tools whose
-- subcommands are named run, exec, rm or take -- before their own words.
local KNOWN = {}
for n in pairs(GUARDED) do KNOWN[n] = true end
for n in ([[echo printf print grep egrep fgrep rg ag ack ugrep git-grep man info tldr which whereis type whatis apropos
  help hash unalias history fc pgrep pkill killall pidof kill ps complete compgen printenv cat bat less more
  head tail wc sort uniq tee sed gsed diff cmp file stat ls tree du df locate plocate fd fdfind test [ expr
  basename dirname readlink realpath true false read export declare local set unset trap wait jobs fg bg
  disown strings hexdump od xxd base64 tr cut paste column jq yq cd pushd popd mkdir touch cp mv ln install
  rsync scp sftp tar zip unzip gzip gunzip zstd xz curl wget http ping mkfs hg svn jj gh glab docker
  podman nerdctl buildah skopeo kubectl oc helm kind minikube k3s k3d crictl ctr lxc incus vagrant multipass
  npx bunx node bun deno cargo rustup go make cmake ninja just task mvn gradle gradlew ant bazel sbt dotnet
  pip pip3 pipx uvx tox nox gem rake rails composer brew apt apt-get dnf yum pacman zypper apk snap flatpak
  port nix-env terraform tofu terragrunt pulumi aws gcloud gsutil az fly flyctl heroku railway vercel netlify
  wrangler firebase supabase doctl hcloud ansible ansible-playbook systemctl service journalctl launchctl
  crontab at dvc rclone restic borg pytest jest vitest mocha tsc eslint prettier code vim nvim emacs nano
  tmux screen zellij chsh lchsh usermod useradd adduser shfmt shellcheck update-alternatives dpkg dpkg-query
  apt-file getent id ldd nm objdump readelf locale ulimit cheat mosh rpm apt-cache emerge pkg pkgin opkg
  xbps-install xbps-query lsof fuser choco winget scoop mas conan vcpkg spack cpan cpanm luarocks opam cabal
  stack dart flutter swift mix lein pyenv rbenv nodenv nvm fnm volta sdk]]):gmatch("%S+") do KNOWN[n] = true end
M.KNOWN = KNOWN

local TRIGGERS = { ["--"] = true, run = true, exec = true }

-- fallback returns where the command that a program the reader does not
-- know runs starts in cmd.argv, or nil: at its first operand when that is
-- a GUARDED program that a word follows (a shell that an option follows),
-- or else after its first --, run or exec that a word follows.
function fallback(cmd)
  local n = cmd.name
  if KNOWN[n] or FOLLOWS[n] or SHELLS[n] or M.interpreter(n) or WRAPPERS[n] or not cmd.word_at then return nil end
  local a = cmd.args
  for k = 1, #a do
    local t = a[k].text
    if not a[k].unknown and t:sub(1, 1) ~= "-" then
      -- with words after it (rpm -qi bash, apt show sudo name packages);
      -- a shell, with an option after it (tool bash -c '…')
      local g, nxt = M.program(t), a[k + 1]
      if nxt and (GUARDED[g] or g:find("^mkfs") or (SHELLS[g] and nxt.text:sub(1, 1) == "-")) then
        return cmd.word_at + k
      end
      break
    end
  end
  for k = 1, #a - 1 do
    if not a[k].unknown and TRIGGERS[a[k].text] then return cmd.word_at + k + 1 end
  end
  return nil
end

-- RUNUSER: the options of runuser in its -u form (runuser -u USER [--] CMD).
local RUNUSER = { short_arg = { u = "user", g = "group", G = "supp-group", w = "whitelist-environment",
  s = "shell", c = "command" }, short = { l = "login", m = "m", p = "p", P = "pty", f = "fast" },
  long_arg = { "user", "group", "supp-group", "whitelist-environment", "shell", "command", "session-command" },
  long = { "login", "preserve-environment", "pty", "fast" }, posix = true }

-- runuser returns where the command of runuser -u USER [--] CMD starts in
-- cmd.argv, or nil (runuser USER -c 'cmd' is read as su's).
function runuser(cmd)
  local o = M.options(cmd.args, RUNUSER)
  local first = o.operands[1]
  if not o.flags.user or o.flags.command or o.flags["session-command"] or not first or o.unknown then return nil end
  for k, w in ipairs(cmd.args) do
    if w == first then return cmd.word_at + k end
  end
  return nil
end

-- unwrap finds the program cmd.argv runs, behind its wrappers, sets
-- cmd.name, cmd.word, cmd.args and cmd.wrappers, emits cmd through emit and
-- then the commands it runs in turn (sh -c strings, eval, find -exec, ...).
function M.unwrap(p, cmd, out, emit)
  local argv, i = cmd.argv, cmd.start or 1
  local items, repl, arg_file, delim, split, runs
  local later, extra = {}, {}
  while argv[i] do
    local w = argv[i]
    if w.unknown then break end
    local name = M.program(w.text)
    local spec = WRAPPERS[name]
    if not spec then break end
    if spec.keep then
      -- a runner stays the program; what it runs is read after it
      local from, lines = runner(argv, i, spec)
      for _, l in ipairs(lines or {}) do later[#later + 1] = { l, name } end
      runs = from
      break
    end
    local j, stop = i + 1, false
    while argv[j] do
      local a = argv[j]
      local t = a.text
      if a.unknown then break end
      if t == "--" then j = j + 1; break end
      if spec.assigns and t:find("^[%a_][%w_]*=") then
        local run = M.run_var(t:match("^([%a_][%w_]*)="), t:match("=(.*)$"))
        if run then later[#later + 1] = { run, t:match("^[%a_][%w_]*") .. "=" } end
        j = j + 1
      elseif t == "-" and spec.dash then
        -- env -: an empty environment, as env -i
        j = j + 1
      elseif t:sub(1, 2) == "--" then
        local lname, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
        local hits = M.long(lname, spec.long_arg or {})
        if #hits > 0 and eq == "" then j = j + 1; val = argv[j] and argv[j].text end
        if spec.xargs then
          -- --replace[=R], --arg-file=F: R replaces in the command; the items come from F
          if M.long(lname, XARGS_OPTIONAL)[1] == "replace" then repl = eq ~= "" and val or "{}" end
          if hits[1] == "arg-file" then arg_file = true end
          if hits[1] == "delimiter" then delim = val end
          if M.long(lname, { "null" })[1] then delim = "\0" end
        end
        if spec.chdir and hits[1] == "chdir" and val then cmd.chdir = val end
        if spec.split_long and hits[1] == spec.split_long and val then split = val; stop = true end
        j = j + 1
      elseif t:sub(1, 1) == "-" and #t > 1 then
        for k = 2, #t do
          local c = t:sub(k, k)
          if spec.stop and spec.stop:find(c, 1, true) then stop = true end
          if spec.xargs and c == "0" then delim = "\0" end
          if spec.xargs and (c == "i" or c == "l" or c == "e") then
            -- options whose value is optional and attached (-i{}, -l1)
            if c == "i" then repl = t:sub(k + 1) ~= "" and t:sub(k + 1) or "{}" end
            break
          end
          if spec.short_arg and spec.short_arg:find(c, 1, true) then
            local val = t:sub(k + 1)
            if val == "" then j = j + 1; val = argv[j] and argv[j].text end
            if spec.split == c and val then split = val; stop = true end
            if spec.chdir == c and val then cmd.chdir = val end
            -- -J R (BSD): the items in place of R, read here as -I R
            if spec.xargs and (c == "I" or c == "J") then repl = val end
            if spec.xargs and c == "a" then arg_file = true end
            if spec.xargs and c == "d" then delim = val end
            break
          end
        end
        j = j + 1
      else
        break
      end
      if stop then break end
    end
    if split then
      -- env -S STRING args: STRING split into words goes before args, and
      -- env reads the result again (options, assignments, the program)
      local parts = { "env", split }
      for x = j, #argv do parts[#parts + 1] = argv[x].unknown and "${__unknown}" or sq(argv[x].text) end
      later[#later + 1] = { table.concat(parts, " "), "env -S" }
      split = nil
    end
    if stop then break end
    j = j + (spec.skip or 0)
    cmd.wrappers[#cmd.wrappers + 1] = name
    if spec.xargs then
      local up = not arg_file and upstream(cmd, out) or nil
      local text = up and p.output(up, p)
      items = {}
      if text then
        -- with a replace string, each line is one item
        for _, f in ipairs(xargs_items(text, delim, repl)) do
          local it = plain(f)
          -- echo ~ | xargs: the reader spells the home folder echo prints "~"
          if f == "~" or f:sub(1, 2) == "~/" then it.home = true end
          it.read = true
          items[#items + 1] = it
        end
      else
        items[1] = { text = "\0", pat = "\0", unknown = true, whole = true, source = "stdin", producer = up }
      end
      if not argv[j] then
        argv[j] = plain("echo")
      end
      if repl and items[1] then
        -- xargs -I{} cmd {}: one command per item, the item in place of {}
        local rest = {}
        for x = j, #argv do rest[#rest + 1] = argv[x] end
        for n = 2, math.min(#items, p.limits.fields) do extra[#extra + 1] = replaced(rest, repl, items[n]) end
        local first = replaced(rest, repl, items[1])
        for x = 1, #first do argv[j + x - 1] = first[x] end
        items = nil
      elseif text and argv[j] and not argv[j].unknown and WRAPPERS[M.program(argv[j].text)] then
        -- xargs sudo, xargs env, xargs timeout: the items are the wrapped
        -- command's words, so the program is found among them once the
        -- wrappers are unwrapped again
        for _, it in ipairs(items) do argv[#argv + 1] = it end
        items = nil
      end
    end
    if spec.join then
      local text = join(argv, j)
      if text then later[#later + 1] = { text, name } end
      i = j
      break
    end
    i = j
  end
  local w = argv[i]
  if not w then
    -- only wrappers: the last one is the program
    cmd.name = table.remove(cmd.wrappers)
    cmd.word, cmd.word_at, cmd.args = argv[#argv], #argv, {}
  else
    if not w.unknown and not w.glob and w.text:find("/", 1, true) then w = M.program_path(w) end
    cmd.word, cmd.word_at = w, i
    cmd.args = {}
    for k = i + 1, #argv do cmd.args[#cmd.args + 1] = argv[k] end
    if not w.unknown then cmd.name = M.program(w.text) end
  end
  if items then
    for _, it in ipairs(items) do cmd.args[#cmd.args + 1] = it end
  end
  emit(p, cmd, out)
  -- what it runs in turn runs in its folder (env -C, sudo -D); a cd
  -- inside it (bash -c 'cd x; …') does not outlive it
  local saved = p.dir
  if cmd.chdir then p.dir = cmd.dir end
  follow_up(p, cmd, out, emit, later, extra)
  if not runs and cmd.name and not cmd.fallback then
    runs = cmd.name == "runuser" and runuser(cmd) or fallback(cmd)
  end
  if runs and argv[runs] and p.charge(p, "commands", 1) then
    -- a runner's command (uv run CMD), or the command an unknown program
    -- is followed by (tool -- CMD): argv shared, the runner a wrapper
    local wr = {}
    for k, n in ipairs(cmd.wrappers) do wr[k] = n end
    wr[#wr + 1] = cmd.name
    -- it reads and writes where the runner does: its pipes and redirections
    M.unwrap(p, { argv = argv, start = runs, redirs = cmd.redirs, wrappers = wr, via = cmd.via, depth = cmd.depth,
      func = cmd.func, pipeline = cmd.pipeline, pipe_in = cmd.pipe_in, bg = cmd.bg, upstream = cmd.upstream,
      fallback = not WRAPPERS[cmd.name] or nil }, out, emit)
  end
  p.dir = saved
end

return M
