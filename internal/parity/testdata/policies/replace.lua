-- Replaces every bash call's output with a text of its own.
hook.register("PostToolUse", "bash", function(input)
  return hook.replace_output("parity: the build log is withheld; ask for a failing test by name", "parity: build logs stay out of the model")
end, { name = "parity-replace" })
