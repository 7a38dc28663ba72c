-- Does not parse: the function is never closed.
hook.register("PreToolUse", "bash", function(input)
  return hook.deny("parity: never loaded")
