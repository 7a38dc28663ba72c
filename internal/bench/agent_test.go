package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
)

// agentFirePayloads are one PreToolUse Bash call in each agent's format, and
// in luahook's own (plain); the Lua policy lets each through.
var agentFirePayloads = map[string]string{
	"plain":   `{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"npm test","timeout":120000},"cwd":"/home/dev/project","sessionId":"abc123"}`,
	"claude":  `{"session_id":"abc123","transcript_path":"/home/dev/.claude/projects/p/abc123.jsonl","cwd":"/home/dev/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","timeout":120000},"tool_use_id":"toolu_01ABC123"}`,
	"codex":   `{"session_id":"019a","transcript_path":"/home/dev/.codex/sessions/019a.jsonl","cwd":"/home/dev/project","hook_event_name":"PreToolUse","model":"gpt-5-codex","turn_id":"t-3","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"npm test","timeout":120000},"tool_use_id":"call_1"}`,
	"copilot": `{"sessionId":"7c1d","timestamp":1767225600000,"cwd":"/home/dev/project","toolName":"bash","toolArgs":{"command":"npm test","timeout":120000}}`,
	"cursor":  `{"conversation_id":"668320d2","generation_id":"490b90b7","model":"claude-sonnet-4-5","hook_event_name":"preToolUse","cursor_version":"2.1.0","workspace_roots":["/home/dev/project"],"tool_name":"Shell","tool_input":{"command":"npm test","timeout":120000},"tool_use_id":"tool_1","cwd":"/home/dev/project"}`,
	"gemini":  `{"session_id":"0f6b","transcript_path":"/home/dev/.gemini/tmp/p/chats/s.json","cwd":"/home/dev/project","hook_event_name":"BeforeTool","timestamp":"2026-08-21T10:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"npm test","timeout":120000}}`,
}

// BenchmarkAgentFire is the whole in-process fire path per call, as fire
// --agent and serve's /agent/ paths pay it: decode the agent's payload,
// fire it through the engine at one Lua policy (matched by "@shell"),
// encode the agent's answer; and the same in luahook's own format (decode,
// fire, the outcome's JSON), which bench/report compares each agent with.
//
// Each path has a sub-benchmark of its own (ns/op and allocations), and
// "interleaved" runs them all in turns of agentBlock calls each, starting
// with a different one every round, so that the ratios it reports (each
// agent's median turn over plain's, and the slowest of them: worst/plain)
// are taken under the same load: the separate sub-benchmarks run one after
// the other, seconds apart, and on a shared machine their ratios wander
// more than the difference they measure.
func BenchmarkAgentFire(b *testing.B) {
	eng := openDir(b, map[string]string{"10-shell.lua": `hook.register("PreToolUse", "@shell|bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then return hook.deny("no") end
end, { stage = "validate" })
`})
	run := eng.Runner()
	ctx := context.Background()
	plain := func(b *testing.B) func() {
		data := []byte(agentFirePayloads["plain"])
		return func() {
			in, err := luahook.DecodeInput(data)
			if err != nil {
				b.Fatal(err)
			}
			res := run.Fire(ctx, in)
			if out, err := json.Marshal(res.Outcome()); err != nil || res.Denied() || len(res.Trace) != 1 {
				b.Fatalf("%s %v %+v", out, err, res)
			}
		}
	}
	event := map[agent.Name]string{agent.Copilot: "preToolUse"}
	adapter := func(b *testing.B, name agent.Name) func() {
		a, _ := agent.Lookup(string(name))
		data := []byte(agentFirePayloads[string(name)])
		return func() {
			req, err := a.Decode(data, event[name])
			if err != nil {
				b.Fatal(err)
			}
			res := run.Fire(ctx, req.Input)
			if ans := a.Encode(req, agent.FromResult(res)); ans.ExitCode != 0 || res.Denied() || len(res.Trace) != 1 {
				b.Fatalf("%+v %+v", ans, res)
			}
		}
	}
	b.Run("agent=plain", func(b *testing.B) {
		call := plain(b)
		b.ReportAllocs()
		for b.Loop() {
			call()
		}
	})
	for _, name := range agent.Names() {
		b.Run("agent="+string(name), func(b *testing.B) {
			call := adapter(b, name)
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		names := []string{"plain"}
		calls := []func(){plain(b)}
		for _, name := range agent.Names() {
			names = append(names, string(name))
			calls = append(calls, adapter(b, name))
		}
		turns := make([][]float64, len(calls))
		round := 0
		for b.Loop() {
			for k := range calls {
				i := (round + k) % len(calls)
				start := time.Now()
				for range agentBlock {
					calls[i]()
				}
				turns[i] = append(turns[i], float64(time.Since(start))/agentBlock)
			}
			round++
		}
		base := oneShotMedian(turns[0])
		worst := 0.0
		for i := 1; i < len(calls); i++ {
			ratio := oneShotMedian(turns[i]) / base
			b.ReportMetric(ratio, names[i]+"/plain")
			worst = max(worst, ratio)
		}
		b.ReportMetric(worst, "worst/plain")
	})
}

// agentBlock is how many calls of one path make a turn of the interleaved
// measurement: long enough that reading the clock costs nothing beside it,
// short enough (about 0.1 ms) that the turns of a round share their load.
const agentBlock = 32
