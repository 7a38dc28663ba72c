// Package opa measures a Lua hook against an OPA prepared query making the
// same decision on the same payload. It is a module of its own so that OPA
// and its dependencies never enter luahook's go.mod; go.work beside it
// builds it against the luahook of this checkout:
//
//	cd internal/bench/opa && go test -run '^$' -bench . -benchtime 2s
package opa

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// payload is a typical bash tool call in luahook's own format.
const payload = `{"event":"PreToolUse","toolName":"bash",` +
	`"toolInput":{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"},` +
	`"toolCapabilities":["exec","network"],"cwd":"/home/dev/project","sessionId":"sess-4f2a"}`

const luaPolicy = `hook.register("PreToolUse", "bash", function(input, rt)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then
    return hook.deny("rm -rf is not allowed")
  end
end, { name = "bash-safety", stage = "validate" })`

// regoPolicy is luaPolicy in Rego: the same tool, the same test, the same
// reason.
const regoPolicy = `package luahook

deny contains "rm -rf is not allowed" if {
	input.toolName == "bash"
	contains(input.toolInput.command, "rm -rf")
}`

// luaDecision decodes the payload and fires it through a runner whose one
// hook is luaPolicy (FireInto, a reused Result), as a host does.
func luaDecision(tb testing.TB) func() bool {
	c, err := luabind.Compile("10-bash-safety.lua", []byte(luaPolicy))
	if err != nil {
		tb.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Close)
	reg := registry.New()
	if err := reg.ReplaceOwner("10-bash-safety.lua", luabind.Specs(f.Registrations())); err != nil {
		tb.Fatal(err)
	}
	r := runner.New(runner.Options{Registry: reg})
	tb.Cleanup(r.Close)
	ctx := context.Background()
	p := []byte(payload)
	var res runner.Result
	return func() bool {
		in, err := luahook.DecodeInput(p)
		if err != nil {
			tb.Fatal(err)
		}
		r.FireInto(ctx, in, &res)
		if len(res.Trace) != 1 || res.Trace[0].Failure != nil {
			tb.Fatalf("%+v", res.Trace)
		}
		return res.Denied()
	}
}

// opaDecision decodes the payload as OPA's own tools do (util.UnmarshalJSON)
// and evaluates the prepared query data.luahook.deny on it.
func opaDecision(tb testing.TB) func() bool {
	ctx := context.Background()
	q, err := rego.New(rego.Query("data.luahook.deny"), rego.Module("policy.rego", regoPolicy)).PrepareForEval(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	p := []byte(payload)
	return func() bool {
		var input any
		if err := util.UnmarshalJSON(p, &input); err != nil {
			tb.Fatal(err)
		}
		rs, err := q.Eval(ctx, rego.EvalInput(input))
		if err != nil || len(rs) != 1 || len(rs[0].Expressions) != 1 {
			tb.Fatalf("%v %v", rs, err)
		}
		set, _ := rs[0].Expressions[0].Value.([]any)
		return len(set) > 0
	}
}

// TestBothDecideAlike: the two policies agree on an allowed and a denied
// call, so that the benchmark compares the same decision.
func TestBothDecideAlike(t *testing.T) {
	if luaDecision(t)() || opaDecision(t)() {
		t.Fatal("the benchmark's payload is denied")
	}
}

// BenchmarkLuaHookVsOPA reports, in "interleaved", x_opa: the OPA prepared
// query's time over the Lua hook's, from turns of block calls of each side
// taken in alternation so that both share the machine's load of the moment.
func BenchmarkLuaHookVsOPA(b *testing.B) {
	lua, opa := luaDecision(b), opaDecision(b)
	b.Run("lua", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lua()
		}
	})
	b.Run("opa", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			opa()
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		sides := [2]func() bool{lua, opa}
		var turns [2][]float64
		round := 0
		for b.Loop() {
			for k := range sides {
				i := (round + k) % 2
				start := time.Now()
				for range block {
					sides[i]()
				}
				turns[i] = append(turns[i], float64(time.Since(start))/block)
			}
			round++
		}
		b.ReportMetric(median(turns[1])/median(turns[0]), "x_opa")
		b.ReportMetric(median(turns[0]), "lua-ns")
		b.ReportMetric(median(turns[1]), "opa-ns")
	})
}

// block is how many calls of one side make a turn: enough (about 18 MB of
// OPA's garbage) that each side's turn runs the collections its own
// allocations start, as a host running that engine alone pays them, and
// short enough (tens of milliseconds) that both sides share the machine's
// load of the moment.
const block = 2048

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}
