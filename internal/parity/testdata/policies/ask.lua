-- Hands every bash call to the user.
hook.register("PreToolUse", "bash", function(input)
  return hook.ask("parity: confirm this command")
end, { name = "parity-ask" })
