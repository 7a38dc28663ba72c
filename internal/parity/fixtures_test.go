package parity

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
)

// policyFile is one file of a setup's hooks folder: hooks.d/<as>, copied
// from testdata/policies/<from>.
type policyFile struct{ as, from string }

// setup is a hooks folder as the doors find it. Every process runs with
// the setup's folder as its current folder and a HOME of its own (no
// trust records, no user config); luahook fire and serve are given the
// folder's hooks.d with --dir, which loads as it is, with no luahook.toml
// in the current folder to be judged for trust. A project setup instead
// has hooks.d and luahook.toml in the current folder, never trusted, and
// no --dir: its policies are the same as the allow setup's, so that the
// missing trust is the only difference.
type setup struct {
	name    string
	files   []policyFile
	project bool
}

var setups = []setup{
	{name: "broken", files: []policyFile{{"10-quiet.lua", "quiet.lua"}, {"20-broken.lua", "broken.lua"}}},
	{name: "untrusted", files: []policyFile{{"10-allow.lua", "allow.lua"}}, project: true},
	{name: "quiet", files: []policyFile{{"10-quiet.lua", "quiet.lua"}}},
	{name: "timeout", files: []policyFile{{"10-timeout.lua", "timeout.lua"}}},
	{name: "deny", files: []policyFile{{"10-deny.lua", "deny.lua"}}},
	{name: "ask", files: []policyFile{{"10-ask.lua", "ask.lua"}}},
	{name: "mutate", files: []policyFile{{"10-mutate.lua", "mutate.lua"}}},
	{name: "allow", files: []policyFile{{"10-allow.lua", "allow.lua"}}},
	{name: "redact", files: []policyFile{{"10-redact.lua", "redact.lua"}}},
	{name: "replace", files: []policyFile{{"10-replace.lua", "replace.lua"}}},
	{name: "withhold", files: []policyFile{{"10-withhold.lua", "withhold.lua"}}},
}

// payload describes one bash call (echo hello), PreToolUse unless it says
// otherwise, written in luahook's format and in Claude Code's.
type payload struct {
	event  string // the event's name; "" is PreToolUse
	dupKey bool   // the tool's name twice: "bash" (Claude: "Bash"), then "x"
	pad    int    // a padding string of this many bytes in the tool input
	// output is the tool's output, on PostToolUse: luahook's
	// toolResult.content, and the stdout of Claude Code's Bash
	// tool_response, the text the model reads from either.
	output string
}

// command is the bash command every payload asks to run.
const command = "echo hello"

// The tool outputs of the PostToolUse payloads: one that carries a GitHub
// token (a fake), one that carries nothing to take out.
const (
	fakeToken    = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	secretOutput = "PORT=8080\nGITHUB_TOKEN=" + fakeToken + "\n"
	plainOutput  = "PORT=8080\nDEBUG=false\n"
)

// overMax is a padding that takes a payload over the 8 MiB every door caps
// a payload at (luahook.DefaultMaxInputBytes).
const overMax = 8<<20 + 64<<10

func (p payload) eventName() string {
	if p.event == "" {
		return "PreToolUse"
	}
	return p.event
}

func (p payload) toolInput() string {
	in := `{"command":` + quote(command)
	if p.pad > 0 {
		in += `,"pad":"` + strings.Repeat("x", p.pad) + `"`
	}
	return in + "}"
}

// plain is the payload in luahook's own format, with cwd.
func (p payload) plain(cwd string) []byte {
	tool := `"toolName":"bash"`
	if p.dupKey {
		tool += `,"toolName":"x"`
	}
	result := ""
	if p.eventName() == "PostToolUse" {
		result = `,"toolResult":{"content":` + quote(p.output) + `}`
	}
	return []byte(`{"event":` + quote(p.eventName()) + `,"sessionId":"parity-session","cwd":` + quote(cwd) +
		`,` + tool + `,"toolInput":` + p.toolInput() + result + `}`)
}

