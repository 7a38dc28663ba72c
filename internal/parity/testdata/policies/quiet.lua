-- No objection: looks at every bash call and returns nothing.
hook.register("PreToolUse", "bash", function(input)
  return nil
end, { name = "parity-quiet" })
