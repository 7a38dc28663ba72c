-- Approves every bash call explicitly.
hook.register("PreToolUse", "bash", function(input)
  return hook.allow()
end, { name = "parity-allow" })
