-- git: stops force pushes to protected branches, skipped hooks, discarded work, rewritten history and committed secrets
--
-- What it stops, in any git command a shell tool (@shell) runs (through
-- wrappers, chains, sh -c, $(…); read by lib/shell.lua and lib/git.lua):
--   - a force push (--force, -f, --force-with-lease, +ref, --mirror,
--     --all with force) to a protected branch, and deleting one (push
--     --delete, push :main, branch -d/-D, update-ref -d);
--   - a force push that does not name its branch (git push -f, push
--     --force origin, a lease to HEAD), a mirror push, push --prune;
--   - a published tag deleted from the remote (push --delete origin v1.0,
--     push origin :refs/tags/v1.0, "tag NAME", --delete --tags): a name
--     shaped like a release or under refs/tags/ [rule remote-tag-delete]
--     (deleting a remote feature branch passes); a dry run (-n) passes;
--   - the repository pushed to a host the line itself names: a URL (git
--     push https://host/r.git, git@host:r.git, --repo=URL), or a remote
--     the line adds or points elsewhere (remote add|set-url, git config or
--     -c remote.X.url|pushurl, url.X.pushInsteadOf), asked about by
--     default [rule push-url] (SETTINGS.push_urls, push_hosts); a remote
--     set up before (git push origin main) and a local path pass;
--   - rewriting published history: a force push that is not
--     --force-with-lease naming its branch, filter-branch, filter-repo,
--     branch -f/-m of a protected branch, update-ref of one;
--   - lost branches and recovery: branch -D (--delete --force), update-ref
--     -d, reflog expire/delete of recent entries, gc --prune=now, prune;
--     branch -f/--force NAME, which resets an existing branch elsewhere
--     and drops the commits only it held [rule branch-force]; a forced
--     fetch into a local branch (fetch -f origin main:main, +src:dst), the
--     same loss [rule fetch-force];
--   - work thrown away: reset --hard/--merge/--keep, clean -f (not -n,
--     whatever the flag order), checkout -f, checkout of paths (a ref and
--     paths, -- PATH, ., a file), restore of the work tree, switch -f /
--     --discard-changes, worktree remove -f (a -f after -- is a path),
--     stash drop/clear; plumbing that overwrites the tree, checkout-index
--     -f (not --prefix=dir/ or --temp) and read-tree --reset -u (-m -u
--     refuses to) [rule plumbing-discard]; submodule deinit/update --force,
--     whose changes no stash here keeps [rule submodule-discard]; let
--     through when the same line
--     saves the work first, joined by && only (git stash && git reset
--     --hard; clean needs git stash -u, a commit does not hold untracked
--     files); --help (and a lone -h) only print help;
--   - skipped checks: --no-verify (commit -n too), -c core.hooksPath=…,
--     git config core.hooksPath set to /dev/null, a folder outside the
--     project or one the line does not show (the project's own folder of
--     hooks, .githooks or .husky/_, and reading or unsetting it pass),
--     HUSKY=0 (as a prefix, through env or export, inside sh -c),
--     HUSKY_SKIP_HOOKS=1;
--   - the whole tree removed: git rm -r . (or *, :/), which deletes every
--     tracked file from the work tree (git rm -r --cached . passes: it
--     only untracks);
--   - committing secrets files: git add / git commit of .env, *.pem,
--     id_rsa, ... (lib/secrets.lua's file list; .env.example passes).
-- Why: each loses work or history others rely on, or lets a secret or
-- an unchecked change leave the machine. The reason says what to run
-- instead.
--
-- Set them in the config's [packs.git] table, over the defaults below.
-- Settings (SETTINGS below):
--   protected_branches  branch names or globs ({ "main", "master" })
--   discard             "deny" (default) or "ask": what a command that
--                       throws away uncommitted work gets
--   allow_lease         true: --force-with-lease to a named branch that
--                       is not protected passes (rebased feature branches:
--                       the lease refuses to drop commits it has not seen)
--   push_urls           "ask" (default), "deny" or "allow": what a push to a
--                       host the line itself names gets [rule push-url]
--   push_hosts          hosts such pushes go to freely ({}; "*.corp.example"
--                       takes its subdomains), e.g. { "github.com" }
--
-- What it cannot know: the payload has no repository state, so it cannot
-- tell whether there is uncommitted work (every discarding command is
-- judged as if there were), which branch is checked out (a force push
-- without a named branch is denied), or what "git add ." and "commit -a"
-- pick up (only named paths are checked for secrets files), or whether
-- a lone checkout operand is a branch or a file (one with a path or an
-- extension is taken for a file; git checkout --ours/--theirs FILE, conflict
-- resolution, passes). A setting whose value git runs as a command line
-- (core.pager, core.editor, core.sshCommand, core.fsmonitor, a diff or
-- merge driver, an alias or a credential helper that starts with "!"),
-- given with -c or by git config, and the variables a program runs
-- (GIT_PAGER, GIT_SSH_COMMAND, GIT_EDITOR, EDITOR, …) are read as command
-- lines by lib/shell.lua, so what they run is judged; an alias without
-- "!" (git -c alias.x='reset --hard' x, git config alias.x '…') and the
-- line git submodule foreach runs are read here as git command lines
-- (only by this pack's rules); scripts in files are not followed. A
-- subcommand in capitals (git RESET, which a case-blind file system
-- finds) is read in lower case.

local shell = require("shell")
local git = require("git")
local secrets = require("secrets")

local SETTINGS = hook.settings("git", {
  protected_branches = { "main", "master" },
  discard = "deny",
  allow_lease = true,
  push_urls = "ask",
  push_hosts = {},
})

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

-- released reports whether the ref a push deletes is a tag: refs/tags/…,
-- the word after "tag", or a bare name shaped like a release (v1.0, 2.3.1,
-- v2.0.0-rc1, v3); a branch (feature/x, fix-1.2) is not.
local function released(refs, k)
  local d = refs[k].dst
  return d:find("^refs/tags/") ~= nil or d:find("^v?%d+%.%d") ~= nil or d:find("^v%d+$") ~= nil or
    (k > 1 and refs[k - 1].dst == "tag" and not refs[k - 1].plus)
end

local function push(g)
  if not git.is(g, "push") then return nil end
  local p = git.push(g)
  -- a dry run (-n, --dry-run) only says what a push would do
  if p.flags["dry-run"] then return nil end
  if git.force_push_protected(g.cmd, SETTINGS.protected_branches) then
    return "a force push to, or the deletion of, a protected branch (" ..
      table.concat(SETTINGS.protected_branches, ", ") .. ")",
      "push your work to a new branch and open a pull request"
  end
  local tags_deleted = p.flags.delete and p.flags.tags
  for k, r in ipairs(p.refs) do
    if r.delete and released(p.refs, k) then tags_deleted = true end
  end
  if tags_deleted then
    return "deleting a published tag from the remote, which others may build or deploy from " ..
      "[rule remote-tag-delete]", "leave the tag and publish a new one (git tag v1.0.1 && git push origin v1.0.1), " ..
      "or ask the user to delete it"
  end
  local forced = p.force
  for _, r in ipairs(p.refs) do forced = forced or r.plus end
  if p.flags.mirror then
    return "a mirror push, which overwrites and deletes every branch of the remote",
      "push the branches you mean: git push origin <your-branch>"
  end
  if p.flags.prune then
    return "a push with --prune, which deletes the remote branches you have no copy of",
      "delete a branch by name: git push origin --delete <your-branch>"
  end
  if not forced then return nil end
  local unnamed = #p.refs == 0 or p.all
  for _, r in ipairs(p.refs) do
    local d = r.dst:gsub("^refs/heads/", "")
    if d == "HEAD" or d == "@" or d == "" then unnamed = true end
  end
  if unnamed then
    return "a force push that does not name its branch (the checked-out branch may be protected)",
      "name it: git push --force-with-lease origin <your-branch>"
  end
  if not (SETTINGS.allow_lease and p.lease) then
    return "a force push that rewrites published history",
      "use git push --force-with-lease origin <your-branch>, which refuses to drop others' commits"
  end
  return nil
end

-- forced_delete reports whether a git branch command deletes a branch
-- whatever it holds: -D, or --delete (-d) with --force (-f).
local function forced_delete(g)
  local del, force = false, false
  for _, a in ipairs(g.args) do
    local t = a.text
    if t == "--" then break end
    if t:find("^%-[^-]") then
      if t:find("D", 2, true) then return true end
      del = del or t:find("d", 2, true) ~= nil
      force = force or t:find("f", 2, true) ~= nil
    elseif #t >= 5 and ("--delete"):sub(1, #t) == t then
      del = true
    elseif #t >= 5 and ("--force"):sub(1, #t) == t then
      force = true
    end
  end
  return del and force
end

-- forced_move reports whether a git branch command resets a branch that
-- may exist to another commit: -f/--force with a branch named and no
-- delete, move or copy option (-D is forced_delete's; -M/-C rename or copy
-- over one). A name after "--" is a branch name too.
local BRANCH = { short = { f = "force", d = "delete", D = "D", m = "move", M = "M", c = "copy", C = "C", r = "remotes",
    a = "all", l = "list", v = "verbose", q = "quiet", t = "track", i = "ignore-case" },
  short_arg = { u = "set-upstream-to" },
  long = { "force", "delete", "move", "copy", "remotes", "all", "list", "verbose", "quiet", "track", "no-track",
    "unset-upstream", "edit-description", "ignore-case", "omit-empty", "show-current", "create-reflog", "recurse-submodules",
    "column", "no-column", "merged", "no-merged", "contains", "no-contains", "abbrev", "no-abbrev", "color",
    "no-color" },
  long_arg = { "set-upstream-to", "sort", "points-at", "format" } }
local function forced_move(g)
  local o = shell.options(g.args, BRANCH)
  local f = o.flags
  if not f.force or f.delete or f.D or f.move or f.M or f.copy or f.C or f.list then return false end
  return #o.operands > 0
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
  if s == "update-ref" then
    for _, w in ipairs(g.args) do
      if not w.text:find("^%-") and protected(w) then
        return "moving or deleting a protected branch", "work on your own branch"
      end
    end
    if flag(g, "^%-d$") then
      return "deleting a ref with update-ref (the commits only it reaches are lost)",
        "delete a merged branch with git branch -d <branch>"
    end
  end
  if s == "branch" and forced_delete(g) then
    return "force-deleting a branch (git branch -D), which loses the commits not merged elsewhere",
      "use git branch -d <branch>, which refuses to drop unmerged work, or ask the user"
  end
  if s == "branch" and forced_move(g) then
    return "moving an existing branch by force (git branch -f), which loses the commits only it held " ..
      "[rule branch-force]", "create a new branch (git branch <new-name> <start>), or ask the user"
  end
  return nil
end

-- The option specs of the subcommands that can throw work away, read
-- the way git reads them (a -b value is not a path, --har is --hard).
local CHECKOUT = { short = { f = "force", q = "quiet", m = "merge", p = "patch", t = "track", l = "l", d = "detach" },
  short_arg = { b = "b", B = "B", U = "unified" },
  long = { "force", "quiet", "merge", "patch", "track", "no-track", "detach", "guess", "no-guess", "ours", "theirs",
    "progress", "no-progress", "overlay", "no-overlay", "ignore-skip-worktree-bits", "overwrite-ignore",
    "no-overwrite-ignore", "recurse-submodules", "no-recurse-submodules", "ignore-other-worktrees",
    "pathspec-file-nul" },
  long_arg = { "orphan", "conflict", "pathspec-from-file", "unified", "inter-hunk-context" } }
local CHECKOUT_INDEX = { short = { a = "all", f = "force", u = "index", q = "quiet", n = "no-create", z = "z" },
  long = { "all", "force", "index", "quiet", "no-create", "stdin", "temp", "ignore-skip-worktree-bits" },
  long_arg = { "prefix", "stage" } }
local READ_TREE = { short = { m = "merge", u = "update", i = "i", n = "dry-run", v = "verbose" },
  long = { "reset", "dry-run", "empty", "verbose", "trivial", "aggressive", "quiet", "no-sparse-checkout",
    "recurse-submodules", "no-recurse-submodules" },
  long_arg = { "prefix", "index-output", "exclude-per-directory" } }
local RESET = { short = { q = "quiet", p = "patch", N = "intent-to-add" },
  long = { "hard", "soft", "mixed", "merge", "keep", "quiet", "no-quiet", "patch", "intent-to-add", "refresh",
    "no-refresh", "recurse-submodules", "no-recurse-submodules", "pathspec-file-nul" },
  long_arg = { "pathspec-from-file" } }
local CLEAN = { short = { f = "force", d = "d", x = "x", X = "X", n = "dry-run", q = "quiet", i = "interactive" },
  short_arg = { e = "exclude" },
  long = { "force", "dry-run", "quiet", "interactive" }, long_arg = { "exclude" } }
local SWITCH = { short = { f = "discard-changes", q = "quiet", m = "merge", t = "track", d = "detach" },
  short_arg = { c = "create", C = "force-create" },
  long = { "discard-changes", "force", "merge", "quiet", "track", "no-track", "detach", "guess", "no-guess",
    "progress", "no-progress", "recurse-submodules", "no-recurse-submodules", "ignore-other-worktrees" },
  long_arg = { "create", "force-create", "orphan", "conflict" } }
local RESTORE = { short = { S = "staged", W = "worktree", p = "patch", q = "quiet", m = "merge" },
  short_arg = { s = "source" },
  long = { "staged", "worktree", "patch", "quiet", "progress", "no-progress", "ours", "theirs", "merge",
    "ignore-unmerged", "overlay", "no-overlay", "recurse-submodules", "no-recurse-submodules",
    "ignore-skip-worktree-bits", "pathspec-file-nul" },
  long_arg = { "source", "conflict", "pathspec-from-file" } }
local STASH_SAVE = { short = { u = "include-untracked", a = "all", k = "keep-index", p = "patch", q = "quiet",
    S = "staged" },
  short_arg = { m = "message" },
  long = { "include-untracked", "all", "keep-index", "no-keep-index", "patch", "quiet", "staged", "only-untracked",
    "pathspec-file-nul" },
  long_arg = { "message", "pathspec-from-file" } }

-- help reports whether git would only print the subcommand's help: a
-- --help anywhere before "--", or a lone -h.
local function help(g)
  if #g.args == 1 and g.args[1].text == "-h" then return true end
  for _, a in ipairs(g.args) do
    if a.text == "--" then return false end
    if a.text == "--help" then return true end
  end
  return false
end

-- pathlike reports whether the one operand of a checkout names files
-- rather than a branch: ".", a path, a glob, a file with an extension.
local function pathlike(w)
  local t = w.text
  return w.glob or t == "." or t == ".." or t:find("^%.%.?/") ~= nil or t:find("^/") ~= nil or
    t:find("^:") ~= nil or t:find("%.%a%w*$") ~= nil
end

-- discards returns what a command that throws away uncommitted work does
-- and what must be saved first for it to be safe: "tracked" (a commit or
-- a stash keeps it) or "untracked" (only a stash -u/-a keeps it).
local function discards(g)
  local s = g.sub.text
  if s == "reset" then
    local f = shell.options(g.args, RESET).flags
    if f.hard then return "git reset --hard", "tracked" end
    if f.merge then return "git reset --merge", "tracked" end
    if f.keep then return "git reset --keep", "tracked" end
    return nil
  end
  if s == "clean" then
    local f = shell.options(g.args, CLEAN).flags
    local forced = f.force
    for _, c in ipairs(g.config) do
      if c:lower():find("^clean%.requireforce=") and not c:lower():find("=true$") then forced = true end
    end
    if forced and not f["dry-run"] then return "git clean -f", "untracked" end
    return nil
  end
  if s == "checkout" then
    local o = shell.options(g.args, CHECKOUT)
    if o.flags.force then return "git checkout --force", "tracked" end
    -- A branch made or tracked, or HEAD detached: git refuses paths then
    -- ("cannot update paths and switch to branch at the same time").
    local f = o.flags
    if f.b or f.B or f.orphan or f.track or f.detach then return nil end
    if f["pathspec-from-file"] then return "git checkout --pathspec-from-file", "tracked" end
    local dashdash = false
    for _, a in ipairs(g.args) do
      if a.text == "--" then dashdash = true; break end
    end
    local ops = o.operands
    if dashdash and #ops > 0 or #ops >= 2 then return "git checkout of paths (" ..
      shell.printable(ops[#ops].text, 40) .. ")", "tracked" end
    if #ops == 1 and pathlike(ops[1]) and
      not ((o.flags.ours or o.flags.theirs) and shell.target(ops[1]) ~= "cwd") then
      return "git checkout " .. shell.printable(ops[1].text, 40), "tracked"
    end
    return nil
  end
  if s == "restore" then
    local o = shell.options(g.args, RESTORE)
    if #o.operands == 0 and not o.flags["pathspec-from-file"] then return nil end
    if not o.flags.staged or o.flags.worktree then return "git restore", "tracked" end
    return nil
  end
  if s == "switch" then
    local f = shell.options(g.args, SWITCH).flags
    if f["discard-changes"] or f.force then return "git switch --discard-changes", "tracked" end
    return nil
  end
  if s == "worktree" and g.args[1] and g.args[1].text == "remove" then
    for k = 2, #g.args do
      local t = g.args[k].text
      -- after "--" every word is a worktree's path (git worktree remove -- -f)
      if t == "--" then break end
      if t == "-f" or t == "--force" or t == "-ff" then return "git worktree remove --force", "tracked" end
    end
    return nil
  end
  if s == "checkout-index" then
    -- -f overwrites the files of the work tree; a --prefix elsewhere or
    -- --temp writes copies beside it
    local f = shell.options(g.args, CHECKOUT_INDEX).flags
    local prefix = f.prefix
    if f.force and not f.temp and (prefix == nil or prefix == true or tostring(prefix):find("^%.?/?$")) then
      return "git checkout-index --force", "tracked", "plumbing-discard"
    end
    return nil
  end
  if s == "read-tree" then
    -- --reset -u overwrites changed files; -m -u refuses to (it stops on
    -- a file that is not up to date)
    local f = shell.options(g.args, READ_TREE).flags
    if f.reset and f.update and not f["dry-run"] then return "git read-tree --reset -u", "tracked", "plumbing-discard" end
    return nil
  end
  if s == "submodule" then
    -- git submodule [--quiet] deinit|update … --force: the submodules'
    -- own changes, which a commit or stash of this repository does not hold
    local k = 1
    while g.args[k] and g.args[k].text:find("^%-") do k = k + 1 end
    local verb = g.args[k] and g.args[k].text
    if verb ~= "deinit" and verb ~= "update" then return nil end
    for j = k + 1, #g.args do
      local t = g.args[j].text
      if t == "--" then break end
      if t == "-f" or (#t >= 5 and ("--force"):sub(1, #t) == t) then
        return "git submodule " .. verb .. " --force", "submodule", "submodule-discard"
      end
    end
    return nil
  end
  if s == "stash" and g.args[1] and (g.args[1].text == "drop" or g.args[1].text == "clear") then
    return "git stash " .. g.args[1].text, "stash"
  end
  return nil
end

-- saves returns what a command keeps of the uncommitted work: "tracked"
-- (a commit, a plain stash) or "untracked" (a stash with -u or -a), or nil.
local function saves(g)
  local s = g.sub.text
  if s == "commit" then return "tracked" end
  if s == "stash" then
    local a = g.args[1]
    local from = 1
    if a and (a.text == "push" or a.text == "save") then from = 2
    elseif a and not a.text:find("^%-") then return nil end
    local rest = {}
    for k = from, #g.args do rest[#rest + 1] = g.args[k] end
    local f = shell.options(rest, STASH_SAVE).flags
    return (f["include-untracked"] or f.all) and "untracked" or "tracked"
  end
  return nil
end

-- recent reports whether an expiry date given to reflog expire, gc
-- --prune or prune drops what was lost moments ago (now, all, minutes).
local function recent(v)
  if v == true or v == nil then return false end
  v = tostring(v):lower()
  return v == "now" or v == "all" or v == "0" or v:find("sec") ~= nil or v:find("min") ~= nil or
    v:find("hour") ~= nil or v:find("\0", 1, true) ~= nil
end

local REFLOG = { short = { n = "dry-run" }, long = { "all", "dry-run", "verbose", "rewrite", "updateref",
  "stale-fix", "single-worktree" }, long_arg = { "expire", "expire-unreachable" } }
local GC = { short = { q = "quiet" }, long = { "aggressive", "auto", "quiet", "force", "keep-largest-pack",
  "no-prune", "detach", "no-detach", "cruft", "no-cruft" }, long_arg = { "prune", "max-cruft-size" } }
local PRUNE = { short = { n = "dry-run", v = "verbose" }, long = { "dry-run", "verbose", "progress" },
  long_arg = { "expire" } }

-- recovery returns why a command destroys the way back to lost commits
-- (the reflog, unreachable objects), or nil.
local function recovery(g)
  local s = g.sub.text
  if s == "reflog" and g.args[1] and (g.args[1].text == "expire" or g.args[1].text == "delete") then
    local rest = {}
    for k = 2, #g.args do rest[#rest + 1] = g.args[k] end
    local f = shell.options(rest, REFLOG).flags
    if f["dry-run"] then return nil end
    if g.args[1].text == "delete" or recent(f.expire) or recent(f["expire-unreachable"]) then
      return "git reflog " .. g.args[1].text .. " of recent entries, the way back to lost commits",
        "leave the reflog alone; git gc expires it on its own schedule"
    end
  elseif s == "gc" then
    local a = g.args
    for _, w in ipairs(a) do
      -- --prune alone keeps the default grace period of two weeks
      local v = w.text:match("^%-%-prune=(.*)$")
      if v and recent(v) then
        return "git gc --prune=" .. shell.printable(v, 20) .. ", which deletes the commits only the reflog kept",
          "run git gc without --prune=now"
      end
    end
  elseif s == "prune" then
    local f = shell.options(g.args, PRUNE).flags
    if not f["dry-run"] and (f.expire == nil or recent(f.expire)) then
      return "git prune, which deletes every unreachable commit", "run git gc, which keeps two weeks of them"
    end
  end
  return nil
end

local function skips_checks(g)
  for _, c in ipairs(g.config) do
    if c:lower():find("^core%.hookspath") then
      return "turning the git hooks off (core.hooksPath)", "let the hooks run and fix what they report"
    end
  end
  if g.sub.text == "config" then
    -- reading it, or unsetting it (the hooks in .git/hooks run again),
    -- passes; so does the project's own folder of hooks (.githooks,
    -- .husky/_); a folder outside the project, /dev/null or one the line
    -- does not show turns the repository's hooks off
    for k, a in ipairs(g.args) do
      if a.text:lower() == "core.hookspath" then
        for _, b in ipairs(g.args) do
          if b.text:find("^%-%-get") or b.text == "--list" or b.text == "-l" or b.text:find("^%-%-unset")
            or b.text == "get" or b.text == "unset" then
            return nil
          end
        end
        local v = g.args[k + 1]
        if not v then return nil end
        local t = v.text
        if v.unknown or t == "" or t:find("^[/~$\\]") or t:find("^%a:") or t:find("%.%.") then
          return "changing core.hooksPath to " .. shell.printable(t, 40) .. ", outside the project's own hooks",
            "let the repository's hooks run"
        end
        return nil
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

-- RM are git rm's options; WHOLE_TREE the pathspecs that name every
-- tracked file (., *, :/ and their spellings).
local RM = { short = { r = "recursive", f = "force", n = "dry-run", q = "quiet" },
  long = { "cached", "force", "dry-run", "quiet", "ignore-unmatch", "sparse", "recursive" },
  long_arg = { "pathspec-from-file" } }
local WHOLE_TREE = { ["."] = true, ["./"] = true, ["*"] = true, ["./*"] = true, [":/"] = true, [":/*"] = true,
  [":/."] = true, [":(top)"] = true, [":(top)."] = true, ["**"] = true }

-- removes_tree: git rm -r of the whole tree deletes every tracked file
-- from the work tree (with -f, uncommitted changes too). --cached only
-- untracks them (the files stay: the everyday fix after a .gitignore
-- change), and -n only lists; both pass, as does rm of named paths.
local function removes_tree(g)
  if g.sub.text ~= "rm" then return nil end
  local o = shell.options(g.args, RM)
  if o.flags.cached or o.flags["dry-run"] or not o.flags.recursive then return nil end
  for _, w in ipairs(o.operands) do
    if not w.unknown and WHOLE_TREE[w.text] then
      return "git rm -r " .. w.text .. ", which deletes every tracked file from the work tree",
        "remove the paths you mean by name (git rm -r build/old), or untrack without deleting: git rm -r --cached ."
    end
  end
  return nil
end

-- FETCH are git fetch's options: a forced refspec (+src:dst, or --force)
-- whose destination is a local branch resets that branch the way git
-- branch -f does; one into refs/remotes/ or refs/tags/ is everyday fetching.
local FETCH = { short = { f = "force", a = "append", q = "quiet", v = "verbose", p = "prune", P = "prune-tags",
    t = "tags", n = "no-tags", k = "keep", u = "update-head-ok", m = "multiple" },
  short_arg = { j = "jobs", o = "server-option" },
  long = { "force", "all", "append", "atomic", "dry-run", "quiet", "verbose", "prune", "prune-tags", "tags",
    "no-tags", "keep", "multiple", "update-head-ok", "progress", "no-progress", "unshallow", "update-shallow",
    "write-fetch-head", "no-write-fetch-head", "auto-maintenance", "no-auto-maintenance", "auto-gc", "no-auto-gc",
    "show-forced-updates", "no-show-forced-updates", "set-upstream", "ipv4", "ipv6", "stdin", "porcelain",
    "refetch", "recurse-submodules", "no-recurse-submodules", "write-commit-graph", "no-write-commit-graph" },
  long_arg = { "depth", "deepen", "shallow-since", "shallow-exclude", "upload-pack", "jobs", "refmap",
    "server-option", "negotiation-tip", "filter", "recurse-submodules-default", "submodule-prefix" } }

local function fetch_force(g)
  if g.sub.text ~= "fetch" then return nil end
  local o = shell.options(g.args, FETCH)
  if o.flags["dry-run"] or o.flags.multiple or o.flags.all then return nil end
  for k = 2, #o.operands do
    local pat = o.operands[k].pat
    local plus = pat:sub(1, 1) == "+"
    local dst = pat:match(":([^:]+)$")
    if dst and (plus or o.flags.force) and not dst:find("^refs/remotes/") and not dst:find("^refs/tags/") then
      return "a forced fetch into the local branch " .. shell.printable(dst, 40) .. ", which resets it and " ..
        "loses the commits only it held [rule fetch-force]",
        "fetch into the remote-tracking branch (git fetch origin) and merge or rebase, or ask the user"
    end
  end
  return nil
end

local function deny(why, instead)
  return hook.deny("git pack: blocked " .. why .. "; " .. instead .. ".")
end

local RULES = { push, history, recovery, skips_checks, commits_secrets, removes_tree, fetch_force }

-- UNCHAINED matches a separator other than && (;, ||, |, &, a new line):
-- work saved by an earlier command is only taken as saved when every
-- command of the line runs only if the one before it succeeded.
local UNCHAINED = [[[;\n]|\|\||(^|[^&>])[&|]($|[^&>])]]

-- A plain line (shell.quick) whose program is not git is allowed without
-- parsing it, and so is a plain line that runs git with one of the
-- subcommands that only read (READ_ONLY, right after "git": no -c or -C
-- before it); every other git line is parsed. Both checks are made in the
-- hook itself (shell.quick's bound and pattern), with the word HUSKY among
-- the pattern's words (a literal: HUSKY_LINE's own expression made every
-- match slower), so that a line that could turn the hooks off is never
-- allowed by them and is read by HUSKY_LINE; the common calls (git
-- status, git diff, git log, a build or a test) cost two or three
-- regular-expression matches and no Lua call.

-- HUSKY=0 (and HUSKY_SKIP_HOOKS=1, husky 4's) turns husky's git hooks
-- off. HUSKY_LINE finds it where a command starts (the parser drops a
-- prefix assignment from the command it reads): on the raw line and in
-- the script of an sh -c / eval the parser reads; HUSKY_WORD in a word
-- of its own (env HUSKY=0, export HUSKY=0, quotes removed). A commit
-- message that mentions HUSKY=0 is neither.
local HUSKY = [[(?:HUSKY=["']?0["']?|HUSKY_SKIP_HOOKS=["']?(?:1|true)["']?)(?:\s|$)]]
local HUSKY_LINE = [[(?:^|[;&|({`\n]|\b(?:then|do|else|!))\s*]] ..
  [[(?:(?:export|env|declare|typeset|readonly|local)\s+(?:-\S*\s+)*)?(?:[A-Za-z_][A-Za-z0-9_]*=[^\s;&|]*\s+)*]] .. HUSKY
local HUSKY_WORD = "^" .. HUSKY
local DECLARES = { export = true, declare = true, typeset = true, readonly = true, ["local"] = true }
local HUSKY_WHY, HUSKY_INSTEAD = "skipping the git hooks (HUSKY=0)", "let the hooks run and fix what they report"

local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { git.PROGRAMS }, words = "HUSKY" })
local _, PLAIN_MAX, PLAIN_STOP = shell.quick({ words = "HUSKY" })
local READ_ONLY = [[^ *git +(?:status|diff|log|show|blame|shortlog|describe|rev-parse|ls-files|ls-tree|grep|]] ..
  [[version|whatchanged|cat-file|merge-base|rev-list|count-objects)(?: |$)]]

-- urlhost returns the host a push destination names when it is a URL
-- (scheme://[user@]host[:port]/…, or [user@]host:path as scp writes it),
-- or nil for a remote's name or a local path (file://, /mnt/x.git, ../r).
local function urlhost(t)
  local scheme, rest = t:match("^(%a[%w+.-]*)://(.*)$")
  if scheme then
    if scheme:lower() == "file" then return nil end
    local auth = (rest:match("^[^/]*"):gsub("^.*@", ""))
    return (auth:match("^%[([^%]]*)%]") or (auth:gsub(":.*$", ""))):lower()
  end
  local host = t:match("^([^/:]+):")
  if host and not t:find("^%a:[\\/]") then return (host:gsub("^.*@", "")):lower() end
  return nil
end

-- host_passes reports whether host is one of SETTINGS.push_hosts (a
-- "*.example.com" entry takes its subdomains).
local function host_passes(host)
  for _, h in ipairs(SETTINGS.push_hosts) do
    h = tostring(h):lower()
    if host == h or (h:sub(1, 2) == "*." and host:sub(-(#h - 1)) == h:sub(2)) then return true end
  end
  return false
end

-- REMOTE_KEY matches a setting that says where a remote's pushes go
-- (remote.NAME.url, remote.NAME.pushurl) and URL_KEY one that rewrites
-- every URL (url.BASE.insteadOf, url.BASE.pushInsteadOf): set with -c or
-- git config on the line, they send the next push to the URL they name.
local function remote_setting(key)
  local k = key:lower()
  local name = key:match("^[Rr][Ee][Mm][Oo][Tt][Ee]%.(.+)%.[^.]+$")
  if name and (k:find("%.url$") or k:find("%.pushurl$")) then return name, nil end
  local base = key:match("^[Uu][Rr][Ll]%.(.+)%.[^.]+$")
  if base and (k:find("%.insteadof$") or k:find("%.pushinsteadof$")) then return nil, base end
  return nil
end

local REMOTE_ADD = { short = { f = "fetch" }, short_arg = { t = "track", m = "master" },
  long = { "fetch", "tags", "no-tags", "push", "add", "delete" }, long_arg = { "mirror" } }

-- remotes notes in st the remotes a command defines or points elsewhere
-- (git remote add|set-url, git config remote.X.url, -c remote.X.url=…,
-- url.X.insteadOf): st.urls[name] = URL, st.last = the latest URL.
local function remotes(g, st)
  local function note(name, url)
    if name then st.urls[name] = url else st.rewrite = url end
    st.last = url
  end
  for _, c in ipairs(g.config) do
    local key, val = c:match("^([^=]+)=(.*)$")
    if key then
      local name, base = remote_setting(key)
      if name or base then note(name, base or val) end
    end
  end
  local s = g.sub.text
  if s == "remote" and g.args[1] and (g.args[1].text == "add" or g.args[1].text == "set-url") then
    local rest = {}
    for k = 2, #g.args do rest[#rest + 1] = g.args[k] end
    local ops = shell.options(rest, REMOTE_ADD).operands
    if ops[1] and ops[2] then note(ops[1].text, ops[2].text) end
  elseif s == "config" then
    for k, a in ipairs(g.args) do
      local name, base = remote_setting(a.text)
      if (name or base) and g.args[k + 1] then
        note(name, base or g.args[k + 1].text)
        break
      end
    end
  end
end

-- push_url returns the host a push sends the repository to when the line
-- itself names it (a URL, or a remote the line defines), or nil for a
-- push to a remote set up before (git push origin main).
local function push_url(g, st)
  if not git.is(g, "push") then return nil end
  local p = git.push(g)
  if p.flags["dry-run"] then return nil end
  local dest = p.flags.repo
  if type(dest) ~= "string" then dest = p.remote and p.remote.text end
  local url
  if dest == nil then url = st.last
  elseif st.urls[dest] then url = st.urls[dest]
  elseif urlhost(dest) then url = dest
  else
    for _, c in ipairs(g.config) do
      local key, val = c:match("^([^=]+)=(.*)$")
      if key and remote_setting(key) == dest then url = val end
    end
  end
  url = st.rewrite or url
  local host = url and urlhost(url)
  if host and not host_passes(host) then return host end
  return nil
end

-- foreach returns the command line git submodule foreach runs in every
-- submodule (its words after foreach and its options), or nil.
local function foreach(g)
  if g.sub.text ~= "submodule" then return nil end
  local k = 1
  while g.args[k] and g.args[k].text:find("^%-") do k = k + 1 end
  if not g.args[k] or g.args[k].text ~= "foreach" then return nil end
  k = k + 1
  while g.args[k] and (g.args[k].text == "--recursive" or g.args[k].text == "-q" or g.args[k].text == "--quiet") do
    k = k + 1
  end
  local words = {}
  for j = k, #g.args do words[#words + 1] = g.args[j].text end
  if #words == 0 then return nil end
  return table.concat(words, " ")
end

-- aliased returns the git command line an alias without "!" stands for:
-- the one run now (git -c alias.x='reset --hard' x) or the one set for
-- later (git config alias.x 'reset --hard'), or nil.
local function aliased(g)
  local sub = g.sub.text:lower()
  for _, c in ipairs(g.config) do
    local name, val = c:match("^[Aa][Ll][Ii][Aa][Ss]%.([^=]+)=(.*)$")
    if name and name:lower() == sub and val:sub(1, 1) ~= "!" then
      local parts = { "git", val }
      for _, a in ipairs(g.args) do parts[#parts + 1] = shell.quote(a.text) end
      return table.concat(parts, " ")
    end
  end
  if sub == "config" then
    for k, a in ipairs(g.args) do
      local v = g.args[k + 1]
      if a.text:lower():find("^alias%.") and v and v.text:sub(1, 1) ~= "!" then return "git " .. v.text end
    end
  end
  return nil
end

local check

-- inner checks a git command line a command holds (an alias, a submodule
-- foreach script) with the same rules; depth bounds the nesting.
local function inner(line, depth)
  if depth >= 4 then return deny("git commands nested too deep to check", "run the inner command directly") end
  local cmds, err = shell.parse(line)
  return check(cmds, err, line, depth + 1)
end

-- check returns the answer for the parsed commands of line (nil: no
-- objection).
check = function(cmds, err, line, depth)
  local st = { urls = {} }
  local saved
  local chained = nil
  for _, c in ipairs(cmds) do
    local g = git.parse(c)
    if g and not help(g) then
      g.cmd = c
      -- git  RESET: a subcommand git could find on a case-blind file system
      if g.sub.text:find("%u") then g.sub = { text = g.sub.text:lower(), unknown = g.sub.unknown } end
      remotes(g, st)
      local script = aliased(g) or foreach(g)
      if script then
        local v = inner(script, depth)
        if v then return v end
      end
      for _, rule in ipairs(RULES) do
        local why, instead = rule(g)
        if why then return deny(why, instead) end
      end
      local host = push_url(g, st)
      if host and SETTINGS.push_urls ~= "allow" then
        local why = "a push of the repository to " .. shell.printable(host, 60) .. ", a host this line names " ..
          "rather than a remote set up before it [rule push-url]"
        if SETTINGS.push_urls == "ask" then
          return hook.ask("git pack: " .. why .. "; the code leaves for a server nobody set up for this " ..
            "project. Allow it?")
        end
        return deny(why, "push to the project's own remote (git push origin <branch>), or ask the user to add " ..
          "the host to push_hosts")
      end
      local what, needs, rule = discards(g)
      if what and (needs == "stash" or needs == "submodule" or not (saved == "untracked" or saved == needs)) then
        local why = what .. " throws away uncommitted work, which this hook cannot see"
        local instead = "commit or run git stash push --include-untracked first (in the same command, joined " ..
          "by &&), or ask the user"
        if needs == "untracked" then
          why = what .. " deletes untracked files, which no commit holds"
          instead = "see what it would delete with git clean -n, stash them first (git stash push " ..
            "--include-untracked && ...), or ask the user"
        elseif needs == "stash" then
          why = what .. " deletes stashed work for good"
          instead = "leave the stash, or ask the user"
        elseif needs == "submodule" then
          why = what .. " throws away uncommitted work in the submodules, which no commit or stash of this " ..
            "repository holds"
          instead = "leave out --force (git refuses to drop changes without it), or ask the user"
        end
        if rule then why = why .. " [rule " .. rule .. "]" end
        if SETTINGS.discard == "ask" then
          return hook.ask("git pack: " .. why .. ". Allow it?")
        end
        return deny(why, instead)
      end
      local kept = saves(g)
      if kept then
        if chained == nil then chained = not re.match(UNCHAINED, line) end
        if chained and saved ~= "untracked" then saved = kept end
      end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  -- The command line, read here as shell.command reads it: a hook that
  -- hands no table of its input to another function keeps the input's
  -- tables for the next call (the usual call allocates nothing).
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  local n = #line
  if n < QUICK_MAX and not re.match(QUICK_STOP, line) then return nil end
  if n < PLAIN_MAX and not re.match(PLAIN_STOP, line) and re.match(READ_ONLY, line) then return nil end
  if re.match(HUSKY_LINE, line) then return deny(HUSKY_WHY, HUSKY_INSTEAD) end
  local cmds, err = shell.parse(line)
  do
    -- HUSKY=0 as the parser reads it (quotes removed: H''USKY=0): an env
    -- or export argument, or a prefix inside an sh -c / eval string
    for _, c in ipairs(cmds) do
      -- the words before the program (env HUSKY=0 git …), or the
      -- arguments of export and its kin
      local words = DECLARES[c.name or ""] and c.args or c.argv or {}
      for k, a in ipairs(words) do
        -- (by position: the program word may be a cleaned copy, /usr/bin/../bin/rm)
        if (k == c.word_at or a == c.word) and not DECLARES[c.name or ""] then break end
        if re.match(HUSKY_WORD, a.text) then return deny(HUSKY_WHY, HUSKY_INSTEAD) end
      end
      if c.script and c.inline and re.match(HUSKY_LINE, c.script.text) then
        return deny(HUSKY_WHY, HUSKY_INSTEAD)
      end
      if c.name == "eval" then
        for _, a in ipairs(c.args) do
          if re.match(HUSKY_LINE, a.text) then return deny(HUSKY_WHY, HUSKY_INSTEAD) end
        end
      end
    end
  end
  return check(cmds, err, line, 0)
end, { name = "pack-git", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
