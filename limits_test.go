package luahook

import (
	"strings"
	"testing"
)

func TestCheckLimitsNamesTheFieldOverItsLimit(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes+1)
	for _, tc := range []struct {
		field string
		in    Input
	}{
		{"event", Input{Event: Event(long)}},
		{"toolName", Input{ToolName: long}},
		{"sessionId", Input{SessionID: long}},
		{"cwd", Input{Cwd: "/" + strings.Repeat("d", MaxCwdBytes)}},
		{"toolCapabilities has 65 entries", Input{ToolCapabilities: make([]string, MaxCapabilities+1)}},
		{"toolCapabilities[1]", Input{ToolCapabilities: []string{"shell", strings.Repeat("c", MaxCapabilityBytes+1)}}},
		{"compaction.trigger", Input{Compaction: &Compaction{Trigger: long}}},
		{"subagent.subagentId", Input{Subagent: &Subagent{SubagentID: long}}},
		{"notification.kind", Input{Notification: &NotificationInfo{Kind: long}}},
	} {
		err := tc.in.CheckLimits()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%s: CheckLimits() = %v, want an error naming it", tc.field, err)
		}
	}
}

func TestCheckLimitsAcceptsPayloadsAtTheLimits(t *testing.T) {
	at := strings.Repeat("x", MaxIDBytes)
	in := Input{Event: PreToolUse, ToolName: at, SessionID: at, Cwd: "/" + strings.Repeat("d", MaxCwdBytes-1),
		ToolCapabilities: make([]string, MaxCapabilities), Prompt: strings.Repeat("p", 1<<20),
		Subagent: &Subagent{Target: at, Task: strings.Repeat("t", 1<<20)}}
	if err := in.CheckLimits(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = in.CheckLimits() }); n != 0 {
		t.Fatalf("CheckLimits allocates %.0f times on a payload within its limits", n)
	}
}
