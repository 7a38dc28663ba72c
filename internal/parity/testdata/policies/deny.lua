-- Denies every bash call, with a reason the doors must carry.
hook.register("PreToolUse", "bash", function(input)
  return hook.deny("parity: this command is refused by policy")
end, { name = "parity-deny" })
