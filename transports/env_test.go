package transports

import (
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v // last wins, as for exec
	}
	return m
}

func TestChildEnvKeepsSystemNamesAndDropsSecrets(t *testing.T) {
	tests := []struct {
		kv   string
		keep bool
	}{
		// the system allowlist
		{"PATH=/usr/bin:/bin", true},
		{"HOME=/home/op", true},
		{"USER=op", true},
		{"SHELL=/bin/bash", true},
		{"LANG=en_US.UTF-8", true},
		{"LC_ALL=C.UTF-8", true},
		{"LC_MESSAGES=C", true},
		{"TERM=xterm-256color", true},
		{"TZ=UTC", true},
		{"TMPDIR=/tmp", true},
		// kept prefixes and names
		{"GIT_AUTHOR_NAME=Op", true},
		{"XDG_CONFIG_HOME=/home/op/.config", true},
		{"LUAHOOK_CONFIG=/etc/luahook.toml", true},
		{"XDG_CACHE_HOME=/home/op/.cache", true},
		{"GIT_COMMITTER_EMAIL=op@example.com", true},
		{"COLORTERM=truecolor", true},
		// no longer kept by prefix: the allowlist names what is harmless
		{"NODE_PATH=/usr/lib/node", false},
		{"NPM_CONFIG_CACHE=/tmp/npm", false},
		{"GIT_EXEC_PATH=/usr/lib/git-core", false},
		{"XDG_RUNTIME_DIR=/run/user/1000", false},
		{"GIT_ASKPASS=/usr/bin/ask", false},
		{"GIT_SSH_COMMAND=ssh -i /k", false},
		{"GIT_CONFIG_COUNT=1", false},
		{"HTTPS_PROXY=http://proxy:3128", false},
		{"EDITOR=vim", true},
		{"PAGER=less", true},
		{"CI=true", true},
		// secret-looking names, even under a kept prefix
		{"GITHUB_TOKEN=ghp_abc", false},
		{"GIT_TOKEN=abc", false},
		{"AWS_SECRET_ACCESS_KEY=abc", false},
		{"AWS_ACCESS_KEY_ID=AKIA", false},
		{"OPENAI_API_KEY=sk-abc", false},
		{"LUAHOOK_APIKEY=abc", false},
		{"NPM_CONFIG__AUTH=abc", false},
		{"GIT_SSH_KEY=/k", false},
		{"XDG_KEYS=abc", false},
		{"LUAHOOK_KEY=abc", false},
		{"NODE_PASSWORD=abc", false},
		{"LUAHOOK_DB_PASS=abc", false},
		{"LUAHOOK_MYSQL_PWD=abc", false},
		{"GIT_PAT=abc", false},
		{"LUAHOOK_JWT=abc", false},
		{"LUAHOOK_COOKIE=abc", false},
		{"NODE_PRIVATE_THING=abc", false},
		{"LUAHOOK_CREDENTIALS=abc", false},
		{"GIT_BEARER=abc", false},
		{"LUAHOOK_SESSION=abc", false},
		{"SSH_AUTH_SOCK=/tmp/agent", false},
		{"GIT_AUTHORIZATION=abc", false},
		{"LUAHOOK_OAUTH_CLIENT=abc", false},
		{"GIT_AUTHOR_EMAIL=op@example.com", true},
		// words that only look like secret words
		{"LUAHOOK_KEYBOARD=us", true},
		{"LUAHOOK_SESSION_ID_FILE=/tmp/s", true},
		{"LUAHOOK_AUTHOR=op", true},
		// secret-looking LUAHOOK_ names
		{"LUAHOOK_DB_PW=abc", false},
		{"LUAHOOK_ASKPASS=/bin/ask", false},
		{"LUAHOOK_OLD_PWD=abc", false},
		{"LUAHOOK_SIG=abc", false},
		// credentials in values, whatever the name
		{"LUAHOOK_DB=postgres://u:p@h/db", false},
		{"GIT_REMOTE=https://ghp_token@github.com/o/r", false},
		{"NODE_REDIS=redis://:hunter2@cache:6379", false},
		{"GIT_CONFIG_PARAMETERS='http.extraheader=Authorization: Bearer abc'", false},
		{"NPM_PROXY=Proxy-Authorization: Basic abc", false},
		{"HOME=https://u:p@example.com/", false},
		{"LUAHOOK_REMOTE_SSH=ssh://git@github.com/o/r", true}, // a user name without a password is no credential
		{"LUAHOOK_URL=https://example.com/a@b", true},         // @ in the path, not in user info
		{"LUAHOOK_DOCS=https://example.com/doc?page=env&lang=en", true},
		{"PATH=/home/op/api-key:/usr/bin:/bin", true}, // a folder named like a header is not one
		{"LUAHOOK_URL=https://example.com/x?token=abc", false},
		{"LUAHOOK_URL=https://example.com/x?a=1&Signature=abc", false},
		{"LUAHOOK_ARGS=--password=abc", false},
		{"LUAHOOK_GITCFG=http.extraheader=X-Api-Key: abc", false},
		{"LUAHOOK_HDR=PRIVATE-TOKEN: abc", false},
		{"LUAHOOK_HDR=Cookie: sid=abc", false},
		{"LUAHOOK_NOTE=Bearer abcdefghij", false},
		{"LUAHOOK_GH=ghp_abcdefghijklmnopqrstuvwxyz", false},
		{"LUAHOOK_AWS=AKIAABCDEFGHIJKLMNOP", false},
		{"LUAHOOK_JWT_LIKE=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		{"LUAHOOK_PEM=-----BEGIN RSA PRIVATE KEY-----", false},
		{"LUAHOOK_TASK=task-runner-with-a-long-name", true}, // sk- inside a word is no token
		// NODE_OPTIONS could preload code into every node hook
		{"NODE_OPTIONS=--require ./evil.js", false},
		// anything else
		{"DATABASE_URL=postgres://h/db", false},
		{"DISPLAY=:0", false},
		{"LD_PRELOAD=/tmp/x.so", false},
		{"BASH_ENV=/tmp/x.sh", false},
		{"PERL5OPT=-Mevil", false},
		{"SECRET_SAUCE=x", false},
	}
	for _, tt := range tests {
		env := ChildEnv([]string{tt.kv}, nil, &luahook.Input{Event: luahook.PreToolUse})
		got := slices.Contains(env, tt.kv)
		if got != tt.keep {
			t.Errorf("%q kept = %v, want %v (env %q)", tt.kv, got, tt.keep, env)
		}
	}
}

func TestChildEnvSetsPayloadVariablesOverInheritedOnes(t *testing.T) {
	parent := []string{
		"LUAHOOK_EVENT=Stop", "LUAHOOK_TOOL_NAME=old", "LUAHOOK_SESSION_ID=other-session",
		"PWD=/somewhere/else", "PATH=/bin",
	}
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", SessionID: "s-1", Cwd: "/work/repo"}
	got := envMap(ChildEnv(parent, []string{"LUAHOOK_EVENT"}, in))
	want := map[string]string{
		"LUAHOOK_EVENT": "PreToolUse", "LUAHOOK_TOOL_NAME": "bash", "LUAHOOK_SESSION_ID": "s-1",
		"PWD": "/work/repo", "PATH": "/bin",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, kv := range ChildEnv(parent, nil, in) {
		if kv == "LUAHOOK_SESSION_ID=other-session" || kv == "PWD=/somewhere/else" {
			t.Errorf("inherited %q leaked next to the payload's value", kv)
		}
	}
	empty := envMap(ChildEnv(nil, nil, &luahook.Input{Event: luahook.SessionStart}))
	for _, k := range []string{"LUAHOOK_TOOL_NAME", "LUAHOOK_SESSION_ID"} {
		if v, ok := empty[k]; !ok || v != "" {
			t.Errorf("%s = %q (set %v), want set and empty so that `set -u` scripts work", k, v, ok)
		}
	}
}

func TestChildEnvPassesExplicitNamesVerbatim(t *testing.T) {
	parent := []string{
		"GITHUB_TOKEN=ghp_first", "GITHUB_TOKEN=ghp_last", "DATABASE_URL=postgres://u:p@h/db",
		"OTHER_TOKEN=x", "PLAIN=yes",
	}
	got := envMap(ChildEnv(parent, []string{"GITHUB_TOKEN", "DATABASE_URL", "PLAIN", "MISSING"}, &luahook.Input{}))
	if got["GITHUB_TOKEN"] != "ghp_last" {
		t.Errorf("GITHUB_TOKEN = %q, want the last parent value", got["GITHUB_TOKEN"])
	}
	if got["DATABASE_URL"] != "postgres://u:p@h/db" {
		t.Errorf("DATABASE_URL = %q, want it passed as named", got["DATABASE_URL"])
	}
	if got["PLAIN"] != "yes" {
		t.Errorf("PLAIN = %q, want yes", got["PLAIN"])
	}
	if _, ok := got["OTHER_TOKEN"]; ok {
		t.Error("OTHER_TOKEN passed although not named")
	}
	if _, ok := got["MISSING"]; ok {
		t.Error("MISSING invented although absent from the parent")
	}
}
