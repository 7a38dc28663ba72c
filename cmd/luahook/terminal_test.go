package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is text an agent can get into a deny reason, a hook name or a test
// name: an OSC 52 clipboard write, a screen erase, a carriage return and a
// forged line of luahook's own output, a C1 CSI and a direction override.
const hostile = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\rluahook: all hooks passed\n\u009b2Jfile\u202etxt.exe"

// terminalSafe reports the first byte sequence of out a terminal would act on.
func terminalSafe(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u009b", "\u202e", "\nluahook: all hooks passed"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s writes %q raw to the terminal:\n%q", what, bad, out)
		}
	}
}

// luaQuote writes s as a Lua string literal, every byte outside printable
// ASCII as a decimal escape.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hostileHooks(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	q := luaQuote
	files := map[string]string{
		"10-deny.lua": `hook.register("PreToolUse", "bash", function(input)
  return hook.deny(` + q(hostile) + ` .. input.toolInput.command)
end, {name = ` + q("deny"+hostile) + `})`,
		"20-raise.lua": `hook.register("Stop", nil, function() error(` + q(hostile) + `) end, {name = ` + q("raise"+hostile) + `})`,
		"10-deny_test.lua": `test(` + q("case"+hostile) + `, function()
  expect.allowed(fire("PreToolUse", {toolName = "bash", toolInput = {command = "x"}}))
end)`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTextFromHooksAndPayloadsReachesTheTerminalEscaped(t *testing.T) {
	dir := hostileHooks(t)
	payload := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":` + func() string { b, _ := json.Marshal(hostile); return string(b) }() + `}}`
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"fire", []string{"--dir", dir, "fire"}, 2},
		{"fire --trace", []string{"--dir", dir, "fire", "--trace"}, 2},
		{"list", []string{"--dir", dir, "list"}, 0},
		{"test", []string{"--dir", dir, "test", dir}, 1},
		{"a failing hook's log line", []string{"--dir", dir, "--log-level", "warn", "fire", "Stop"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(payload), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tc.code, out.String(), errb.String())
			}
			terminalSafe(t, tc.name+" (stderr)", errb.String())
			if strings.HasPrefix(tc.name, "a failing") && !strings.Contains(errb.String(), `\x1b]52;c;`) {
				t.Errorf("stderr %q does not log the failure", errb.String())
			}
			if tc.name == "fire" || tc.name == "fire --trace" {
				// JSON stays exact: the reason decodes to what the hook said.
				var o struct{ Reason string }
				if err := json.Unmarshal(out.Bytes(), &o); err != nil || o.Reason != hostile+hostile {
					t.Errorf("stdout %q does not carry the exact reason: %v", out.String(), err)
				}
				if !strings.Contains(errb.String(), `\x1b]52;c;`) {
					t.Errorf("stderr %q does not show the escaped reason", errb.String())
				}
				return
			}
			terminalSafe(t, tc.name+" (stdout)", out.String())
		})
	}
}

func TestTheREPLTraceAndValuesReachTheTerminalEscaped(t *testing.T) {
	dir := hostileHooks(t)
	script := ":trace on\n:fire PreToolUse {\"toolName\":\"bash\",\"toolInput\":{\"command\":\"x\"}}\n= " +
		luaQuote(hostile) + "\nprint(" + luaQuote(hostile) + ")\nerror(" + luaQuote(hostile) + ")\n:list\n"
	var out, errb bytes.Buffer
	run(context.Background(), []string{"--dir", dir, "repl"}, strings.NewReader(script), &out, &errb)
	terminalSafe(t, "repl (stdout)", out.String())
	terminalSafe(t, "repl (stderr)", errb.String())
	if !strings.Contains(out.String(), `\x1b]52;c;`) {
		t.Errorf("the REPL did not show the escaped text at all:\n%s", out.String())
	}
}
