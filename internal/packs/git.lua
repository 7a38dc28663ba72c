-- git: stops force pushes to protected branches, skipped hooks, discarded work, rewritten history and committed secrets
--
-- What it stops, in any git command a shell tool (@shell) runs (through
-- wrappers, chains, sh -c, $(…); read by lib/shell.lua and lib/git.lua):
--   - a force push (--force, -f, --force-with-lease, +ref, --mirror,
--     --all with force) to a protected branch, and deleting one (push
--     --delete, push :main, branch -d/-D, update-ref -d);
--   - rewriting published history: a force push that is not
--     --force-with-lease naming its branch, filter-branch, filter-repo,
--     branch -f/-m of a protected branch;
--   - work thrown away: reset --hard, clean -f (not -n), checkout -f,
--     checkout -- PATH / checkout ., restore of the work tree, switch
--     --discard-changes, stash drop/clear; let through when the same
--     command line stashes or commits first (git stash -u && git reset
--     --hard ...);
--   - skipped checks: --no-verify (commit -n too), -c core.hooksPath=…,
--     git config core.hooksPath, HUSKY=0;
--   - committing secrets files: git add / git commit of .env, *.pem,
--     id_rsa, ... (lib/secrets.lua's file list; .env.example passes).
-- Why: each loses work or history others rely on, or lets a secret or
-- an unchecked change leave the machine. The reason says what to run
-- instead.
--
-- Settings (SETTINGS below):
--   protected_branches  branch names or globs ({ "main", "master" })
--   discard             "deny" (default) or "ask": what a command that
--                       throws away uncommitted work gets
--   allow_lease         true: --force-with-lease to a named branch that
--                       is not protected passes (rebased feature branches)
--
-- What it cannot know: the payload has no repository state, so it cannot
-- tell whether there is uncommitted work (every discarding command is
-- judged as if there were), which branch is checked out (a force push
-- without a named branch is denied), or what "git add ." and "commit -a"
-- pick up (only named paths are checked for secrets files). Aliases
-- (git config alias.x) and scripts are not followed.

local shell = require("shell")
local git = require("git")
local secrets = require("secrets")

local SETTINGS = {
  protected_branches = { "main", "master" },
  discard = "deny",
  allow_lease = true,
}

local COMMIT = { short = { n = "no-verify", a = "all", v = "verbose", q = "quiet", s = "signoff", e = "edit",
    p = "patch", i = "include", o = "only", z = "null" },
  short_arg = { m = "message", F = "file", C = "reuse-message", c = "reedit-message", t = "template" },
  long = { "no-verify", "verify", "all", "amend", "verbose", "quiet", "signoff", "edit", "no-edit", "patch",
    "include", "only", "allow-empty", "allow-empty-message", "dry-run", "short", "porcelain", "status", "no-status",
    "reset-author", "no-post-rewrite", "interactive" },
  long_arg = { "message", "file", "author", "date", "template", "fixup", "squash", "reuse-message",
    "reedit-message", "cleanup", "trailer", "pathspec-from-file", "gpg-sign" } }
local ADD = { short = { f = "force", A = "all", u = "update", n = "dry-run", v = "verbose", p = "patch",
    i = "interactive", N = "intent-to-add", e = "edit" },
  long = { "force", "all", "update", "dry-run", "verbose", "patch", "interactive", "intent-to-add", "edit",
    "ignore-errors", "ignore-removal", "no-all", "renormalize", "refresh", "sparse" },
  long_arg = { "chmod", "pathspec-from-file" } }
local VERIFY_SUBS = { commit = true, push = true, merge = true, rebase = true, am = true, ["cherry-pick"] = true,
  revert = true, pull = true, ["commit-tree"] = false }

local function flag(g, pattern)
  for _, a in ipairs(g.args) do
    if a.text == "--" then return false end
    if a.text:find(pattern) then return true end
  end
  return false
end

local function operands(g, spec)
  return shell.options(g.args, spec).operands
end

local function protected(w)
  return w.unknown and w.whole or git.protected(w.pat, SETTINGS.protected_branches)
end

-- Each rule takes the git invocation, the command and the state of the
-- line so far; it returns the reason and what to do instead, or nil.

local function push(g)
  if not git.is(g, "push") then return nil end
  if git.force_push_protected(g.cmd, SETTINGS.protected_branches) then
    return "a force push to, or the deletion of, a protected branch (" ..
      table.concat(SETTINGS.protected_branches, ", ") .. ")",
      "push your work to a new branch and open a pull request"
  end
  local p = git.push(g)
  local forced = p.force
  for _, r in ipairs(p.refs) do forced = forced or r.plus end
  if not forced then return nil end
  if #p.refs == 0 or p.all then
    return "a force push that does not name its branch (the checked-out branch may be protected)",
      "name it: git push --force-with-lease origin <your-branch>"
  end
  if not (SETTINGS.allow_lease and p.lease) then
    return "a force push that rewrites published history",
      "use git push --force-with-lease origin <your-branch>, which refuses to drop others' commits"
  end
  return nil
end

local function history(g)
  local s = g.sub.text
  if s == "filter-branch" or s == "filter-repo" then
    return "rewriting the history of the whole repository", "ask the user to run it themselves"
  end
  if s == "branch" then
    local del = flag(g, "^%-[^-]*[dDmMfC]") or flag(g, "^%-%-delete") or flag(g, "^%-%-move") or
      flag(g, "^%-%-force") or flag(g, "^%-%-copy")
    if del then
      for _, w in ipairs(g.args) do
        if not w.text:find("^%-") and protected(w) then
          return "deleting, renaming or moving a protected branch",
            "work on your own branch; ask the user to change " .. shell.printable(w.text)
        end
      end
    end
  end
  if s == "update-ref" and flag(g, "^%-d$") then
    for _, w in ipairs(g.args) do
      if not w.text:find("^%-") and protected(w) then
        return "deleting a protected branch", "work on your own branch"
      end
    end
  end
  return nil
end

local function discards(g)
  local s = g.sub.text
  if s == "reset" and flag(g, "^%-%-hard$") then return "git reset --hard" end
  if s == "reset" and (flag(g, "^%-%-merge$") or flag(g, "^%-%-keep$")) then return nil end
  if s == "clean" and flag(g, "^%-[^-]*f") or (s == "clean" and flag(g, "^%-%-force")) then
    if not (flag(g, "^%-[^-]*n") or flag(g, "^%-%-dry")) then return "git clean -f" end
  end
  if s == "checkout" then
    if flag(g, "^%-[^-]*f$") or flag(g, "^%-%-force$") then return "git checkout --force" end
    for k, a in ipairs(g.args) do
      if a.text == "--" and g.args[k + 1] then return "git checkout -- <paths>" end
      if a.text == "." then return "git checkout ." end
    end
  end
  if s == "restore" then
    local staged = flag(g, "^%-%-staged$") or flag(g, "^%-[^-]*S")
    local worktree = flag(g, "^%-%-worktree$") or flag(g, "^%-[^-]*W")
    if not staged or worktree then return "git restore" end
  end
  if s == "switch" and (flag(g, "^%-%-discard%-changes") or flag(g, "^%-f$") or flag(g, "^%-%-force")) then
    return "git switch --discard-changes"
  end
  if s == "stash" and g.args[1] and (g.args[1].text == "drop" or g.args[1].text == "clear") then
    return "git stash " .. g.args[1].text
  end
  return nil
end

local function saves(g)
  local s = g.sub.text
  if s == "commit" then return true end
  if s == "stash" then
    local a = g.args[1]
    return a == nil or a.text:find("^%-") ~= nil or a.text == "push" or a.text == "save"
  end
  return false
end

local function skips_checks(g)
  for _, c in ipairs(g.config) do
    if c:lower():find("^core%.hookspath") then
      return "turning the git hooks off (core.hooksPath)", "let the hooks run and fix what they report"
    end
  end
  if g.sub.text == "config" then
    for _, a in ipairs(g.args) do
      if a.text:lower() == "core.hookspath" then
        return "changing core.hooksPath", "let the repository's hooks run"
      end
    end
  end
  if VERIFY_SUBS[g.sub.text] or g.sub.unknown then
    local nv = flag(g, "^%-%-no%-verify$") or flag(g, "^%-%-no%-v[erif]*$")
    if g.sub.text == "commit" and not nv then nv = shell.options(g.args, COMMIT).flags["no-verify"] == true end
    if nv then
      return "skipping the git hooks (--no-verify)",
        "run without --no-verify and fix what the hooks report"
    end
  end
  return nil
end

local function commits_secrets(g)
  local ops
  if g.sub.text == "add" then
    ops = operands(g, ADD)
  elseif g.sub.text == "commit" then
    ops = operands(g, COMMIT)
  else
    return nil
  end
  for _, w in ipairs(ops) do
    local hit = secrets.file(w)
    if hit then
      return "committing " .. shell.printable(hit) .. ", which may hold secrets",
        "leave it out, add it to .gitignore, and commit a template (.env.example) instead"
    end
  end
  return nil
end

local function deny(why, instead)
  return hook.deny("git pack: blocked " .. why .. "; " .. instead .. ".")
end

hook.register("PreToolUse", "@shell", function(input)
  local line = shell.command(input.toolInput)
  if not line then return nil end
  if re.match([[(^|[\s;&|(])HUSKY=0\b]], line) then
    return deny("skipping the git hooks (HUSKY=0)", "let the hooks run and fix what they report")
  end
  local cmds, err = shell.parse(line)
  local saved = false
  for _, c in ipairs(cmds) do
    local g = git.parse(c)
    if g then
      g.cmd = c
      for _, rule in ipairs({ push, history, skips_checks, commits_secrets }) do
        local why, instead = rule(g)
        if why then return deny(why, instead) end
      end
      local what = discards(g)
      if what and not saved then
        local why = what .. " throws away uncommitted work, which this hook cannot see"
        local instead = "commit or run git stash push --include-untracked first (in the same command), or ask the user"
        if SETTINGS.discard == "ask" then
          return hook.ask("git pack: " .. why .. ". Allow it?")
        end
        return deny(why, instead)
      end
      if saves(g) then saved = true end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
end, { name = "pack-git", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
