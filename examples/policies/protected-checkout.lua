-- Keeps the agent from committing or pushing while the branch checked out
-- is one people release from (main, master, release*): the agent works on
-- a branch of its own. The branch is read from the repository of the
-- payload's cwd through host.git, which the luahook command gives every
-- hook file (a Go host adds it with engine.Options.Host).
local git = require("host.git")

local function protected(branch)
  return branch == "main" or branch == "master" or branch:sub(1, 7) == "release"
end

-- subcommand returns the git subcommand of a list of words (those after
-- "git"), and whether git was sent to another folder (-C, --git-dir,
-- --work-tree), whose branch is not the cwd's.
local function subcommand(words)
  local i, elsewhere = 1, false
  while words[i] and words[i]:sub(1, 1) == "-" do
    local w = words[i]
    if w == "-C" or w:match("^%-%-git%-dir") or w:match("^%-%-work%-tree") then
      elsewhere = true
    end
    i = i + ((w == "-C" or w == "-c" or w == "--git-dir" or w == "--work-tree") and 2 or 1)
  end
  return words[i], elsewhere
end

hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command
  if type(cmd) ~= "string" then
    return nil
  end
  local moved = false -- a cd earlier in the command: git runs elsewhere
  for _, seg in ipairs(re.split([[[;&|\n]+|\$\(|`]], cmd)) do
    local words, seen_git = {}, false
    for w in seg:gmatch("%S+") do
      if seen_git then
        table.insert(words, w)
      elseif w == "git" or w:match("/git$") then
        seen_git = true
      elseif w == "cd" or w == "pushd" then
        moved = true
      end
    end
    local sub, elsewhere = subcommand(words)
    if seen_git and (sub == "commit" or sub == "push") then
      if moved or elsewhere then
        return hook.deny("protected branch: run git " .. sub .. " from the repository's folder, "
          .. "without cd or -C, so that its branch can be checked")
      end
      local branch = git.branch()
      if branch and protected(branch) then
        return hook.deny("protected branch: the checked-out branch is " .. branch
          .. "; create a branch of your own (git switch -c NAME) and " .. sub .. " there")
      end
    end
  end
end, {
  name = "protected-checkout",
  stage = "validate",
  policy = true,
  failure_policy = "closed",
})
