-- files: keeps writes inside the project and away from .git/, CI config and lockfiles; stops reads of key material
--
-- What it stops:
--   - a file tool (@fs.write: Write, Edit, apply_patch, write_file, …)
--     writing, editing or deleting a file outside the project (the
--     payload's cwd) or SETTINGS.writable [rule outside];
--   - writes into .git/ (hooks, config, refs: git's own commands change
--     those) [rule git-internals], to CI configuration
--     (.github/workflows/, .gitlab-ci.yml, …) [rule ci], and to
--     lockfiles, which the package manager writes (the reason names its
--     command: npm install, cargo update, go mod tidy, …) [rule lockfile],
--     spelled as they are or as they fold (.github//workflows/ci.yml,
--     web/./go.sum);
--   - deletes of .git/ and CI configuration, as their writes: rm,
--     unlink, a folder holding them deleted whole (rm -rf .git), mv's
--     source, find -delete's starting points and -path tests, git rm
--     (not --cached); a stale lock (.git/index.lock) and a lockfile to be
--     written again (rm package-lock.json) may go;
--   - a write, a delete or a mode change of a coding agent's own hooks
--     and permission settings in the project (SETTINGS.agent_config:
--     .claude/settings.json, .claude/hooks/, .cursor/hooks.json,
--     .gemini/settings.json, .codex/config.toml, .github/hooks/, …), by
--     any tool: it turns a defense off or grants permissions; asked
--     about by default (SETTINGS.agent_config_action) [rule
--     agent-config]; reading them passes;
--   - a change of a file's mode, owner, access list, flags or extended
--     attributes (chmod, chown, chgrp, chattr, setfacl, chflags, xattr
--     -w/-d/-c) outside the project, as a write there [rule outside], but
--     for a folder a mkdir on the same line makes (sudo mkdir -p /opt/x
--     && sudo chown dev /opt/x); in .git/ as a write there; chmod +x
--     inside the project passes;
--   - a write or a mode change in the home folder's folders of keys and
--     credentials (SETTINGS.guarded: ~/.ssh, ~/.aws, ~/.gnupg, …): chmod
--     600 ~/.ssh/x, touch, ln -sf, and what ssh-keygen rewrites
--     (-R and -H: ~/.ssh/known_hosts or -f's file; -p, -c, -t: -f's
--     key) [rule guarded];
--   - hand edits of what a build or a package manager writes inside the
--     project (SETTINGS.generated: node_modules/, .venv/, __pycache__/,
--     dist/, target/, .next/ at the top, *.min.js,
--     bundles and chunks, *.lock) [rule generated]: a file tool's write,
--     sed -i, echo/printf or a here-document; a program's output
--     redirected there is a build step (sha256sum x > build/sums) and
--     passes but inside node_modules/, .venv/ and the like;
--   - deleting a file outside the project and SETTINGS.writable by a
--     shell command: rm, unlink, rmdir, shred, srm operands, after a cd
--     on the line as well (rm ~/notes.txt), and moving one out of its
--     place into a scratch folder (mv ~/Documents/a.docx /tmp/; moved
--     into the project it is kept) [rule remove] — a delete is a write
--     that cannot be undone; recursive deletes outside the project and
--     other deletes inside it are left to the shell and git packs;
--   - the same writes by a shell command (@shell): > and >> redirections,
--     tee, cp/mv/install/ln/rsync destinations (an rsync -n, --dry-run,
--     -avn or --list-only writes nothing), sed -i, dd of=, the files curl
--     -o and wget -O/-o write, socat's open:/create: addresses;
--   - reads of key material by a file tool (@fs.read: Read, and Grep and
--     Glob through their path, their glob and a Glob's pattern) or a
--     shell command (any program given one, < redirections, and the code
--     of python -c, node -e, perl -e, … one-liners, of interpreters fed
--     a here-document, and of a file the line writes out by hand and then
--     runs: echo '…' > /tmp/x.go; go run /tmp/x.go): ~/.ssh/, private keys (id_rsa, *.pem, *.key, …),
--     .env files, cloud and tool credentials (~/.aws/credentials,
--     ~/.config/gcloud/, ~/.azure/, ~/.kube/config, ~/.docker/config.json,
--     credentials.json, ~/.npmrc, ~/.pypirc, ~/.config/gh/hosts.yml,
--     ~/.vault-token, .netrc, .pgpass, .git-credentials), /etc/shadow,
--     browser profiles (Login Data, Cookies) and keychains, a process's
--     environment (/proc/*/environ), a pod's service account token,
--     Terraform state (*.tfstate) and variables (*.tfvars), shell
--     histories, service account keys (*service-account*.json,
--     firebase-adminsdk*.json), a Secret's manifest (*-secret.yaml,
--     secrets.yml), a dotenv file named for its stage (prod.env), .envrc,
--     kubeconfig, the whole of ~/.aws/ and ~/.kube/, other CLIs' token
--     files (~/.config/hub, ~/.config/doctl/, ~/.oci/, ~/.boto,
--     ~/.terraformrc, ~/.m2/settings.xml, ~/.gradle/gradle.properties),
--     .htpasswd (the list of lib/secrets.lua, and SETTINGS.secret_files)
--     [rule secret-read], named as an operand or as the file xargs reads
--     its items from (xargs -a ~/.netrc, --arg-file=FILE); such a file
--     deleted (rm .env, shred -u key.pem) reads nothing but loses what no
--     commit keeps [rule secret-delete];
--     a glob whose wildcard parts are all stars but for an extension
--     (*.json, **/*.yaml, GRANT … ON *.*) names a secret only when any
--     file it matches would be one (*.pem, ~/.ssh/*); a path is folded first
--     (/etc//shadow, /etc/./shadow, /etc/x/../shadow are /etc/shadow), a
--     glob of everything in a folder (~/.aws/**) reads the folder, and a
--     find that runs a command (-exec cat {} +) reads what its name tests
--     select (-name '.env*'). A template (.env.example, .env.sample, …)
--     passes, and so do public keys (*.pub) and ssh's configuration
--     (~/.ssh/config, known_hosts), a value only known when the command
--     runs in a header or a name ("Authorization: Bearer $TOKEN", find's
--     {}, <(…), a list's lines fed to curl), and a command that only
--     writes such a file (cp .env.example .env, echo X=1 >> .env) or
--     names it to git without showing it (git rm --cached .env); du,
--     file and realpath read no contents, a credential option of a
--     cluster or cloud tool (kubectl --kubeconfig, terraform -var-file,
--     gcloud --key-file) is used, not shown, and names xargs hands to mv
--     or ln, or to any reader from git ls-files or git diff --name-only
--     (the tracked files), are no secret read;
--   - deleting a file that defines the project, at its top
--     (SETTINGS.project_files: LICENSE*, COPYING*, NOTICE, README*,
--     CHANGELOG*, CONTRIBUTING*, SECURITY*, Dockerfile*, compose files,
--     .gitignore, .gitattributes, .gitmodules, .dockerignore, CLAUDE.md,
--     AGENTS.md, GEMINI.md, .cursorrules, .cursor/rules/,
--     .claude/commands/, .claude/agents/, .github/), by the delete reader
--     of the ci rule (rm, unlink, shred, git rm, a folder deleted whole,
--     mv out of the project, Remove-Item, apply_patch's Delete File) and
--     find . -name X -delete; asked about by default
--     (SETTINGS.project_files_action) [rule project-files]. Editing,
--     reading, moving one within the project, git rm --cached, a copy kept
--     aside (README.md.bak) and docs/README.md pass;
--   - reading, writing by hand or deleting a database dump or backup
--     (SETTINGS.data_dumps: dump.sql, *backup*.sql, *.dump, *.sql.gz,
--     dump.rdb, …): it holds the data itself; asked about by default
--     (SETTINGS.data_dump_action) [rule data-dump]. A program's output
--     redirected there (pg_dump app > dump.sql), a loader, packer or
--     checksum given one (psql < dump.sql, zcat x.sql.gz | psql, gzip
--     backup.sql) and schemas, migrations and seeds pass;
--   - reading a file in a deploy tool's state folder in the project
--     (SETTINGS.deploy_state: .terraform/, .vercel/, .netlify/,
--     .supabase/, supabase/.temp/, .pulumi/, .serverless/: backend
--     configuration, state, linked projects' tokens, the environment
--     vercel pull writes) [rule deploy-state], by a file tool or a program
--     that shows or copies what it reads (cat, grep, tar, cp, …), but for
--     their build output and downloaded code (SETTINGS.deploy_output:
--     .vercel/output/, .netlify/functions*/, .terraform/providers/,
--     .terraform/modules/, …); a hand edit there is generated output whose
--     reason names the command that writes the folder (terraform init,
--     vercel pull, …) [rule generated]; the whole of the home folder's
--     ~/.docker/ (contexts' and machines' TLS keys) is a secret read, a
--     project's own .docker/ not;
--   - a search of the home folder or the machine for private keys (Grep
--     or grep -r "PRIVATE KEY" outside the project) [rule key-hunt], or
--     of /, ~, /etc,
--     /home, /var, … for passwords, tokens or credentials (grep -ri
--     password /) [rule credential-hunt].
-- Why: a write outside the project, into .git/ or to CI runs code later
-- with the user's rights or the repository's secrets; a hand-edited
-- lockfile pins what no one resolved; key material must not reach a
-- model. Each reason says what to do instead.
--
-- Set them in the config's [packs.files] table, over the defaults below.
-- Settings (SETTINGS below):
--   writable    folders and files outside the project that may be written
--               ({ "/tmp", "/var/tmp", "/dev/null", … })
--   removable   caches in the home folder a shell command may delete
--               from (~/.cache/*, ~/.npm/_cacache, …; as the shell
--               pack's home_scratch)
--   allow_ci    true lets the agent edit CI configuration (false)
--   ci          CI configuration, as shell.glob.rules ("name", "dir/")
--   lockfiles   lockfile name -> the command that writes it
--   secret_files  files that hold secrets besides lib/secrets.lua's list
--               ({}), as shell.glob.rules ("name", "dir/name", "dir/")
--   generated   what builds and package managers write inside the
--               project ("dir/" anywhere, "/dir/" at its top, "*.min.js"):
--               node_modules/, .venv/, dist/, target/, .terraform/,
--               bundles, *.lock; {} lets the agent edit them
--   agent_config  the coding agents' hooks and permission settings, as
--               shell.glob.rules (.claude/settings.json, .claude/hooks/,
--               .cursor/hooks.json, .gemini/settings.json,
--               .codex/config.toml, .github/hooks/, …)
--   agent_config_action  "ask" (default), "deny" or "allow": the verdict
--               on a write, delete or mode change of one of them
--   guarded     the home folder's folders of keys and credentials
--               ({ "~/.ssh", "~/.aws", "~/.gnupg", "~/.azure",
--               "~/.config/gcloud", "~/.kube", "~/.docker" })
--   project_files  the files that define the project, at its top, as
--               shell.glob.rules ("LICENSE*", "README.*", ".github/", …)
--   project_files_action  "ask" (default), "deny" or "allow": the verdict
--               on deleting one
--   data_dumps  database dumps and backups, as shell.glob.rules
--               ("dump.sql", "*backup*.sql", "*.dump", "*.sql.gz", …)
--   data_dump_action  "ask" (default), "deny" or "allow": the verdict on
--               reading, writing by hand or deleting one
--   deploy_state  a deploy tool's state folder in the project -> the
--               command that writes it ({ [".vercel/"] = "vercel link or
--               vercel pull", … }); a folder set to "" is read as any
--   deploy_output  what in them is build output, read as any file
--
-- A PowerShell tool's line (and the code of pwsh -c / -EncodedCommand in
-- a shell line) is read as PowerShell (lib/pwsh.lua), by the same rules:
-- "\" separates folders, so Get-Content $HOME\.aws\credentials, type
-- C:\Users\dev\.ssh\id_rsa (the home folder of the user whose folder
-- the cwd is in), gc \\?\C:\…, FileSystem::C:\…, Select-String -Path,
-- Copy-Item's source, [IO.File]::ReadAllText('…') and cmd /c type read as
-- cat does; Set-Content, Add-Content, Out-File, New-Item, > and
-- [IO.File]::Write* write; Remove-Item and [IO.File]::Delete delete;
-- C:x is x in the working folder. Test-Path, Get-ChildItem, Get-Item,
-- Resolve-Path, Write-Output and the like read nothing. Windows' own
-- stores (Microsoft\Credentials, Protect and Vault, the SAM, SYSTEM and
-- SECURITY hives, NTDS.dit, unattend files, the browsers' Local State,
-- ConsoleHost_history.txt) are in lib/secrets.lua's list. A reason shows
-- the word as it was written. Another shell tool's line in a Windows
-- folder is PowerShell's too (Cursor's Shell), but Claude Code's Bash
-- tool's: it runs Git Bash there, a POSIX line read as elsewhere, whose
-- /c/Users/dev/x and C:/Users/dev/x are C:\Users\dev\x, ~ the Windows
-- home folder and /tmp Git Bash's scratch folder.
--
-- A command line that cannot be read is refused [rule parse]; a call
-- naming more than paths.MAX files too [rule too-many].
--
-- What it cannot know: the project is the payload's cwd (a session
-- started in a subfolder treats the rest of the repository as outside);
-- paths are judged as written, so a symbolic link inside the project
-- that leads out of it is followed by the tool but not by this policy;
-- "~" is the home folder guessed from cwd. A path computed when the
-- command runs ($X/…, "$(…)"/x, xargs' {}) is judged by what is known of
-- it: its literal tail names the project's own files ($X/.git/config), a
-- known head outside the project is outside it (rm /{}, echo x >
-- /etc/$X: "a path computed when the command runs"), and $X/* names
-- nothing (a recursive delete of it is the shell pack's to judge). Files
-- written by a program the command runs (a script, make) are not seen, nor
-- files a script reads
-- (python x.py, unless the line wrote it out), nor a name an interpreter one-liner builds at run time
-- ("/etc/" + "shadow"). A search tool's pattern is told from a file glob
-- by the tool's name: a name holding "grep" or "search" searches text.

local shell = require("shell")
local paths = require("paths")
local secrets = require("secrets")
local git = require("git")
local pwsh = require("pwsh")

local SETTINGS = hook.settings("files", {
  writable = { "/tmp", "/var/tmp", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd" },
  -- caches in the home folder a shell command may delete from [rule
  -- remove]: a folder and what is in it, or with a trailing /* only what
  -- is in it (as the shell pack's home_scratch)
  removable = { "~/.cache/*", "~/Library/Caches/*", "~/.npm/_cacache", "~/.npm/_npx", "~/.cargo/registry/cache",
    "~/.cargo/git/checkouts", "~/go/pkg/mod/cache", "~/.gradle/caches", "~/.m2/repository", "~/.yarn/cache",
    "~/.local/share/pnpm/store", "~/.pnpm-store", "~/.bun/install/cache", "~/.nuget/packages", "~/.pub-cache",
    "~/.node-gyp", "~/.ccache", "~/.ivy2/cache" },
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
  -- files that hold secrets besides lib/secrets.lua's list (its files and
  -- machine_files: .env, keys, ~/.aws/credentials, /etc/shadow, browser
  -- profiles, …), as shell.glob.rules: "name", "dir/name", "dir/"
  secret_files = {},
  -- what a build or a package manager writes, inside the project: "dir/"
  -- anywhere, "/dir/" at the project's top only, "*.ext" a file name
  generated = { "node_modules/", ".venv/", "venv/", "__pycache__/", "*.min.js", "*.min.css", "*.bundle.js",
    "*.chunk.js", "*.lock", "*.lockb", "/dist/", "/target/", "/.next/", "/.nuxt/", "/.output/",
    "/.svelte-kit/", ".terraform/" },
  -- the coding agents' own hooks and permission settings in the project
  -- [rule agent-config], as shell.glob.rules
  agent_config = { ".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/", ".cursor/hooks.json",
    ".cursor/hooks/", ".gemini/settings.json", ".codex/config.toml", ".codex/hooks.json", ".github/hooks/",
    ".github/copilot/settings.json", ".github/copilot/settings.local.json", ".agents/hooks.json",
    ".windsurf/hooks.json" },
  -- the verdict on a write, delete or mode change of one: "ask", "deny" or "allow"
  agent_config_action = "ask",
  -- folders of keys and credentials outside the project whose files'
  -- contents, modes and owners the agent does not change [rule guarded]
  guarded = { "~/.ssh", "~/.aws", "~/.gnupg", "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker" },
  -- the files that define the project, at its top ("name", "dir/" for a
  -- folder and what is in it), whose delete is asked about [rule
  -- project-files]: its licence, docs, build and agent instructions
  project_files = { "LICENSE", "LICENSE.*", "LICENCE", "LICENCE.*", "LICENSE-*", "COPYING", "COPYING.*", "NOTICE",
    "NOTICE.*", "PATENTS", "AUTHORS", "AUTHORS.*", "README", "README.*", "CONTRIBUTING", "CONTRIBUTING.*",
    "CHANGELOG", "CHANGELOG.*", "CODE_OF_CONDUCT", "CODE_OF_CONDUCT.*", "SECURITY", "SECURITY.*", ".gitignore",
    ".gitattributes", ".gitmodules", ".editorconfig", "Dockerfile", "Dockerfile.*", "*.dockerfile", ".dockerignore",
    "docker-compose.yml", "docker-compose.yaml", "docker-compose.*.yml", "docker-compose.*.yaml", "compose.yml",
    "compose.yaml", "compose.*.yml", "compose.*.yaml", "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md",
    ".cursorrules", ".windsurfrules", ".clinerules", ".cursor/rules/", ".claude/commands/", ".claude/agents/",
    ".claude/skills/", ".github/" },
  -- the verdict on deleting one: "ask", "deny" or "allow"
  project_files_action = "ask",
  -- database dumps and backups, as shell.glob.rules: reading one (it holds
  -- the data itself), writing one by hand or deleting one is asked about
  -- [rule data-dump]; a program's output redirected there makes one
  data_dumps = { "dump.sql", "backup.sql", "*dump*.sql", "*backup*.sql", "*.dump", "*.sql.gz", "*.sql.bz2",
    "*.sql.xz", "*.sql.zst", "*.sql.zip", "dump.rdb", "*.dump.gz" },
  -- the verdict on such a read, hand write or delete: "ask", "deny" or "allow"
  data_dump_action = "ask",
  -- deploy tools' state folders in the project -> the command that writes
  -- them: reading a file there is a secret read (backend configuration,
  -- state, linked projects' tokens and environment variables) [rule
  -- deploy-state], writing one by hand edits generated output [rule
  -- generated]
  deploy_state = { [".terraform/"] = "terraform init", [".vercel/"] = "vercel link or vercel pull",
    [".netlify/"] = "netlify link", [".supabase/"] = "supabase link", ["supabase/.temp/"] = "supabase link",
    [".pulumi/"] = "pulumi up", [".serverless/"] = "serverless package" },
  -- what in them is build output or downloaded code, read as any file
  deploy_output = { ".vercel/output/", ".netlify/functions*/", ".netlify/edge-functions*/", ".netlify/plugins/",
    ".terraform/providers/", ".terraform/modules/" },
})

