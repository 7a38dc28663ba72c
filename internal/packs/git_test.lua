-- Tests for the git pack: the plain forms, the same commands hidden the
-- ways a shell and git allow, and everyday git that must pass.

local CWD = "/home/dev/project"

-- denied: the call is denied and, when this pack is the one that decided,
-- for the reason given (in a folder with other packs, one that runs first
-- may deny the same call for its own reason).
local function denied(r, sub)
  expect.denied(r)
  if r.reason:find("^git pack: ") then expect.denied(r, sub) end
end

local function bash(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = CWD,
    toolInput = { command = command } })
end

local blocked = {
  { "git push --force origin main", "force push to, or the deletion of, a protected branch" },
  { "git push -f origin master", "protected branch" },
  { "git push origin --delete main", "protected branch" },
  { "git push --force", "does not name its branch" },
  { "git push --force origin feature/login", "rewrites published history" },
  { "git reset --hard HEAD~3", "git reset --hard throws away uncommitted work" },
  { "git clean -fdx", "git clean -f" },
  { "git checkout -- .", "throws away uncommitted work" },
  { "git restore src/app.go", "git restore" },
  { "git stash drop", "git stash drop" },
  { "git commit --no-verify -m wip", "--no-verify" },
  { "git push --no-verify origin feature", "--no-verify" },
  { "git branch -D main", "protected branch" },
  { "git filter-branch --tree-filter 'rm -f x' HEAD", "rewriting the history" },
  { "git add .env", "committing .env" },
  { "git add config/prod.pem", "which may hold secrets" },
}

local bypasses = {
  { "git push origin +main", "protected branch" },
  { "git push origin HEAD:refs/heads/main --force-with-lease", "protected branch" },
  { "git push origin :master", "protected branch" },
  { "git push --mirror --force", "protected branch" },
  { "g''it pu\\sh --fo origin main", "protected branch" },
  { "sudo -u dev git -C /home/dev/project push -f origin main", "protected branch" },
  { "B=main; git push -f origin $B", "protected branch" },
  { "git push -f origin ma*", "protected branch" },
  { "sh -c 'git reset --hard origin/main'", "git reset --hard" },
  { "cd sub && git clean -xdf", "git clean -f" },
  { "git commit -anm 'quick fix'", "--no-verify" },
  { "git commit --no-veri -m x", "--no-verify" },
  { "git -c core.hooksPath=/dev/null commit -m x", "core.hooksPath" },
  { "git config core.hooksPath .nohooks", "core.hooksPath" },
  { "HUSKY=0 git commit -m x", "HUSKY=0" },
  { "git add -f .env.production", "committing .env.production" },
  { "git add '.e'nv", "committing .env" },
  { "git add ~/.ssh/id_rsa", "which may hold secrets" },
  { "git commit -m 'add keys' secrets/deploy.key", "which may hold secrets" },
  { "echo done; git update-ref -d refs/heads/main", "protected branch" },
  { "git branch --delete --force master", "protected branch" },
  { "git stash list && git reset --hard", "git reset --hard" },
}

local allowed = {
  "git status",
  "git push origin feature/login",
  "git push -u origin HEAD",
  "git push --force-with-lease origin feature/login",
  "git commit -m 'fix: handle .env parsing'",
  "git add src/ README.md .env.example",
  "git stash push --include-untracked && git reset --hard origin/main",
  "git commit -am wip && git clean -fdx",
  "git clean -n",
  "git reset --soft HEAD~1",
  "git restore --staged src/app.go",
  "git checkout -b feature/x",
  "git branch -d feature/old",
  "git log --oneline -20 | cat",
  "git fetch --all --prune && git rebase origin/main",
  "git diff main...HEAD",
}

for _, c in ipairs(blocked) do
  test("blocks " .. c[1], function()
    denied(bash(c[1]), c[2])
  end)
end

for _, c in ipairs(bypasses) do
  test("bypass caught: " .. c[1], function()
    denied(bash(c[1]), c[2])
  end)
end

for _, line in ipairs(allowed) do
  test("allows " .. line, function()
    expect.no_objection(bash(line))
  end)
end

test("the reason says what to do instead", function()
  local r = bash("git push --force origin feature")
  expect.denied(r, "git pack: blocked")
  expect.contains(r.reason, "--force-with-lease")
end)
