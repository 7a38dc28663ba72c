package main

import (
	"context"
	"strings"
	"testing"
)

func TestSessionRunsThroughTheEngine(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	trace := out.String()
	for _, want := range []string{
		"embed: engine.Open loaded ",                                                  // the engine opened
		"House rules for this repository:",                                            // SessionStart context
		"✓ wrote 13 bytes to hello.txt",                                               // a tool really ran
		"Edited hello.txt. Run the tests before you finish.",                          // PostToolUse context
		"✓ hello, world",                                                              // the shell ran in the workspace
		`✎ rewritten to {"command":"pnpm run build"}`,                                 // a mutation reached the tool
		"The command failed: read its output",                                         // the host's Go hook
		"✗ denied: access to .env is blocked",                                         // a Lua policy
		"✗ denied: dangerous command blocked: force-pushing",                          // another one
		"✗ denied: only maintainers deploy; ada is a contributor (5 tool calls left)", // a host module
		"msg=\"luahook: reloaded\" changed=\"70-no-sudo.lua (added)\"",                // the reload line
		"✗ denied: sudo is not available to the agent",                                // the policy added mid-session
		"✓ turn ended",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("trace:\n%s", trace)
	}
}
