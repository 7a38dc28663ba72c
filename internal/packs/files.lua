-- files: keeps writes inside the project and away from .git/, CI config and lockfiles; stops reads of key material
--
-- What it stops:
--   - a file tool (@fs.write: Write, Edit, apply_patch, write_file, …)
--     writing, editing or deleting a file outside the project (the
--     payload's cwd) or SETTINGS.writable;
--   - writes into .git/ (hooks, config, refs: git's own commands change
--     those), to CI configuration (.github/workflows/, .gitlab-ci.yml, …),
--     and to lockfiles, which the package manager writes (the reason
--     names its command: npm install, cargo update, go mod tidy, …);
--   - the same writes by a shell command (@shell): > and >> redirections,
--     tee, cp/mv/install/ln destinations, sed -i, dd of=;
--   - reads of key material by a file tool (@fs.read) or a shell command:
--     ~/.ssh/, cloud credentials (~/.aws/credentials, ~/.config/gcloud/,
--     ~/.azure/, ~/.kube/config), .env files, *.pem, *.key, … (the list
--     of lib/secrets.lua; .env.example passes).
-- Why: a write outside the project, into .git/ or to CI runs code later
-- with the user's rights or the repository's secrets; a hand-edited
-- lockfile pins what no one resolved; key material must not reach a
-- model. Each reason says what to do instead.
--
-- Settings (SETTINGS below):
--   writable    folders and files outside the project that may be written
--               ({ "/tmp", "/var/tmp", "/dev/null", … })
--   allow_ci    true lets the agent edit CI configuration (false)
--   ci          CI configuration, as shell.glob.rules ("name", "dir/")
--   lockfiles   lockfile name -> the command that writes it
--
-- What it cannot know: the project is the payload's cwd (a session
-- started in a subfolder treats the rest of the repository as outside);
-- paths are judged as written, so a symbolic link inside the project
-- that leads out of it is followed by the tool but not by this policy;
-- "~" is the home folder guessed from cwd. Files written by a program the
-- command runs (a script, make) are not seen.

local shell = require("shell")
local paths = require("paths")
local secrets = require("secrets")

local SETTINGS = {
  writable = { "/tmp", "/var/tmp", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd" },
  allow_ci = false,
  ci = { ".github/workflows/", ".github/actions/", ".gitlab-ci.yml", ".gitlab-ci/", ".circleci/", "Jenkinsfile",
    "azure-pipelines.yml", ".travis.yml", "bitbucket-pipelines.yml", ".buildkite/", ".drone.yml", ".woodpecker/",
    ".woodpecker.yml" },
  lockfiles = {
    ["package-lock.json"] = "npm install", ["npm-shrinkwrap.json"] = "npm install",
    ["yarn.lock"] = "yarn install", ["pnpm-lock.yaml"] = "pnpm install", ["bun.lockb"] = "bun install",
    ["bun.lock"] = "bun install", ["Cargo.lock"] = "cargo update -p <crate>", ["go.sum"] = "go mod tidy",
    ["poetry.lock"] = "poetry lock", ["Pipfile.lock"] = "pipenv lock", ["uv.lock"] = "uv lock",
    ["composer.lock"] = "composer update <package>", ["Gemfile.lock"] = "bundle install",
    ["flake.lock"] = "nix flake update", ["mix.lock"] = "mix deps.get", ["pubspec.lock"] = "dart pub get",
    ["Podfile.lock"] = "pod install", ["packages.lock.json"] = "dotnet restore",
  },
}

local CI = shell.glob.rules(SETTINGS.ci)
local GITDIR = shell.glob.rules({ ".git/" })

-- write_problem returns why writing path p (a string, or a shell word)
-- is refused and what to do instead, or nil.
local function write_problem(w, cwd)
  local base = w.text:match("[^/]*$")
  local cmd = SETTINGS.lockfiles[base]
  if cmd and not w.unknown then
    return "editing the lockfile " .. shell.printable(w.text), "run " .. cmd .. " and let it write the lockfile"
  end
  if shell.glob.could_touch(w.pat, GITDIR) and not w.whole then
    return "writing into .git/", "use git commands (git config, git commit, …) to change the repository"
  end
  if not SETTINGS.allow_ci and not w.whole and shell.glob.could_touch(w.pat, CI) then
    return "changing CI configuration (" .. shell.printable(w.text) .. ")",
      "describe the change to the user and let them make it"
  end
  if w.unknown then return nil end
  local abs = paths.resolve(w.text, cwd)
  if not abs then
    return "a write to " .. shell.printable(w.text) .. " whose folder is unknown (no cwd)",
      "use a path inside the project"
  end
  if abs:sub(1, 1) == "/" and paths.inside(abs, cwd) then return nil end
  for _, d in ipairs(SETTINGS.writable) do
    if paths.inside(abs, d) then return nil end
  end
  return "a write outside the project (" .. shell.printable(abs) .. ")",
    "write inside " .. shell.printable(cwd or "the project") .. ", or ask the user to change that file"
end

local function read_problem(w)
  local hit = secrets.file(w)
  if hit then
    return "reading " .. shell.printable(hit) .. ", which may hold keys or credentials",
      "ask the user for the value you need, or use a template such as .env.example"
  end
  return nil
end

local function deny(why, instead)
  return hook.deny("files pack: blocked " .. why .. "; " .. instead .. ".")
end

local function caps(input)
  local set = {}
  for _, c in ipairs(input.toolCapabilities or {}) do set[c] = true end
  return set
end

hook.register("PreToolUse", "@fs.write|@fs.read", function(input)
  local c = caps(input)
  local list, too_many = paths.of(input.toolInput)
  if too_many then return deny("a call naming more than " .. paths.MAX .. " files", "work on fewer files at once") end
  for _, p in ipairs(list) do
    local w = secrets.path_word(p)
    local why, instead = read_problem(w)
    if not why and c["fs.write"] then why, instead = write_problem(w, input.cwd) end
    if why then return deny(why, instead) end
  end
end, { name = "pack-files-tools", stage = "validate", failure_policy = "closed", policy = true })

-- Programs whose words are text, or files they do not read (echo .env >>
-- .gitignore, chmod 600 ~/.ssh/id_rsa).
local TEXT_ONLY = { echo = true, printf = true, chmod = true, chown = true, chgrp = true, ls = true, stat = true,
  test = true, ["["] = true, mkdir = true }

hook.register("PreToolUse", "@shell", function(input)
  local line = shell.command(input.toolInput)
  if not line then return nil end
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    for _, w in ipairs(paths.writes(c)) do
      local why, instead = write_problem(w, input.cwd)
      if why then return deny(why, instead) end
    end
    if not TEXT_ONLY[c.name or ""] then
      for _, w in ipairs(c.args) do
        -- a wholly unknown word ($VAR, $(…)) may be a key file only for a
        -- program that reads the files it is given
        if not w.whole or secrets.readers[c.name or ""] then
          local why, instead = read_problem(w)
          if why then return deny(why, instead) end
        end
      end
    end
    for _, r in ipairs(c.redirs) do
      if r.op == "<" then
        local why, instead = read_problem(r.target)
        if why then return deny(why, instead) end
      end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
end, { name = "pack-files-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
