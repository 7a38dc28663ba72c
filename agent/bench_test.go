package agent_test

import (
	"encoding/json"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/runner"
)

// benchPayloads are one PreToolUse Bash call in each agent's format, and
// in luahook's own.
var benchPayloads = map[agent.Name]string{
	agent.Claude:  `{"session_id":"abc123","transcript_path":"/home/dev/.claude/projects/p/abc123.jsonl","cwd":"/home/dev/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm install left-pad","timeout":120000},"tool_use_id":"toolu_01ABC123"}`,
	agent.Codex:   `{"session_id":"019a","transcript_path":"/home/dev/.codex/sessions/019a.jsonl","cwd":"/home/dev/project","hook_event_name":"PreToolUse","model":"gpt-5-codex","turn_id":"t-3","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"npm install left-pad","timeout":120000},"tool_use_id":"call_1"}`,
	agent.Copilot: `{"sessionId":"7c1d","timestamp":1767225600000,"cwd":"/home/dev/project","toolName":"bash","toolArgs":{"command":"npm install left-pad","timeout":120000}}`,
	agent.Cursor:  `{"conversation_id":"668320d2","generation_id":"490b90b7","model":"claude-sonnet-4-5","hook_event_name":"preToolUse","cursor_version":"2.1.0","workspace_roots":["/home/dev/project"],"tool_name":"Shell","tool_input":{"command":"npm install left-pad","timeout":120000},"tool_use_id":"tool_1","cwd":"/home/dev/project"}`,
	agent.Gemini:  `{"session_id":"0f6b","transcript_path":"/home/dev/.gemini/tmp/p/chats/s.json","cwd":"/home/dev/project","hook_event_name":"BeforeTool","timestamp":"2026-08-21T10:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"npm install left-pad","timeout":120000}}`,
}

const plainPayload = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad","timeout":120000},"cwd":"/home/dev/project","sessionId":"01J9ZX"}`

// decisionResult is a denial, the answer with the most fields in most formats.
var decisionResult = runner.Result{Verdict: luahook.VerdictDeny, Reason: "use pnpm add instead of npm install"}

// BenchmarkDecodeEncode measures the protocol layer's share of one fire:
// decode a PreToolUse Bash payload, and encode a denial, per adapter; and
// the same call in luahook's own format (decode, and the JSON of the
// outcome `luahook fire` prints), to compare.
func BenchmarkDecodeEncode(b *testing.B) {
	event := map[agent.Name]string{agent.Copilot: "preToolUse"}
	for _, name := range agent.Names() {
		a, _ := agent.Lookup(string(name))
		data := []byte(benchPayloads[name])
		b.Run(string(name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, err := a.Decode(data, event[name])
				if err != nil {
					b.Fatal(err)
				}
				if ans := a.Encode(req, agent.FromResult(decisionResult)); ans.Stdout == nil {
					b.Fatal("no answer")
				}
			}
		})
	}
	b.Run("plain", func(b *testing.B) {
		data := []byte(plainPayload)
		b.ReportAllocs()
		for b.Loop() {
			in, err := luahook.DecodeInput(data)
			if err != nil {
				b.Fatal(err)
			}
			r := decisionResult
			r.Event = in.Event
			if out, err := json.Marshal(r.Outcome()); err != nil || out == nil {
				b.Fatal(err)
			}
		}
	})
}
