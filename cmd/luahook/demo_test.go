package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func TestDemoPlaysEveryEventThroughTheShippedPoliciesAndExitsZero(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		// The test runs in cmd/luahook, which has no hooks.d: the demo
		// uses the policies embedded in the binary, as on a fresh install.
		{"embedded policies", []string{"demo"}},
		{"the checkout's hooks.d", []string{"--dir", "../../hooks.d", "demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			got := out.String()
			for _, want := range []string{
				"✗ denied: dangerous command blocked: recursive delete of /, ~, * or an unknown folder.",
				`✎ rewritten to {"command":"pnpm add left-pad"}`,
				"✗ denied: access to .env is blocked: it may hold secrets",
				"✗ denied: the command touches .env, which may hold secrets",
				"✗ denied: dangerous command blocked: piping a download into a shell.",
				"  + context for the model (inline):\n      House rules for this repository:",
				"      Edited hello.txt. Run the tests before you finish.",
				"✓ allowed; the tool ran: wrote 13 bytes to hello.txt",
				"lua     dangerous-commands",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("the demo does not show %q", want)
				}
			}
			for _, ev := range luahook.Events() {
				if !regexp.MustCompile(`(?m)^  ` + string(ev) + `\b`).MatchString(got) {
					t.Errorf("the demo does not fire %s", ev)
				}
			}
			// The policies log their denials at warn; the demo's default
			// level (error) keeps that noise off the terminal.
			if errb.Len() != 0 {
				t.Errorf("stderr is not empty:\n%s", errb.String())
			}
			// The workspace and the copy of the policies are gone.
			m := regexp.MustCompile(`^luahook demo: \d+ hooks from (\S+), workspace (\S+)\n`).FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("no header line in:\n%s", got)
			}
			if _, err := os.Stat(m[2]); !os.IsNotExist(err) {
				t.Errorf("the workspace %s was left behind (%v)", m[2], err)
			}
			if strings.Contains(m[1], "luahook-demo-hooks-") {
				if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
					t.Errorf("the copy of the policies %s was left behind (%v)", m[1], err)
				}
			}
		})
	}
}

func TestDemoLogsAtTheLevelAskedFor(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--log-level", "warn", "demo"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), `level=WARN msg="blocked a dangerous command"`) {
		t.Errorf("--log-level warn: stderr lacks the policy's warning:\n%s", errb.String())
	}
}
