package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An error about a value names where the value came from: the flag or the
// environment variable that gave it, not a config key it overrode; and the
// config key when the config gave it.
func TestErrorsNameTheValuesTrueSource(t *testing.T) {
	noAgent(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(instanceEnv, "")
	t.Setenv("LUAHOOK_DIR", "")
	t.Setenv("LUAHOOK_TOKEN", "")
	work := t.TempDir()
	hooks := filepath.Join(work, "hooks.d")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(work, "luahook.toml")
	if err := os.WriteFile(cfg, []byte("[decision_log]\nenabled = true\npath = \"/dev/null\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(work, "a-file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(work, "missing")
	stop := `{"event":"Stop"}`
	claudeBash := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`

	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		stdin string
		// want is the exact start of the error, as the command reports it
		// (its standard error's "luahook: " line, or the reason of the
		// answer it gives the agent).
		want string
	}{
		{"serve --decision-log", nil,
			[]string{"--dir", hooks, "serve", "--addr", "127.0.0.1:0", "--decision-log", "/dev/null"}, "",
			"luahook: --decision-log /dev/null: decision log: /dev/null: not a regular file"},
		{"serve --decision-log over the config's", nil,
			[]string{"--dir", hooks, "--config", cfg, "serve", "--addr", "127.0.0.1:0", "--decision-log", "/dev/null"}, "",
			"luahook: --decision-log /dev/null: decision log: "},
		{"fire --decision-log", nil,
			[]string{"--dir", hooks, "fire", "--decision-log", "/dev/null", "--input", stop}, "",
			"luahook: warning: not loaded, running without it: --decision-log /dev/null: decision log: "},
		{"the config's decision_log.path", nil,
			[]string{"--dir", hooks, "--config", cfg, "serve", "--addr", "127.0.0.1:0"}, "",
			"luahook: " + cfg + ": decision_log.path: decision log: /dev/null: not a regular file"},
		{"--dir", nil, []string{"--dir", missing, "list"}, "",
			"luahook: hooks folder --dir " + missing + ": "},
		{"$LUAHOOK_DIR", map[string]string{"LUAHOOK_DIR": missing}, []string{"list"}, "",
			"luahook: hooks folder $LUAHOOK_DIR " + missing + ": "},
		{"--dir over $LUAHOOK_DIR", map[string]string{"LUAHOOK_DIR": hooks}, []string{"--dir", missing, "list"}, "",
			"luahook: hooks folder --dir " + missing + ": "},
		{"$LUAHOOK_DIR to add", map[string]string{"LUAHOOK_DIR": aFile}, []string{"add", "secrets"}, "",
			"luahook: hooks folder $LUAHOOK_DIR " + aFile + ": not a folder"},
		{"--instance-id", nil, []string{"--dir", hooks, "serve", "--addr", "127.0.0.1:0", "--instance-id", "bad id"}, "",
			"luahook: --instance-id: instance id \"bad id\": "},
		{"$LUAHOOK_INSTANCE_ID", map[string]string{instanceEnv: "bad id"},
			[]string{"--dir", hooks, "serve", "--addr", "127.0.0.1:0"}, "",
			"luahook: $LUAHOOK_INSTANCE_ID: instance id \"bad id\": "},
		{"--on-load-error", nil, []string{"--dir", hooks, "fire", "--on-load-error", "bogus", "--input", stop}, "",
			"luahook: --on-load-error \"bogus\": "},
		{"$LUAHOOK_TOKEN", map[string]string{"LUAHOOK_TOKEN": "a b"},
			[]string{"fire", "--agent", "claude", "--http", "http://127.0.0.1:9"}, claudeBash,
			"luahook fire could not ask luahook serve at http://127.0.0.1:9/agent/claude: $LUAHOOK_TOKEN: the token's byte 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var out, errb syncBuffer
			code := run(ctx, tc.args, strings.NewReader(tc.stdin), &out, &errb)
			got := errb.String()
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("exit %d, stderr %q\nwant it to start %q", code, got, tc.want)
			}
			if strings.Contains(got, "decision_log.path") && strings.Contains(strings.Join(tc.args, " "), "--decision-log") {
				t.Errorf("the flag's value is reported as the config's: %q", got)
			}
		})
	}
}
