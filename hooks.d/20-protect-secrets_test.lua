-- Tests for 20-protect-secrets.lua.
--
-- The shell forms are built from the ways a shell lets a file name be
-- spelled (quotes, escapes, $'…', globs, braces, variables, $(…), case)
-- crossed with the programs that read or ship a file, wrappers and chains;
-- the tool forms from the argument names of the common agents' file tools.

local function read(path)
  return fire("PreToolUse", { toolName = "read", toolInput = { path = path } })
end

local function bash(command)
  return fire("PreToolUse", { toolName = "bash", toolInput = { command = command } })
end

local function pick(list, i) return list[(i - 1) % #list + 1] end

local secret = { ".env", "config/.env", ".env.local", ".env.production", "/home/me/.ssh/id_ed25519",
  "id_rsa", "certs/server.key", "tls/cert.pem", "store.p12", "/home/me/.aws/credentials", ".netrc",
  "/home/me/.ssh/id_rsa2", ".ENV", "server.KEY", "~/.git-credentials", "~/.ssh", ".env*", "**/.e*",
  "deploy.PFX", "~/.kube/config", "~/.docker/config.json", ".gnupg/private-keys-v1.d/x.key", "/etc/shadow",
  "~/.npmrc", "~/.pypirc", "~/.config/gh/hosts.yml", "~/.vault-token", "config/credentials.json", ".pgpass",
  "~/.aws", "~/.config/google-chrome/Default/Login Data", "/Users/me/Library/Keychains/login.keychain-db",
  "~/.local/share/keyrings/login.keyring", "~/.mozilla/firefox/x.default/cookies.sqlite", "**/.npmrc",
  -- a process's environment, a pod's token, Terraform state, histories
  "/proc/self/environ", "/proc/1/environ", "/var/run/secrets/kubernetes.io/serviceaccount/token",
  "infra/terraform.tfstate", "~/.bash_history", "~/.zsh_history",
  -- a glob of everything in a secrets folder
  "/home/me/.aws/**", "~/.ssh/*",
  -- the whole of the cloud CLIs' folders, tokens of other CLIs, service
  -- account keys, a Secret's manifest, Terraform variables, direnv's file
  "~/.aws/config", "~/.kube/cache/x.json", "kubeconfig", "~/.config/hub", "~/.m2/settings.xml",
  "keys/ci-service-account.json", "firebase-adminsdk-abc.json", "k8s/db-secret.yaml", "prod.tfvars", ".envrc",
  "staging.env", "**/*.pem", "**/*.tfvars" }

for _, path in ipairs(secret) do
  test("denies reading " .. path, function()
    expect.denied(read(path), "access to " .. path .. " is blocked")
  end)
end

-- A path with "//", "/./" or "dir/.." is the file it folds to, which the
-- reason names.
local folded = { ["/etc//shadow"] = "/etc/shadow", ["/etc/./shadow"] = "/etc/shadow",
  ["/etc/ssl/../shadow"] = "/etc/shadow", ["~/.ssh//id_ed25519"] = "~/.ssh/id_ed25519", ["config/../.env"] = ".env" }
for path, name in pairs(folded) do
  test("denies reading " .. path, function()
    expect.denied(read(path), "access to " .. name .. " is blocked")
  end)
end

local harmless = { ".env.example", "config/.env.sample", ".env.template", "README.md", "src/env.go",
  "id_rsa.pub", "keys.txt", "docs/environment.md", "monkey", ".envrc.md", "*", "src/**/*.go", ".env/bin/activate",
  "**/.env.example", "/etc/passwd", "/etc/hosts", "src/cookies.go", "internal/auth/credentials.go",
  -- a glob whose literal part is only an extension names no secret
  "*.json", "**/*.yaml", "src/**/*.yml", "foo.pub.pem", "certs/public.pem", "src/secrets.ts",
  -- public keys and ssh's own configuration hold no secret
  "/home/me/.ssh/id_ed25519.pub", "~/.ssh/config", "~/.ssh/known_hosts", "~/.ssh/authorized_keys",
  -- a glob that ends in * names its own files, not every extension
  "**/Dockerfile*", "src/**/config*", "terraform.tfvars.example" }

for _, path in ipairs(harmless) do
  test("allows reading " .. path, function()
    expect.no_objection(read(path))
  end)
end

-- Every file tool of the common agents, by its own argument names.
local tools = {
  { "Read", { file_path = "app/.env" } },
  { "read_file", { path = ".env" } },
  { "Write", { file_path = ".env", content = "X=1" } },
  { "write", { path = ".env", content = "X=1" } },
  { "Edit", { file_path = "deploy.pem", old_string = "a", new_string = "b" } },
  { "MultiEdit", { file_path = "id_rsa", edits = { { old_string = "a", new_string = "b" } } } },
  { "NotebookEdit", { notebook_path = ".env", new_source = "x" } },
  { "Grep", { pattern = "TOKEN", path = ".env" } },
  { "Grep", { pattern = "TOKEN", glob = ".env*" } },
  { "Glob", { pattern = "**/.env*" } },
  { "Glob", { pattern = "Cookies", path = "/home/me/.config/vivaldi/Default" } },
  { "glob", { pattern = "hosts.yml", dir_path = "/home/me/.config/gh" } },
  { "Grep", { pattern = "root", path = "/etc/shadow" } },
  { "Grep", { pattern = "aws_secret", path = "~/.aws" } },
  { "search_file_content", { pattern = "TOKEN", include = ".env.*" } },
  { "search_file_content", { pattern = "TOKEN", dir_path = "/home/me/.ssh", include = "id_*" } },
  { "LS", { path = "/home/me/.ssh" } },
  { "edit_file", { target_file = "config/.ENV.local" } },
  { "custom_reader", { files = { "a.txt", "secrets/prod.key" } } },
}
for _, t in ipairs(tools) do
  test("denies the " .. t[1] .. " tool on a secrets file", function()
    expect.denied(fire("PreToolUse", { toolName = t[1], toolInput = t[2] }), "is blocked: it may hold secrets")
  end)
end

-- A content search's pattern is text; its folder, its glob and a glob
-- tool's pattern name files.
local searches = {
  { "Grep", { pattern = "\\.env", path = "src" } },
  { "Grep", { pattern = ".env", glob = "*.ts" } },
  { "grep", { pattern = "id_rsa", glob = "**/*.md" } },
  { "search_file_content", { pattern = "process.env", include = "*.js", dir_path = "/home/me/app" } },
  { "Glob", { pattern = "**/*.go" } },
  { "Glob", { pattern = "src/**/*.ts", path = "/home/me/app" } },
  { "glob", { pattern = "*.md", dir_path = "/home/me/app/docs" } },
}
for _, t in ipairs(searches) do
  test("allows the " .. t[1] .. " tool on " .. (t[2].glob or t[2].include or t[2].pattern), function()
    expect.no_objection(fire("PreToolUse", { toolName = t[1], toolInput = t[2] }))
  end)
end

test("a host's capabilities make an unknown tool a shell", function()
  local r = fire("PreToolUse", { toolName = "exec", toolCapabilities = { "shell" }, toolInput = { command = "cat .e''nv" } })
  expect.denied(r, "the command touches .env")
end)

test("a host's capabilities without shell make a shell-named tool none", function()
  local r = fire("PreToolUse", { toolName = "bash", toolCapabilities = { "read" }, toolInput = { command = "cat .env" } })
  expect.no_objection(r)
end)

test("paths nested in the tool input are checked, under their own keys", function()
  local deep = { a = { b = { { c = { path = "x/.env" } } } } }
  expect.denied(fire("PreToolUse", { toolName = "custom", toolInput = deep }), "access to x/.env is blocked")
  local text = { edits = { { old_string = ".env", new_string = ".env" } } }
  expect.no_objection(fire("PreToolUse", { toolName = "custom", toolInput = text }))
end)

test("an argv command (Codex style) is read as a shell line", function()
  local r = fire("PreToolUse", { toolName = "shell", toolInput = { command = { "bash", "-lc", "cat .env" } } })
  expect.denied(r, "the command touches .env")
end)

test("the reason quotes the path cut and printable", function()
  local r = read(string.rep("a", 200) .. "\27[31m/.env")
  expect.denied(r, "is blocked")
  expect.truthy(not r.reason:find("\27", 1, true), "no escape character in the reason")
  expect.truthy(#r.reason < 160, "the reason is cut")
end)

-- File names as a shell spells them.
local names = { ".env", ".e\"\"nv", ".e\\nv", ".env*", ".en?", ".[e]nv", "{.env,x}", "'.env'", "$'\\x2eenv'",
  ".ENV", "server.KEY", "id_r{s,}a", "~/.ssh/id_rsa", "~/.git-credentials", "\"$HOME\"/.aws/credentials",
  "./config/../.env", ".env.prod*", "$(echo LmVudg== | base64 -d)", "$(printf .env)", "${F:-.env}", "$F",
  "~/.s*/id_*", "certs/*.p?m", "/root/.netrc", "~/.kube/config", "deploy.PFX", "`echo .env`", "$'\\056env'",
  ".\\e\\n\\v", "{a,b,.e}nv" }
-- Programs that read or ship a file.
local readers = { "cat %s", "head -c 100 %s", "grep -r x %s", "cp %s /tmp/x", "base64 < %s", "tar cz %s | base64",
  "curl -F f=@%s http://x", "less %s", "source %s", "awk 1 %s", "sed -n p %s", "xxd %s", "dd if=%s",
  "while read l; do echo $l; done < %s", "scp %s host:", "rsync %s host:/tmp/" }
local wrappers = { "", "sudo ", "env -i ", "nice ", "timeout 5 ", "command ", "xargs -0 " }
local chains = { "%s", "true && %s", "echo $(%s)", "(%s)", "bash -c \"%s\"", "ls; %s", "x=`%s`", "cat <(%s)" }

local shell_secret = {}
for i, n in ipairs(names) do
  for j = 0, 1 do
    local k = i * 2 + j
    local line = pick(wrappers, k) .. string.format(pick(readers, k + 1), n)
    local chain = pick(chains, k)
    if chain:find('"', 1, true) and line:find('["`$\\]') then chain = "%s" end
    line = string.format(chain, line)
    if n == "$F" then line = "F=.env; " .. line end
    shell_secret[#shell_secret + 1] = { line, "the command touches" }
  end
end
local more = {
  { "cat .env", "the command touches .env" },
  { "cp .env .env.bak", "the command touches .env" },
  { "sed -i s/a/b/ .env", "the command touches .env" },
  { "grep TOKEN config/.env.local", "the command touches config/.env.local" },
  { "cp ~/.ssh/id_rsa /tmp/k", "the command touches ~/.ssh/id_rsa" },
  { "scp -i key.pem host:x .", "the command touches key.pem" },
  { "tool --env-file=.env run", "the command touches .env" },
  { "echo $(cat .env)", "the command touches .env" },
  { "source .env && env", "the command touches .env" },
  { "git show HEAD:.env", "the command touches .env" },
  { "tar cz ~/.ssh | base64", "the command touches ~/.ssh" },
  { "cat ~/.git-credentials", "the command touches" },
  { "cat $(echo LmVudg==|base64 -d)", "the command touches" },
  { "python3 -c 'print(open(\".env\").read())'", "the command touches" },
  { "cat < .env", "the command touches .env" },
  { "F=.e; cat ${F}nv", "the command touches .env" },
  { "sudo cat /etc/shadow", "the command touches /etc/shadow" },
  { "less /etc/shadow", "the command touches /etc/shadow" },
  { "strings ~/Library/Keychains/login.keychain-db", "the command touches" },
  { "base64 -w0 ~/.docker/config.json", "the command touches ~/.docker/config.json" },
  { "tail ~/.vault-token", "the command touches ~/.vault-token" },
  { "grep -r oauth_token ~/.config/gh", "the command touches ~/.config/gh" },
  { "cp ~/.npmrc /tmp/n", "the command touches ~/.npmrc" },
  { "tar czf /tmp/a.tgz ~/.aws", "the command touches ~/.aws" },
  { "xxd ~/.pypirc | head", "the command touches ~/.pypirc" },
  { "python3 -c \"print(open('/etc/shadow').read())\"", "the command touches /etc/shadow" },
  { "node -e \"console.log(fs.readFileSync(process.env.HOME + '/.npmrc', 'utf8'))\"", "the command touches /.npmrc" },
  { "ruby -e 'puts File.read(\"/etc/shadow\")'", "the command touches /etc/shadow" },
  { "python3 - <<'EOF'\nimport pathlib\nprint((pathlib.Path.home() / '.vault-token').read_text())\nEOF",
    "the command touches .vault-token" },
  { "node <<< \"console.log(fs.readFileSync('/etc/shadow', 'utf8'))\"", "the command touches /etc/shadow" },
  { "cat /etc//shadow", "the command touches /etc/shadow" },
  { "sudo less /etc/x/../shadow", "the command touches /etc/shadow" },
  { "head -c 100 /etc/./shadow", "the command touches /etc/shadow" },
  { "cat /proc/self/environ", "the command touches /proc/self/environ" },
  { "tr '\\0' '\\n' < /proc/1/environ", "the command touches /proc/1/environ" },
  { "cat /var/run/secrets/kubernetes.io/serviceaccount/token", "the command touches" },
  { "cat terraform.tfstate | jq .", "the command touches terraform.tfstate" },
  { "cat ~/.bash_history | grep -i password", "the command touches ~/.bash_history" },
  { "find . -name '.env*' -exec cat {} +", "the command touches .env*" },
  { "cat list.txt | xargs cat", "the command touches" },
  { "cat \"$DIR/.env\"", "the command touches …/.env" },
}
for _, c in ipairs(more) do shell_secret[#shell_secret + 1] = c end

for _, c in ipairs(shell_secret) do
  test("denies the command " .. c[1], function()
    expect.denied(bash(c[1]), c[2])
  end)
end

local shell_harmless = { "cat .env.example", "ls -la", "printenv HOME", "go test ./...", "cat id_rsa.pub",
  "cat README.md", "grep -r TODO src", "echo $HOME", "git status", "git diff HEAD~1", "cat package.json",
  "grep -rn API_KEY src/", "cat src/env.go", "cat docs/environment.md", "ls ~/.config", "cat *.go", "grep x *",
  "wc -l *", "find . -name '*.ts'", "cat keys.txt", "vim main.go", "cat .envrc.md", "cat monkey",
  "cat .gitignore", "cat Makefile", "source venv/bin/activate", "source .env/bin/activate", "python -m venv .venv",
  "npm i dotenv", "echo .env >> .gitignore", "printf '%s\\n' .env.local >> .gitignore", "cp .env.example .env.sample",
  "git log --oneline -5", "curl -o file https://example.com/x", "docker compose up -d", "make test",
  "git commit -m \"$(cat <<'EOF'\nignore .env files\nEOF\n)\"", "ls -la ~/.config/nvim", "cat key.go",
  "grep -q '^.env$' .gitignore", "rm -rf node_modules", "go build -o bin/app ./cmd/app",
  -- a file the command only writes is not read: .env from its template
  "cp .env.example .env", "cat .env.example > .env", "cp -n .env.sample .env.local", "echo 'DEBUG=1' >> .env",
  "cat /etc/passwd", "cat internal/auth/credentials.go", "bash -c 'echo .env >> .gitignore'", "grep -rn FROM .docker",
  "python3 -c 'import json; print(json.load(open(\"package.json\"))[\"version\"])'",
  "node -e \"console.log(process.env.NODE_ENV)\"", "python3 - <<'EOF'\nprint(open('README.md').read())\nEOF",
  -- find's {} is what its tests select; a $VAR in a header, a credentials
  -- flag or a script is a value, not a file; <(…) is a pipe; a list's
  -- lines fed to curl are URLs; public keys and ssh's configuration
  "find . -type f -exec cat {} +", "find src -exec grep -l TODO {} +", "find . -name \"*.go\" -exec grep -l TODO {} +",
  "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user",
  "curl -s https://api.stripe.com/v1/charges -u \"$STRIPE_KEY:\"", "bash -c \"cd $PROJECT_DIR && npm test\"",
  "Remove-Item $env:TEMP\\build-cache -Recurse -Force", "source <(kubectl completion bash)",
  "cat list.txt | xargs -n1 curl -sO", "cat ~/.ssh/id_ed25519.pub", "ssh-keygen -lf ~/.ssh/id_ed25519.pub",
  "cat ~/.ssh/config", "cat ~/.ssh/known_hosts | wc -l", "ls ~/.ssh", "ls -la ~/.aws" }

for _, cmd in ipairs(shell_harmless) do
  test("allows the command " .. cmd, function()
    expect.proceeds(bash(cmd)) -- another policy of the folder may rewrite it (prefer-pnpm)
  end)
end

test("tool calls without input are not denied", function()
  expect.no_objection(fire("PreToolUse", { toolName = "read" }))
  expect.no_objection(fire("PreToolUse", { toolName = "bash" }))
end)

-- lib/secrets.lua holds the one list of secrets files; a pack or a policy
-- adds its own names through secrets.matcher.
test("secrets.matcher takes a policy's own names besides the shared list", function()
  local secrets = require("secrets")
  local w = secrets.path_word
  local mine = secrets.matcher({ "vault.yml", "deploy/keys/" })
  expect.truthy(mine.file(w("ansible/vault.yml")), "an added name")
  expect.truthy(mine.file(w("deploy/keys/prod.txt")), "an added folder")
  expect.eq(secrets.matcher().file(w("ansible/vault.yml")), nil)
  expect.truthy(mine.file(w(".env")), "the list's files")
  expect.truthy(mine.file(w("/etc/shadow")), "the list's machine files")
  expect.truthy(mine.file(w("/home/dev/.config/google-chrome/Default/Login Data")), "a browser profile")
  expect.eq(mine.file(w("config/.env.example")), nil)
  expect.eq(mine.file(w("**/.env.example")), nil)
  expect.truthy(re.match(mine.in_line, "cat ansible/vault.yml"), "in_line knows an added name")
  expect.truthy(not re.match(mine.in_line, "cat README.md"))
  -- file (what may not be committed) leaves out the machine's files a
  -- project may hold without a secret: an .npmrc naming a registry
  expect.eq(secrets.file(w(".npmrc")), nil)
  expect.truthy(secrets.file(w(".env")))
end)
