-- Takes every GitHub token out of a bash call's output, by pattern.
hook.register("PostToolUse", "bash", function(input)
  return hook.redact({ { pattern = "ghp_[A-Za-z0-9]{36}", label = "a GitHub token" } }, "parity: tokens stay out of the model")
end, { name = "parity-redact" })
