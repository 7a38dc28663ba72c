-- The lean floor of BenchmarkPack: a hook on every tool call that reads
-- one field and returns nil, which the reuse analysis proves lean. A
-- pack's call costs are read against this one's on the same payload.
hook.register("PreToolUse", "*", function(input)
  if input.toolName == "x" then return hook.deny("x") end
end, { name = "lean-floor" })

-- The same on a tool's output (PostToolUse): the output packs' floor.
hook.register("PostToolUse", "*", function(input)
  if input.toolName == "x" then return hook.context(input.toolResult.content) end
end, { name = "lean-floor-output" })
