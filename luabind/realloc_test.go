package luabind_test

import (
	"testing"

	"github.com/luahook/luahook/runner"
)

// TestReAndIpairsAllowPathAllocatesNothing: a lean hook that tries re.gsub
// rewrites that do not apply, asks re.match and re.find, and walks a table
// with ipairs allocates nothing per call through FireInto: the re calls
// borrow the state's searcher, a gsub that replaced nothing returns its
// subject, and ipairs pushes indexes boxed once. The .ci/run allocation
// line runs it (FireInto).
func TestReAndIpairsAllowPathFireIntoAllocatesNothing(t *testing.T) {
	src := `local rewrites = { { "^npm install$", "pnpm install" }, { "^npx ", "pnpm dlx " }, { "^npm run ", "pnpm run " } }
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if type(cmd) ~= "string" then return nil end
  for i, r in ipairs(rewrites) do
    local new, n = re.gsub(cmd, r[1], r[2])
    if n > 0 or new ~= cmd or i > 3 then return hook.deny("rewrote") end
  end
  if re.match("^curl .*\\| *sh$", cmd) or re.find("wget", cmd) then return hook.deny("download") end
end, { stage = "validate" })`
	checkAllocs(t, "re and ipairs", src, 0, func(res *runner.Result) bool {
		return !res.Denied() && len(res.Trace) == 1 && res.Trace[0].Failure == nil
	})
}

// TestStoreCounterFireIntoAllocatesNothing: a lean hook that counts with
// store.incr and reads the count back with store.get allocates nothing per
// call while the count is a small integer (a counter's usual value): both
// return numbers boxed once.
func TestStoreCounterFireIntoAllocatesNothing(t *testing.T) {
	src := `hook.register("PreToolUse", "bash", function(input)
  local n = store.incr("calls", 1, 60000)
  if n > 5000 or (store.get("calls") or 0) ~= n then return hook.deny("count") end
end, { stage = "validate" })`
	checkAllocs(t, "store counter", src, 0, func(res *runner.Result) bool {
		return !res.Denied() && len(res.Trace) == 1 && res.Trace[0].Failure == nil
	})
}
