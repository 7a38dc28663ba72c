package install

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
)

// existing is a settings file of each agent as a user has it: unrelated
// keys, the user's own hooks on events luahook also uses, and comments
// where the agent reads them.
var existing = map[agent.Name]string{
	agent.Claude: `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "./scripts/audit.sh", "timeout": 10 }
        ]
      }
    ],
    "Notification": [
      { "hooks": [ { "type": "command", "command": "notify-send done" } ] }
    ]
  },
  "env": { "FOO": "1" }
}
`,
	agent.Codex: `{
  "description": "team hooks",
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "python3 .codex/stop.py" } ] }
    ]
  }
}
`,
	agent.Copilot: `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      { "type": "command", "bash": "./scripts/check.sh", "timeoutSec": 10 }
    ],
    "errorOccurred": [
      { "type": "command", "bash": "./scripts/log-error.sh" }
    ]
  }
}
`,
	agent.Cursor: `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }],
    "stop": [{ "command": "./hooks/audit.sh" }]
  }
}
`,
	agent.Gemini: `// Project settings for Gemini CLI.
{
  "general": { "vimMode": true }, // the team's editor
  "hooks": {
    /* our own shell auditor */
    "BeforeTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [{ "type": "command", "command": "./audit.sh", "name": "audit" }]
      }
    ]
  },
  "hooksConfig": { "notifications": true }
}
`,
}

func testOptions(name agent.Name) *Options {
	return &Options{Agent: name, Command: "/usr/local/bin/luahook"}
}

// luahookEntries returns, per event, the luahook entries of a merged file.
func luahookEntries(t *testing.T, tg *target, src []byte) map[string][]*node {
	t.Helper()
	root, err := parse("out", src, tg.comments)
	if err != nil {
		t.Fatalf("the merged file does not parse: %v\n%s", err, src)
	}
	out := map[string][]*node{}
	hooks := member0(root, "hooks")
	for _, m := range hooks.members {
		for _, el := range m.value.elems {
			handlers := []*node{el}
			if tg.groups {
				handlers = nil
				if hs := member0(el, "hooks"); hs != nil {
					handlers = hs.elems
				}
			}
			for _, h := range handlers {
				if tg.ours(h) {
					out[m.key] = append(out[m.key], h)
				}
			}
		}
	}
	return out
}

// checkOneEntryPerEvent fails unless every event of tg has exactly one
// luahook entry, and no other event has one.
func checkOneEntryPerEvent(t *testing.T, tg *target, src []byte) {
	t.Helper()
	got := luahookEntries(t, tg, src)
	for _, ev := range tg.events {
		if len(got[ev]) != 1 {
			t.Errorf("%s: %d luahook entries, want 1\n%s", ev, len(got[ev]), src)
		}
		delete(got, ev)
	}
	for ev := range got {
		t.Errorf("%s: a luahook entry on an event luahook does not use", ev)
	}
}

// isSubsequence reports whether every byte of a appears in b, in order:
// b is a with text inserted and nothing removed or changed.
func isSubsequence(a, b []byte) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

