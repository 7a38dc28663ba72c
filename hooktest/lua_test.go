package hooktest_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
	"github.com/luahook/luahook/luabind"
)

// luaBodies are the bodies of the Lua hook functions, one per behaviour.
var luaBodies = map[hooktest.Behaviour]string{
	hooktest.Allow:       `return hook.allow()`,
	hooktest.NoObjection: `return nil`,
	hooktest.Deny:        `return hook.deny("hooktest: denied")`,
	hooktest.MutateEcho:  `return hook.mutate(input.toolInput)`,
	hooktest.AddContext:  `return hook.context("hooktest: context", "separate")`,
	hooktest.EchoPayload: `return hook.context(json.encode(input))`,
	hooktest.VerifyRepeat: `
		local ti = input.toolInput
		if ti.content == string.rep(ti.block, ti.count) then
			return hook.context(ti.block)
		end
		return hook.deny("hooktest: content is not block repeated count times")`,
	hooktest.Hang:              `while true do end`,
	hooktest.InvalidOutput:     `return "hooktest: not json"`,
	hooktest.UnknownAction:     `return { action = "block" }`,
	hooktest.DenyWithoutReason: `return { action = "deny" }`,
	hooktest.Crash:             `error("hooktest: crash")`,
	hooktest.ArrayOutput:       `return { hook.deny("hooktest: denied") }`,
	hooktest.Ask:               `return hook.ask("hooktest: ask the user")`,
	hooktest.Continue:          `return hook.continue("hooktest: keep going")`,
	hooktest.RedactOutput:      `return hook.redact({ { pattern = "ghp_[A-Za-z0-9]{36}", label = "a GitHub token" }, "hunter2" })`,
	hooktest.ReplaceOutput:     `return hook.replace_output({ stdout = "hooktest: replaced" })`,
	hooktest.Approve:           `return hook.approve{ reason = "hooktest: a person decides", approvers = { "hooktest-approver" }, timeout_ms = 5000 }`,
}

// luaFactory compiles and loads a one-hook Lua file per behaviour, with the
// default sandbox. The hook is registered for PreToolUse inside the file;
// the suite registers its luahook.Hook for every event it tests.
func luaFactory(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
	body, ok := luaBodies[b]
	if !ok {
		tb.Fatalf("no Lua hook for behaviour %s", b)
	}
	path := "hooktest/" + b.String() + ".lua"
	src := "hook.register(\"PreToolUse\", nil, function(input, rt)\n" + body + "\nend)\n"
	c, err := luabind.Compile(path, []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Close)
	regs := f.Registrations()
	if len(regs) != 1 {
		tb.Fatalf("%s registered %d hooks, want 1", path, len(regs))
	}
	return regs[0].Hook
}

func TestLuaHooksKeepTheContract(t *testing.T) {
	hooktest.Run(t, luaFactory, hooktest.Options{Kind: luahook.KindLua})
}

func BenchmarkLuaHook(b *testing.B) {
	hooktest.Benchmark(b, luaFactory, hooktest.Options{Kind: luahook.KindLua})
}
