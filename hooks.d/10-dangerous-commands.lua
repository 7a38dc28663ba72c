-- Blocks shell commands that destroy data or hand the machine to the network.
-- A security policy: it still runs under --no-hooks (policy = true) and a
-- failure of this hook denies the call (failure_policy = "closed").

local rules = {
  { pattern = [[(^|[;&|]\s*|\s)rm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+-?[a-zA-Z]*[fF]|-[a-zA-Z]*[fF][a-zA-Z]*\s+-?[a-zA-Z]*[rR]|-[a-zA-Z]*[rR][a-zA-Z]*[fF]|-[a-zA-Z]*[fF][a-zA-Z]*[rR])[a-zA-Z]*\s+(/|~|\$HOME|\*)(\s|$|/\*?\s*$)]],
    why = "recursive forced delete of /, ~ or *" },
  { pattern = [[:\(\)\s*\{\s*:\|:&\s*\}\s*;\s*:]], why = "fork bomb" },
  { pattern = [[(curl|wget)[^|;&]*\|\s*(sudo\s+)?(ba|z|da)?sh\b]], why = "piping a download into a shell" },
  { pattern = [[\bmkfs(\.\w+)?\b]], why = "formatting a file system" },
  { pattern = [[\bdd\b[^;&|]*\bof=/dev/(sd|nvme|hd|vd|disk)]], why = "writing raw to a disk device" },
  { pattern = [[\bchmod\s+-R\s+0?777\s+/(\s|$)]], why = "making the whole file system world-writable" },
  { pattern = [[\bgit\s+push\b[^;&|]*(\s--force\b|\s-f\b)[^;&|]*\b(main|master)\b]], why = "force-pushing to main" },
}

hook.register("PreToolUse", "bash", function(input, rt)
  local cmd = input.toolInput.command
  if type(cmd) ~= "string" then
    return nil
  end
  for _, rule in ipairs(rules) do
    if re.match(rule.pattern, cmd) then
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