func TestMergeIntoANewFileWritesOneEntryPerMappedEvent(t *testing.T) {
	for _, name := range agent.Names() {
		t.Run(string(name), func(t *testing.T) {
			tg := targets[name]
			out, _, err := merge(tg, testOptions(name), "new.json", nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOneEntryPerEvent(t, tg, out)
			if !bytes.HasSuffix(out, []byte("}\n")) {
				t.Errorf("a new file does not end with a line break")
			}
		})
	}
}

func TestMergeOnlyAddsToAFileWithoutLuahookEntries(t *testing.T) {
	for _, name := range agent.Names() {
		t.Run(string(name), func(t *testing.T) {
			tg := targets[name]
			src := []byte(existing[name])
			out, _, err := merge(tg, testOptions(name), "settings.json", src)
			if err != nil {
				t.Fatal(err)
			}
			if !isSubsequence(src, out) {
				t.Errorf("the merge changed or removed text of the original:\n%s", out)
			}
			checkOneEntryPerEvent(t, tg, out)
			// Every value of the original is still there, as it was.
			before, _ := parse("in", src, tg.comments)
			after, _ := parse("out", out, tg.comments)
			for _, m := range before.members {
				if m.key == "hooks" {
					continue
				}
				if !reflect.DeepEqual(member0(after, m.key).value(), m.value.value()) {
					t.Errorf("key %q changed", m.key)
				}
			}
			for _, m := range member0(before, "hooks").members {
				if !isSubsequence(src[m.value.start:m.value.end], out) {
					t.Errorf("hooks.%s lost the user's entries", m.key)
				}
			}
		})
	}
}

func TestMergeKeepsCommentsWhereTheAgentReadsThem(t *testing.T) {
	out, _, err := merge(targets[agent.Gemini], testOptions(agent.Gemini), "settings.json", []byte(existing[agent.Gemini]))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"// Project settings for Gemini CLI.\n", "// the team's editor\n", "/* our own shell auditor */"} {
		if !bytes.Contains(out, []byte(c)) {
			t.Errorf("comment %q is gone:\n%s", c, out)
		}
	}
}

// TestMergeSplicesIntoTheOriginalText pins the exact text of a merge: the
// user's lines untouched, luahook's entries appended in the file's layout.
func TestMergeSplicesIntoTheOriginalText(t *testing.T) {
	src := `{
	"version": 1,
	"hooks": {
		"stop": [{ "command": "./hooks/audit.sh" }],
		"sessionEnd": [
			{ "command": "/old/path/luahook fire --agent cursor" }
		]
	}
}
`
	want := `{
	"version": 1,
	"hooks": {
		"stop": [{ "command": "./hooks/audit.sh" }, {"command": "/usr/local/bin/luahook fire --agent cursor --project"}],
		"sessionEnd": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		],
		"preToolUse": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		],
		"postToolUse": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		],
		"postToolUseFailure": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		],
		"beforeSubmitPrompt": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		],
		"sessionStart": [
			{
				"command": "/usr/local/bin/luahook fire --agent cursor --project"
			}
		]
	}
}
`
	out, _, err := merge(targets[agent.Cursor], testOptions(agent.Cursor), "hooks.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	crlf := strings.ReplaceAll(src, "\n", "\r\n")
	out, _, err = merge(targets[agent.Cursor], testOptions(agent.Cursor), "hooks.json", []byte(crlf))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != strings.ReplaceAll(want, "\n", "\r\n") {
		t.Errorf("CRLF file: got:\n%q", out)
	}
}

// TestMergeKeepsALineCommentWithTheValueItFollows: a member added after
// the last one goes after that member's comment, not between them.
func TestMergeKeepsALineCommentWithTheValueItFollows(t *testing.T) {
	src := "{\n  \"general\": {} // mine\n}\n"
	out, _, err := merge(targets[agent.Gemini], testOptions(agent.Gemini), "settings.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("{\n  \"general\": {}, // mine\n  \"hooks\": {\n    \"BeforeTool\": [\n")) {
		t.Errorf("got:\n%s", out)
	}
}

func TestMergeTwiceChangesNothing(t *testing.T) {
	for _, name := range agent.Names() {
		tg := targets[name]
		inputs := map[string][]byte{"new": nil, "empty object": []byte("{}"), "empty hooks": []byte(`{"hooks": {}}`),
			"existing": []byte(existing[name]), "one line": []byte(`{"a": 1, "hooks": {"x": [1]}}`)}
		if tg.version {
			inputs["one line"] = []byte(`{"version": 1, "hooks": {"x": [1]}}`)
		}
		for what, src := range inputs {
			for _, o := range []*Options{testOptions(name), {Agent: name, Command: "luahook", HTTP: "http://127.0.0.1:8787", HooksDir: "/home/a b/hooks.d"},
				{Agent: name, Command: "luahook", Socket: "/run/user/1000/luahook.sock", FireCommand: "'/opt/lua hook/luahook-fire'"}} {
				once, _, err := merge(tg, o, "f.json", src)
				if err != nil {
					t.Fatalf("%s %s: %v", name, what, err)
				}
				twice, _, err := merge(tg, o, "f.json", once)
				if err != nil {
					t.Fatalf("%s %s, second run: %v\n%s", name, what, err, once)
				}
				if !bytes.Equal(once, twice) {
					t.Errorf("%s %s: the second run changed the file:\n%s\nthen:\n%s", name, what, once, twice)
				}
				checkOneEntryPerEvent(t, tg, twice)
			}
		}
	}
}

func TestMergeReplacesOnlyLuahooksOwnEntries(t *testing.T) {
	src := []byte(`{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "./audit.sh" },
          { "type": "command", "command": "/old/luahook fire --agent claude" }
        ]
      },
      { "hooks": [ { "type": "command", "command": "/old/luahook fire --agent claude", "onFailure": "block" } ] },
      { "hooks": [ { "type": "http", "url": "http://127.0.0.1:9/agent/claude" } ] }
    ],
    "Stop": [
      { "hooks": [ { "type": "command", "command": "luahook-fire --agent claude is not ours" } ] }
    ],
    "Notification": [
      { "hooks": [ { "type": "command", "command": "luahook fire --agent claude" } ] }
    ]
  }
}`)
	tg := targets[agent.Claude]
	out, _, err := merge(tg, testOptions(agent.Claude), "settings.json", src)
	if err != nil {
		t.Fatal(err)
	}
	checkOneEntryPerEvent(t, tg, out)
	for _, keep := range []string{`{ "type": "command", "command": "./audit.sh" }`, `"matcher": "Bash"`, `luahook-fire --agent claude is not ours`} {
		if !bytes.Contains(out, []byte(keep)) {
			t.Errorf("%s is gone:\n%s", keep, out)
		}
	}
	for _, gone := range []string{"/old/luahook", "127.0.0.1:9"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("the old luahook entry %s is still there:\n%s", gone, out)
		}
	}
	got := luahookEntries(t, tg, out)["PreToolUse"][0]
	if c := member0(got, "command").str; c != "/usr/local/bin/luahook fire --agent claude --project" {
		t.Errorf("command %q", c)
	}
	if f := member0(got, "onFailure"); f == nil || f.str != "block" {
		t.Errorf("PreToolUse's entry does not fail closed")
	}
}

