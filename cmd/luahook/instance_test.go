package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func TestTheInstanceIDComesFromTheFlagThenTheEnvironmentThenHostAndPid(t *testing.T) {
	host, _ := os.Hostname()
	t.Setenv(instanceEnv, "")
	if id, err := instanceID(""); err != nil || id != fmt.Sprintf("%s-%d", host, os.Getpid()) {
		t.Errorf("default = %q, %v; want HOSTNAME-PID", id, err)
	}
	t.Setenv(instanceEnv, "pod-7")
	if id, err := instanceID(""); err != nil || id != "pod-7" {
		t.Errorf("with $%s = %q, %v; want pod-7", instanceEnv, id, err)
	}
	if id, err := instanceID("replica-a"); err != nil || id != "replica-a" {
		t.Errorf("with the flag = %q, %v; want the flag's", id, err)
	}
}

func TestABadInstanceIDIsRefusedNamingWhereItCameFrom(t *testing.T) {
	t.Setenv(instanceEnv, "pod 7")
	for _, tc := range []struct{ flag, want string }{
		{"", `$LUAHOOK_INSTANCE_ID: instance id "pod 7": byte 3 (' ') is not a letter, a digit or one of . _ : -`},
		{"a\nb", `--instance-id: instance id "a\nb": byte 1 ('\n')`},
		{strings.Repeat("x", 129), "--instance-id: instance id of 129 bytes is over the limit of 128"},
	} {
		if _, err := instanceID(tc.flag); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("instanceID(%q) = %v, want an error with %q", tc.flag, err, tc.want)
		}
	}
}

func TestServeNamesItsInstanceInMetricsAndLogLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir, "--log-level", "debug"}, "--instance-id", "replica-z")
	if v, ok := scrapeMetrics(t, s.base)[`luahook_instance_info{instance="replica-z",version="`+luahook.Version+`"}`]; !ok || v != 1 {
		t.Errorf("luahook_instance_info for replica-z = %v (present %v), want 1", v, ok)
	}
	s.post(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`)
	s.stop()
	lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("serve logged nothing at debug level")
	}
	for _, l := range lines {
		if !strings.Contains(l, " instance=replica-z") {
			t.Errorf("a log line without the instance: %s", l)
		}
	}
}
