-- packages: blocks unknown registries, unpinned npx runs, global installs and removals, publishing; can rewrite to your manager
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
--     snap, port) when SETTINGS.system_installs is "deny" (or "ask");
--   - publishing (SETTINGS.publish): npm/pnpm/bun/yarn publish, yarn npm
--     publish, npm unpublish/deprecate, cargo publish/yank, poetry, uv,
--     flit, hatch, pdm publish, twine upload (python -m twine too),
--     setup.py upload, mvn deploy (and :deploy, release:perform), gradle
--     publish* tasks (not publishToMavenLocal), gem push/yank, dotnet nuget
--     push/delete, nuget push, vsce/ovsx publish, pod trunk push, mix
--     hex.publish, lerna/changeset publish, dart/flutter pub publish,
--     rye publish, conan upload, jf rt upload, goreleaser release (not
--     --snapshot or --skip=publish), semantic-release, and npm dist-tag
--     add/rm, owner add/rm, access grant/set, team changes (which version
--     users get, who may publish); --dry-run passes;
--   - pushing an image, a chart or an OCI artifact to a registry others
--     pull from (SETTINGS.publish too, [rule publish]): docker/podman/
--     nerdctl/buildah push and image push (any options, global ones like
--     --context, -H, --log-level read past), buildx build --push / -o
--     type=registry / push=true, buildx bake --push, compose push and
--     build --push (docker-compose, podman-compose), buildx imagetools
--     create, manifest push; skopeo copy to docker://, skopeo sync --dest
--     docker; crane push, copy, tag, append -t, mutate, flatten, rebase,
--     edit, index; oras push, attach, tag, cp, manifest/blob push; helm
--     push and cm-push; ko build/publish/resolve/apply/create/run (not
--     with -L, --local, --push=false or KO_DOCKER_REPO=ko.local/
--     kind.local); mvn jib:build, gradle jib, jib build. A registry on
--     this machine (SETTINGS.local_registries: localhost, 127.x.x.x,
--     [::1], *.localhost, host.docker.internal, kind-registry) passes,
--     and so do oci:, dir:, docker-archive: destinations, -o/--output
--     to a file, buildx --load, jib:dockerBuild. A name without a host
--     (docker push myimage, team/api:3) goes to Docker Hub: publishing.
--     docker login, pull, build and tag pass: nothing leaves;
--   - uninstalls outside the project (SETTINGS.system_removals): npm/pnpm/
--     bun uninstall -g, yarn global remove; apt/apt-get remove, purge,
--     autoremove, dnf/yum remove/erase, pacman/yay/paru -R*, brew
--     uninstall, snap remove, flatpak uninstall, zypper rm, apk del, port,
--     pkg, dpkg -r/-P, rpm -e, nix-env -e, emerge -C, choco/winget/scoop
--     uninstall; pip
--     uninstall under sudo, with --break-system-packages or uv --system
--     (a plain pip uninstall is taken to run in the project's virtualenv),
--     pip uninstall pip anywhere (the interpreter loses its package
--     manager), conda/mamba env remove -n base, remove --all -n base, and
--     conda remove conda;
--     --dry-run, --simulate, apt -s pass.
--     Removing a project's own dependency (npm rm x, poetry remove x, pip
--     uninstall x in the project's virtualenv) is the project's business
--     and passes: the issue's rule is uninstalls of system or global
--     packages;
--   - commands a package manager runs for you that no guard reads: gem
--     open -e CMD, pip config --editor CMD, npm/pnpm/yarn/bun exec of a
--     shell (denied).
-- And, when SETTINGS.rewrite is set (it is not by default), it rewrites
-- (mutate stage, before the validators) a command of SETTINGS.rewrite.from
-- into SETTINGS.rewrite.to: npm to pnpm, yarn or bun
-- (npm install x -> pnpm add x, npm ci -> pnpm install --frozen-lockfile,
-- npx x -> pnpm dlx x), pip to uv (pip install x -> uv pip install x).
-- Only a line that starts with the command is rewritten; the rewritten
-- line is checked by the rules above.
--
-- Why: a dependency is code that runs with the developer's rights; a
-- typo-squatted name, an unpinned `npx` that resolves to a new malicious
-- release, or a package from a registry nobody vetted is how supply-chain
-- attacks land. Global installs and uninstalls change the machine outside
-- the project; a published release cannot be taken back from everyone who
-- installed it.
--
-- Set them in the config's [packs.packages] table, over the defaults below.
-- Settings (SETTINGS below): registries (hosts), allow_unpinned (package
-- names that may run unpinned), system_installs, system_removals and
-- publish ("deny" | "ask" | "allow"), local_registries (hosts of image
-- registries on this machine, where a push is not publishing), rewrite (nil, the default: no
-- rewrite; opt in with { from = "npm", to = "pnpm" } in a project that
-- uses pnpm, since a rewrite breaks one that uses npm and its
-- package-lock.json).
--
-- What it cannot know: what a lock file or requirements.txt holds (files
-- are not read), whether pip runs inside a virtualenv, what a registry set
-- in .npmrc / pip.conf / uv.toml points at, what a script (npm run
-- release, make publish) runs. Fails closed: a line that cannot
-- be read, or a package spec only known when the command runs, is denied.

local SETTINGS = hook.settings("packages", {
  registries = { "registry.npmjs.org", "registry.yarnpkg.com", "registry.npmmirror.com", "pypi.org",
    "pypi.python.org", "files.pythonhosted.org" },
  -- the everyday tools a project installs as devDependencies, which npx
  -- and npm exec run from node_modules (an unknown name is still denied)
  allow_unpinned = { "tsc", "typescript", "eslint", "prettier", "jest", "vitest", "mocha", "prisma", "next", "vite",
    "tsx", "ts-node", "playwright", "turbo", "nx", "astro", "nuxt", "webpack", "rollup", "esbuild", "biome",
    "drizzle-kit", "knex", "sequelize", "typeorm", "cypress", "storybook", "lint-staged", "husky", "rimraf" },
  system_installs = "deny",
  system_removals = "deny",
  publish = "deny",
  -- registries on this machine, where a pushed image or chart stays: a
  -- developer's loop, not publishing (127.x.x.x and *.localhost are too)
  local_registries = { "localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal",
    "host.containers.internal", "kind-registry" },
  -- Off by default: a rewrite breaks a project that uses npm (its
  -- package-lock.json). Opt in with, e.g., rewrite = { from = "npm", to = "pnpm" }.
  rewrite = nil,
})

local shell = require("shell")

local ipairs, type = ipairs, type

local REGISTRIES, UNPINNED = {}, {}
for _, h in ipairs(SETTINGS.registries) do REGISTRIES[h:lower()] = true end
for _, n in ipairs(SETTINGS.allow_unpinned) do UNPINNED[n:lower()] = true end

local conda -- defined below, before check

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

local PUBLISH_INSTEAD = "Publishing is the user's step: run it with --dry-run to check the package, " ..
  "or ask the user to publish"
local REMOVE_INSTEAD = "Removing packages from the machine is the user's step: remove it from the project " ..
  "instead (npm uninstall x, pip uninstall in a virtualenv), run it with --dry-run/-s, or ask the user"

local NODE_PUBLISH = { publish = true, unpublish = true, deprecate = true }
local NODE_REGISTRY_ADMIN = { ["dist-tag"] = { add = true, rm = true, set = true }, ["dist-tags"] = { add = true,
  rm = true, set = true }, tag = { add = true, remove = true, rm = true }, owner = { add = true, rm = true, remove = true }, author = { add = true, rm = true },
  access = { grant = true, revoke = true, set = true, public = true, restricted = true, ["2fa-required"] = true,
    ["2fa-not-required"] = true }, team = { add = true, rm = true, create = true, destroy = true } }
local NODE_REMOVE = { uninstall = true, un = true, unlink = true, remove = true, rm = true, r = true }

-- dry_run reports whether a command only shows what it would do.
local function dry_run(args)
  for _, a in ipairs(args) do
    local t = a.text
    if t == "--" then return false end
    if t == "--dry-run" or t == "--dry-run=true" or t == "--dryrun" or t == "--simulate" or t == "--just-print" or
      t == "--help" or t == "-h" or t == "--no-act" or t == "--recon" then
      return true
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

local NODE_SHORT_ARG = { w = true, F = true, C = true }
local NODE_LONG_ARG = { registry = true, prefix = true, cache = true, userconfig = true, workspace = true,
  filter = true, location = true, dir = true, C = true, tag = true, access = true, otp = true }

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
  -- yarn npm publish (yarn 2+) and yarn global remove name their verb second
  local verb = (c.name == "yarn" and (sub == "npm" or sub == "global") and ops[2]) and ops[2].text or sub
  if NODE_PUBLISH[verb] and not dry_run(c.args) then
    return SETTINGS.publish, "publishing a package (" .. c.name .. " " .. verb .. ") [rule publish]", PUBLISH_INSTEAD
  end
  -- which version users get (dist-tag add/rm) and who may publish (owner,
  -- access, team) change a published package as publishing does
  local act = verb ~= sub and ops[3] and ops[3].text or ops[2] and ops[2].text
  if NODE_REGISTRY_ADMIN[verb] and act and NODE_REGISTRY_ADMIN[verb][act] and not dry_run(c.args) then
    return SETTINGS.publish, "changing a published package (" .. c.name .. " " .. verb .. " " .. act ..
      ") [rule publish]", PUBLISH_INSTEAD
  end
  if NODE_REMOVE[verb] and (sub == "global" or has_flag(c.args, "-g", "--global", "--location=global")) then
    return SETTINGS.system_removals, "a global uninstall (" .. c.name .. " " .. verb .. " -g)", REMOVE_INSTEAD
  end
  for _, v in ipairs(vals) do
    if NODE_REMOVE[verb] and v.name == "location" and v.word.text == "global" then
      return SETTINGS.system_removals, "a global uninstall (--location global)", REMOVE_INSTEAD
    end
  end
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
  if sub == "uninstall" or sub == "remove" then
    -- in a virtualenv (which the payload does not show) an uninstall is
    -- the project's own business; these forms reach the system Python
    if has_flag(args, "--break-system-packages") then
      return SETTINGS.system_removals, "an uninstall from the system Python (--break-system-packages)",
        REMOVE_INSTEAD
    end
    if who:find("^uv") and has_flag(args, "--system") then
      return SETTINGS.system_removals, "an uninstall from the system Python (" .. who .. " --system)", REMOVE_INSTEAD
    end
    for _, w in ipairs(c.wrappers) do
      if w == "sudo" or w == "doas" then
        return SETTINGS.system_removals, "a system-wide uninstall (" .. who .. " under " .. w .. ")", REMOVE_INSTEAD
      end
    end
    -- pip itself: every later install in that interpreter breaks
    for k = 2, #ops do
      local name = ops[k].text:lower():match("^([%w._-]+)")
      if name == "pip" then
        return SETTINGS.system_removals, "uninstalling pip itself (" .. who .. " uninstall pip), which leaves the " ..
          "interpreter without its package manager", REMOVE_INSTEAD
      end
    end
    return nil
  end
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
-- NODE_RUNNER_VALUED are the options of npx and bunx that take the next
-- word as their value.
local NODE_RUNNER_VALUED = { ["-p"] = true, ["--package"] = true, ["-c"] = true, ["--call"] = true,
  ["--cache"] = true, ["--registry"] = true, ["--userconfig"] = true }

local function node_runner(args, how)
  -- npx's own options end at the command it runs: the options after it are
  -- the command's (npx http-server dist -p 8080)
  local own = {}
  local k = 1
  while args[k] do
    local t = args[k].text
    own[#own + 1] = args[k]
    if t:sub(1, 1) ~= "-" or args[k].unknown then break end
    if NODE_RUNNER_VALUED[t] and args[k + 1] then
      own[#own + 1] = args[k + 1]
      k = k + 1
    end
    k = k + 1
  end
  args = own
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

-- The publishing commands of other ecosystems: the program, then the
-- operands (words not options) that upload to a registry, as a list of
-- alternatives; "*" is any word.
local PUBLISH = {
  cargo = { { "publish" }, { "yank" } },
  poetry = { { "publish" } },
  twine = { { "upload" } },
  uv = { { "publish" } },
  flit = { { "publish" } },
  hatch = { { "publish" } },
  pdm = { { "publish" } },
  gem = { { "push" }, { "yank" } },
  dotnet = { { "nuget", "push" }, { "nuget", "delete" } },
  nuget = { { "push" }, { "delete" } },
  vsce = { { "publish" }, { "unpublish" } },
  ovsx = { { "publish" } },
  pod = { { "trunk", "push" } },
  mix = { { "hex.publish" } },
  lerna = { { "publish" } },
  changeset = { { "publish" } },
  anaconda = { { "upload" } },
  swift = { { "package-registry", "publish" } },
  dart = { { "pub", "publish" } },
  flutter = { { "pub", "publish" } },
  rye = { { "publish" } },
  conan = { { "upload" } },
  jf = { { "rt", "upload" }, { "rt", "u" }, { "npm-publish" }, { "mvn", "deploy" } },
}
-- Options of mvn and gradle that take a value: their value is not a goal
-- or a task (gradle -x publish excludes the task).
local MVN_ARG = { f = true, s = true, gs = true, P = true, pl = true, rf = true, T = true, l = true, t = true,
  gt = true, b = true, D = true, ["-file"] = true, ["-settings"] = true, ["-global-settings"] = true,
  ["-projects"] = true, ["-activate-profiles"] = true, ["-resume-from"] = true, ["-threads"] = true,
  ["-log-file"] = true, ["-toolchains"] = true, ["-builder"] = true, ["-define"] = true }
local GRADLE_ARG = { x = true, p = true, b = true, c = true, g = true, I = true, D = true, P = true,
  ["-exclude-task"] = true, ["-project-dir"] = true, ["-build-file"] = true, ["-settings-file"] = true,
  ["-gradle-user-home"] = true, ["-init-script"] = true, ["-console"] = true, ["-warning-mode"] = true,
  ["-project-cache-dir"] = true, ["-include-build"] = true, ["-system-prop"] = true, ["-project-prop"] = true,
  ["-max-workers"] = true, ["-priority"] = true }

-- words returns the operands of args, skipping the values of the options
-- takes names (without their first "-"); an option with "=" holds its value.
local function words(args, takes)
  local out = {}
  local k = 1
  while args[k] do
    local t = args[k].text
    if t:sub(1, 1) == "-" then
      if takes[t:sub(2)] and not t:find("=") then k = k + 1 end
    else
      out[#out + 1] = args[k]
    end
    k = k + 1
  end
  return out
end

-- publishes returns the command that uploads a package to a registry, or nil.
local function publishes(c)
  local n = c.name
  if n == "mvn" or n == "mvnw" then
    for _, w in ipairs(words(c.args, MVN_ARG)) do
      local t = w.text
      if t == "deploy" or t:find(":deploy$") or t:find(":deploy%-file$") or t == "release:perform" or
        t:find(":release:perform$") then
        return n .. " " .. t
      end
    end
    return nil
  end
  if n == "gradle" or n == "gradlew" then
    if has_flag(c.args, "-m", "--dry-run") then return nil end
    for _, w in ipairs(words(c.args, GRADLE_ARG)) do
      local task = w.text:match("[^:]*$"):lower()
      if (task:find("^publish") and not task:find("tomavenlocal$")) or task == "uploadarchives" then
        return n .. " " .. w.text
      end
    end
    return nil
  end
  if n == "python" or n:find("^python%d") then
    local k = 1
    while c.args[k] and c.args[k].text:sub(1, 1) == "-" and c.args[k].text ~= "-m" do k = k + 1 end
    local a = c.args[k]
    if a and a.text == "-m" and c.args[k + 1] and c.args[k + 1].text == "twine" then
      local r = rest(k + 2, c.args)
      local op = r[first_op(r) or #r + 1]
      if op and op.text == "upload" then return "python -m twine upload" end
    elseif a and a.text:find("setup%.py$") then
      for j = k + 1, #c.args do
        if c.args[j].text == "upload" or c.args[j].text == "register" then return "setup.py " .. c.args[j].text end
      end
    end
    return nil
  end
  -- release tools that publish what they build unless told not to
  if n == "goreleaser" then
    local op
    for _, a in ipairs(c.args) do
      if a.text:sub(1, 1) ~= "-" then op = a.text; break end
    end
    if op and op ~= "release" then return nil end
    for _, a in ipairs(c.args) do
      local t = a.text
      if t == "--snapshot" or t == "--skip-publish" or (t:find("^%-%-skip=") and t:find("publish", 1, true)) then
        return nil
      end
    end
    return "goreleaser release"
  end
  if n == "semantic-release" then return "semantic-release" end
  local forms = PUBLISH[n]
  if not forms then return nil end
  local ops = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a end
  end
  for _, form in ipairs(forms) do
    local hit = true
    for j, want in ipairs(form) do
      if not ops[j] or (ops[j].text ~= want and not ops[j].unknown) then hit = false; break end
    end
    if hit then
      if n == "cargo" and has_flag(c.args, "-n") then return nil end
      return n .. " " .. table.concat(form, " ")
    end
  end
  return nil
end

-- The verbs of the system package managers that remove packages, and the
-- flags that do it for the ones whose verbs are flags (a flag cluster
-- starting with the letter: pacman -Rns).
local SYS_REMOVE = {
  apt = { remove = true, purge = true, autoremove = true, autopurge = true },
  ["apt-get"] = { remove = true, purge = true, autoremove = true, autopurge = true },
  aptitude = { remove = true, purge = true },
  dnf = { remove = true, erase = true, autoremove = true, rm = true },
  yum = { remove = true, erase = true, autoremove = true },
  microdnf = { remove = true },
  zypper = { remove = true, rm = true },
  apk = { del = true },
  brew = { uninstall = true, remove = true, rm = true, autoremove = true },
  port = { uninstall = true },
  snap = { remove = true },
  flatpak = { uninstall = true, remove = true },
  pkg = { delete = true, remove = true, autoremove = true },
  choco = { uninstall = true },
  winget = { uninstall = true },
  scoop = { uninstall = true },
}
local SYS_REMOVE_FLAG = {
  pacman = { short = "R", long = { ["--remove"] = true } },
  yay = { short = "R", long = { ["--remove"] = true } },
  paru = { short = "R", long = { ["--remove"] = true } },
  dpkg = { short = "rP", long = { ["--remove"] = true, ["--purge"] = true } },
  rpm = { short = "e", long = { ["--erase"] = true } },
  ["nix-env"] = { short = "e", long = { ["--uninstall"] = true } },
  emerge = { short = "C", long = { ["--unmerge"] = true, ["--depclean"] = true } },
}

-- removes returns the system package removal c makes, or nil.
local function removes(c)
  local n = c.name
  local verbs = SYS_REMOVE[n]
  if verbs then
    if dry_run(c.args) or has_flag(c.args, "--assumeno") or ((n == "apt" or n == "apt-get") and
      has_flag(c.args, "-s")) then
      return nil
    end
    for _, a in ipairs(c.args) do
      if verbs[a.text] then return n .. " " .. a.text end
    end
    return nil
  end
  local fl = SYS_REMOVE_FLAG[n]
  if not fl or dry_run(c.args) then return nil end
  for _, a in ipairs(c.args) do
    local t = a.text
    if fl.long[t] then return n .. " " .. t end
    -- pacman -Rp only prints what it would remove
    if t:find("^%-%a") and t:find("^%-[" .. fl.short .. "]") and not (n == "pacman" and t:find("p", 3, true)) then
      return n .. " " .. t
    end
  end
  return nil
end

-- conda, mamba, micromamba: removing the base environment (env remove -n
-- base, remove --all -n base) or conda itself takes every environment's
-- manager with it. Other environments are the user's to remove.
local CONDA = { conda = true, mamba = true, micromamba = true }
local CONDA_ARG = { ["-n"] = true, ["--name"] = true, ["-p"] = true, ["--prefix"] = true, ["-c"] = true,
  ["--channel"] = true, ["--file"] = true }
function conda(c)
  local ops, env, all = {}, nil, false
  local k = 1
  while c.args[k] do
    local a = c.args[k]
    local t = a.text
    if t == "-n" or t == "--name" then
      env = c.args[k + 1] and c.args[k + 1].text
    elseif t:find("^%-%-name=") then
      env = t:sub(8)
    elseif t == "--all" then
      all = true
    end
    if CONDA_ARG[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" then
      ops[#ops + 1] = t:lower()
    end
    k = k + 1
  end
  if SETTINGS.system_removals == "allow" or dry_run(c.args) then return nil end
  local verb = ops[1]
  local pkgs = 2
  if verb == "env" then
    if ops[2] ~= "remove" then return nil end
    all, pkgs = true, 3
  elseif verb ~= "remove" and verb ~= "uninstall" then
    return nil
  end
  if all and env == "base" then
    return SETTINGS.system_removals, "removing the conda base environment (" .. c.name .. " " ..
      table.concat(ops, " ", 1, pkgs - 1) .. " -n base)", REMOVE_INSTEAD
  end
  for j = pkgs, #ops do
    if ops[j]:match("^([%w._-]+)") == c.name then
      return SETTINGS.system_removals, "uninstalling " .. c.name .. " itself (" .. c.name .. " " .. verb .. " " ..
        c.name .. ")", REMOVE_INSTEAD
    end
  end
  return nil
end

-- SHELLS are the shells a package manager's exec may start.
local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, fish = true, ash = true, csh = true,
  tcsh = true }

-- escape returns why c has a package manager run a command it names as an
-- option's value or an exec target (gem open -e CMD, pip config --editor
-- CMD, yarn exec sh), which no guard reads; nil otherwise.
local function escape(c)
  local n, a = c.name, c.args
  local editor = (n == "gem" and { ["-e"] = true, ["--editor"] = true }) or
    ((n == "pip" or n:find("^pip%d")) and { ["--editor"] = true })
  if editor then
    for k, w in ipairs(a) do
      local name, val = w.text:match("^(%-%-?[%a-]+)=(.*)$")
      local v = editor[w.text] and a[k + 1] or name and editor[name] and { text = val, unknown = w.unknown }
      -- an editor by name (code, vim) edits; a command line or a shell runs
      if v and (v.unknown or v.text:find("%s") or SHELLS[shell.basename(v.text)]) then
        return "a command run as " .. n .. "'s editor (" .. shell.printable(v.text, 40) .. ")"
      end
    end
  end
  if NODE[n] then
    local k = first_op(a)
    if k and a[k].text == "exec" then
      local j = k + 1
      while a[j] and a[j].text:sub(1, 1) == "-" do j = j + 1 end
      if a[j] and SHELLS[shell.basename(a[j].text)] then return "a shell started by " .. n .. " exec" end
    end
  end
  return nil
end

-- Images and charts -------------------------------------------------------------
--
-- Pushing an image, a chart or an OCI artifact to a registry others pull
-- from is publishing too (SETTINGS.publish, rule publish). A registry on
-- this machine (SETTINGS.local_registries, 127.x.x.x, *.localhost) is a
-- developer's loop and passes; a name without a host (myimage,
-- acme/app:1.2) goes to Docker Hub, as docker reads it.

local LOCAL_REGISTRIES = {}
for _, h in ipairs(SETTINGS.local_registries) do LOCAL_REGISTRIES[h:lower()] = true end

local IMAGE_INSTEAD = "Pushing to a registry others pull from is the user's step: build and check it here " ..
  "(docker build --load, a registry on localhost:5000, helm package, --dry-run where there is one), " ..
  "or ask the user to push it"

-- TRANSPORTS are the image transports of containers/image (skopeo, podman,
-- buildah): only docker:// names a registry.
local TRANSPORTS = { docker = true, oci = true, dir = true, ["docker-archive"] = true, ["oci-archive"] = true,
  ["containers-storage"] = true, ["docker-daemon"] = true, sif = true, tarball = true, ostree = true }

-- registry_of returns the registry host a reference pushes to ("docker.io"
-- for a name without one), nil when the reference names no registry (an
-- oci:, dir: or docker-archive: destination), or false when it is only
-- known when the command runs.
local function registry_of(w, registry_only)
  local t = w.text:lower()
  if w.unknown then
    -- a host written out before the unknown part (team/api:$VERSION,
    -- ghcr.io/team/$NAME) is known; else the registry is not
    t = t:sub(1, (t:find("\0", 1, true) or #t + 1) - 1)
    if not t:find("/", 1, true) then return false end
  end
  local scheme, after = t:match("^(%a[%w+.-]*)://(.*)$")
  if scheme == "docker" then
    t = after
  elseif scheme then
    -- oci://host/charts, https://host/repo: the host leads
    return after:match("^[^/]*")
  else
    local transport = t:match("^([%a-]+):")
    if transport and TRANSPORTS[transport] then return nil end
  end
  if registry_only then return t:match("^[^/]*") end
  local first = t:match("^([^/]+)/")
  if first and (first:find("[.:]") or first == "localhost" or first:find("^%[")) then return first end
  return "docker.io"
end

-- on_this_machine reports whether a registry host (with or without its
-- port) is served from this machine.
local function on_this_machine(host)
  local h = host:match("^%[([^%]]+)%]") or host:match("^([^:]+):%d+$") or host
  return LOCAL_REGISTRIES[h] or h:find("%.localhost$") ~= nil or h:find("^127%.%d+%.%d+%.%d+$") ~= nil
end

-- published returns why pushing w (what: the kind and the command) is
-- publishing, or nil when w stays on this machine.
local function published(w, kind, how, registry_only, name)
  if not w then return "publishing " .. kind .. " (" .. how .. ")" end
  local host = registry_of(w, registry_only)
  if host == nil or (host and on_this_machine(host)) then return nil end
  if host == false then return "publishing " .. kind .. " only known when the command runs (" .. how .. ")" end
  return "publishing the " .. kind:gsub("^an? ", "") .. " " .. shell.printable((name or w).text, 80) .. " to " ..
    shell.printable(host) .. " (" .. how .. ")"
end

-- scan splits args into operands and options: takes names the options
-- (-t, --tag) that take the next word as their value; when bools is
-- given, every option but those in it takes one. opts[name] lists the
-- values (or, for a flag, the option word itself) of each option.
local function scan(args, takes, bools)
  local ops, opts = {}, {}
  local k = 1
  while args[k] do
    local w = args[k]
    local t = w.text
    if t == "--" then
      for j = k + 1, #args do ops[#ops + 1] = args[j] end
      break
    end
    local name, v = t:match("^(%-%-[^=]+)=(.*)$")
    if not name and t:find("^%-%a.") and takes[t:sub(1, 2)] then name, v = t:sub(1, 2), t:sub(3) end
    if name then
      opts[name] = opts[name] or {}
      table.insert(opts[name], { text = v, unknown = w.unknown })
    elseif t:sub(1, 1) == "-" and #t > 1 then
      opts[t] = opts[t] or {}
      if (takes[t] or (bools and not bools[t])) and args[k + 1] then
        k = k + 1
        table.insert(opts[t], args[k])
      else
        table.insert(opts[t], w)
      end
    else
      ops[#ops + 1] = w
    end
    k = k + 1
  end
  return ops, opts
end

local function values(opts, ...)
  local out = {}
  for _, n in ipairs({ ... }) do
    for _, v in ipairs(opts[n] or {}) do out[#out + 1] = v end
  end
  return out
end

-- first_published returns the first of ws that publishes, or nil.
local function first_published(ws, kind, how)
  for _, w in ipairs(ws) do
    local why = published(w, kind, how)
    if why then return why end
  end
  return nil
end

local function set(...)
  local s = {}
  for _, n in ipairs({ ... }) do s[n] = true end
  return s
end

-- The global options of docker, podman, nerdctl and buildah that take a value.
local ENGINE_ARG = set("-c", "--context", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert",
  "--tlscert", "--tlskey", "--connection", "--url", "--root", "--runroot", "--storage-driver", "--storage-opt",
  "--namespace", "-n", "--address", "-a", "--identity", "--cgroup-manager", "--events-backend", "--hooks-dir",
  "--module", "--network-cmd-path", "--network-config-dir", "--runtime", "--runtime-flag", "--tmpdir",
  "--volumepath", "--imagestore", "--ssh", "--snapshotter", "--cni-path", "--cni-netconfpath", "--data-root",
  "--host-gateway-ip", "--hosts-dir", "--registries-conf", "--short-name-alias-conf", "--userns-uid-map",
  "--userns-gid-map", "--registries-conf-dir")
-- The options of push, build, compose and manifest push that take a value.
local PUSH_ARG = set("--platform", "--authfile", "--cert-dir", "--creds", "--digestfile", "-f", "--format",
  "--sign-by", "--sign-by-sigstore", "--sign-by-sigstore-private-key", "--sign-passphrase-file",
  "--encryption-key", "--compression-format", "--compression-level", "--retry", "--retry-delay", "--sign",
  "--cosign-key", "--notation-key-name", "--sign-by-sq-fingerprint", "--signature-policy")
local BUILD_ARG = set("-t", "--tag", "-o", "--output", "-f", "--file", "--build-arg", "--platform", "--target",
  "--cache-from", "--cache-to", "--secret", "--ssh", "--label", "--network", "--builder", "--progress",
  "--iidfile", "--metadata-file", "--attest", "--build-context", "--add-host", "--annotation", "--allow",
  "--cgroup-parent", "--shm-size", "--ulimit", "--set", "--call", "-m", "--memory")
local COMPOSE_ARG = set("-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory",
  "--ansi", "--progress", "--parallel")

-- pushes_output reports whether a buildx --output value sends the image to
-- a registry (type=registry, type=image,push=true).
local function pushes_output(w)
  if w.unknown then return true end
  local t = w.text:lower()
  return t == "registry" or t:find("type=registry") ~= nil or
    (t:find("push=true") ~= nil and not t:find("type=local") and not t:find("type=tar"))
end

-- true when a bool flag is on: --push, --push=true (not --push=false).
local function on(opts, name)
  for _, v in ipairs(opts[name] or {}) do
    if v.text ~= "false" and v.text ~= "0" then return true end
  end
  return false
end

local function engine(c)
  local n = c.name
  local how = n
  local ops, opts = scan(c.args, ENGINE_ARG)
  -- the subcommand and its words: the global options end at the first operand
  local k = 1
  while c.args[k] and c.args[k] ~= ops[1] do k = k + 1 end
  local sub = ops[1] and ops[1].text
  if not sub then return nil end
  local rest_args = rest(k + 1, c.args)
  local group, verb = sub, nil
  if sub == "image" or sub == "manifest" or sub == "compose" or sub == "buildx" or sub == "builder" or
    sub == "artifact" then
    local o2 = scan(rest_args, sub == "compose" and COMPOSE_ARG or {})
    verb = o2[1] and o2[1].text
    if not verb then return nil end
    local j = 1
    while rest_args[j] and rest_args[j] ~= o2[1] do j = j + 1 end
    rest_args = rest(j + 1, rest_args)
    how = n .. " " .. sub .. " " .. verb
  else
    how = n .. " " .. sub
  end
  if dry_run(c.args) then return nil end
  if (group == "push" or ((group == "image" or group == "manifest" or group == "artifact") and verb == "push")) then
    local pops = scan(rest_args, PUSH_ARG)
    local kind = group == "manifest" and "a manifest list" or (group == "artifact" and "an artifact" or "an image")
    return published(pops[#pops], kind, how)
  end
  if group == "compose" and (verb == "push" or (verb == "build" and on(select(2, scan(rest_args, BUILD_ARG)),
    "--push"))) then
    return "publishing the compose file's images (" .. how .. (verb == "build" and " --push" or "") .. ")"
  end
  local build = group == "build" or group == "bake" or
    ((group == "buildx" or group == "builder") and (verb == "build" or verb == "b" or verb == "bake"))
  if build then
    local bops, bopts = scan(rest_args, BUILD_ARG)
    local push = on(bopts, "--push") and " --push"
    for _, v in ipairs(values(bopts, "-o", "--output", "--set")) do
      if not push and pushes_output(v) then push = " --output " .. shell.printable(v.text, 40) end
    end
    if not push then return nil end
    how = how .. push
    if group == "bake" or verb == "bake" then
      return "publishing the images of the bake file (" .. how .. ")"
    end
    local tags = values(bopts, "-t", "--tag")
    for _, v in ipairs(values(bopts, "-o", "--output")) do
      local name = v.text:match("name=([^,]+)")
      if name then tags[#tags + 1] = { text = name, unknown = v.unknown } end
    end
    if #tags == 0 then return "publishing an image (" .. how .. ")" end
    return first_published(tags, "an image", how)
  end
  if group == "buildx" and verb == "imagetools" then
    local iops, iopts = scan(rest_args, set("-t", "--tag", "-f", "--file", "--annotation", "--builder",
      "--progress", "--prefer-index"))
    if not iops[1] or iops[1].text ~= "create" then return nil end
    local tags = values(iopts, "-t", "--tag")
    if #tags == 0 then return "publishing an image (" .. how .. " create)" end
    return first_published(tags, "an image", how .. " create")
  end
  return nil
end

-- compose_v1 judges docker-compose and podman-compose push (and build --push).
local function compose_v1(c)
  local ops, opts = scan(c.args, COMPOSE_ARG)
  local verb = ops[1] and ops[1].text
  if dry_run(c.args) then return nil end
  if verb == "push" or (verb == "build" and on(opts, "--push")) then
    return "publishing the compose file's images (" .. c.name .. " " .. verb .. (verb == "build" and " --push" or "") ..
      ")"
  end
  return nil
end

local SKOPEO_ARG = set("--command-timeout", "--override-arch", "--override-os", "--override-variant", "--policy",
  "--registries.d", "--tmpdir", "--registries-conf", "--src", "-s", "--dest", "-d", "--scoped", "--authfile",
  "--src-authfile", "--dest-authfile", "--src-creds", "--dest-creds", "-f", "--format", "--src-cert-dir",
  "--dest-cert-dir", "--sign-by", "--additional-tag", "--encryption-key", "--decryption-key",
  "--dest-compress-format", "--dest-compress-level", "--multi-arch", "--digestfile", "--retry-times",
  "--src-registry-token", "--dest-registry-token", "--dest-shared-blob-dir", "--src-shared-blob-dir",
  "--dest-daemon-host", "--src-daemon-host", "--image-parallel-copies", "--sign-passphrase-file",
  "--sign-by-sigstore", "--sign-by-sigstore-private-key", "--sign-identity", "--src-username", "--src-password",
  "--dest-username", "--dest-password", "--retry-delay")

local function skopeo(c)
  local ops, opts = scan(c.args, SKOPEO_ARG)
  local verb = ops[1] and ops[1].text
  if dry_run(c.args) then return nil end
  if verb == "copy" then
    return published(ops[#ops], "an image", "skopeo copy")
  end
  if verb == "sync" then
    local dest = values(opts, "-d", "--dest")[1]
    if not dest then return nil end
    if dest.unknown then return "publishing images to a place only known when the command runs (skopeo sync)" end
    if dest.text ~= "docker" then return nil end
    return published(ops[#ops], "images", "skopeo sync", true)
  end
  return nil
end

local CRANE_ARG = set("--platform", "-t", "--tag", "--new_tag", "-o", "--output", "-b", "--base", "-f",
  "--new_layer", "--annotation", "-l", "--label", "--entrypoint", "--cmd", "-e", "--env", "--user",
  "--workdir", "--set-platform", "--append", "-j", "--jobs", "--image-refs", "--exposed-ports", "--old_base",
  "--new_base", "-m", "--manifest", "--repo", "--config")
local CRANE_MUTATE_ARG = { ["-a"] = true }
for k in pairs(CRANE_ARG) do CRANE_MUTATE_ARG[k] = true end
-- crane's verbs that write an image back to a registry: to their -t/--tag
-- (--new_tag), or to the image they read when none is given.
local CRANE_WRITES = set("mutate", "flatten", "rebase", "edit", "append", "index")

local function crane(c)
  local ops, opts = scan(c.args, CRANE_ARG)
  local verb = ops[1] and ops[1].text
  if not verb or dry_run(c.args) then return nil end
  -- mutate's -a is --annotation (copy's is --all-tags)
  if verb == "mutate" then ops, opts = scan(c.args, CRANE_MUTATE_ARG) end
  local how = "crane " .. verb
  if verb == "push" or verb == "copy" or verb == "cp" then
    return published(#ops >= 3 and ops[#ops] or nil, "an image", how)
  end
  if verb == "tag" then return published(ops[2], "an image", how) end
  if CRANE_WRITES[verb] then
    if verb == "index" and ops[2] then how = how .. " " .. ops[2].text end
    if verb == "index" and not (ops[2] and (ops[2].text == "append" or ops[2].text == "filter")) then return nil end
    if verb == "edit" and ops[2] and ops[2].text == "fs" then how = how .. " fs" end
    local tags = values(opts, "-t", "--tag", "--new_tag")
    if #tags > 0 then return first_published(tags, "an image", how) end
    if opts["-o"] or opts["--output"] then return nil end
    if verb == "append" then return nil end
    return published(ops[#ops] ~= ops[1] and ops[#ops] or nil, "an image", how)
  end
  return nil
end

local ORAS_BOOL = set("--oci-layout", "--from-oci-layout", "--to-oci-layout", "--insecure", "--plain-http",
  "--from-insecure", "--to-insecure", "--from-plain-http", "--to-plain-http", "-r", "--recursive",
  "--password-stdin", "--identity-token-stdin", "--disable-path-validation", "--no-tty", "-d", "--debug", "-v",
  "--verbose", "--allow-empty", "--skip-delete-referrers", "--force", "--pretty", "--exclude-digest-tags",
  "--descriptor")

local function oras(c)
  local ops, opts = scan(c.args, {}, ORAS_BOOL)
  local verb = ops[1] and ops[1].text
  if not verb or dry_run(c.args) then return nil end
  local how = "oras " .. verb
  if verb == "push" or verb == "attach" or verb == "tag" then
    if opts["--oci-layout"] then return nil end
    return published(ops[2], "an artifact", how)
  end
  if verb == "cp" or verb == "copy" then
    if opts["--to-oci-layout"] then return nil end
    return published(ops[3], "an artifact", how)
  end
  if (verb == "manifest" or verb == "blob") and ops[2] and ops[2].text == "push" then
    if opts["--oci-layout"] then return nil end
    return published(ops[3], "an artifact", how .. " push")
  end
  return nil
end

local HELM_ARG = set("--kube-context", "-n", "--namespace", "--kubeconfig", "--registry-config",
  "--repository-config", "--repository-cache", "--kube-apiserver", "--kube-as-user", "--kube-as-group",
  "--kube-ca-file", "--kube-token", "--burst-limit", "--qps", "--kube-tls-server-name", "--ca-file", "--cert-file",
  "--key-file", "--username", "-u", "--password", "-p", "--version", "-v", "--app-version", "-a",
  "--context-path", "--access-token", "-t", "--timeout", "--keyring")

local function helm(c)
  local ops = scan(c.args, HELM_ARG)
  local verb = ops[1] and ops[1].text
  if dry_run(c.args) then return nil end
  if verb == "push" or verb == "cm-push" then
    local dest = #ops >= 3 and ops[#ops] or nil
    -- helm cm-push CHART REPO: a repository's name (helm repo add) is a
    -- server elsewhere unless its URL is written here
    if verb == "cm-push" and dest and not dest.unknown and not dest.text:find("://") then
      return "publishing the chart " .. shell.printable(ops[2].text, 80) .. " to the chart repository " ..
        shell.printable(dest.text) .. " (helm cm-push)"
    end
    return published(dest, "a chart", "helm " .. verb, false, ops[2])
  end
  return nil
end

-- ko's build verbs push unless --push=false, -L/--local or a
-- KO_DOCKER_REPO on this machine (ko.local, kind.local, localhost:5000).
local KO_BUILDS = set("build", "publish", "resolve", "apply", "create", "run")

-- ko reads ko's command c of the command line line, whose KO_DOCKER_REPO
-- (set on the line) names the registry.
local function ko(c, line)
  local ko_repo = line and line:match("KO_DOCKER_REPO=[\"']?([^%s\"';&|]*)")
  local ops, opts = scan(c.args, set("-f", "--filename", "--platform", "--tags", "-t", "--image-label",
    "--image-refs", "--tarball", "--oci-layout-path", "--sbom", "--sbom-dir", "--selector", "-l", "--jobs", "-j",
    "--image-annotation", "--image-user"))
  local verb = ops[1] and ops[1].text
  if not KO_BUILDS[verb] or dry_run(c.args) then return nil end
  if opts["-L"] or opts["--local"] then return nil end
  for _, v in ipairs(values(opts, "--push")) do
    if v.text == "false" then return nil end
  end
  if ko_repo then
    local r = ko_repo:lower()
    if r == "" then return "publishing an image to the registry KO_DOCKER_REPO names (ko " .. verb .. ")" end
    if r == "ko.local" or r:find("^ko%.local/") or r == "kind.local" or r:find("^kind%.local/") then return nil end
    return published({ text = r, unknown = r:find("%$") ~= nil }, "an image", "ko " .. verb)
  end
  return "publishing an image to the registry KO_DOCKER_REPO names (ko " .. verb .. ")"
end

-- jib pushes with mvn jib:build, gradle jib and the jib CLI's build
-- (jib:dockerBuild, jibDockerBuild, jib:buildTar stay here).
local function jib_image(c, names)
  for _, a in ipairs(c.args) do
    for _, name in ipairs(names) do
      local v = a.text:match("^" .. name .. "=(.*)$")
      if v then return { text = v, unknown = a.unknown } end
    end
  end
  return nil
end

local function jib(c)
  local n = c.name
  if dry_run(c.args) then return nil end
  if n == "mvn" or n == "mvnw" then
    for _, w in ipairs(words(c.args, MVN_ARG)) do
      local t = w.text
      if t == "jib:build" or t:find("jib%-maven%-plugin:.*build$") then
        return published(jib_image(c, { "%-Dimage", "%-Djib%.to%.image" }), "an image", n .. " " .. t)
      end
    end
    return nil
  end
  if n == "gradle" or n == "gradlew" then
    if has_flag(c.args, "-m", "--dry-run") then return nil end
    for _, w in ipairs(words(c.args, GRADLE_ARG)) do
      if w.text:match("[^:]*$"):lower() == "jib" then
        return published(jib_image(c, { "%-%-image", "%-Djib%.to%.image" }), "an image", n .. " " .. w.text)
      end
    end
    return nil
  end
  if n == "jib" then
    local ops, opts = scan(c.args, set("-t", "--target", "-b", "--build-file", "-c", "--context", "--from",
      "-p", "--parameter", "--image-format", "--name"))
    local verb = ops[1] and ops[1].text
    if verb ~= "build" and verb ~= "jar" and verb ~= "war" then return nil end
    local target = values(opts, "-t", "--target")[1]
    if target and not target.unknown and (target.text:find("^docker://") or target.text:find("^tar://")) then
      return nil
    end
    return published(target, "an image", "jib " .. verb)
  end
  return nil
end

local IMAGE_TOOLS = { docker = engine, podman = engine, nerdctl = engine, buildah = engine,
  ["docker-compose"] = compose_v1, ["podman-compose"] = compose_v1, skopeo = skopeo, crane = crane, oras = oras,
  helm = helm, ko = ko, mvn = jib, mvnw = jib, gradle = jib, gradlew = jib, jib = jib }

-- pushes returns why c publishes an image, a chart or an artifact to a
-- registry others pull from, or nil.
local function pushes(c, line)
  local fn = IMAGE_TOOLS[c.name]
  return fn and fn(c, line)
end

-- RUNNER_BINS names the program a package runner starts for a package
-- whose name is not its program's.
local RUNNER_BINS = { ["@changesets/cli"] = "changeset", ["@vscode/vsce"] = "vsce" }

-- runner_publishes returns the publishing command a package runner (npx,
-- bunx, pnpm dlx) starts with args, or nil: npx lerna@8.0.0 publish is
-- lerna publish.
local function runner_publishes(args)
  local k = 1
  while args[k] do
    local t = args[k].text
    if t:sub(1, 1) ~= "-" or args[k].unknown then break end
    if NODE_RUNNER_VALUED[t] and args[k + 1] then k = k + 1 end
    k = k + 1
  end
  local w = args[k]
  if not w or w.unknown then return nil end
  local pkg = w.text:gsub("(.)@[^/@]*$", "%1")
  local bin = RUNNER_BINS[pkg] or pkg:match("[^/]*$")
  return publishes({ name = bin, args = rest(k + 1, args) })
end

local function check(c, line)
  local n = c.name
  if not n then return nil end
  local esc = escape(c)
  if esc then
    return "deny", esc, "Run the command itself, where the guards read it, not through the package manager"
  end
  if SETTINGS.publish ~= "allow" then
    local what = publishes(c)
    if what and not dry_run(c.args) then
      return SETTINGS.publish, "publishing a package (" .. what .. ") [rule publish]", PUBLISH_INSTEAD
    end
    local image = pushes(c, line)
    if image then return SETTINGS.publish, image .. " [rule publish]", IMAGE_INSTEAD end
  end
  if SETTINGS.system_removals ~= "allow" then
    local what = removes(c)
    if what then
      return SETTINGS.system_removals, "a system-wide uninstall (" .. what .. ")", REMOVE_INSTEAD
    end
  end
  local pin = "pin an exact version, e.g. name@1.2.3 or name==1.2.3"
  local function runner(args)
    local what = SETTINGS.publish ~= "allow" and runner_publishes(args)
    if what and not dry_run(args) then
      return SETTINGS.publish, "publishing a package (" .. what .. ") [rule publish]", PUBLISH_INSTEAD
    end
    return node_runner(args, pin)
  end
  if n == "npx" or n == "bunx" then return runner(c.args) end
  if NODE[n] then
    local k = first_op(c.args)
    local sub = k and c.args[k].text
    if (n == "npm" and sub == "exec") or ((n == "pnpm" or n == "yarn") and sub == "dlx") or (n == "bun" and sub == "x") then
      return runner(rest(k + 1, c.args))
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
  if CONDA[n] then return conda(c) end
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

-- A plain line (shell.quick) whose program check does not judge, and that
-- sets none of ENV_KEYS, is allowed without parsing it: the programs are
-- the keys of the tables check reads, and the ones it names.
local QUICK_PROGRAMS = { "npx", "bunx", "pipx", "uvx", "uv", "pip[0-9.]*", "poetry", "mvn", "mvnw", "gradle",
  "gradlew", "conda", "mamba", "micromamba", "goreleaser", "semantic-release" }
for _, set in ipairs({ NODE, SYSTEM, PUBLISH, SYS_REMOVE, SYS_REMOVE_FLAG, IMAGE_TOOLS }) do
  for name in pairs(set) do QUICK_PROGRAMS[#QUICK_PROGRAMS + 1] = re.quote(name) end
end
table.sort(QUICK_PROGRAMS)
local QUICK_WORDS = {}
for k, key in ipairs(ENV_KEYS) do QUICK_WORDS[k] = (key:gsub("@.*$", "")) end
local quick = shell.quick({ programs = { QUICK_PROGRAMS }, words = "(?i:" .. table.concat(QUICK_WORDS, "|") .. ")" })

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" or quick(cmd) then return nil end
  local cmds, err = shell.parse(cmd)
  local ask
  for _, c in ipairs(cmds) do
    local verdict, why, instead = check(c, cmd)
    if verdict == "deny" then
      return hook.deny("package guard: " .. why .. ". " .. (instead or "Use the project's registry and " ..
        "pinned versions (name@1.2.3), install into the project (no -g, a virtualenv), or ask the user to do it") ..
        ".")
    end
    if verdict == "ask" and not ask then
      ask = why .. (instead and " reaches outside the project" or " changes the machine outside the project")
    end
  end
  local verdict, why = env_registry(cmd)
  if verdict then
    return hook.deny("package guard: " .. why .. ". Use the project's registry or ask the user to add this one.")
  end
  if err then return hook.deny("package guard: the command could not be checked: " .. err .. ". Split it.") end
  if ask then return hook.ask("package guard: " .. ask .. ".") end
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
    -- a line that names neither the manager nor npx is left at once
    if type(cmd) ~= "string" or not (cmd:find(RW.from, 1, true) or cmd:find("npx", 1, true)) then return nil end
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
