package registry_test

import (
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// TestMatcherExplainAgreesWithMatchOnTheTable: on every probe of the
// matcher table (every form), Explain gives Match's verdict and a reason.
func TestMatcherExplainAgreesWithMatchOnTheTable(t *testing.T) {
	for _, cwd := range []string{"/home/u/proj", "", "rel", "/"} {
		for _, c := range matcherCases {
			if c.err != "" {
				continue
			}
			m, err := registry.ParseMatcher(c.ev(), c.matcher)
			if err != nil {
				t.Fatal(err)
			}
			probes := append(c.probes, probe{key: ""}, probe{key: "Other"}, probe{key: c.probes[0].key, input: "not json"})
			for _, p := range probes {
				in := c.payload(p, cwd)
				want := m.Match(p.key, in)
				got, why := m.Explain(p.key, in)
				if got != want || why == "" {
					t.Errorf("%s %q on %q %s (cwd %q): Explain %v %q, Match %v", c.ev(), c.matcher, p.key, p.input, cwd, got, why, want)
				}
			}
		}
	}
}

// TestMatcherExplainNamesThePartThatFailed: the reason names the part of
// the matcher that decided and the value it read from the payload.
func TestMatcherExplainNamesThePartThatFailed(t *testing.T) {
	const cwd = "/home/u/proj"
	long := strings.Repeat("a", 500)
	cases := []struct {
		event   luahook.Event
		matcher string
		key     string
		input   string
		caps    []string
		ok      bool
		why     string
	}{
		{"", "*", "Bash", "", nil, true, "every payload (matcher *)"},
		{"", "bash|sh", "python", "", nil, false, `tool name "python" is not in the list bash|sh`},
		{"", "bash|sh", "SH", "", nil, true, `tool name "SH" is in the list bash|sh`},
		{"", "bash", "", "", nil, true, "the payload has no tool name, and every matcher selects such a payload"},
		{"", "@shell", "exec", "", []string{"fs.read", "net"}, false, `toolCapabilities ["fs.read" "net"], none of @shell`},
		{"", "@shell", "exec", "", nil, false, `the payload has no toolCapabilities, none of @shell`},
		{"", "@shell", "run_shell_command", "", nil, true, `no toolCapabilities declared: the agents' tool "run_shell_command" is ["shell"], which has @shell`},
		{"", "@shell", "Read", "", nil, false, `no toolCapabilities declared: the agents' tool "Read" is ["fs.read"], none of @shell`},
		{"", "bash|@shell", "exec", "", []string{"SHELL"}, true, `toolCapabilities ["SHELL"] has @shell`},
		{"", "bash|@shell", "exec", "", []string{"net"}, false, `tool name "exec" is not in the list bash; toolCapabilities ["net"], none of @shell`},
		{"", "mcp__github__.*", "mcp__gitlab__x", "", nil, false, `tool name "mcp__gitlab__x" does not match the regular expression ^(?i:mcp__github__.*)$`},
		{"", "Bash(git push:*)", "Read", cmd("git push"), nil, false, `tool name "Read" is not Bash, the tool of this Tool(pattern) matcher`},
		{"", "Bash(git push:*)", "bash", cmd("git status"), nil, false,
			`tool name "bash" is Bash; toolInput.command "git status" does not match command prefix "git push", neither whole nor any command in it`},
		{"", "Bash(git push:*)", "Bash", cmd("cd x && git push -f"), nil, true,
			`toolInput.command "cd x && git push -f" has the command "git push -f", which matches command prefix "git push"`},
		{"", "Bash(git push:*)", "Bash", cmd("git push"), nil, true, `toolInput.command "git push" matches command prefix "git push"`},
		{"", "Bash(git push:*)", "Bash", `{"command":42}`, nil, true, "toolInput has no command to read (absent, not a string, or given twice), so the hook runs"},
		{"", "exec_command(rm -rf:*)", "exec_command", `{"cmd":"ls"}`, nil, false, `toolInput.cmd "ls" does not match command prefix "rm -rf"`},
		{"", "Bash(git push:*)", "Bash", cmd(long), nil, false, `toolInput.command "` + strings.Repeat("a", registry.MaxShownChars) + `"… does not match`},
		{"", "Edit(src/**)", "Edit", file("/elsewhere/src/x.go"), nil, false,
			`toolInput.file_path "/elsewhere/src/x.go" is not below the cwd "/home/u/proj" (path below cwd "src/**")`},
		{"", "Edit(src/**)", "Edit", file("lib/x.go"), nil, false,
			`toolInput.file_path "lib/x.go" (resolved: "/home/u/proj/lib/x.go") does not match path below cwd "src/**"`},
		{"", "Read(*.pem)", "Read", file("/a/key.txt"), nil, false, `its file name "key.txt" does not match file name "*.pem"`},
		{"", "Grep(src/**)", "Grep", `{"pattern":"x"}`, nil, false, `no folder in toolInput (path or dir_path), so the cwd "/home/u/proj"`},
		{"", "WebFetch(domain:example.com)", "WebFetch", `{"url":"https://example.com.evil.io/"}`, nil, false,
			`toolInput.url "https://example.com.evil.io/": host "example.com.evil.io" is neither example.com nor below it`},
		{luahook.Notification, "permission", "input", "", nil, false, `notification kind "input" is not in the list permission`},
	}
	for _, c := range cases {
		mc := matcherCase{event: c.event, matcher: c.matcher}
		m, err := registry.ParseMatcher(mc.ev(), c.matcher)
		if err != nil {
			t.Fatal(err)
		}
		in := mc.payload(probe{key: c.key, input: c.input, caps: c.caps}, cwd)
		ok, why := m.Explain(c.key, in)
		if ok != c.ok || !strings.Contains(why, c.why) {
			t.Errorf("%q on %q %s: Explain %v %q, want %v and %q", c.matcher, c.key, c.input, ok, why, c.ok, c.why)
		}
		if ok != m.Match(c.key, in) {
			t.Errorf("%q on %q %s: Explain %v, Match the opposite", c.matcher, c.key, c.input, ok)
		}
		if len(why) > 4*registry.MaxShownChars+200 {
			t.Errorf("%q: a reason of %d bytes", c.matcher, len(why))
		}
	}
}

// TestEntryExplainNamesAnotherEvent: an entry never runs for another
// event's payload, and Explain says so before looking at its matcher.
func TestEntryExplainNamesAnotherEvent(t *testing.T) {
	reg := registry.New()
	if _, err := reg.Register(luahook.Spec{Event: luahook.Stop, Name: "s", Hook: nopHook}); err != nil {
		t.Fatal(err)
	}
	e := reg.List(luahook.Stop)[0]
	ok, why := e.Explain("bash", &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash"})
	if ok || why != "registered for Stop, the payload is PreToolUse" {
		t.Errorf("Explain %v %q", ok, why)
	}
	if ok, _ := e.Explain("", &luahook.Input{Event: luahook.Stop}); !ok {
		t.Error("an entry's own event: not selected")
	}
}
