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
  -- work thrown away, however the flags are spelled
  { "git checkout HEAD src/app.go", "git checkout of paths (src/app.go)" },
  { "git checkout main -- .", "git checkout of paths (.)" },
  { "git checkout HEAD~1 -- README.md docs/", "git checkout of paths" },
  { "git checkout .", "git checkout ." },
  { "git checkout src/app.go", "git checkout src/app.go" },
  { "git checkout './*.go'", "git checkout ./*.go" },
  { "git checkout -f main", "git checkout --force" },
  { "git checkout -qf feature", "git checkout --force" },
  { "git checkout --for main", "git checkout --force" },
  { "git checkout --pathspec-from-file=list.txt", "--pathspec-from-file" },
  { "git checkout -- --help", "git checkout of paths (--help)" },
  { "git checkout --ours .", "git checkout ." },
  -- --recurse-submodules takes its value only after =: checkout is the tree, main a path
  { "git checkout --recurse-submodules checkout main", "git checkout of paths (main)" },
  { "git checkout -f -b feature/z main", "git checkout --force" },
  { "git reset --merge ORIG_HEAD", "git reset --merge" },
  { "git reset --keep HEAD~2", "git reset --keep" },
  { "git reset --har", "git reset --hard" },
  { "/usr/bin/git reset -q --hard @{u}", "git reset --hard" },
  { "git switch -f main", "git switch --discard-changes" },
  { "git switch --discard-changes feature", "git switch --discard-changes" },
  { "git switch --force -c x", "git switch --discard-changes" },
  { "git restore .", "git restore" },
  { "git restore --staged --worktree src/", "git restore" },
  { "git restore -SW .", "git restore" },
  { "git restore --source=HEAD~2 app.go", "git restore" },
  { "git clean -f -d", "git clean -f" },
  { "git clean --force -x", "git clean -f" },
  { "git clean -dfx", "deletes untracked files" },
  { "git -c clean.requireForce=false clean -d", "git clean -f" },
  { "git commit -am wip && git clean -fdx", "deletes untracked files" },
  { "git stash && git clean -fd", "deletes untracked files" },
  { "git stash drop stash@{0}", "deletes stashed work" },
  { "git stash clear", "git stash clear" },
  { "git worktree remove --force ../app-hotfix", "git worktree remove --force" },
  { "git stash -u && git stash drop", "git stash drop" },
  { "git stash; git reset --hard", "git reset --hard" },
  { "git stash || git reset --hard", "git reset --hard" },
  { "git commit -m x; git checkout -- .", "git checkout of paths" },
  { "git stash & git reset --hard", "git reset --hard" },
  -- branches and refs
  { "git branch -D feature/old", "force-deleting a branch" },
  { "git branch -df feature/old", "force-deleting a branch" },
  { "git branch --delete --force feature/old", "force-deleting a branch" },
  { "git branch -d -f feature/old", "force-deleting a branch" },
  { "git update-ref -d refs/heads/feature", "deleting a ref with update-ref" },
  { "git update-ref refs/heads/main HEAD~3", "moving or deleting a protected branch" },
  -- force pushes that do not name the branch, mirrors, prunes
  { "git push -f", "does not name its branch" },
  { "git push --force origin", "does not name its branch" },
  { "git push --force-with-lease", "does not name its branch" },
  { "git push --force-with-lease origin", "does not name its branch" },
  { "git push --force-with-lease origin HEAD", "does not name its branch" },
  { "git push -f origin @", "does not name its branch" },
  { "git push origin +feature/login", "rewrites published history" },
  { "git push origin +HEAD:feature/login", "rewrites published history" },
  { "git push --mirror", "mirror push" },
  { "git push --mirror git@github.com:acme/app.git", "mirror push" },
  { "git push --prune origin 'refs/heads/*:refs/heads/*'", "--prune" },
  { "git push origin --delete master", "protected branch" },
  { "git push origin -d main", "protected branch" },
  -- history rewritten, the way back removed
  { "git filter-repo --path secrets --invert-paths", "rewriting the history" },
  { "git reflog expire --expire=now --all", "git reflog expire" },
  { "git reflog expire --expire-unreachable=now --all && git gc --prune=now", "git reflog expire" },
  { "git gc --prune=now --aggressive", "git gc --prune=now" },
  { "git gc --prune=all", "git gc --prune=all" },
  { "git reflog delete HEAD@{1}", "git reflog delete" },
  { "git prune", "git prune" },
  { "git prune --expire=now", "git prune" },
  { "bash -c 'cd repo && git reset --hard'", "git reset --hard" },
  { "echo $(git clean -fdx)", "git clean -f" },
}

