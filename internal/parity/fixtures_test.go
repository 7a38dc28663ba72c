package parity

import (
	"encoding/json"
	"strings"
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
}

// payload describes one PreToolUse bash call (echo hello), written in
// luahook's format and in Claude Code's.
type payload struct {
	event  string // the event's name; "" is PreToolUse
	dupKey bool   // the tool's name twice: "bash" (Claude: "Bash"), then "x"
	pad    int    // a padding string of this many bytes in the tool input
}

// command is the bash command every payload asks to run.
const command = "echo hello"

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
	return []byte(`{"event":` + quote(p.eventName()) + `,"sessionId":"parity-session","cwd":` + quote(cwd) +
		`,` + tool + `,"toolInput":` + p.toolInput() + `}`)
}

// claude is the payload as Claude Code sends it, with cwd.
func (p payload) claude(cwd string) []byte {
	tool := `"tool_name":"Bash"`
	if p.dupKey {
		tool += `,"tool_name":"x"`
	}
	return []byte(`{"session_id":"parity-session","transcript_path":"/tmp/parity-session.jsonl","cwd":` + quote(cwd) +
		`,"permission_mode":"default","hook_event_name":` + quote(p.eventName()) + `,` + tool +
		`,"tool_input":` + p.toolInput() + `,"tool_use_id":"toolu_parity"}`)
}

func (p payload) String() string {
	s := p.eventName() + " bash " + quote(command)
	if p.dupKey {
		s += ", toolName given twice"
	}
	if p.pad > 0 {
		s += ", tool input padded past 8 MiB"
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
}