func TestMergeRefusesAFileTheAgentCannotRead(t *testing.T) {
	tests := []struct {
		name      string
		agent     agent.Name
		src       string
		line, col int
		msg       string
	}{
		{"not JSON", agent.Claude, "{\n  \"model\": opus\n}", 2, 12, "want a value"},
		{"comment in strict JSON", agent.Claude, "{\n  // mine\n  \"a\": 1\n}", 2, 3, "comments are not allowed"},
		{"comment in Codex's file", agent.Codex, "{ /* x */ }", 1, 3, "comments are not allowed"},
		{"trailing comma", agent.Gemini, "{\n  \"a\": 1,\n}", 2, 9, "trailing comma"},
		{"unterminated comment", agent.Gemini, "{ /* x", 1, 3, "unterminated /* comment"},
		{"empty", agent.Cursor, "  \n", 2, 1, "the file is empty"},
		{"a top-level array", agent.Claude, "[]", 1, 1, "the top level is an array"},
		{"hooks not an object", agent.Claude, `{"hooks": []}`, 1, 11, `"hooks" is an array: want an object`},
		{"event not a list", agent.Gemini, `{"hooks": {"BeforeTool": {}}}`, 1, 26, "hooks.BeforeTool is an object: want an array"},
		{"key twice", agent.Claude, `{"hooks": {}, "hooks": {}}`, 1, 15, `key "hooks" appears twice`},
		{"event twice", agent.Cursor, `{"version": 1, "hooks": {"stop": [], "stop": []}}`, 1, 38, `key "stop" appears twice`},
		{"version 2", agent.Cursor, `{"version": 2, "hooks": {}}`, 1, 13, `"version" is 2`},
		{"text after the object", agent.Copilot, `{"version": 1} {}`, 1, 16, "after the end of the top-level value"},
		{"bad escape", agent.Claude, `{"a": "\q"}`, 1, 8, `bad escape`},
		{"control character", agent.Claude, "{\"a\": \"x\ty\"}", 1, 9, `control character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := merge(targets[tt.agent], testOptions(tt.agent), "/p/settings.json", []byte(tt.src))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.Path != "/p/settings.json" || fe.Line != tt.line || fe.Col != tt.col || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("got %v (line %d col %d), want /p/settings.json:%d:%d: ...%s...", err, fe.Line, fe.Col, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestMergeWarnsWhenTheFileTurnsEveryHookOff(t *testing.T) {
	tests := map[agent.Name]string{
		agent.Claude:  `{"disableAllHooks": true}`,
		agent.Copilot: `{"version": 1, "disableAllHooks": true, "hooks": {}}`,
		agent.Gemini:  `{"hooksConfig": {"enabled": false}}`,
	}
	for name, src := range tests {
		_, warnings, err := merge(targets[name], testOptions(name), "s.json", []byte(src))
		if err != nil || len(warnings) != 1 {
			t.Errorf("%s: warnings %q, err %v; want one warning", name, warnings, err)
		}
	}
}

func TestTheCommandLine(t *testing.T) {
	tests := []struct {
		name  string
		o     Options
		event string
		want  string
	}{
		{"project", Options{Agent: agent.Claude, Command: "/usr/local/bin/luahook"}, "PreToolUse",
			"/usr/local/bin/luahook fire --agent claude --project"},
		{"user folder with a space", Options{Agent: agent.Codex, Command: "luahook", HooksDir: "/Users/a/Library/Application Support/luahook/hooks.d"}, "PreToolUse",
			"luahook fire --agent codex --dir '/Users/a/Library/Application Support/luahook/hooks.d'"},
		{"user config", Options{Agent: agent.Gemini, Command: "luahook", Config: "/home/o'brien/.config/luahook/luahook.toml"}, "BeforeTool",
			`luahook fire --agent gemini --config '/home/o'\''brien/.config/luahook/luahook.toml'`},
		{"copilot names the event", Options{Agent: agent.Copilot, Command: "luahook"}, "preToolUse",
			"luahook fire --agent copilot preToolUse --project"},
		{"forwarding to serve", Options{Agent: agent.Cursor, Command: "luahook", HTTP: "http://127.0.0.1:8787/"}, "preToolUse",
			"luahook fire --agent cursor --http http://127.0.0.1:8787"},
		{"asking serve's socket", Options{Agent: agent.Claude, Command: "luahook", FireCommand: "/usr/local/bin/luahook-fire", Socket: "/home/a b/.luahook.sock"}, "PreToolUse",
			"/usr/local/bin/luahook-fire --agent claude --socket '/home/a b/.luahook.sock'"},
		{"copilot asking serve's socket", Options{Agent: agent.Copilot, Command: "luahook", FireCommand: "'/opt/lua hook/luahook-fire'", Socket: "/s.sock", HooksDir: "/h"}, "preToolUse",
			"'/opt/lua hook/luahook-fire' --agent copilot preToolUse --socket /s.sock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.ProjectDir = "/p"
			tg, err := tt.o.check()
			if err != nil {
				t.Fatal(err)
			}
			h := tg.handler(&tt.o, tt.event)
			got := compact(h)
			if !strings.Contains(got, quote(tt.want)) {
				t.Errorf("entry %s, want command %s", got, tt.want)
			}
			if !fireCall().MatchString(tt.want) {
				t.Errorf("luahook would not recognise its own command %q", tt.want)
			}
		})
	}
}

