-- The lean floor of a pack that remembers the session (BenchmarkPack's
-- floor-ledger): the lean floor's hook, plus the one thing such a pack
-- cannot do without, one count in the session ledger (one store
-- operation). budget's call is read against this one as well as against
-- the plain floor.
hook.register("PreToolUse", "*", function(input, rt)
  if input.toolName == "x" then return hook.deny("x") end
  local id = rt.session_id
  if id ~= nil and id ~= "" then session.count("floor:calls", 0, 1) end
end, { name = "lean-floor-ledger" })
