package install

import (
	"bytes"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
)

// tokenFields are the fields of a Claude Code HTTP hook that send serve's
// token: the header names the variable, which allowedEnvVars lets Claude
// Code fill in.
const tokenFields = `"headers": {"Authorization": "Bearer $LUAHOOK_TOKEN"}, "allowedEnvVars": ["LUAHOOK_TOKEN"]`

// Claude Code's HTTP hooks send serve's token from the environment: each
// carries the header with the variable's name and allowedEnvVars listing
// it, and the file holds no token, whatever the installing environment
// holds.
func TestClaudeHTTPHooksSendTheTokenOfTheEnvironment(t *testing.T) {
	t.Setenv(TokenEnv, "tok-never-written")
	o := &Options{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", HTTP: "https://hooks.example:8443"}
	tg, err := o.check()
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := merge(tg, o, "settings.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	// every HTTP hook: all the events but SessionStart, which a command
	// forwards (fire reads $LUAHOOK_TOKEN itself)
	if n := strings.Count(compactFile(t, src), tokenFields); n != len(tg.events)-1 {
		t.Errorf("%d hooks carry the token's header, want all %d HTTP hooks:\n%s", n, len(tg.events)-1, src)
	}
	if bytes.Contains(src, []byte("tok-never-written")) {
		t.Errorf("the file holds the token:\n%s", src)
	}
	// A command hook (no HTTP) carries none: fire reads no header.
	o = &Options{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook"}
	tg, _ = o.check()
	if src, _, _ := merge(tg, o, "settings.json", nil); bytes.Contains(src, []byte("allowedEnvVars")) {
		t.Errorf("a command hook carries a header:\n%s", src)
	}
}

// compactFile re-renders a file install wrote on one line per value, as
// compact does, so that entries compare as text.
func compactFile(t *testing.T, src []byte) string {
	t.Helper()
	root, err := parse("f.json", src, false)
	if err != nil {
		t.Fatal(err)
	}
	return compact(nodeValue(root))
}

// nodeValue converts a parsed node back into the values render takes.
func nodeValue(n *node) any {
	switch n.kind {
	case kindObject:
		o := obj{}
		for _, m := range n.members {
			o = append(o, field{m.key, nodeValue(m.value)})
		}
		return o
	case kindArray:
		var a []any
		for _, e := range n.elems {
			a = append(a, nodeValue(e))
		}
		return a
	case kindString:
		return n.str
	case kindBool:
		return n.b
	case kindNumber:
		return int(n.num)
	}
	return nil
}

// The token file of a forwarding command: named in the user's own
// settings, as an absolute path, and only where a command forwards to
// --http; Claude Code's HTTP hooks take the environment's token alone.
func TestTokenFileIsNamedOnlyWhereACommandForwards(t *testing.T) {
	user := func(name agent.Name, http, file, tokName string) Options {
		return Options{Agent: name, Scope: User, Home: "/h", Command: "luahook", HTTP: http, TokenFile: file, TokenName: tokName}
	}
	o := user(agent.Cursor, "https://hooks.example", "/h/.config/luahook/my token", "ci")
	tg, err := o.check()
	if err != nil {
		t.Fatal(err)
	}
	want := `luahook fire --agent cursor --http https://hooks.example --token-file '/h/.config/luahook/my token' --token-name ci`
	if got := compact(tg.handler(&o, "preToolUse")); !strings.Contains(got, quote(want)) {
		t.Errorf("entry %s, want command %s", got, want)
	}
	if !fireCall().MatchString(want) {
		t.Errorf("luahook would not recognise its own command %q", want)
	}
	for _, c := range []struct {
		o   Options
		msg string
	}{
		{user(agent.Claude, "https://hooks.example", "/h/token", ""), "claude's HTTP hooks send the token of $LUAHOOK_TOKEN"},
		{user(agent.Codex, "", "/h/token", ""), "--token-file is for --http URL"},
		{user(agent.Codex, "https://hooks.example", "token", ""), `--token-file "token": want the file's absolute path`},
		{user(agent.Codex, "https://hooks.example", "", "ci"), "--token-name picks a line of --token-file"},
		{user(agent.Codex, "https://hooks.example", "/h/token", "c i"), `--token-name "c i": want one word`},
		{Options{Agent: agent.Codex, ProjectDir: "/p", Command: "luahook", HTTP: "https://hooks.example", TokenFile: "/h/token"},
			"the project's settings are a file the team commits"},
	} {
		if _, err := c.o.check(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v; want %q", c.o, err, c.msg)
		}
	}
}

// The hooks carry serve's token, so an http URL (the token in clear) is
// taken only to a loopback address, as luahook fire --http holds it.
func TestHTTPInClearOnlyToALoopbackAddress(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8787", true},
		{"http://[::1]:8787", true},
		{"http://localhost:8787", true},
		{"https://hooks.example:8443", true},
		{"http://hooks.example:8787", false},
		{"http://10.0.0.5:8787", false},
	} {
		for _, name := range agent.Names() {
			o := &Options{Agent: name, ProjectDir: "/p", Command: "luahook", HTTP: c.url}
			_, err := o.check()
			if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "would cross the network in clear") {
				t.Errorf("%s --http %s: %v; want accepted %v", name, c.url, err, c.ok)
			}
		}
	}
}
