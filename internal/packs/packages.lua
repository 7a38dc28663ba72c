-- packages: blocks unknown registries, unpinned npx/pipx/uvx runs and global installs; rewrites to your package manager
--
-- What it stops, on any shell tool (read through lib/shell.lua, so quoting,
-- wrappers, chains, $(…) and sh -c '…' do not hide a command):
--   - installs from a registry or index not in SETTINGS.registries: npm,
--     pnpm, yarn, bun --registry; npm/pnpm/yarn config set registry; pip,
--     uv -i/--index-url/--extra-index-url/--index/-f/--find-links;
--     NPM_CONFIG_REGISTRY, PIP_INDEX_URL, UV_INDEX_URL, ... set on the line;
--     packages given as URLs, git/VCS specs or GitHub shorthands
--     (git+https://…, https://…/x.tgz, user/repo, github:user/repo);
--   - running a package that is not pinned to an exact version: npx,
--     npm exec, pnpm dlx, yarn dlx, bunx, pipx run, uvx, uv tool run
--     (pin it: npx eslint@9.1.0, uvx ruff@0.6.9, pipx run black==24.8.0;
--     npx --no-install runs only what node_modules has and passes);
--   - global installs: npm/pnpm/bun -g/--global, yarn global add, pip
--     --user / --break-system-packages / under sudo, and system package
--     managers (apt, apt-get, dnf, yum, brew, pacman -S, apk add, zypper,
--     snap, port) when SETTINGS.system_installs is "deny" (or "ask").
-- And it rewrites (mutate stage, before the validators) a command of
-- SETTINGS.rewrite.from into SETTINGS.rewrite.to: npm to pnpm, yarn or bun
-- (npm install x -> pnpm add x, npm ci -> pnpm install --frozen-lockfile,
-- npx x -> pnpm dlx x), pip to uv (pip install x -> uv pip install x).
-- Only a line that starts with the command is rewritten; the rewritten
-- line is checked by the rules above.
--
-- Why: a dependency is code that runs with the developer's rights; a
-- typo-squatted name, an unpinned `npx` that resolves to a new malicious
-- release, or a package from a registry nobody vetted is how supply-chain
-- attacks land. Global installs change the machine outside the project.
--
-- Settings (SETTINGS below): registries (hosts), allow_unpinned (package
-- names that may run unpinned), system_installs ("deny" | "ask" |
-- "allow"), rewrite ({ from = "npm", to = "pnpm" } or nil for none).
--
-- What it cannot know: what a lock file or requirements.txt holds (files
-- are not read), whether pip runs inside a virtualenv, what a registry set
-- in .npmrc / pip.conf / uv.toml points at. Fails closed: a line that cannot
-- be read, or a package spec only known when the command runs, is denied.

local SETTINGS = {
  registries = { "registry.npmjs.org", "registry.yarnpkg.com", "registry.npmmirror.com", "pypi.org",
    "pypi.python.org", "files.pythonhosted.org" },
  allow_unpinned = {},
  system_installs = "deny",
  rewrite = { from = "npm", to = "pnpm" },
}

local shell = require("shell")

local ipairs, type = ipairs, type

local REGISTRIES, UNPINNED = {}, {}
for _, h in ipairs(SETTINGS.registries) do REGISTRIES[h:lower()] = true end
for _, n in ipairs(SETTINGS.allow_unpinned) do UNPINNED[n:lower()] = true end

local NODE = { npm = true, pnpm = true, yarn = true, bun = true, cnpm = true }
local NODE_INSTALL = { install = true, i = true, ["in"] = true, ins = true, inst = true, insta = true,
  instal = true, isnt = true, isnta = true, isntal = true, isntall = true, add = true, ci = true, update = true,
  up = true, upgrade = true, ["install-test"] = true, it = true, global = true }
local SYSTEM = { apt = "install", ["apt-get"] = "install", aptitude = "install", dnf = "install", yum = "install",
  brew = "install", apk = "add", zypper = "install", snap = "install", port = "install", pacman = "-S" }

-- host_of returns the lower-cased host of a URL, or nil.
local function host_of(url)
  local host = url:lower():match("^[%a][%w+.-]*://([^/?#]+)")
  if not host then return nil end
  host = host:gsub("^.*@", ""):gsub(":%d+$", "")
  return host
end

local function unknown_registry(url)
  if url.unknown then return "a registry only known when the command runs" end
  local host = host_of(url.text)
  if not host then return "the registry " .. shell.printable(url.text) .. " (not a URL)" end
  if REGISTRIES[host] then return nil end
  return "the registry " .. shell.printable(host) .. ", which is not in the allowed list"
end

-- option_values returns the values of the options named (short letters,
-- long names) in args, and the operands; -x v, -xv, --name v, --name=v.
local function option_values(args, short, long, takes_short, takes_long)
  local vals, ops = {}, {}
  local k = 1
  while args[k] do
    local w = args[k]
    local t = w.text
    local name, eq, v = t:match("^%-%-([^=]+)(=?)(.*)$")
    if name then
      local wanted, takes = long[name], long[name] or takes_long[name]
      if takes then
        local val = w
        if eq == "" then k = k + 1; val = args[k] else val = { text = v, unknown = w.unknown } end
        if wanted and val then vals[#vals + 1] = { name = name, word = val } end
      end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for j = 2, #t do
        local c = t:sub(j, j)
        if short[c] or takes_short[c] then
          local val
          if j < #t then val = { text = t:sub(j + 1), unknown = w.unknown } else k = k + 1; val = args[k] end
          if short[c] and val then vals[#vals + 1] = { name = short[c], word = val } end
          break
        end
      end
    else
      ops[#ops + 1] = w
    end
    k = k + 1
  end
  return vals, ops
end

local function has_flag(args, ...)
  for _, a in ipairs(args) do
    for _, f in ipairs({ ... }) do
      if a.text == f then return true end
    end
  end
  return false
end

-- outside_spec reports why a package spec comes from outside a registry.
local function outside_spec(w)
  local t = w.text
  if t:find("^git%+") or t:find("^git:") or t:find("^%a+://") or t:find("^github:") or t:find("^gitlab:") or
    t:find("^bitbucket:") or t:find("^gist:") then
    local host = host_of((t:gsub("^git%+", "")))
    if host and REGISTRIES[host] then return nil end
    return "the package " .. shell.printable(t) .. " from outside the registry"
  end
  -- a GitHub shorthand: user/repo, not a scoped name or a path
  if t:find("^[%w_.-]+/[%w_.-]+$") and not t:find("^%.") and not t:find("%.tgz$") and not t:find("%.whl$") and
    not t:find("%.tar%.gz$") then
    return "the package " .. shell.printable(t) .. " (a GitHub shorthand, fetched from outside the registry)"
  end
  return nil
end

local NODE_SHORT_ARG = {}
local NODE_LONG_ARG = { registry = true, prefix = true, cache = true, userconfig = true, workspace = true,
  filter = true, location = true, dir = true, C = true }

local function node(c)
  local vals, ops = option_values(c.args, {}, { registry = true, location = true }, NODE_SHORT_ARG, NODE_LONG_ARG)
  for _, a in ipairs(c.args) do
    local scoped = a.text:match("^%-%-@[^:]+:registry=(.*)$")
    if scoped then vals[#vals + 1] = { name = "registry", word = { text = scoped, unknown = a.unknown } } end
  end
  local sub = ops[1] and ops[1].text
  -- npm config set registry URL / npm set registry URL
  local cfg = (sub == "config" or sub == "c") and ops[2] and ops[2].text == "set" and 3 or (sub == "set" and 2)
  if cfg and ops[cfg] then
    local key, val = ops[cfg].text:match("^([^=]+)=(.*)$")
    key = key or ops[cfg].text
    if key:find("registry$") then
      local why = unknown_registry(val and { text = val, unknown = ops[cfg].unknown } or ops[cfg + 1] or { text = "" })
      if why then return "deny", "setting " .. why end
    end
  end
  for _, v in ipairs(vals) do
    if v.name == "registry" then
      local why = unknown_registry(v.word)
      if why then return "deny", "installing from " .. why end
    end
  end
  if not sub then return nil end
  if ops[1].unknown then return "deny", "a " .. c.name .. " subcommand only known when the command runs" end
  if not NODE_INSTALL[sub] then return nil end
  if sub == "global" or has_flag(c.args, "-g", "--global", "--location=global") then
    return "deny", "a global install (" .. c.name .. " " .. sub .. " -g)"
  end
  for _, v in ipairs(vals) do
    if v.name == "location" and v.word.text == "global" then return "deny", "a global install (--location global)" end
  end
  for k = 2, #ops do
    local why = outside_spec(ops[k])
    if why then return "deny", "installing " .. why end
  end
  return nil
end

local PIP_SHORT = { i = "index-url", f = "find-links" }
local PIP_LONG = { ["index-url"] = true, ["extra-index-url"] = true, ["find-links"] = true, index = true,
  ["default-index"] = true, ["trusted-host"] = true }
local PIP_TAKES_SHORT = { r = true, c = true, t = true, e = true }
local PIP_TAKES_LONG = { requirement = true, constraint = true, target = true, editable = true, prefix = true,
  root = true, python = true, ["python-version"] = true, platform = true }

local function pip(c, args, who)
  local vals, ops = option_values(args, PIP_SHORT, PIP_LONG, PIP_TAKES_SHORT, PIP_TAKES_LONG)
  local sub = ops[1] and ops[1].text
  if sub ~= "install" and sub ~= "add" and sub ~= "download" and sub ~= "sync" and sub ~= "compile" then
    return nil
  end
  for _, v in ipairs(vals) do
    if v.name == "trusted-host" then return "deny", "installing with --trusted-host (TLS checks off)" end
    if v.name ~= "find-links" or v.word.text:find("^%a[%w+.-]*://") or v.word.unknown then
      local why = unknown_registry(v.word)
      if why then return "deny", "installing from " .. why end
    end
  end
  if has_flag(args, "--user") then return "deny", "a user-wide install (" .. who .. " --user)" end
  if has_flag(args, "--break-system-packages") then
    return "deny", "an install into the system Python (--break-system-packages)"
  end
  for _, w in ipairs(c.wrappers) do
    if w == "sudo" or w == "doas" then return "deny", "a system-wide install (" .. who .. " under " .. w .. ")" end
  end
  for k = 2, #ops do
    local t = ops[k].text
    if t:find("^git%+") or t:find("^%a+://") or t:find("@%s*git%+") or t:find("@%s*%a+://") then
      local host = host_of((t:gsub("^.-@%s*", ""):gsub("^git%+", "")))
      if not (host and REGISTRIES[host]) then
        return "deny", "installing the package " .. shell.printable(t) .. " from outside the index"
      end
    end
  end
  return nil
end

-- pinned reports whether a package spec names an exact version.
local function npm_pinned(t)
  local name, ver = t:match("^(@?[^@]+)@(.+)$")
  if not name then return false, t end
  return ver:find("^v?%d+%.%d+%.%d+[%w.+-]*$") ~= nil, name
end

local function py_pinned(t)
  local name, ver = t:match("^([%w_.%-%[%],]+)==([%w.+!-]+)$")
  if name then return true, name end
  name, ver = t:match("^([%w_.%-]+)@(.+)$")
  if name and ver:find("^%d+[%w.+!-]*$") then return true, name end
  return false, t:match("^[%w_.%-]+") or t
end

local function check_spec(w, pinned, how)
  if w.unknown then return "deny", "running a package only known when the command runs" end
  local ok, name = pinned(w.text)
  if ok or UNPINNED[name:lower()] then return nil end
  local why = outside_spec(w)
  if why then return "deny", "running " .. why end
  return "deny", "running the unpinned package " .. shell.printable(w.text) .. " (" .. how .. ")"
end

-- runner judges npx-like commands: args are the words after the runner.
local function node_runner(args, how)
  if has_flag(args, "--no-install", "--no", "--offline") then return nil end
  local vals, ops = option_values(args, { p = "package" }, { package = true },
    { c = true }, { call = true, cache = true, registry = true, userconfig = true })
  for _, v in ipairs(vals) do
    local verdict, why = check_spec(v.word, npm_pinned, how)
    if verdict then return verdict, why end
  end
  if #vals == 0 and ops[1] then return check_spec(ops[1], npm_pinned, how) end
  return nil
end

local function py_runner(args, how, from_opts)
  local vals, ops = option_values(args, {}, from_opts, {}, { python = true, index = true, ["index-url"] = true,
    ["pip-args"] = true })
  for _, v in ipairs(vals) do
    local verdict, why = check_spec(v.word, py_pinned, how)
    if verdict then return verdict, why end
  end
  if #vals == 0 and ops[1] then return check_spec(ops[1], py_pinned, how) end
  return nil
end

local function rest(ops_from, args)
  local out = {}
  for k = ops_from, #args do out[#out + 1] = args[k] end
  return out
end

-- first_op returns the index of the first word of args not an option.
local function first_op(args)
  for k, a in ipairs(args) do
    if a.text:sub(1, 1) ~= "-" then return k end
  end
  return nil
end

local function check(c)
  local n = c.name
  if not n then return nil end
  local pin = "pin an exact version, e.g. name@1.2.3 or name==1.2.3"
  if n == "npx" or n == "bunx" then return node_runner(c.args, pin) end
  if NODE[n] then
    local k = first_op(c.args)
    local sub = k and c.args[k].text
    if (n == "npm" and sub == "exec") or ((n == "pnpm" or n == "yarn") and sub == "dlx") or (n == "bun" and sub == "x") then
      return node_runner(rest(k + 1, c.args), pin)
    end
    return node(c)
  end
  if n == "pipx" then
    local k = first_op(c.args)
    if k and c.args[k].text == "run" then return py_runner(rest(k + 1, c.args), pin, { spec = true }) end
    if k and c.args[k].text == "install" then return py_runner(rest(k + 1, c.args), pin, { spec = true }) end
    return nil
  end
  if n == "uvx" then return py_runner(c.args, pin, { from = true, with = true }) end
  if n == "uv" then
    local k = first_op(c.args)
    local sub = k and c.args[k].text
    if sub == "tool" and c.args[k + 1] and (c.args[k + 1].text == "run" or c.args[k + 1].text == "install") then
      return py_runner(rest(k + 2, c.args), pin, { from = true, with = true })
    end
    if sub == "pip" then return pip(c, rest(k + 1, c.args), "uv pip") end
    return pip(c, c.args, "uv")
  end
  if n == "pip" or n:find("^pip%d") then return pip(c, c.args, n) end
  if n == "python" or n:find("^python%d") then
    for k, a in ipairs(c.args) do
      if a.text == "-m" and c.args[k + 1] and c.args[k + 1].text == "pip" then
        return pip(c, rest(k + 2, c.args), "python -m pip")
      end
    end
    return nil
  end
  if n == "poetry" then
    local k = first_op(c.args)
    if k and c.args[k].text == "source" and c.args[k + 1] and c.args[k + 1].text == "add" and c.args[k + 3] then
      local why = unknown_registry(c.args[k + 3])
      if why then return "deny", "adding " .. why end
    end
    return nil
  end
  local sys = SYSTEM[n]
  if sys and SETTINGS.system_installs ~= "allow" then
    for _, a in ipairs(c.args) do
      if a.text == sys or (sys == "-S" and a.text:find("^%-S")) or (sys == "install" and a.text == "reinstall") or
        (n == "zypper" and a.text == "in") then
        return SETTINGS.system_installs == "ask" and "ask" or "deny", "a system-wide install (" .. n .. " " .. a.text .. ")"
      end
    end
  end
  return nil
end

-- ENV_KEYS are the environment variables that choose a registry or index.
local ENV_KEYS = { "npm_config_registry", "npm_config_@[^=]*:registry", "yarn_registry", "yarn_npm_registry_server",
  "pip_index_url", "pip_extra_index_url", "pip_find_links", "uv_index_url", "uv_extra_index_url", "uv_index",
  "uv_default_index", "pip_trusted_host" }

local function env_registry(line)
  local l = line:gsub("[\"'\\]", ""):lower()
  for _, key in ipairs(ENV_KEYS) do
    for val in l:gmatch(key .. "=(%S*)") do
      if key == "pip_trusted_host" then return "deny", "installing with PIP_TRUSTED_HOST (TLS checks off)" end
      for url in (val .. " "):gmatch("([^%s]+)") do
        local why = unknown_registry({ text = url, unknown = url:find("%$") ~= nil })
        if why then return "deny", "installing from " .. why end
      end
    end
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" then return nil end
  local cmds, err = shell.parse(cmd)
  local ask
  for _, c in ipairs(cmds) do
    local verdict, why = check(c)
    if verdict == "deny" then
      return hook.deny("package guard: " .. why .. ". Use the project's registry and pinned versions (" ..
        "name@1.2.3), install into the project (no -g, a virtualenv), or ask the user to do it.")
    end
    if verdict == "ask" and not ask then ask = why end
  end
  local verdict, why = env_registry(cmd)
  if verdict then
    return hook.deny("package guard: " .. why .. ". Use the project's registry or ask the user to add this one.")
  end
  if err then return hook.deny("package guard: the command could not be checked: " .. err .. ". Split it.") end
  if ask then return hook.ask("package guard: " .. ask .. " changes the machine outside the project.") end
end, { name = "packages", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

-- The rewrite to the preferred package manager.

local REWRITES = {
  pnpm = { { "install", "install" }, { "i", "install" }, { "install ", "add " }, { "i ", "add " },
    { "ci", "install --frozen-lockfile" }, { "run ", "run " }, { "uninstall ", "remove " }, { "exec ", "exec " },
    npx = "pnpm dlx " },
  yarn = { { "install", "install" }, { "i", "install" }, { "install ", "add " }, { "i ", "add " },
    { "ci", "install --frozen-lockfile" }, { "run ", "run " }, { "uninstall ", "remove " }, npx = "yarn dlx " },
  bun = { { "install", "install" }, { "i", "install" }, { "install ", "add " }, { "i ", "add " },
    { "ci", "install --frozen-lockfile" }, { "run ", "run " }, { "uninstall ", "remove " }, npx = "bunx " },
  ["uv pip"] = { { "install ", "install " }, { "uninstall ", "uninstall " }, { "freeze", "freeze" },
    { "list", "list" } },
}

local RW = SETTINGS.rewrite
local RULES = RW and REWRITES[RW.to]

if RULES then
  hook.register("PreToolUse", "@shell", function(input)
    local args = input.toolInput
    local cmd = type(args) == "table" and args.command
    if type(cmd) ~= "string" then return nil end
    local line = cmd:match("^%s*(.-)%s*$")
    local new
    if RULES.npx and RW.from == "npm" and line:sub(1, 4) == "npx " and not line:find("%-%-no%-install") and
      not line:find("%-%-no ") and not line:find("%-%-offline") then
      -- npx --no-install runs what node_modules has; a dlx would download
      new = RULES.npx .. line:sub(5)
    elseif line:sub(1, #RW.from + 1) == RW.from .. " " then
      local tail = line:sub(#RW.from + 2)
      for _, r in ipairs(RULES) do
        local pre = r[1]
        if tail == pre or (pre:sub(-1) == " " and tail:sub(1, #pre) == pre) then
          new = RW.to .. " " .. r[2] .. tail:sub(#pre + 1)
          break
        end
      end
    end
    if new then
      args.command = new
      return hook.mutate(args, "this project uses " .. RW.to)
    end
  end, { name = "packages-rewrite", stage = "mutate", timeout_ms = 1000 })
end
