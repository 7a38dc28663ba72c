---@meta host.git
-- Type annotations for lua-language-server (LuaLS): host.git, the host
-- module the luahook command gives every hook file (an embedding host gives
-- it with engine.Options.Host = { git.Module() }).
--
--   local git = require("host.git")
--   if git.branch() == "main" then ... end
--
-- Each function reads the repository of the payload's cwd by running git,
-- at most three times per hook call whatever the hook calls (the results
-- are cached for the call). git is run hardened: nothing the repository
-- configures runs (fsmonitor, hooks, filters, pager, gpg, helpers). Every
-- function returns nil when the payload has no cwd, the cwd is not an
-- absolute path to a folder, or the folder is not in a git work tree. A git
-- that cannot answer (not installed, a repository another user owns that is
-- not in safe.directory, slower than the hook's deadline or 2 s) raises an
-- error: the hook fails and its failure_policy decides.

--- The checked-out commit.
---@class host.git.Commit
---@field sha string     the full commit id
---@field subject string the first line of the message
---@field author string  the author's name
---@field time integer   the committer date, in Unix seconds

---@class host.git
local git = {}

--- The checked-out branch's name ("main", "feature/x"); nil when HEAD is
--- detached or the cwd is not in a work tree. A branch with no commit yet
--- has its name.
---@return string|nil
function git.branch() end

--- true when the index or the work tree has a change, untracked files
--- included (not ignored ones, nor changes inside a submodule's own work
--- tree); false when clean; nil outside a work tree.
---@return boolean|nil
function git.dirty() end

--- The URL of the checked-out branch's upstream remote (branch.NAME.remote),
--- else of "origin"; nil when there is neither. A password in the URL is
--- left out (https://user@host/...).
---@return string|nil
function git.remote() end

--- The checked-out commit; nil when the branch has no commit yet or the cwd
--- is not in a work tree. A read-only table.
---@return host.git.Commit|nil
function git.last_commit() end

return git
