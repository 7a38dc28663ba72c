-- Checks every bash call's output and fails, closed: the output is
-- withheld rather than read unchecked.
hook.register("PostToolUse", "bash", function(input)
  error("parity: the output scanner is down", 0)
end, { name = "parity-scan", failure_policy = "closed" })