// TestClaudeOverHTTPFailsClosedOnTheBlockingEvents: with --http, Claude
// Code's own HTTP hooks, failing closed where luahook blocks; SessionStart,
// where Claude Code runs no HTTP hook, a command forwarding to the server.
func TestClaudeOverHTTPFailsClosedOnTheBlockingEvents(t *testing.T) {
	o := &Options{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", HTTP: "https://hooks.example:8443"}
	tg, err := o.check()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range tg.events {
		got := compact(tg.handler(o, ev))
		want := `{"hooks": [{"type": "http", "url": "https://hooks.example:8443/agent/claude", ` + tokenFields + `}]}`
		switch {
		case canBlock(ev):
			want = `{"hooks": [{"type": "http", "url": "https://hooks.example:8443/agent/claude", ` + tokenFields + `, "onFailure": "block"}]}`
		case ev == "SessionStart":
			// Claude Code runs no HTTP hook there: a command forwards it.
			want = `{"hooks": [{"type": "command", "command": "luahook fire --agent claude --http https://hooks.example:8443"}]}`
		}
		if got != want {
			t.Errorf("%s: %s, want %s", ev, got, want)
		}
	}
	if o.Forwards() {
		t.Errorf("Claude Code forwards through fire --http; want its own HTTP hooks")
	}
	for _, name := range []agent.Name{agent.Codex, agent.Copilot, agent.Cursor, agent.Gemini} {
		if o := (&Options{Agent: name, HTTP: "http://x"}); !o.Forwards() {
			t.Errorf("%s does not forward through fire --http", name)
		}
	}
}

func TestOptionsRefuseABadServerURL(t *testing.T) {
	for _, u := range []string{"127.0.0.1:8787", "ftp://x", "http://", "http://x/?a=1", "http://u:p@x"} {
		o := &Options{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", HTTP: u}
		if _, err := o.check(); err == nil {
			t.Errorf("--http %q accepted", u)
		}
	}
}

// Over a Unix socket every agent's hook is luahook-fire, Claude Code's too
// (it has no HTTP hook on a socket), which keeps onFailure "block" on the
// events that can block; switching back to luahook fire replaces it.
func TestInstallOverASocketWritesLuahookFire(t *testing.T) {
	for _, name := range agent.Names() {
		tg := targets[name]
		o := &Options{Agent: name, ProjectDir: "/p", Command: "/usr/local/bin/luahook", Socket: "/run/l.sock", FireCommand: "/usr/local/bin/luahook-fire"}
		src, _, err := merge(tg, o, "f.json", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkOneEntryPerEvent(t, tg, src)
		if n := bytes.Count(src, []byte("/usr/local/bin/luahook-fire --agent "+string(name))); n != len(tg.events) {
			t.Errorf("%s: luahook-fire %d times for %d events:\n%s", name, n, len(tg.events), src)
		}
		for _, ev := range tg.events {
			h := compact(tg.handler(o, ev))
			if !strings.Contains(h, `"/usr/local/bin/luahook-fire --agent `+string(name)) || strings.Contains(h, " fire --agent") {
				t.Errorf("%s %s: %s, want luahook-fire", name, ev, h)
			}
			if name == agent.Claude && canBlock(ev) != strings.Contains(h, `"onFailure": "block"`) {
				t.Errorf("%s %s: %s, want onFailure block exactly on the blocking events", name, ev, h)
			}
		}
		back, _, err := merge(tg, testOptions(name), "f.json", src)
		if err != nil {
			t.Fatal(err)
		}
		checkOneEntryPerEvent(t, tg, back)
		if bytes.Contains(back, []byte("luahook-fire")) {
			t.Errorf("%s: luahook fire did not replace luahook-fire:\n%s", name, back)
		}
	}
	for _, o := range []Options{
		{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", FireCommand: "luahook-fire", Socket: "run/l.sock"},
		{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", FireCommand: "luahook-fire", Socket: "/l.sock", HTTP: "http://x"},
		{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", Socket: "/l.sock"},
	} {
		if _, err := o.check(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
