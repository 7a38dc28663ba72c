package luabind_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// The deny and mutate paths through the runner, as a host calls them: the
// payload is already a luahook.Input, fired with FireInto into one Result
// recycled from call to call, or with Fire, which returns a fresh Result.
// Each hook leaves its input (the runner recycles its payload tables), so
// what a call allocates is the runner's and the outcome's own.

// denyInput is a bash call that every hook below refuses or rewrites.
func denyInput() *luahook.Input {
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{"command":"rm -rf /tmp/build","timeout":120000,"description":"Clean the build"}`),
		Cwd:       "/home/dev/project", SessionID: "sess-4f2a"}
}

// denyHook registers a validate-stage bash hook whose body is body, with
// cmd the call's command.
func denyHook(body string) string {
	return `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then
    ` + body + `
  end
end, { name = "bash-safety", stage = "validate" })`
}

// denyCases are the ways a hook denies, with the reason each gives.
var denyCases = []struct{ name, src, reason string }{
	{"Constant", denyHook(`return hook.deny("rm -rf is not allowed")`), "rm -rf is not allowed"},
	{"Concat", denyHook(`return hook.deny("not allowed: " .. cmd)`), "not allowed: rm -rf /tmp/build"},
	{"Table", denyHook(`return { action = "deny", reason = "rm -rf is not allowed" }`), "rm -rf is not allowed"},
}

// mutateCases are the ways a mutate-stage hook rewrites the command.
var mutateCases = []struct{ name, src string }{
	{"HookMutate", `hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  if type(ti.command) == "string" then
    ti.command = "echo " .. ti.command
    return hook.mutate(ti)
  end
end, { name = "bash-dry-run", stage = "mutate" })`},
	{"Table", `hook.register("PreToolUse", "bash", function(input)
  local ti = input.toolInput
  if type(ti.command) == "string" then
    ti.command = "echo " .. ti.command
    return { action = "mutate", input = ti }
  end
end, { name = "bash-dry-run", stage = "mutate" })`},
}

const mutatedInput = `{"command":"echo rm -rf /tmp/build","timeout":120000,"description":"Clean the build"}`

// fireInto fires in with FireInto over res and checks what it decided.
func denied(res *runner.Result, reason string) bool {
	return res.Denied() && res.Reason == reason && len(res.Trace) == 1 && res.Trace[0].Failure == nil
}

func mutated(res *runner.Result) bool {
	return !res.Denied() && string(res.Input) == mutatedInput && len(res.Trace) == 1 && res.Trace[0].Failure == nil
}

// benchPath runs the sub-benchmarks FireInto and Fire of r on in, each
// checking its Result with ok.
func benchPath(b *testing.B, r *runner.Runner, in *luahook.Input, ok func(*runner.Result) bool) {
	ctx := context.Background()
	b.Run("FireInto", func(b *testing.B) {
		var res runner.Result
		if r.FireInto(ctx, in, &res); !ok(&res) {
			b.Fatalf("%+v", res)
		}
		b.ReportAllocs()
		for b.Loop() {
			r.FireInto(ctx, in, &res)
		}
		if !ok(&res) {
			b.Fatalf("%+v", res)
		}
	})
	b.Run("Fire", func(b *testing.B) {
		if res := r.Fire(ctx, in); !ok(&res) {
			b.Fatalf("%+v", res)
		}
		b.ReportAllocs()
		for b.Loop() {
			r.Fire(ctx, in)
		}
	})
}

// BenchmarkDenyPath is a lean validate hook denying a bash call: with a
// constant reason, a reason built per call, and a returned table.
func BenchmarkDenyPath(b *testing.B) {
	for _, c := range denyCases {
		b.Run(c.name, func(b *testing.B) {
			benchPath(b, luaRunnerOf(b, c.src), denyInput(),
				func(res *runner.Result) bool { return denied(res, c.reason) })
		})
	}
}

// BenchmarkMutatePath is a lean mutate hook rewriting a bash call's
// command: through hook.mutate and as a returned table.
func BenchmarkMutatePath(b *testing.B) {
	for _, c := range mutateCases {
		b.Run(c.name, func(b *testing.B) {
			benchPath(b, luaRunnerOf(b, c.src), denyInput(), mutated)
		})
	}
}
