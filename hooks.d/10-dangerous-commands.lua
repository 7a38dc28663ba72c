-- Blocks shell commands that destroy data or hand the machine to the network.
-- A security policy: it still runs under --no-hooks (policy = true) and a
-- failure of this hook denies the call (failure_policy = "closed").

-- What rm must not delete recursively and by force, once quotes are removed.
local rm_targets = {}
for _, t in ipairs({ "/", "/*", "~", "~/", "~/*", "$HOME", "$HOME/", "$HOME/*",
  "${HOME}", "${HOME}/", "${HOME}/*", "*" }) do
  rm_targets[t] = true
end

-- dangerous_rm finds an rm, in any part of a command line, with a recursive
-- and a force flag (short, long or combined, before or after the operands,
-- as GNU rm accepts them) and one of the targets above.
local function dangerous_rm(cmd)
  for _, part in ipairs(re.split([[[;&|\n()`]+]], cmd)) do
    local words = {}
    for w in part:gmatch("%S+") do
      words[#words + 1] = (w:gsub([[^\]], ""):gsub([[^(['"])(.*)%1$]], "%2"))
    end
    for i, w in ipairs(words) do
      if w == "rm" or w:find("/rm$") then
        local recursive, force, target, operands = false, false, false, false
        for j = i + 1, #words do
          local a = words[j]
          if operands or a:sub(1, 1) ~= "-" or a == "-" then
            target = target or rm_targets[a] == true
          elseif a == "--" then
            operands = true
          elseif a:sub(1, 2) == "--" then
            recursive = recursive or a == "--recursive"
            force = force or a == "--force"
          else
            recursive = recursive or a:find("[rR]") ~= nil
            force = force or a:find("f") ~= nil
          end
        end
        if recursive and force and target then
          return true
        end
      end
    end
  end
  return false
end

local rules = {
  { check = dangerous_rm, why = "recursive forced delete of /, ~ or *" },
  { pattern = [[:\(\)\s*\{\s*:\|:&\s*\}\s*;\s*:]], why = "fork bomb" },
  { pattern = [[(curl|wget)[^|;&]*\|\s*(sudo\s+)?(ba|z|da)?sh\b]], why = "piping a download into a shell" },
  { pattern = [[\bmkfs(\.\w+)?\b]], why = "formatting a file system" },
  { pattern = [[\bdd\b[^;&|]*\bof=/dev/(sd|nvme|hd|vd|disk)]], why = "writing raw to a disk device" },
  { pattern = [[\bchmod\s+-R\s+0?777\s+/(\s|$)]], why = "making the whole file system world-writable" },
  { pattern = [[\bgit\s+push\b[^;&|]*(\s--force\b|\s-f\b)[^;&|]*\b(main|master)\b]], why = "force-pushing to main" },
}

hook.register("PreToolUse", "bash", function(input, rt)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" then
    return nil
  end
  for _, rule in ipairs(rules) do
    local hit
    if rule.check then
      hit = rule.check(cmd)
    else
      hit = re.match(rule.pattern, cmd)
    end
    if hit then
      log.warn("blocked a dangerous command", { rule = rule.why })
      return hook.deny("dangerous command blocked: " .. rule.why ..
        ". If this is really intended, ask the user to run it themselves.")
    end
  end
end, {
  name = "dangerous-commands",
  stage = "validate",
  timeout_ms = 1000,
  failure_policy = "closed",
  policy = true,
})