local allowed = {
  "git status",
  -- HUSKY=0 here is a file rm removes, after a program path the parser cleans
  "/usr/bin/../bin/rm -i 'HUSKY=0' git commit -m x",
  "git push origin feature/login",
  "git push -u origin HEAD",
  "git push --force-with-lease origin feature/login",
  "git commit -m 'fix: handle .env parsing'",
  "git add src/ README.md .env.example",
  "git stash push --include-untracked && git reset --hard origin/main",
  "git stash push -u && git clean -fdx",
  "git add -A && git stash --include-untracked && git clean -fd",
  "git stash && git reset --hard",
  "git commit -am wip && git reset --hard origin/main",
  "git restore --help",
  "git restore -h",
  "git reset --hard --help",
  "git push --force --help",
  "git checkout --help",
  "git reset --help",
  "git clean --help",
  "git clean -n -d",
  "git clean -fdn",
  "git clean --dry-run -fx",
  "git clean -d -x",
  "git checkout main",
  "git checkout -",
  "git checkout -b feature/x origin/feature/x",
  "git checkout -B hotfix",
  "git checkout --track origin/feature/y",
  "git checkout v1.2.3",
  "git checkout HEAD~2",
  "git checkout --orphan gh-pages",
  "git checkout --theirs package-lock.json",
  -- git refuses paths when it makes or tracks a branch or detaches HEAD,
  -- and -U/--inter-hunk-context (checkout -p) take a value
  "git checkout --track direct main",
  "git checkout -t origin/main src/app.go",
  "git checkout -b feature/z main -- src/app.go",
  "git checkout --detach main src/app.go",
  "git checkout --unified 3 main",
  "git checkout --inter-hunk-context 3 main",
  "git checkout -U3 main",
  "git switch feature/x",
  "git switch -c feature/y",
  "git switch -",
  "git stash",
  "git stash pop",
  "git stash list",
  "git stash show -p stash@{0}",
  "git stash apply",
  "git reset HEAD src/app.go",
  "git reset",
  "git reset --mixed HEAD~1",
  "git push origin feature",
  "git push --force-with-lease origin feature",
  "git push --force-with-lease=feature origin feature",
  "git push origin --delete feature/old",
  "git push --tags",
  "git push -u origin HEAD:feature/z",
  "git branch -a",
  "git branch --format='%(refname:short)'",
  "git branch -m old-name new-name",
  "git gc",
  "git gc --prune",
  "git gc --aggressive",
  "git prune -n",
  "git reflog",
  "git reflog show main",
  "git update-ref refs/heads/feature/x HEAD",
  "git rm --cached .env",
  "git log -p -- src/app.go",
  "git worktree remove ../app-hotfix",
  "git worktree add ../app-hotfix -b hotfix",
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

-- git rm -r of the whole tree deletes every tracked file; untracking
-- (--cached), a dry run and named paths pass.
for _, line in ipairs({ "git rm -rf .", "git rm -r .", "git rm -r -f -- .", "git rm -r '*'", "git rm -r :/",
  "sudo git rm -rq ./", "cd app && git rm --force -r .", "bash -c 'git rm -r .'" }) do
  test("blocks " .. line, function() denied(bash(line), "deletes every tracked file") end)
end
for _, line in ipairs({ "git rm -r --cached .", "git rm -r --cached -q .", "git rm -rn .", "git rm -r --dry-run .",
  "git rm -r build/old", "git rm src/app.go", "git rm -rf vendor/lib", "git rm . " }) do
  test("allows " .. line, function() expect.no_objection(bash(line)) end)
end

-- HUSKY=0 however the shell gives it to git.
for _, line in ipairs({ "bash -c 'HUSKY=0 git commit -m x'", "env HUSKY=0 git commit -m x",
  "export HUSKY=0 && git commit -m x", "HUSKY='0' git commit -m x", "sh -c \"HUSKY=0 git push\"",
  "env -i HUSKY=0 git commit -m x", "HUSKY_SKIP_HOOKS=1 git commit -m x", "eval 'HUSKY=0 git commit -m x'" }) do
  test("blocks " .. line, function() denied(bash(line), "HUSKY=0") end)
end
for _, line in ipairs({ "HUSKY=1 git commit -m x", "npx husky init", "git commit -m 'docs: HUSKY=0 is denied'",
  "grep -rn HUSKY .husky" }) do
  test("allows " .. line, function() expect.no_objection(bash(line)) end)
end

test("HUSKY=0 as an argument of another program is not a setting", function()
  expect.no_objection(bash("echo HUSKY=0 > notes.txt"))
end)

-- (plain lines too, which the quick checks would otherwise clear: another
-- program after the setting, or a git that only reads)
for _, line in ipairs({ "{ HUSKY=0 git commit -m x; }", "env H''USKY=0 git commit -m x", "export HUSKY=0",
  "(HUSKY=0 git push)", "HUSKY=0 npm test", "HUSKY=0 git status", "HUSKY_SKIP_HOOKS=true make build" }) do
  test("blocks " .. line, function() denied(bash(line), "HUSKY=0") end)
end

-- git branch -f/--force NAME resets an existing branch to another commit:
-- the commits only it held are lost [rule branch-force]. Creating,
-- listing and deleting merged branches pass.
for _, line in ipairs({ "git branch -f feature", "git branch --force feature origin/feature",
  "git branch --forc topic HEAD~2", "git branch -fq wip", "git -C web branch -f feature v1.2",
  "sh -c 'git branch -f release-candidate'", "git branch -f -- feature" }) do
  test("a branch moved by force is blocked: " .. line, function()
    denied(bash(line), "[rule branch-force]")
  end)
end
for _, line in ipairs({ "git branch feature", "git branch -f", "git branch -vv", "git branch --list 'feat*'",
  "git branch -d merged-topic", "git branch -m old-name new-name", "git branch --set-upstream-to origin/feature",
  "git branch -u origin/feature feature", "git branch --show-current" }) do
  test("allows " .. line, function() expect.no_objection(bash(line)) end)
end

-- After "--" every word of git worktree remove is a worktree's path: a
-- worktree named -f is removed the usual way, which refuses to drop changes.
for _, line in ipairs({ "git worktree remove -- -f", "git worktree remove -- --force", "git worktree remove ../wt" }) do
  test("allows " .. line, function() expect.no_objection(bash(line)) end)
end
for _, line in ipairs({ "git worktree remove -f ../wt", "git worktree remove --force ../wt -- x",
  "git worktree remove ../wt --force" }) do
  test("blocks " .. line, function() denied(bash(line), "git worktree remove --force") end)
end

-- A setting whose value git runs as a command line (a pager, an editor,
-- ssh, an fsmonitor, a diff or merge driver, a "!" alias), given with -c,
-- by git config, or by the environment (GIT_PAGER, GIT_SSH_COMMAND,
-- EDITOR): its command line is read as one, so that what it runs is judged.
for _, c in ipairs({
  { "git -c core.pager='git push --force origin main' log", "protected branch" },
  { "git -c alias.sync='!git reset --hard origin/main' sync", "git reset --hard" },
  { "git config alias.cleanup '!git clean -fdx'", "git clean -f" },
  { "git config --global core.sshCommand 'git push -f origin master'", "protected branch" },
  { "GIT_EDITOR='git stash drop' git commit", "git stash drop" },
  { "export GIT_PAGER='git checkout -- .'; git log", "throws away uncommitted work" },
  { "env GIT_SSH_COMMAND='git push --force origin main' git fetch", "protected branch" },
  { "git -c core.fsmonitor='git clean -fdx' status", "git clean -f" },
  { "git -C repo -c diff.external='git reset --hard' diff", "git reset --hard" },
  { "git config set --local sequence.editor 'git push --force origin main'", "protected branch" },
}) do
  test("a command line in a git setting is read: " .. c[1], function() denied(bash(c[1]), c[2]) end)
end
for _, line in ipairs({ "git -c core.pager=cat log", "git config --global core.editor 'code --wait'",
  "git config alias.lg 'log --oneline --graph'", "git config --global alias.amend '!git commit --amend --no-edit'",
  "GIT_PAGER=less git log", "git config core.fsmonitor true", "git config credential.helper store",
  "GIT_SSH_COMMAND='ssh -o IdentitiesOnly=yes' git fetch", "EDITOR=vim git commit" }) do
  test("a git setting that runs an everyday program passes: " .. line, function() expect.no_objection(bash(line)) end)
end
