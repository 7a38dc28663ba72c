-- Keeps the agent off the branches people release from: it may not push to
-- them, delete them, or force-push anywhere. (protected-checkout.lua reads
-- the branch checked out, through host.git; protect the branches on the
-- server too.)
local PROTECTED = { "main", "master", "release" } -- "release" covers release/*

local function protected(ref)
  ref = ref:gsub("^%+", ""):gsub("^refs/heads/", "")
  for _, p in ipairs(PROTECTED) do
    if ref == p or ref:sub(1, #p + 1) == p .. "/" then
      return true
    end
  end
  return false
end

-- check returns a reason to deny one git command given as a list of words
-- (the words after "git"), or nil.
local function check(words)
  local i = 1
  while words[i] and words[i]:sub(1, 1) == "-" do -- git -C dir, git -c k=v
    i = i + ((words[i] == "-C" or words[i] == "-c") and 2 or 1)
  end
  local sub = words[i]
  if sub == "push" then
    local positional = 0
    for j = i + 1, #words do
      local w = words[j]
      if w == "-f" or w == "--force" then
        return "force-pushing rewrites shared history; ask the user to do it"
      elseif w:sub(1, 1) ~= "-" then
        positional = positional + 1
        -- The first positional word is the remote; the others are refspecs
        -- "src:dst", "dst", "+dst", ":dst" (a deletion).
        if positional > 1 and protected(w:match("([^:]*)$")) then
          return "pushing to " .. w .. " is not allowed: open a pull request from another branch"
        end
      end
    end
  elseif sub == "branch" then
    local deleting = false
    for j = i + 1, #words do
      local w = words[j]
      if w == "-d" or w == "-D" or w == "--delete" then
        deleting = true
      elseif deleting and protected(w) then
        return "deleting the branch " .. w .. " is not allowed"
      end
    end
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command
  if type(cmd) ~= "string" then
    return nil
  end
  for _, seg in ipairs(re.split([[[;&|\n]+|\$\(|`]], cmd)) do
    local words = {}
    local seen_git = false
    for w in seg:gmatch("%S+") do
      if seen_git then
        table.insert(words, w)
      elseif w == "git" or w:match("/git$") then
        seen_git = true
      end
    end
    if seen_git then
      local why = check(words)
      if why then
        return hook.deny("protected branch: " .. why)
      end
    end
  end
end, {
  name = "protected-branch",
  stage = "validate",
  policy = true,
  failure_policy = "closed",
})
