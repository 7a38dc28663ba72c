-- Tests for the files pack: file tools of several agents and shell
-- writes, the plain forms, the same paths spelled to slip through, and
-- everyday work inside the project that must pass.

local CWD = "/home/dev/project"

-- denied: the call is denied and, when this pack is the one that decided,
-- for the reason given (in a folder with other packs, one that runs first
-- may deny the same call for its own reason).
local function denied(r, sub)
  expect.denied(r)
  if r.reason:find("^files pack: ") then expect.denied(r, sub) end
end

local function tool(name, cap, args)
  return fire("PreToolUse", { toolName = name, toolCapabilities = { cap }, cwd = CWD, toolInput = args })
end
local function write(path) return tool("Write", "fs.write", { file_path = path, content = "x\n" }) end
local function edit(path) return tool("Edit", "fs.write", { file_path = path, old_string = "a", new_string = "b" }) end
local function read(path) return tool("Read", "fs.read", { file_path = path }) end
local function bash(command) return tool("Bash", "shell", { command = command }) end

-- Lazy forms, for the tables below: a case fires when it runs.
local function lazy(f) return function(...) local a = { ... }; return function() return f(unpack(a)) end end end
local W, E, R, B, T = lazy(write), lazy(edit), lazy(read), lazy(bash), lazy(tool)

local blocked = {
  { W("/etc/hosts"), "a write outside the project (/etc/hosts)" },
  { E("/home/dev/other/main.go"), "a write outside the project" },
  { W(".git/hooks/pre-commit"), "writing into .git/" },
  { E(".github/workflows/ci.yml"), "changing CI configuration" },
  { W(".gitlab-ci.yml"), "changing CI configuration" },
  { E("package-lock.json"), "run npm install" },
  { E("go.sum"), "run go mod tidy" },
  { W("Cargo.lock"), "cargo update" },
  { R("/home/dev/.ssh/id_ed25519"), "reading /home/dev/.ssh/id_ed25519" },
  { R(".env"), "reading .env" },
  { R("certs/server.pem"), "which may hold keys" },
  { R("/home/dev/.aws/credentials"), "which may hold keys" },
  { B("echo 'x' > /etc/motd"), "a write outside the project" },
}

local bypasses = {
  { W("../other/src/app.js"), "a write outside the project (/home/dev/other/src/app.js)" },
  { W("src/../../escape.txt"), "a write outside the project" },
  { W("~/.bashrc"), "a write outside the project" },
  { E("./.git/config"), "writing into .git/" },
  { E("sub/module/.git/HEAD"), "writing into .git/" },
  { E("frontend/pnpm-lock.yaml"), "run pnpm install" },
  { T("apply_patch", "fs.write", { command = "*** Begin Patch\n*** Update File: src/a.go\n@@\n-a\n+b\n*** Add File: ../../outside.txt\n+x\n*** End Patch\n" }), "a write outside the project" },
  { T("write_file", "fs.write", { file_path = "/home/dev/project/.github/workflows/release.yml", content = "on: push" }), "CI configuration" },
  { T("create", "fs.write", { path = "/usr/local/bin/tool", file_text = "#!/bin/sh" }), "outside the project" },
  { T("read_file", "fs.read", { absolute_path = "/home/dev/.kube/config" }), "which may hold keys" },
  { T("view", "fs.read", { path = "config/.env.production" }), "reading config/.env.production" },
  { B("cat ~/.ssh/id_rsa"), "which may hold keys" },
  { B('cat "$F"'), "which may hold keys" },
  { B("base64 < .env"), "reading .env" },
  { B("sudo tee /etc/cron.d/job <<< '* * * * * x'"), "a write outside the project" },
  { B("cp build/app /usr/local/bin/app"), "a write outside the project" },
  { B("sed -i 's/a/b/' .git/config"), "writing into .git/" },
  { B("printf x >> package-lock.json"), "run npm install" },
  { B("sh -c 'echo y > ../../x'"), "a write outside the project" },
  { B("mv deploy.yml .github/workflows/"), "changing CI configuration" },
}

local allowed = {
  W("src/app.go"),
  W("/home/dev/project/docs/guide.md"),
  E("package.json"),
  E(".github/CODEOWNERS"),
  E(".gitignore"),
  W("/tmp/scratch.txt"),
  R(".env.example"),
  R("src/env.go"),
  R("/home/dev/.gitconfig"),
  B("go test ./... > /tmp/test.log 2>&1"),
  B("echo '.env' >> .gitignore"),
  B("npm install && git add package-lock.json"),
  -- a value only known when the command runs is a key file only for a
  -- program that reads the files it is given
  B('git commit -m "$MSG"'),
  B('kubectl --context "$CTX" get pods'),
  B("cp config.example.yml config.yml"),
  B("ls -la > /dev/null"),
}

for _, c in ipairs(blocked) do
  test("blocks: " .. c[2], function() denied(c[1](), c[2]) end)
end
for i, c in ipairs(bypasses) do
  test("bypass caught " .. i .. ": " .. c[2], function() denied(c[1](), c[2]) end)
end
for i, r in ipairs(allowed) do
  test("allows everyday work " .. i, function() expect.no_objection(r()) end)
end

test("the reason says what to do instead", function()
  local r = edit("yarn.lock")
  expect.denied(r, "files pack: blocked editing the lockfile yarn.lock")
  expect.contains(r.reason, "run yarn install")
end)

test("the project is the cwd: a relative path is resolved against it", function()
  local r = fire("PreToolUse", { toolName = "Write", toolCapabilities = { "fs.write" }, cwd = "/home/dev/project/web",
    toolInput = { file_path = "../api/main.go", content = "x" } })
  expect.denied(r, "a write outside the project (/home/dev/project/api/main.go)")
end)