// claude is the payload as Claude Code sends it, with cwd.
func (p payload) claude(cwd string) []byte {
	tool := `"tool_name":"Bash"`
	if p.dupKey {
		tool += `,"tool_name":"x"`
	}
	result := ""
	if p.eventName() == "PostToolUse" {
		// Bash's result as Claude Code gives it: the hooks read it as
		// compact JSON text, the model reads its stdout.
		result = `,"tool_response":{"stdout":` + quote(p.output) + `,"stderr":"","interrupted":false,"isImage":false}`
	}
	return []byte(`{"session_id":"parity-session","transcript_path":"/tmp/parity-session.jsonl","cwd":` + quote(cwd) +
		`,"permission_mode":"default","hook_event_name":` + quote(p.eventName()) + `,` + tool +
		`,"tool_input":` + p.toolInput() + result + `,"tool_use_id":"toolu_parity"}`)
}

func (p payload) String() string {
	s := p.eventName() + " bash " + quote(command)
	if p.dupKey {
		s += ", toolName given twice"
	}
	if p.pad > 0 {
		s += ", tool input padded past 8 MiB"
	}
	if p.eventName() == "PostToolUse" {
		s += ", output " + strconv.Quote(p.output)
	}
	return s
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fixture is one row of the rule: a setup, a payload, and the verdict
// every door must give.
type fixture struct {
	name    string
	setup   string
	payload payload
	// want is the verdict every door must give; "" records what each door
	// does and holds the doors to nothing.
	want kind
	// reason, when set, is a substring a deny's or an ask's reason must
	// hold at every door: the cause named.
	reason string
	// input is the rewritten tool input of a mutate, as canonical JSON.
	input string
	// output is the text the model reads in place of the tool's output,
	// of a rewritten output (kindOutput).
	output string
}

// fixtures are the rows every door holds.
var fixtures = []fixture{
	{name: "broken file", setup: "broken", want: kindDeny, reason: "20-broken.lua"},
	{name: "duplicate keys", setup: "quiet", payload: payload{dupKey: true}, want: kindDeny, reason: "duplicate"},
	{name: "unknown event", setup: "quiet", payload: payload{event: "NoSuchEvent"}},
	{name: "hook times out", setup: "timeout", want: kindDeny, reason: "timed out"},
	{name: "policy denies", setup: "deny", want: kindDeny, reason: "refused by policy"},
	{name: "policy asks", setup: "ask", want: kindAsk, reason: "confirm this command"},
	{name: "policy mutates", setup: "mutate", want: kindMutate, input: `{"command":"echo rewritten"}`},
	{name: "policy allows", setup: "allow", want: kindAllow},
	{name: "no objection", setup: "quiet", want: kindNone},
	{name: "oversized payload", setup: "quiet", payload: payload{pad: overMax}, want: kindDeny, reason: "larger than"},
	{name: "untrusted folder", setup: "untrusted", want: kindDeny, reason: "luahook trust"},
	{name: "policy redacts output", setup: "redact", payload: payload{event: "PostToolUse", output: secretOutput},
		want: kindOutput, reason: "a GitHub token", output: "PORT=8080\nGITHUB_TOKEN=" + luahook.RedactMarker("a GitHub token") + "\n"},
	{name: "nothing to redact", setup: "redact", payload: payload{event: "PostToolUse", output: plainOutput}, want: kindNone},
	{name: "policy replaces output", setup: "replace", payload: payload{event: "PostToolUse", output: secretOutput},
		want: kindOutput, reason: "build logs stay out of the model",
		output: "parity: the build log is withheld; ask for a failing test by name"},
	{name: "output check fails closed", setup: "withhold", payload: payload{event: "PostToolUse", output: secretOutput},
		want: kindOutput, reason: "the whole output",
		output: `[luahook withheld this output: the hook "parity-scan", which checks it and fails closed, failed (error: parity: the output scanner is down)]`},
}
