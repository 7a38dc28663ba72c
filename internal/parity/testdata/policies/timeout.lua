-- Never returns: its 50 ms deadline ends it, and it fails closed.
hook.register("PreToolUse", "bash", function(input)
  while true do end
end, { name = "parity-timeout", timeout_ms = 50, failure_policy = "closed" })