for _, k in ipairs({ "agent_config_action", "project_files_action", "data_dump_action" }) do
  local v = SETTINGS[k]
  if v ~= "ask" and v ~= "deny" and v ~= "allow" then
    error("files pack: SETTINGS." .. k .. " is " .. tostring(v) .. "; it must be \"ask\", \"deny\" or \"allow\"", 0)
  end
end


local CI = shell.glob.rules(SETTINGS.ci)
local AGENT_CONFIG = shell.glob.rules(SETTINGS.agent_config)

-- PROJECT is SETTINGS.project_files compiled against a path relative to
-- the project's top led by TOP: "@project@/README.md" is the top's
-- README.md, "@project@/docs/README.md" no file of the list.
local TOP = "@project@/"
-- PROJECT_DIRS are its folders ("dir/"), in lower case without the "/".
local PROJECT, PROJECT_DIRS
do
  local list, dirs = {}, {}
  for _, f in ipairs(SETTINGS.project_files) do
    f = f:gsub("^/+", "")
    list[#list + 1] = TOP .. f
    if f:sub(-1) == "/" then dirs[f:sub(1, -2):lower()] = true end
  end
  PROJECT, PROJECT_DIRS = shell.glob.rules(list), dirs
end

-- DUMPS is SETTINGS.data_dumps compiled; STATE the folders of
-- SETTINGS.deploy_state, STATE_OUTPUT SETTINGS.deploy_output.
local DUMPS = shell.glob.rules(SETTINGS.data_dumps)
local STATE_DIRS = {}
-- (an entry set to "" in the config is no state folder: a map's entries
-- are merged, never removed)
for d, cmd in pairs(SETTINGS.deploy_state) do
  if cmd ~= "" then STATE_DIRS[#STATE_DIRS + 1] = d end
end
table.sort(STATE_DIRS) -- the same expressions at every load
local STATE, STATE_OUTPUT = shell.glob.rules(STATE_DIRS), shell.glob.rules(SETTINGS.deploy_output)

-- one_file returns the patterns of a word's pattern to match against a
-- list of names, folded ("a//b"): a generic glob (*.sql, *, **/*.md) as
-- one file it matches (x.sql: secrets.canary), so that rm *.log names no
-- README.log; another glob as its literal spelling and, second, its text
-- up to the first wildcard (backup*.sql, LICENSE*; not the URL
-- …/_search?q=*); a word with an unknown part by its literal tail
-- ($DIR/dump.sql; not "Bearer $T"); nil for a word all unknown.
local function one_file(w)
  if w.whole then return nil end
  local pat = secrets.fold(w.pat) or w.pat
  if w.unknown then
    pat = pat:match("%z/*([^%z]*)$")
    if not pat or pat == "" then return nil end
  end
  local c = secrets.canary(pat)
  if c then return c end
  if not w.glob then return pat end
  local lit = pat:gsub("\\?[*?%[]", function(m) return #m == 2 and m or "\\" .. m end)
  local head = pat:match("^([^*?%[\\]*)[*?%[]")
  if head == "" or (head and head:sub(-1) == "/") then head = nil end
  return lit, head
end

-- touches reports whether one of one_file's patterns for w could name a
-- path the compiled rules match (pre: a folder the path is read in).
local function touches(w, rules, pre)
  local a, b = one_file(w)
  if not a then return false end
  pre = pre or ""
  return shell.glob.could_touch(pre .. a, rules) or (b ~= nil and shell.glob.could_touch(pre .. b, rules))
end

-- dump_name returns the text of w when it could name a database dump or
-- backup (SETTINGS.data_dumps), else nil.
local function dump_name(w)
  if SETTINGS.data_dump_action == "allow" or #SETTINGS.data_dumps == 0 then return nil end
  if touches(w, DUMPS) then return w.text end
  return nil
end

-- DUMP_WORDS is how a reason says what is done to a dump.
local DUMP_WORDS = { read = "reading ", write = "writing by hand ", delete = "deleting " }

-- dump_problem returns why reading, writing by hand or deleting (how:
-- "read", "write", "delete") the file w names is asked about: a database
-- dump or backup holds the data itself (users, password hashes, tokens),
-- and one overwritten or deleted is a recovery point lost [rule
-- data-dump]; with what to do instead and the verdict, or nil.
local function dump_problem(w, how)
  local hit = dump_name(w)
  if not hit then return nil end
  local instead = how == "read" and "ask the user for the rows you need, or read the schema instead" or
    "ask the user, and keep the dump they made"
  return DUMP_WORDS[how] .. shell.printable(hit) .. ", a database dump or backup (the data itself: users, " ..
    "password hashes, tokens) [rule data-dump]", instead, SETTINGS.data_dump_action
end

-- DUMP_QUIET are the programs given a dump that load it into a database,
-- pack, copy, checksum or count it, showing none of it.
local DUMP_QUIET = {}
for n in ([[psql mysql mariadb pg_restore sqlite3 mongorestore redis-cli clickhouse-client cockroach gzip gunzip
  bzip2 bunzip2 xz unxz zstd unzstd lz4 zip unzip tar 7z cp mv ln install rsync scp touch wc sha256sum sha1sum
  sha512sum md5sum shasum b2sum cksum pg_dump pg_dumpall mysqldump mariadb-dump split aws gsutil gcloud az
  rclone restic borg age gpg openssl]]):gmatch("%S+") do
  DUMP_QUIET[n] = true
end

-- state_dir returns the folder of SETTINGS.deploy_state that w could name a
-- file in ("." its own words: .vercel/.env.production.local), or nil; its
-- build output (SETTINGS.deploy_output: .vercel/output/) is none.
local function state_dir(w)
  if #STATE_DIRS == 0 then return nil end
  if not touches(w, STATE) or (#SETTINGS.deploy_output > 0 and touches(w, STATE_OUTPUT)) then return nil end
  local low = (one_file(w)):lower()
  for _, d in ipairs(STATE_DIRS) do
    local dl = d:lower()
    if low:find("/" .. dl, 1, true) or low:sub(1, #dl) == dl or low:find("/" .. dl:sub(1, -2) .. "$") or
      low == dl:sub(1, -2) then
      return d
    end
  end
  return STATE_DIRS[1]
end

-- GENERATED (anywhere in the project) and GENERATED_TOP (the project's
-- top folders) are SETTINGS.generated compiled.
-- GENERATED_DIRS are its folders found anywhere (node_modules/, .venv/):
-- what the package managers install, which no build writes into.
local GENERATED, GENERATED_TOP, GENERATED_DIRS
do
  local any, top, dirs = {}, {}, {}
  for _, g in ipairs(SETTINGS.generated) do
    local t = g:match("^/([^/]+)/?$")
    if t then
      top[t:lower()] = true
    else
      any[#any + 1] = g
      if g:sub(-1) == "/" then dirs[#dirs + 1] = g end
    end
  end
  GENERATED, GENERATED_TOP, GENERATED_DIRS = shell.glob.rules(any), top, shell.glob.rules(dirs)
end

-- generated_problem returns why writing abs, a path inside the project
-- root, is refused: it is the output of a build or a package manager
-- (node_modules/x, dist/app.js, app.min.js), which the next build or
-- install overwrites [rule generated]; nil otherwise. A hand edit is a
-- file tool's write, an in-place edit or text the command line writes
-- out (echo x > dist/a.js); the output of any other program is a build
-- step of its own (sha256sum app > build/sums.txt, terser a.js >
-- app.min.js), refused only inside what package managers install
-- (output true).
local function generated_problem(abs, root, output)
  local rel = abs:sub(#root + 2)
  if rel == "" then return nil end
  local d = state_dir({ text = rel, pat = rel:gsub("[\\*?%[]", "\\%0") })
  if d then
    return "editing a deploy tool's state (" .. shell.printable(rel) .. ") [rule generated]",
      "run " .. SETTINGS.deploy_state[d] .. ", which writes " .. shell.printable(d) .. "; a hand edit breaks the link " ..
      "or the state"
  end
  if output then
    if not shell.glob.could_touch(rel, GENERATED_DIRS) then return nil end
    return "editing generated output (" .. shell.printable(rel) .. ") [rule generated]",
      "change its source and reinstall it with the package manager; a hand edit is lost at the next install"
  end
  local top = rel:match("^([^/]+)/.")
  if (top and GENERATED_TOP[top:lower()]) or shell.glob.could_touch(rel, GENERATED) then
    return "editing generated output (" .. shell.printable(rel) .. ") [rule generated]",
      "change its source and rebuild, or run the package manager; a hand edit is lost at the next build"
  end
  return nil
end
local GITDIR = shell.glob.rules({ ".git/" })

-- SECRETS is lib/secrets.lua's list of secrets files and
-- SETTINGS.secret_files, compiled when the pack loads. Its file returns
-- the part of a word (a shell word or { text, pat }) that could name a
-- file holding secrets: the word, or what follows an "=", ":" or "@" in it
-- (--env-file=.env, HEAD:.env, host:.ssh/x); nil if none. A glob that
-- could match such a file counts; a template does not, in a glob's
-- folders too (**/.env.example).
local SECRETS = secrets.matcher(SETTINGS.secret_files)
local secret_file = SECRETS.file

-- What a command does to the files it names, for owned_problem and
-- write_problem: WRITE writes their contents, ATTR changes their mode,
-- owner or attributes (chmod, chown, setfacl, …), DELETE removes them (rm,
-- mv's source, find -delete, git rm).
local WRITE, ATTR, DELETE = "write", "attr", "delete"

-- WORDING is how a reason names each kind of change.
local WORDING = { write = "writing", attr = "changing the mode or owner of", delete = "deleting" }

-- owned_problem returns why the word w names a file that a tool other
-- than the agent owns (a lockfile, .git/, CI configuration) and what to
-- do instead, or nil. kind is WRITE, ATTR or DELETE: a lockfile is
-- deleted to be written again (rm package-lock.json && npm install) and
-- its mode is no hand edit; a stale lock of git's (.git/index.lock) is
-- deleted as git's own message says.
local function owned_problem(w, kind)
  local base = w.text:match("[^/]*$")
  local cmd = SETTINGS.lockfiles[base]
  if cmd and not w.unknown and kind == WRITE then
    return "editing the lockfile " .. shell.printable(w.text) .. " [rule lockfile]",
      "run " .. cmd .. " and let it write the lockfile"
  end
  if shell.glob.could_touch(w.pat, GITDIR) and not w.whole and
    not (kind == DELETE and not w.unknown and base:find("%.lock$")) then
    if kind == WRITE then
      return "writing into .git/ [rule git-internals]",
        "use git commands (git config, git commit, …) to change the repository"
    end
    return WORDING[kind] .. " " .. shell.printable(w.text) .. ", inside .git/ [rule git-internals]",
      "use git commands (git config, git gc, git branch -d, …) to change the repository"
  end
  if not SETTINGS.allow_ci and not w.whole and shell.glob.could_touch(w.pat, CI) then
    return (kind == WRITE and "changing" or WORDING[kind]) .. " CI configuration (" .. shell.printable(w.text) ..
      ") [rule ci]", "describe the change to the user and let them make it"
  end
  return nil
end

-- agent_config_problem returns why changing the file w names (a word of a
-- path inside the project) turns an agent's defense off or grants it
-- permissions: one of SETTINGS.agent_config [rule agent-config]; with the
-- verdict ("ask" or "deny"), or nil.
local function agent_config_problem(w, kind)
  if SETTINGS.agent_config_action == "allow" or w.whole or not shell.glob.could_touch(w.pat, AGENT_CONFIG) then
    return nil
  end
  return WORDING[kind] .. " an agent's hooks or permission settings (" .. shell.printable(w.text) ..
    ") [rule agent-config]", "describe the change to the user and let them make it", SETTINGS.agent_config_action
end

-- project_problem returns why deleting the file w names, abs inside the
-- project root (both clean), is asked about: it is one of
-- SETTINGS.project_files at the project's top (its licence, README,
-- Dockerfile, .gitignore, the agents' instructions, .github/) [rule
-- project-files]; with what to do instead and the verdict, or nil. A
-- generic glob names one only when any file it matches would be one (rm
-- *.log names no README.log; rm LICENSE* names the licence).
local ASIDE = { ".bak", ".orig", ".old", ".rej", ".tmp", ".swp", "~" }
local function project_problem(w, abs, root)
  if SETTINGS.project_files_action == "allow" or #SETTINGS.project_files == 0 then return nil end
  local rel = abs:sub(#root + 2)
  if rel == "" or w.whole then return nil end
  -- a copy kept aside (README.md.bak, LICENSE~) defines nothing
  local low = rel:lower()
  for _, sfx in ipairs(ASIDE) do
    if low:sub(-#sfx) == sfx then return nil end
  end
  local pat = w.glob and rel or rel:gsub("[\\*?%[]", "\\%0")
  if not touches({ text = rel, pat = pat, glob = w.glob }, PROJECT, TOP) then return nil end
  local what = PROJECT_DIRS[low] and ", which holds files that define the project" or
    ", a file that defines the project"
  return "deleting " .. shell.printable(w.text) .. what .. " (its licence, docs, build or agent instructions) " ..
    "[rule project-files]", "ask the user to delete it; moving it within the project keeps it",
    SETTINGS.project_files_action
end

-- guarded returns whether abs (a clean absolute path) is in one of
-- SETTINGS.guarded, the home folder's folders of keys and credentials.
local function guarded(abs, cwd)
  return paths.in_caches(abs, SETTINGS.guarded, cwd)
end

-- resolve is paths.resolve, which reads a Git Bash line's drive paths
-- (/c/Users/x, C:/Users/x, "C:\Users\x") against a working folder in
-- lib/pwsh.lua's cwd form (/c:/users/dev/project), in lower case.
local resolve = paths.resolve

-- computed returns what a word whose head is computed when the command
-- runs ($X/…, "$(…)"/x, xargs' {}) says of where it is: "unknown" when
-- its head is unknown ($DIR/x: it may be anywhere), with the word of its
-- literal tail (the pattern to judge by the project's rules: $X/.git/config
-- writes into a .git/) or nil (the tail names nothing by itself: $X/*);
-- "outside" when the folder its known head names is outside the project
-- (/$X, /etc/$X/y, ~/$X: /…), with that folder resolved; nil for a word
-- whose known head is inside the project (build/$X), judged as written.
local function computed(w, cwd)
  local t = w.text
  if t:byte(1) == 0 then
    local rest = t:match("^%z+/+(.+)$")
    if not rest or rest:find("[%z*?%[]") then return "unknown" end
    return "unknown", { text = t, pat = (w.pat:match("^%z+/+(.+)$") or rest), unknown = true }
  end
  local i = t:find("%z")
  local head = i and t:sub(1, i - 1):match("^(.*)/")
  if not head or not (t:sub(1, 1) == "/" or t:sub(1, 2) == "~/") then return nil end
  local abs = resolve(head == "" and "/" or head, cwd)
  if not abs or abs:sub(1, 1) ~= "/" or paths.inside(abs, cwd) then return nil end
  return "outside", abs
end

-- names_nothing reports whether a computed path (see computed) names no
-- file of the project by its literal part: $X/*, /…, ~/$X.
local function names_nothing(w, cwd)
  local where, x = computed(w, cwd)
  return where == "outside" or (where == "unknown" and not x)
end

-- write_problem returns why writing path p (a string, or a shell word)
-- is refused and what to do instead, or nil; a third value "ask" when the
-- user is to be asked rather than the call denied. A path that folds is
-- judged as written and as the path it folds to (.github//workflows/ci.yml
-- and .github/x/../workflows/ci.yml are CI configuration, web/./go.sum a
-- lockfile). kind is WRITE (the default), ATTR or DELETE (see above); a
-- delete outside the project is remove_problem's (a glob there, ~/.* or
-- /srv/x/.b*, is not read as a .git/ or CI file it could match: it is
-- outside the project first). A write or a mode change in
-- SETTINGS.guarded is refused by the guarded rule.
local function write_problem(w, cwd, output, kind)
  kind = kind or WRITE
  if w.unknown then
    -- a computed head: only a literal tail names the project's own files
    -- ($X/.git/config); a known head outside the project is outside it
    -- (/…, /etc/$X), the unknown part reaching into no project
    local where, x = computed(w, cwd)
    if where == "unknown" then
      if not x then return nil end
      w = x
    elseif where == "outside" then
      if kind == DELETE then return nil end
      local shown = shell.printable(w.text) .. ", a path computed when the command runs"
      if guarded(x .. "/x", cwd) then
        return (kind == ATTR and "changing the mode or owner of " .. shown or
          "a write outside the project (" .. shown .. ")") .. ", in a folder of keys and credentials [rule guarded]",
          "ask the user to make that change"
      end
      for _, d in ipairs(SETTINGS.writable) do
        if paths.inside(x, d) then return nil end
      end
      if kind == ATTR then
        return "changing the mode or owner of " .. shown .. ", outside the project [rule outside]",
          "change only files inside " .. shell.printable(cwd or "the project") .. ", or ask the user to change it"
      end
      return "a write outside the project (" .. shown .. ") [rule outside]",
        "write inside " .. shell.printable(cwd or "the project") .. ", or ask the user to change that file"
    end
  end
  if kind == DELETE and not w.unknown and w.text:find("[*?%[]") then
    local abs = resolve(w.text, cwd)
    if abs and abs:sub(1, 1) == "/" and not paths.inside(abs, cwd) then return nil end
  end
  local why, instead = owned_problem(w, kind)
  if why then return why, instead end
  local fp = secrets.fold(w.pat)
  local fw = fp and { text = secrets.fold(w.text) or w.text, pat = fp, unknown = w.unknown, whole = w.whole }
  if fw then
    why, instead = owned_problem(fw, kind)
    if why then return why, instead end
  end
  if w.unknown then return agent_config_problem(fw or w, kind) end
  local abs = resolve(w.text, cwd)
  if not abs then
    return "a write to " .. shell.printable(w.text) .. " whose folder is unknown (no cwd) [rule outside]",
      "use a path inside the project"
  end
  if abs:sub(1, 1) == "/" and paths.inside(abs, cwd) then
    local verdict
    why, instead, verdict = agent_config_problem(fw or w, kind)
    if why then return why, instead, verdict end
    if kind == DELETE then
      -- (output: the file stays in the project, moved within it)
      if output then return nil end
      why, instead, verdict = project_problem(fw or w, paths.clean(abs), paths.clean(cwd))
      if why then return why, instead, verdict end
      return dump_problem(fw or w, "delete")
    end
    if kind ~= WRITE then return nil end
    why, instead, verdict = generated_problem(abs, paths.clean(cwd), output)
    if why or output then return why, instead, verdict end
    return dump_problem(fw or w, "write")
  end
  if kind == DELETE then return nil end
  if guarded(abs, cwd) then
    return (kind == ATTR and "changing the mode or owner of " .. shell.printable(abs) or
      "a write outside the project (" .. shell.printable(abs) .. ")") ..
      ", in a folder of keys and credentials [rule guarded]", "ask the user to make that change"
  end
  for _, d in ipairs(SETTINGS.writable) do
    if paths.inside(abs, d) then return nil end
  end
  if kind == ATTR then
    return "changing the mode or owner of " .. shell.printable(abs) .. ", outside the project [rule outside]",
      "change only files inside " .. shell.printable(cwd or "the project") .. ", or ask the user to change it"
  end
  return "a write outside the project (" .. shell.printable(abs) .. ") [rule outside]",
    "write inside " .. shell.printable(cwd or "the project") .. ", or ask the user to change that file"
end

-- REMOVERS are the programs whose operands are files they delete (shred
-- overwrites them, and deletes them with -u).
local REMOVERS = { rm = true, unlink = true, rmdir = true, srm = true, shred = true }
local NO_WORDS = {}

-- removes returns the words of files a command deletes: every operand of
-- a remover (an operand after "--" is a file whatever it looks like), and
-- true when it deletes them with what is in them (rm -r).
local function removes(c)
  local n = c.name
  if not (n and REMOVERS[n]) then return NO_WORDS, false end
  local ops, ends, recursive = {}, false, false
  for _, a in ipairs(c.args) do
    local t = a.text
    if ends or a.unknown or t:sub(1, 1) ~= "-" or t == "-" then
      ops[#ops + 1] = a
    elseif t == "--" then
      ends = true
    elseif (n == "rm" or n == "srm") and (t:find("^%-[^-]*[rR]") or t == "--recursive") then
      recursive = true
    end
  end
  return ops, recursive
end

-- deleted returns the words of the files a command deletes besides a
-- remover's operands, with true when it deletes folders whole: the
-- sources mv takes away (mv .github/workflows/ci.yml /tmp/), the starting
-- points and -path tests of a find that deletes what it finds (find
-- .claude/hooks -type f -delete), the files git rm deletes from the work
-- tree (not with --cached, which keeps them).
local FIND_PATHS = { ["-path"] = true, ["-ipath"] = true, ["-wholename"] = true, ["-iwholename"] = true }
local function deleted(c)
  local n = c.name
  if n == "mv" then
    local ops, target, skip = {}, false, nil
    for k, a in ipairs(c.args) do
      local t = a.text
      if k == skip then
        target = true
      elseif a.unknown or t:sub(1, 1) ~= "-" then
        ops[#ops + 1] = a
      elseif t == "-t" or t == "--target-directory" then
        skip = k + 1
      elseif t:find("^%-%-target%-directory=") then
        target = true
      end
    end
    if not target then ops[#ops] = nil end
    return ops, true
  elseif n == "find" then
    local del, out, start = false, {}, true
    local args = c.args
    for k, a in ipairs(args) do
      local t = a.text
      if a.unknown then
        start = false
      elseif t == "-delete" then
        del = true
      elseif start and (t == "-H" or t == "-L" or t == "-P") then
        -- how find follows links, before its starting points
      elseif start and t:sub(1, 1) ~= "-" and t ~= "(" and t ~= "!" then
        out[#out + 1] = a
      else
        start = false
        if FIND_PATHS[t] and args[k + 1] and not args[k + 1].unknown then
          out[#out + 1] = secrets.path_word(args[k + 1].text)
        end
      end
    end
    if not del then return NO_WORDS, false end
    -- a find that deletes only stale locks (-name '*.lock') deletes no more
    for k, a in ipairs(args) do
      local v = args[k + 1]
      if (a.text == "-name" or a.text == "-iname") and v and not v.unknown and v.text:find("%.lock$") then
        return NO_WORDS, false
      end
    end
    return out, true
  elseif n == "git" then
    local g = git.parse(c)
    if not (g and not g.sub.unknown and g.sub.text == "rm") then return NO_WORDS, false end
    local out = {}
    for _, a in ipairs(g.args) do
      local t = a.text
      if t == "--cached" then return NO_WORDS, false end
      if a.unknown or t:sub(1, 1) ~= "-" then out[#out + 1] = a end
    end
    return out, true
  end
  return NO_WORDS, false
end

-- find_names returns the name tests (-name, -iname) of a find that
-- deletes what it finds from the project's top (find . -name 'README*'
-- -delete, no starting point or ".", "./", cwd), as words of paths at the
-- top: a file there of such a name is deleted too.
local function find_names(c, cwd)
  if c.name ~= "find" then return NO_WORDS end
  local del, start, top, names = false, true, true, nil
  local args = c.args
  for k, a in ipairs(args) do
    local t = a.text
    if a.unknown then
      if start and not a.cwd then top = false end
      start = false
    elseif t == "-delete" then
      del = true
    elseif start and (t == "-H" or t == "-L" or t == "-P") then
      -- how find follows links
    elseif start and t:sub(1, 1) ~= "-" and t ~= "(" and t ~= "!" then
      local abs = resolve(t, cwd)
      if not (abs and cwd and paths.clean(abs) == paths.clean(cwd)) then top = false end
    else
      start = false
      local v = args[k + 1]
      if (t == "-name" or t == "-iname") and v and not v.unknown then
        names = names or {}
        names[#names + 1] = secrets.path_word(v.text)
      end
    end
  end
  if not (del and top and names) then return NO_WORDS end
  return names
end

-- attr_changes returns the words of the files whose mode, owner, group,
-- access lists, flags or extended attributes a command changes (chmod,
-- chown, chgrp, chattr, setfacl, chflags, xattr -w/-d/-c): each is a write
-- of kind ATTR (write_problem). The mode, owner or flags operand comes
-- first unless --reference gave it (or chmod's -x, chattr's +i: a word of
-- its own).
local ATTR_FIRST = { chmod = true, chown = true, chgrp = true, chflags = true, lchown = true }
local SETFACL_VALUE = { ["-m"] = true, ["-M"] = true, ["-x"] = true, ["-X"] = true, ["--modify"] = true,
  ["--modify-file"] = true, ["--remove"] = true, ["--remove-file"] = true, ["--set"] = true, ["--set-file"] = true }
local VALUED = { chattr = { ["-v"] = true, ["-p"] = true }, setfacl = SETFACL_VALUE }
local OPTION_START = { chattr = "^[-+=]", setfacl = "^%-" }
local function attr_changes(c)
  local n = c.name
  if not n then return NO_WORDS end
  local out = {}
  if ATTR_FIRST[n] then
    local first = true
    for _, a in ipairs(c.args) do
      local t = a.text
      if a.unknown or t:sub(1, 1) ~= "-" then
        if first then first = false else out[#out + 1] = a end
      elseif t:find("^%-%-reference") or (n == "chmod" and t:find("^%-[rwxXst]+$")) then
        first = false
      end
    end
  elseif VALUED[n] then
    -- chattr and setfacl: the options that take the next word as their
    -- value, and what starts an option or a mode word
    local takes, option, skip = VALUED[n], OPTION_START[n], nil
    for k, a in ipairs(c.args) do
      local t = a.text
      if k == skip then
        skip = nil
      elseif takes[t] then
        skip = k + 1
      elseif a.unknown or not t:find(option) then
        out[#out + 1] = a
      end
    end
  elseif n == "xattr" then
    -- xattr -w NAME VALUE FILE, -d NAME FILE, -c FILE (-p and a listing read)
    local skip, changes = 0, false
    for _, a in ipairs(c.args) do
      local t = a.text
      if not a.unknown and t:find("^%-%a+$") then
        if t:find("w", 2, true) then skip, changes = 2, true
        elseif t:find("d", 2, true) then skip, changes = 1, true
        elseif t:find("c", 2, true) then changes = true end
      end
    end
    if not changes then return NO_WORDS end
    for _, a in ipairs(c.args) do
      if a.unknown or a.text:sub(1, 1) ~= "-" then
        if skip > 0 then skip = skip - 1 else out[#out + 1] = a end
      end
    end
  end
  return out
end

-- keygen_writes returns the files ssh-keygen rewrites: the known hosts
-- file that -R (forget a host) and -H (hash it) rewrite, ~/.ssh/known_hosts
-- unless -f names another; the key file -f names that -p (new
-- passphrase), -c (new comment) or a new key (-t) writes.
local KEYGEN_VALUE = "abCDEfFIJjKmMnNOPrRsStVwYzZ"
local function keygen_writes(c)
  if c.name ~= "ssh-keygen" then return NO_WORDS end
  local file, hosts, key = nil, false, false
  local args = c.args
  local k = 1
  while args[k] do
    local a = args[k]
    local t = a.text
    if not a.unknown and t:find("^%-%a") then
      for i = 2, #t do
        local ch = t:sub(i, i)
        if ch == "R" or ch == "H" then hosts = true end
        if ch == "p" or ch == "c" or ch == "t" then key = true end
        if KEYGEN_VALUE:find(ch, 1, true) then
          local v = t:sub(i + 1)
          local w = args[k + 1]
          if v == "" then k = k + 1 end
          if ch == "f" then file = v ~= "" and secrets.path_word(v) or w end
          break
        end
      end
    end
    k = k + 1
  end
  if not hosts and not (key and file) then return NO_WORDS end
  file = file or { text = "~/.ssh/known_hosts", pat = "~/.ssh/known_hosts" }
  return { file }
end

-- arg_files returns the words of the files xargs reads its items from
-- (-a FILE, --arg-file=FILE), which the shell library's reading of xargs
-- consumes with the option: xargs reads them as a program reads its
-- operands (xargs -a ~/.netrc -0 prints what the file holds).
local XARGS_VALUE = "adEIJLnPRs"
local function arg_files(c)
  local wr = c.wrappers
  if not wr or #wr == 0 or not c.argv then return NO_WORDS end
  local seen = false
  for _, n in ipairs(wr) do
    if n == "xargs" then seen = true end
  end
  if not seen then return NO_WORDS end
  local out, argv, inx = {}, c.argv, false
  for k = 1, (c.word_at or #argv + 1) - 1 do
    local a = argv[k]
    local t = a and not a.unknown and a.text or ""
    if k > 1 and inx then
      local v = t:match("^%-%-arg%-file=(.*)$")
      if v then
        out[#out + 1] = secrets.path_word(v)
      elseif t == "--arg-file" or t == "--arg-fil" or t == "--arg-fi" or t == "--arg-f" or t == "--arg" then
        if argv[k + 1] then out[#out + 1] = argv[k + 1] end
      elseif t:find("^%-%w") then
        for i = 2, #t do
          local ch = t:sub(i, i)
          if ch == "i" or ch == "l" or ch == "e" then break end
          if XARGS_VALUE:find(ch, 1, true) then
            if ch == "a" then
              local v = t:sub(i + 1)
              if v ~= "" then out[#out + 1] = secrets.path_word(v) elseif argv[k + 1] then out[#out + 1] = argv[k + 1] end
            end
            break
          end
        end
      end
    end
    if t ~= "" and t:match("[^/]*$") == "xargs" then inx = true end
  end
  return out
end

-- PROBES are files a folder deleted whole could hold that a rule guards
-- (rm -rf .git, rm -r .claude, rm -rf .github/workflows): the folder is
-- judged as each of them.
local PROBES = { "x", "workflows/x", "hooks/x", "settings.json", "hooks.json", "config.toml", "commands/x",
  "agents/x", "skills/x", "rules/x" }

-- remove_problem returns why deleting the file w names is refused, what
-- to do instead and, when the user is to be asked, "ask": inside the
-- project, a delete is a write there, refused where a write is (.git/,
-- CI configuration, an agent's hooks and settings: write_problem; with
-- what it holds, when whole is true); outside it and SETTINGS.writable, a
-- file deleted one by one is refused as a write there is, and a delete
-- cannot be undone [rule remove] (a recursive rm outside the project is
-- the shell pack's to judge: it knows /, ~ and the caches apart); nil
-- otherwise. dir is the folder a cd on the line moved the command to.
local function remove_problem(w, cwd, dir, whole, outside, kept)
  local t = w.text
  local rw = w
  -- after a cd on the line (dir, see shell.parse), a relative path is
  -- the moved folder's; after a cd to a folder not known here, unknown
  local lost = false
  if dir and dir ~= "." and not (t:sub(1, 1) == "/" or t == "~" or t:sub(1, 2) == "~/") and dir:find("%z") then
    -- the folder is unknown: the name alone says whether it is .git/'s
    lost = true
  elseif dir and dir ~= "." and not (t:sub(1, 1) == "/" or t == "~" or t:sub(1, 2) == "~/") then
    t = dir .. "/" .. t
    rw = { text = t, pat = dir:gsub("[\\*?%[]", "\\%0") .. "/" .. w.pat, unknown = w.unknown, whole = w.whole }
  end
  local why, instead, verdict = write_problem(rw, cwd, kept, DELETE)
  if why and (verdict ~= "ask" or not whole) then return why, instead, verdict end
  if whole and not rw.whole then
    local base = rw.pat:gsub("/+$", "")
    local folder = rw.text:gsub("/+$", "")
    -- first: an ask found (the folder's own); a denial of a probe wins
    local first = why ~= nil
    for _, p in ipairs(PROBES) do
      local probe = folder .. "/" .. p
      local pwhy, pinstead, pverdict = write_problem({ text = probe, pat = base .. "/" .. p, unknown = rw.unknown },
        cwd, kept, DELETE)
      -- a denial wins over an ask (rm -rf .github: CI configuration first)
      if pwhy and pverdict ~= "ask" then return pwhy, pinstead, pverdict end
      if pwhy and not first then
        first = true
        -- a folder of the project's own files is named as the folder
        if pwhy:find("[rule project-files]", 1, true) then
          pwhy = "deleting " .. shell.printable(folder) .. ", which holds files that define the project (its " ..
            "licence, docs, build or agent instructions) [rule project-files]"
        end
        why, instead, verdict = pwhy, pinstead, pverdict
      end
    end
    if why then return why, instead, verdict end
  end
  if lost or not outside then return nil end
  if w.unknown then
    -- a computed path whose known head is outside the project (rm /{},
    -- unlink /var/x/$F) is deleted there
    local where, x = computed(rw, cwd)
    if where ~= "outside" then return nil end
    for _, d in ipairs(SETTINGS.writable) do
      if paths.inside(x, d) then return nil end
    end
    if paths.in_caches(x .. "/x", SETTINGS.removable, cwd) then return nil end
    return "deleting " .. shell.printable(w.text) .. ", a path computed when the command runs, outside the project " ..
      "[rule remove]", "delete only inside " .. shell.printable(cwd or "the project") .. ", by name, or ask the user " ..
      "to remove it"
  end
  local abs = resolve(t, cwd)
  if not abs or abs:sub(1, 1) ~= "/" or paths.inside(abs, cwd) then return nil end
  for _, d in ipairs(SETTINGS.writable) do
    if paths.inside(abs, d) then return nil end
  end
  if paths.in_caches(abs, SETTINGS.removable, cwd) then return nil end
  return "deleting " .. shell.printable(abs) .. ", outside the project [rule remove]",
    "delete only inside " .. shell.printable(cwd or "the project") .. ", or ask the user to remove it"
end

-- docker_home returns the text of w when it names the home folder's
-- .docker/ or a file in it (config.json, contexts' and machines' TLS
-- client keys), not a project's own .docker/ (Dockerfiles, nginx.conf);
-- nil otherwise. cwd is the payload's, from which the home folder is
-- guessed.
local function docker_home(w, cwd)
  local t = w.text
  if w.whole or not cwd or not t:find(".docker", 1, true) then return nil end
  local home = paths.home(cwd)
  local abs = home and resolve(t, cwd)
  if not abs then return nil end
  abs = paths.clean(abs)
  local d = home .. "/.docker"
  if abs == d or abs:sub(1, #d + 1) == d .. "/" then return t end
  return nil
end

-- read_problem returns why reading the file w names is denied (a secrets
-- file: SECRETS, or the home folder's .docker/ when cwd is given) and
-- what to do instead, or nil.
local function read_problem(w, cwd)
  local hit = secret_file(w) or docker_home(w, cwd)
  if hit then
    if not hit:find("[^%z/]") then
      -- a file the line names only by a value it does not show ($F, $(…),
      -- xargs' items): any file, a key among them
      local by = w.lead and ("$" .. w.lead .. (hit:find("/", 1, true) and "/…" or "")) or w.source == "subst" and "a command's output" or
        w.source == "stdin" and "the items xargs reads" or "a value known only when it runs"
      return "reading a file the line names only by " .. by .. ", which may hold keys or credentials " ..
        "[rule secret-read]", "name the file on the command line, or ask the user for the value you need"
    end
    return "reading " .. shell.printable(hit) .. ", which may hold keys or credentials [rule secret-read]",
      "ask the user for the value you need, or use a template such as .env.example"
  end
  return nil
end

-- state_problem returns why reading the file w names is denied: it is in
-- a deploy tool's state folder in the project (SETTINGS.deploy_state:
-- .terraform/ holds the backend's configuration and a copy of the state,
-- .vercel/ the environment variables vercel pull wrote, .netlify/ and
-- .supabase/ the linked site's or project's tokens) [rule deploy-state];
-- with what to do instead, or nil. Their build output passes.
local function state_problem(w)
  local d = state_dir(w)
  if not d then return nil end
  return "reading " .. shell.printable(w.text) .. ", in " .. shell.printable(d) .. ", where " ..
    SETTINGS.deploy_state[d] .. " keeps the deploy tool's state, credentials and environment variables " ..
    "[rule deploy-state]", "ask the user for the value you need"
end

-- delete_secret_problem is read_problem for a remover's operand (rm .env,
-- shred -u key.pem): deleting a file of keys or credentials reads nothing,
-- but loses what no commit keeps (a .env is not in git) [rule
-- secret-delete].
local function delete_secret_problem(w)
  local hit = secret_file(w)
  if hit then
    return "deleting " .. shell.printable(hit) .. ", which may hold keys or credentials that no commit keeps " ..
      "[rule secret-delete]", "ask the user to remove it"
  end
  return nil
end

-- git_bash returns a reason's parts for a Git Bash line (Claude Code's
-- Bash tool on Windows) run in the folder wcwd as the payload spells it
-- (C:\Users\dev\project): the paths as Git Bash spells them
-- (/c/users/dev/.bashrc, not pwsh.cwd's /c:/users/dev/.bashrc) and the
-- project as the payload did.
local function git_bash(why, instead, wcwd)
  local pcwd = shell.printable(pwsh.cwd(wcwd) or "")
  local i, j = instead:find(pcwd, 1, true)
  local shown = instead
  if i then shown = instead:sub(1, i - 1) .. shell.printable(wcwd) .. instead:sub(j + 1) end
  return (why:gsub("/(%a):/", "/%1/")), shown
end

-- deny denies a call for why, saying what to do instead; wcwd: see git_bash.
local function deny(why, instead, wcwd)
  if wcwd then why, instead = git_bash(why, instead, wcwd) end
  return hook.deny("files pack: blocked " .. why .. "; " .. instead .. ".")
end

-- searched returns the file globs a search tool's input names beside its
-- folder: Grep's glob (Gemini's include) and, for a tool that lists files
-- rather than searching their text (Glob), its pattern; each joined to the
-- folder searched (path, dir_path) when it is relative, so that Glob
-- { pattern = "credentials", path = "~/.aws" } names ~/.aws/credentials.
-- A content search's pattern is a regular expression of text, not a file:
-- the tool's name tells the two apart (Grep, grep, search_file_content).
local NONE = {}
local function searched(name, args)
  -- (most calls name none of these: no table is made for them)
  if type(args) ~= "table" or (args.glob == nil and args.include == nil and args.pattern == nil) then return NONE end
  local out = {}
  local dir = args.path or args.dir_path
  if type(dir) ~= "string" or dir == "" then dir = nil end
  local n = type(name) == "string" and name:lower() or ""
  local keys = (n:find("grep", 1, true) or n:find("search", 1, true)) and { "glob", "include" } or { "pattern" }
  for _, k in ipairs(keys) do
    local g = args[k]
    if type(g) == "string" and g ~= "" and #g <= 4096 then
      out[#out + 1] = g
      if dir and not g:find("^[/~]") then out[#out + 1] = dir:gsub("/+$", "") .. "/" .. g end
    end
  end
  return out
end

-- A search for private keys ("BEGIN OPENSSH PRIVATE KEY", "PRIVATE KEY")
-- outside the project hunts for key files in the home folder or the
-- machine; inside it, it is a project's own search (a scanner's tests).
-- A search of the whole machine, the home folder or a top folder of the
-- system (/, ~, /etc, /home, …) for passwords, tokens or credentials
-- (grep -ri password /) hunts for them too [rule credential-hunt]; a
-- search of a library or of the project for such a word is everyday work.
local KEY_SEARCH = [[(?i)private[\s_.*-]*key]]
local CRED_SEARCH = [[(?i)pass(?:w(?:or)?d|phrase)|credential|secret|api[\s_.-]*key|access[\s_.-]*key|token]]
local HUNT = KEY_SEARCH .. "|" .. CRED_SEARCH
local BROAD = { ["/"] = true, ["/etc"] = true, ["/home"] = true, ["/root"] = true, ["/Users"] = true, ["/var"] = true,
  ["/opt"] = true, ["/srv"] = true, ["/mnt"] = true, ["/media"] = true, ["~"] = true }
local function key_hunt(pattern, dir, cwd)
  if type(pattern) ~= "string" or #pattern > 4096 or not re.match(HUNT, pattern) then return nil end
  local abs = resolve(dir or ".", cwd)
  if abs and abs:sub(1, 1) == "/" and paths.inside(abs, cwd) then return nil end
  if re.match(KEY_SEARCH, pattern) then
    return deny("searching " .. shell.printable(dir or ".") .. " for private keys [rule key-hunt]",
      "search inside the project, or ask the user which key to use")
  end
  if abs and (BROAD[abs] or abs == paths.home(cwd)) then
    return deny("searching " .. shell.printable(dir) .. " for passwords or tokens [rule credential-hunt]",
      "search inside the project, or ask the user for the value you need")
  end
  return nil
end

-- tool_problem is the detailed reading of a file tool's call: the
-- denial of the first path args names (paths.of) that is a secrets file
-- or, when the tool writes, a file it may not write; then of a search's
-- globs (searched) and of a search for private keys outside the project
-- (key_hunt). args is a table of the hook's own (see the hook below).
local function tool_problem(args, writes, name, cwd)
  local list, too_many = paths.of(args)
  if too_many then
    return deny("a call naming more than " .. paths.MAX .. " files [rule too-many]", "work on fewer files at once")
  end
  local ask
  for _, p in ipairs(list) do
    local w = secrets.path_word(p)
    local why, instead, verdict = read_problem(w, cwd)
    if not why and writes then why, instead, verdict = write_problem(w, cwd) end
    if not why and not writes then
      why, instead = state_problem(w)
      if not why then why, instead, verdict = dump_problem(w, "read") end
    end
    if why then
      if verdict ~= "ask" then return deny(why, instead) end
      ask = ask or why .. "; " .. instead
    end
  end
  -- the files an apply_patch text deletes (*** Delete File: x) are deleted
  if writes then
    for _, k in ipairs(paths.PATCH_KEYS) do
      local t = args[k]
      if type(t) == "string" and t:find("*** Delete File:", 1, true) then
        local n = 0
        for name in (t .. "\n"):gmatch("%*%*%* Delete File: *([^\n]-) *\n") do
          n = n + 1
          if n > paths.MAX then break end
          local why, instead, verdict = write_problem(secrets.path_word(name), cwd, false, DELETE)
          if why then
            if verdict ~= "ask" then return deny(why, instead) end
            ask = ask or why .. "; " .. instead
          end
        end
      end
    end
  end
  for _, g in ipairs(searched(name, args)) do
    local why, instead = read_problem(secrets.path_word(g))
    if why then return deny(why, instead) end
  end
  local n = type(name) == "string" and name:lower() or ""
  if n:find("grep", 1, true) or n:find("search", 1, true) then
    local dir = args.path or args.dir_path
    local r = key_hunt(args.pattern, type(dir) == "string" and dir ~= "" and dir or nil, cwd)
    if r then return r end
  end
  if ask then return hook.ask("files pack: asking before " .. ask .. ".") end
end

-- The usual call (a Write, Edit or Read of one ordinary file of the
-- project) is cleared in the hook itself, by a pre-check that builds no
-- table and hands no table of the input to a function, so that the
-- engine reuses the input's tables for the next call; every other call
-- gets the detailed reading (tool_problem), which the pre-check only ever
-- agrees with.
--
-- PATH_KEYS are the keys of a file tool's input that the detailed reading
-- reads (paths.of, searched, key_hunt): true for a key that holds one
-- path (paths.KEYS), false for the others (lists of paths, patch texts,
-- a search's glob and pattern), which the pre-check leaves to the
-- detailed reading.
local PATH_KEYS = paths.PATH_KEYS

-- CONCERNS matches a path that one of the rules could concern as it is
-- written, or that the detailed reading would read otherwise than as it
-- is written: a secrets file (SECRETS.rules.literal, the expression
-- could_touch uses for a path with no glob or unknown part), .git/, CI
-- configuration, a lockfile's name (in any case: more paths go to the
-- detailed reading, never fewer), a path that folds ("//", "." and ".."
-- components), and the characters that make a path a glob or an escaped
-- pattern (\, *, ?, [, NUL) or after which a secrets file is looked for
-- (=, :, @: --env-file=.env, HEAD:.env). Each rule's expression keeps its
-- own flags inside its group.
local CONCERNS
do
  local locks = {}
  for name in pairs(SETTINGS.lockfiles) do locks[#locks + 1] = re.quote(name) end
  table.sort(locks) -- the same expression at every load
  local tops = {}
  for name in pairs(GENERATED_TOP) do tops[#tops + 1] = re.quote(name) end
  table.sort(tops)
  local parts = { "(?:" .. SECRETS.rules.literal .. ")", "(?:" .. GITDIR.literal .. ")",
    "(?:" .. CI.literal .. ")", "(?:" .. AGENT_CONFIG.literal .. ")",
    "(?i:(?:^|/)(?:" .. table.concat(locks, "|") .. ")$)",
    "(?:" .. GENERATED.literal .. ")", [[(?:^|/)\.docker(?:/|$)]], paths.UNPLAIN }
  -- (an empty list compiles to an expression that matches everything)
  if #SETTINGS.data_dumps > 0 then parts[#parts + 1] = "(?:" .. DUMPS.literal .. ")" end
  if #STATE_DIRS > 0 then parts[#parts + 1] = "(?:" .. STATE.literal .. ")" end
  -- a top folder of generated output, wherever it is in the path
  if #tops > 0 then parts[#parts + 1] = "(?i:(?:^|/)(?:" .. table.concat(tops, "|") .. ")/)" end
  CONCERNS = table.concat(parts, "|")
end
-- (upvalues: no lookup of a global and its field per call)
local match, byte, find, type, pairs, ipairs = re.match, string.byte, string.find, type, pairs, ipairs

hook.register("PreToolUse", "@fs.write|@fs.read", function(input)
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  local writes = false
  local caps = input.toolCapabilities
  if type(caps) == "table" then
    for i = 1, #caps do
      if caps[i] == "fs.write" then
        writes = true
        break
      end
    end
  end
  -- The pre-check: the input names one path (p) and nothing else the
  -- detailed reading reads, CONCERNS does not match it, and a written path
  -- is inside the project: relative with no "." or ".." component, or cwd
  -- and more after a "/" (such a path has no "//", so cwd is clean too:
  -- what paths.resolve and paths.inside answer). A "~" path is the home
  -- folder's. (type(k) and type(v) tell the engine that no table of the
  -- input is used as a key or kept.)
  local p, one = nil, true
  for k, v in pairs(args) do
    if type(k) == "string" then
      local single = PATH_KEYS[k]
      if single ~= nil then
        if single and not p and type(v) == "string" then
          p = v
        else
          one = false
        end
      end
    end
  end
  if one and p and p ~= "" and not match(CONCERNS, p) then
    if not writes then return nil end
    local cwd = input.cwd
    if type(cwd) == "string" and byte(cwd, 1) == 47 then -- "/"
      local first = byte(p, 1)
      if first == 47 then
        if #p > #cwd + 1 and byte(p, #cwd + 1) == 47 and find(p, cwd, 1, true) == 1 then return nil end
      elseif first ~= 126 then -- "~"
        return nil
      end
    end
  end
  -- The detailed reading, of a copy of what it reads: the values under
  -- PATH_KEYS, a table as the list of its strings (at most one more than
  -- paths.of looks at: it then says there are too many).
  local own = {}
  for k, v in pairs(args) do
    if type(k) == "string" and PATH_KEYS[k] ~= nil then
      local t = type(v)
      if t == "string" or t == "number" or t == "boolean" then
        own[k] = v
      elseif t == "table" then
        local l = {}
        for _, x in ipairs(v) do
          if #l > paths.MAX then break end
          if type(x) == "string" then l[#l + 1] = x end
        end
        own[k] = l
      end
    end
  end
  return tool_problem(own, writes, input.toolName, input.cwd)
end, { name = "pack-files-tools", stage = "validate", failure_policy = "closed", policy = true })

-- Programs whose words are text, or files they do not read (echo .env >>
-- .gitignore, chmod 600 ~/.ssh/id_rsa).
-- du, file, realpath and their kin read a file's size, type or name,
-- never what it holds (du -sh .[^.]* *).
local TEXT_ONLY = { echo = true, printf = true, chmod = true, chown = true, chgrp = true, ls = true, stat = true,
  test = true, ["["] = true, mkdir = true, du = true, file = true, realpath = true, readlink = true,
  basename = true, dirname = true }

-- Options whose value is a key or certificate the program uses, without
-- showing what it holds (ssh -i KEY, curl --key KEY): not a read; so are
-- the keys ssh-add loads and ssh-keygen -y/-l/-e's -f (see key_use).
-- The cluster and cloud tools' credential options (kubectl --kubeconfig,
-- terraform -var-file, gcloud --key-file) are such uses too.
local KUBECONFIG = { ["--kubeconfig"] = true }
local KEY_USE = { ssh = { ["-i"] = true }, scp = { ["-i"] = true }, sftp = { ["-i"] = true },
  curl = { ["--cert"] = true, ["--key"] = true, ["-E"] = true, ["--cacert"] = true, ["--proxy-cert"] = true,
    ["--proxy-key"] = true },
  wget = { ["--certificate"] = true, ["--private-key"] = true, ["--ca-certificate"] = true },
  kubectl = KUBECONFIG, helm = KUBECONFIG, oc = KUBECONFIG, k9s = KUBECONFIG, kustomize = KUBECONFIG,
  terraform = { ["-var-file"] = true, ["--var-file"] = true }, tofu = { ["-var-file"] = true, ["--var-file"] = true },
  gcloud = { ["--key-file"] = true, ["--cred-file"] = true } }

-- key_use reports whether the k-th word of c is the value of one of those
-- options (-i KEY, --key KEY, --key=KEY).
local function key_use(c, k)
  local n = c.name or ""
  -- ssh-add loads the keys it is given into the agent and prints none
  if n == "ssh-add" then return true end
  local prev = c.args[k - 1]
  if n == "ssh-keygen" then
    -- -f's key gives its public half (-y, -e), its fingerprint (-l) or
    -- its comment, never the private key, but for -i, which prints the
    -- key it reads in OpenSSH's form (-p and -c rewrite it: writes)
    for _, a in ipairs(c.args) do
      if not a.unknown and a.text:find("^%-%a*i") then return false end
    end
    return prev ~= nil and not prev.unknown and prev.text:find("^%-%a*f$") ~= nil
  end
  local opts = KEY_USE[n]
  if not opts then return false end
  if prev and not prev.unknown and opts[prev.text] then return true end
  local opt = c.args[k].text:match("^(%-%-?[%w-]+)=")
  return opt ~= nil and opts[opt] == true
end

-- Programs that edit in place the files paths.writes gives for them: they
-- read those files too.
local IN_PLACE = { sed = true, gsed = true, perl = true }

-- hand_write reports whether what a command writes is a hand edit: an
-- in-place edit (sed -i), or text the line writes out (echo, printf, a
-- here-document) rather than a program's output.
local TEXT_WRITERS = { echo = true, printf = true }
local function hand_write(c)
  local n = c.name or ""
  if IN_PLACE[n] or TEXT_WRITERS[n] then return true end
  for _, r in ipairs(c.redirs) do
    if r.op == "<<" or r.op == "<<-" or r.op == "<<<" then return true end
  end
  return false
end

-- Git subcommands that name files without showing what they hold (git rm
-- --cached .env untracks the file): their words are not reads. (Whether a
-- secret gets committed is the git pack's to judge.)
local GIT_NO_READ = { rm = true, mv = true, ["ls-files"] = true, ["check-ignore"] = true, ["check-attr"] = true,
  ["update-index"] = true }

-- git_names_only reports whether c runs one of those subcommands (asked
-- only once a word of c names a secrets file: reading git's options costs).
local function git_names_only(c)
  local g = c.name == "git" and git.parse(c)
  return g and not g.sub.unknown and GIT_NO_READ[g.sub.text] or false
end

-- code_words returns the names a piece of code quotes (python -c
-- "open('/etc/shadow')", node -e "fs.readFileSync(h + '/.npmrc')"), as
-- words whose glob characters are literal.
local function code_words(text, out)
  for name in text:gmatch("[^%s'\"(),;=+`{}%[%]]+") do
    if #out >= paths.MAX then break end
    out[#out + 1] = { text = name, pat = name:gsub("[\\*?%[%]]", "\\%0") }
  end
  return out
end

-- inline_code returns the words of the code an interpreter runs from its
-- command line (python -c, node -e, perl -e, …) or from a here-document
-- or here-string it reads as its script (python3 - <<EOF); {} for others.
-- Shells are not among them: parse reads their code as commands. (parse
-- sets inline and reads_stdin for shells and interpreters only.)
local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true, yash = true,
  posh = true, fish = true, csh = true, tcsh = true, rbash = true }
local function inline_code(c)
  local out = {}
  if not (c.inline or c.reads_stdin) or SHELLS[c.name or ""] then return out end
  if c.inline and c.script and not c.script.unknown then code_words(c.script.text, out) end
  if c.reads_stdin then
    for _, r in ipairs(c.redirs) do
      if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and not r.target.unknown then
        code_words(r.target.text, out)
      end
    end
  end
  return out
end

-- written_text returns the text a command writes out by hand into its
-- output file (echo/printf's words, a here-document or here-string), or
-- nil: the code of a script the line may run next.
local function written_text(c)
  local n = c.name or ""
  if TEXT_WRITERS[n] then
    local parts = {}
    for _, a in ipairs(c.args) do
      if not a.unknown then parts[#parts + 1] = a.text end
    end
    return table.concat(parts, " ")
  end
  for _, r in ipairs(c.redirs) do
    if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and not r.target.unknown then return r.target.text end
  end
  return nil
end

-- runs_file returns the word of the file a command runs as code: an
-- interpreter's or a shell's script file (python x.py, bash x.sh), go
-- run's file, or the program itself (./x.sh); nil for none.
local function runs_file(c)
  if c.script and not c.inline then return c.script end
  if c.name == "go" then
    local run = false
    for _, a in ipairs(c.args) do
      if run and not a.unknown and a.text:sub(1, 1) ~= "-" then return a end
      if a.text == "run" then run = true end
    end
    return nil
  end
  local w = c.word
  if w and not w.unknown and w.text:find("/", 1, true) then return w end
  return nil
end

-- GREPS search the text of files; grep_hunt returns the denial of one
-- whose pattern names a private key and that searches a folder outside
-- the project (key_hunt), or nil. Its pattern is the first operand or the
-- word after -e; the other operands are the folders and files searched.
local GREPS = { grep = true, egrep = true, fgrep = true, rg = true, ag = true, ack = true }
local function grep_hunt(c, cwd)
  local pattern
  for k, w in ipairs(c.args) do
    local t = w.text
    if not w.unknown and re.match(t:sub(1, 1) == "-" and KEY_SEARCH or HUNT, t) then
      pattern = k
      break
    end
  end
  if not pattern then return nil end
  for k = pattern + 1, #c.args do
    local w = c.args[k]
    if not w.unknown and w.text:sub(1, 1) ~= "-" then
      local r = key_hunt(c.args[pattern].text, w.text, cwd)
      if r then return r end
    elseif w.home and w.text == "~" then
      return key_hunt(c.args[pattern].text, "~", cwd)
    end
  end
  return nil
end

-- The programs the shell rules look at by name (those paths.writes finds
-- the written files of), for shell.quick: a plain line running none of
-- them has no file written (it has no redirection either), and one in
-- which no word could name a secrets file (SECRETS.in_line) reads none:
-- it is allowed without parsing. Interpreters, whose code is read for
-- names, are among the programs shell.quick always parses.
-- PowerShell (the PowerShell tool's command: lib/pwsh.lua reads it, "\"
-- a folder separator, ~\x, $HOME\x, $env:USERPROFILE\x the home folder's,
-- C:\Users\NAME the home folder of the project's user). A path is judged
-- as its forward-slash form: pwsh.resolve gives it absolute
-- ("/c:/users/dev/project/x", lower-case as Windows compares names)
-- against pwsh.cwd's working folder. A reason shows the word as written.

-- PS_SCRATCH are the folders a PowerShell command may write to outside the
-- project beside SETTINGS.writable: the user's and Windows' temporary
-- folders as a path spells them ($env:TEMP is "/tmp" already).
local PS_SCRATCH = { "^/%a:/users/[^/]+/appdata/local/temp/", "^/%a:/windows/temp/" }

-- as_written puts the word as the user wrote it (raw) into a reason in
-- place of the path read from it (shown), and cwd for the working folder
-- as pwsh.cwd spells it (pcwd).
local function as_written(why, shown, raw, pcwd, cwd)
  if not why then return nil end
  local function swap(s, a, b)
    if not (a and b) or a == b then return s end
    local i, j = s:find(a, 1, true)
    if not i then return s end
    return s:sub(1, i - 1) .. b .. s:sub(j + 1)
  end
  why = swap(why, shell.printable(shown or ""), raw and shell.printable(raw))
  return swap(why, shell.printable(pcwd or ""), cwd and shell.printable(cwd))
end

-- ps_abs returns the word for the write and delete rules of a PowerShell
-- word: its path resolved (pwsh.resolve), or the word when part of it is
-- unknown.
local function ps_abs(w, cwd)
  local abs = not w.unknown and pwsh.resolve(w, cwd)
  if not abs then return w end
  return { text = abs, pat = abs, glob = w.glob, raw = w.raw }
end

-- LOCK_NAMES are SETTINGS.lockfiles' names by their lower-case spelling.
local LOCK_NAMES = {}
for name in pairs(SETTINGS.lockfiles) do LOCK_NAMES[name:lower()] = name end

-- PS_READERS are the cmdlets that show or copy the files they are given.
local PS_READERS = { ["get-content"] = true, ["select-string"] = true, ["copy-item"] = true, ["move-item"] = true,
  ["import-csv"] = true, ["import-clixml"] = true, ["format-hex"] = true, ["get-filehash"] = true }

-- ps_word returns a PowerShell word with the fields the rules read (a
-- parameter's name or a word cmd /c split has no pat).
local function ps_word(w)
  if w.pat then return w end
  return { text = w.text, pat = w.text, unknown = w.unknown, whole = w.whole, raw = w.raw }
end

-- finish answers a line none of whose commands was denied: a line that
-- could not be read whole is denied (fail closed) [rule parse], a change
-- to ask about is asked.
local function finish(err, ask, wcwd)
  if err then
    return deny("a command that could not be checked (" .. err .. ") [rule parse]", "split it into shorter commands")
  end
  if ask then
    if wcwd then ask = git_bash(ask, "", wcwd) end
    return hook.ask("files pack: asking before " .. ask .. ".")
  end
  return nil
end

-- judge_pwsh judges a PowerShell command line as the shell hook judges a
-- POSIX one (the rules secret-read, secret-delete, outside, guarded,
-- remove, git-internals, ci, lockfile, generated, agent-config, parse).
local function judge_pwsh(line, cwd)
  local cmds, err = pwsh.parse(line)
  local pcwd = pwsh.cwd(cwd) or cwd
  local ask
  local function verdict(why, instead, v, w, shown)
    if not why then return nil end
    why = as_written(why, shown or w.text, w.raw, pcwd, cwd)
    instead = as_written(instead, nil, nil, pcwd, cwd)
    if v ~= "ask" then return deny(why, instead) end
    ask = ask or why .. "; " .. instead
    return nil
  end
  for _, c in ipairs(cmds) do
    local reads, writes, deletes, recursive, code = pwsh.files(c)
    local written = {}
    local text = c.name == "set-content" or c.name == "add-content" or c.name == "new-item"
    for _, w in ipairs(writes) do
      written[w] = true
      w = ps_word(w)
      local a = ps_abs(w, cwd)
      local scratch = false
      for _, p in ipairs(PS_SCRATCH) do
        if a.text:find(p) then scratch = true end
      end
      if not scratch then
        local shown = w.text
        -- Windows compares names without case: PACKAGE-LOCK.JSON is the lockfile
        local base = w.text:match("[^/]*$")
        local lock = not w.unknown and LOCK_NAMES[base:lower()]
        local ow = w
        if lock and lock ~= base then
          ow = { text = w.text:sub(1, #w.text - #base) .. lock, pat = w.pat:sub(1, #w.pat - #base) .. lock, raw = w.raw }
        end
        local why, instead, v = owned_problem(ow, WRITE)
        if not why then
          why, instead, v = write_problem(a, pcwd, not text)
          shown = a.text
        end
        local r = verdict(why, instead, v, w, shown)
        if r then return r end
      end
    end
    for _, w in ipairs(deletes) do
      w = ps_word(w)
      local a = ps_abs(w, cwd)
      local why, instead, v = remove_problem(a, pcwd, nil, recursive, not recursive)
      local r = verdict(why, instead, v, w, a.text)
      if r then return r end
    end
    for _, w in ipairs(deletes) do
      w = ps_word(w)
      local why, instead = delete_secret_problem(w)
      if why then return deny(as_written(why, w.text, w.raw), instead) end
    end
    for _, w in ipairs(reads) do
      -- a word all unknown ($f, (…).Path) may be a key file only for a
      -- command that reads the files it is given (as secrets.unknown_read);
      -- PSReadLine's history file is one
      if w.whole and not w.history and not (PS_READERS[c.name or ""] or secrets.readers[c.name or ""] or
        (c.name or ""):find("^io%.file::")) then
        w = nil
      end
      if w and not written[w] then
        local list = code and not w.unknown and code_words(w.text, {}) or { ps_word(w) }
        if w.history then list = { { text = "ConsoleHost_history.txt", pat = "ConsoleHost_history.txt", raw = w.raw } } end
        for _, x in ipairs(list) do
          local why, instead = read_problem(x)
          if not why then why, instead = state_problem(x) end
          if why then return deny(as_written(why, x.text, x.raw), instead) end
          local d, dinstead, v = dump_problem(x, "read")
          local r = verdict(d, dinstead, v, x)
          if r then return r end
        end
      end
    end
  end
  return finish(err, ask)
end

local WRITERS = { "cp", "mv", "install", "ln", "rsync", "scp", "tee", "touch", "truncate", "sed", "gsed", "perl",
  "dd", "curl", "wget", "socat", "rm", "unlink", "rmdir", "srm", "shred", "chmod", "chown", "lchown", "chgrp",
  "chattr", "setfacl", "chflags", "xattr", "ssh-keygen", "pwsh", "powershell", "pwsh-preview" }
-- A line naming what a search hunts for (HUNT) is parsed too, and one
-- with an rm word (git rm), and one running a cmdlet that marks a line
-- as PowerShell's (pwsh.PROGRAMS: such a line is read as PowerShell too).
local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { WRITERS, pwsh.PROGRAMS },
  words = "(?:" .. SECRETS.in_line .. ")|(?:" .. HUNT .. ")|(?:^| )rm(?: |$)|(?:" .. DUMPS.in_line .. ")|(?:" ..
    STATE.in_line .. ")|\\.docker(?:/| |$)" })

-- dry_run reports whether c is an rsync that writes nothing: -n,
-- --dry-run (-avn, -nav) or --list-only; a short option of RSYNC_VALUE
-- takes the rest of its word as its value (-e'ssh -n' is no -n).
local RSYNC_VALUE = "efBTM"
local function dry_run(c)
  if c.name ~= "rsync" then return false end
  for _, a in ipairs(c.args) do
    local t = a.text
    if not a.unknown then
      if t == "--" then return false end
      if t == "--dry-run" or t == "--list-only" then return true end
      if t:find("^%-%w") then
        for i = 2, #t do
          local ch = t:sub(i, i)
          if ch == "n" then return true end
          if RSYNC_VALUE:find(ch, 1, true) then break end
        end
      end
    end
  end
  return false
end

-- redirected returns the words of ws that c's redirections write (what a
-- dry run still writes: rsync -n … > plan.txt).
local function redirected(ws, c)
  local out = {}
  for _, w in ipairs(ws) do
    for _, r in ipairs(c.redirs) do
      if r.target == w then
        out[#out + 1] = w
        break
      end
    end
  end
  return out
end

-- SHOWS are the programs that show, copy or send the files they are
-- given (secrets.readers, and the readers of compressed files and pagers
-- beside them).
local SHOWS = {}
for n in pairs(secrets.readers) do SHOWS[n] = true end
for n in ([[bat batcat zcat zless zmore zgrep zegrep zfgrep xzcat xzless bzcat bzless zstdcat zstdless gzcat lz4cat
  view vimdiff column csvlook mlr]]):gmatch("%S+") do
  SHOWS[n] = true
end

-- loads reports whether what c writes goes down a pipe into a program of
-- DUMP_QUIET (zcat dump.sql.gz | psql app), among the commands cmds.
local function loads(c, cmds)
  if not c.pipe_out then return false end
  for _, d in ipairs(cmds) do
    if d.upstream == c then return DUMP_QUIET[d.name or ""] == true end
  end
  return false
end

-- judge_posix judges a POSIX shell line (the detailed reading); wcwd is
-- the Windows folder a Git Bash line runs in (cwd then pwsh.cwd's form).
local function judge_posix(line, cwd, wcwd)
  local cmds, err = shell.parse(line)
  -- the first change to ask the user about; a denial of a later command
  -- wins. made: the folders a mkdir on the line makes; code: the texts
  -- written out by hand, by the file they went to.
  local ask, made, code
  for _, c in ipairs(cmds) do
    -- a file the command only writes (cp .env.example .env, > .env) is
    -- not read: creating .env from its template is everyday work
    local written = NONE
    local ws = paths.writes(c)
    if dry_run(c) then ws = redirected(ws, c) end
    for _, w in ipairs(paths.fetched_writes(c)) do ws[#ws + 1] = w end
    for _, w in ipairs(keygen_writes(c)) do ws[#ws + 1] = w end
    local text = #ws > 0 and written_text(c)
    for _, w in ipairs(ws) do
      -- code written out by hand that a later command on the line runs
      -- (echo '…' > /tmp/x.go; go run /tmp/x.go) is read as a one-liner's
      if text and not w.unknown then
        local abs = resolve(w.text, cwd)
        if abs then
          code = code or {}
          code[abs] = text
        end
      end
      local why, instead, verdict = write_problem(w, cwd, not hand_write(c))
      if why then
        if verdict ~= "ask" then return deny(why, instead, wcwd) end
        ask = ask or why .. "; " .. instead
      end
      if not IN_PLACE[c.name or ""] then
        if written == NONE then written = {} end
        written[w] = true
      end
    end
    if c.name == "mkdir" then
      -- the folders the line makes are its own to give a mode or owner
      -- (sudo mkdir -p /opt/app && sudo chown dev /opt/app)
      for _, a in ipairs(c.args) do
        if not a.unknown and a.text:sub(1, 1) ~= "-" then
          made = made or {}
          made[resolve(a.text, cwd) or ""] = true
        end
      end
    end
    for _, w in ipairs(attr_changes(c)) do
      local why, instead, verdict = write_problem(w, cwd, true, ATTR)
      if why and made and not w.unknown and made[resolve(w.text, cwd) or ""] then why = nil end
      if why then
        if verdict ~= "ask" then return deny(why, instead, wcwd) end
        ask = ask or why .. "; " .. instead
      end
    end
    local ops, whole = removes(c)
    for _, w in ipairs(ops) do
      local why, instead, verdict = remove_problem(w, cwd, c.dir, whole, not whole)
      if why then
        if verdict ~= "ask" then return deny(why, instead, wcwd) end
        ask = ask or why .. "; " .. instead
      end
    end
    ops, whole = deleted(c)
    -- what mv moves into the project is kept there; moved out of its place
    -- outside the project into a scratch folder (mv ~/Documents/a.docx
    -- /tmp/), it is as good as deleted
    local away = false
    if c.name == "mv" and ws[1] and not ws[1].unknown then
      local dest = resolve(ws[1].text, cwd)
      away = dest ~= nil and dest:sub(1, 1) == "/" and not paths.inside(dest, cwd)
    end
    for _, w in ipairs(ops) do
      local why, instead, verdict = remove_problem(w, cwd, c.dir, whole, away, c.name == "mv" and not away)
      if why then
        if verdict ~= "ask" then return deny(why, instead, wcwd) end
        ask = ask or why .. "; " .. instead
      end
    end
    if c.name == "find" and type(cwd) == "string" then
      local root = paths.clean(cwd)
      for _, w in ipairs(find_names(c, cwd)) do
        local why, instead, verdict = project_problem(w, root .. "/" .. w.text, root)
        if not why then why, instead, verdict = dump_problem(w, "delete") end
        if why then
          if verdict ~= "ask" then return deny(why, instead, wcwd) end
          ask = ask or why .. "; " .. instead
        end
      end
    end
    for _, w in ipairs(arg_files(c)) do
      local why, instead = read_problem(w, cwd)
      if why then return deny(why, instead, wcwd) end
    end
    if not TEXT_ONLY[c.name or ""] then
      -- a remover's operands, and the keychain macOS's security
      -- delete-keychain deletes, are deleted, not read
      local first = c.args[1]
      local problem = (REMOVERS[c.name or ""] or c.name == "security" and first and first.text == "delete-keychain")
        and delete_secret_problem or read_problem
      -- a program that shows what it reads reads a deploy tool's state
      -- [rule deploy-state] and a dump [rule data-dump], but for one that
      -- only loads, packs or copies a dump (psql -f dump.sql, gzip
      -- backup.sql) or feeds it to one (zcat dump.sql.gz | psql)
      local shows = problem == read_problem and SHOWS[c.name or ""]
      local dumps = shows and not DUMP_QUIET[c.name] and not loads(c, cmds)
      for k, w in ipairs(c.args) do
        -- a wholly unknown word ($VAR, $(…)) may be a key file only for a
        -- program that reads the files it is given (secrets.unknown_read);
        -- a computed path deleted is a key file only by its literal tail
        -- (rm $D/.env, not rm -rf "$D/"* or rm /{}: see computed)
        if not written[w] and not key_use(c, k) and (not w.whole or secrets.unknown_read(c, k, w)) and
          not (problem == delete_secret_problem and w.unknown and names_nothing(w, cwd)) then
          local why, instead = problem(w, cwd)
          if not why and shows and not w.whole then
            why, instead = state_problem(w)
            if not why and dumps then
              local d, dinstead, v = dump_problem(w, "read")
              if d and v ~= "ask" then why, instead = d, dinstead end
              if d and v == "ask" then ask = ask or d .. "; " .. dinstead end
            end
          end
          if why and not git_names_only(c) then return deny(why, instead, wcwd) end
        end
      end
    end
    if c.name == "find" then
      -- the files a find runs a command on, by its name tests
      local hit = secrets.find_selects(c, secret_file)
      if hit then return deny(read_problem(secrets.path_word(hit))) end
    end
    if GREPS[c.name or ""] then
      local r = grep_hunt(c, cwd)
      if r then return r end
    end
    for _, r in ipairs(c.redirs) do
      if r.op == "<" then
        local why, instead = read_problem(r.target, cwd)
        if not why then why, instead = state_problem(r.target) end
        if why then return deny(why, instead, wcwd) end
        if not DUMP_QUIET[c.name or ""] and not loads(c, cmds) then
          local d, dinstead, v = dump_problem(r.target, "read")
          if d and v ~= "ask" then return deny(d, dinstead, wcwd) end
          if d then ask = ask or d .. "; " .. dinstead end
        end
      end
    end
    for _, w in ipairs(inline_code(c)) do
      local why, instead = read_problem(w, cwd)
      if why then return deny(why, instead, wcwd) end
    end
    if pwsh.HOSTS[c.name or ""] then
      -- the code pwsh -c / -EncodedCommand runs is PowerShell's
      local inv = pwsh.invocation(c.args)
      local r = inv.code and judge_pwsh(inv.code, wcwd or cwd)
      if r then return r end
    end
    local run = code and runs_file(c)
    local src = run and not run.unknown and code[resolve(run.text, cwd) or ""]
    if src then
      for _, w in ipairs(code_words(src, {})) do
        local why, instead = read_problem(w)
        if why then return deny(why, instead, wcwd) end
      end
    end
  end
  return finish(err, ask, wcwd)
end

hook.register("PreToolUse", "@shell", function(input)
  -- The command line (shell.command's reading, made here: a hook that
  -- hands no table of its input to another function keeps the input's
  -- tables for the next call, and the usual call allocates nothing).
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  local cwd = input.cwd
  if pwsh.tool(input.toolName) then return judge_pwsh(line, cwd) end
  if #line < QUICK_MAX and not match(QUICK_STOP, line) then return nil end
  if type(cwd) == "string" and find(cwd, "^%a:[\\/]") then
    -- a shell tool of no known shell (Cursor's Shell runs PowerShell on
    -- Windows): a line in a Windows folder is read as PowerShell; Claude
    -- Code's Bash tool runs Git Bash there: a POSIX line (/c/Users/x,
    -- C:/Users/x and ~ the Windows home folder), as elsewhere
    if input.toolName ~= "Bash" then return judge_pwsh(line, cwd) end
    local r = judge_posix(line, pwsh.cwd(cwd), cwd)
    if r == nil and pwsh.looks(line) then r = judge_pwsh(line, cwd) end
    return r
  end
  -- a line that reads as PowerShell elsewhere is judged both ways
  local r = judge_posix(line, cwd)
  if r == nil and pwsh.looks(line) then r = judge_pwsh(line, cwd) end
  return r
end, { name = "pack-files-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
