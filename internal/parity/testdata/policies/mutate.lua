-- Rewrites every bash call's command.
hook.register("PreToolUse", "bash", function(input)
  local args = input.toolInput
  args.command = "echo rewritten"
  return hook.mutate(args)
end, { name = "parity-mutate", stage = "mutate" })
