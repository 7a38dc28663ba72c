package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func TestResultJSONIsWhatAPolicyTestReads(t *testing.T) {
	res := Result{
		Event: luahook.PreToolUse, Verdict: luahook.VerdictDeny, Reason: "no",
		Trace: []HookTrace{
			{ID: "a.lua#1", Name: "guard", Source: "a.lua:3", Kind: luahook.KindLua, Stage: luahook.StageValidate,
				Duration: 1500 * time.Microsecond, Outcome: luahook.Deny("no")},
			{Name: "cmd", Kind: luahook.KindCommand, Failure: &luahook.Failure{Kind: luahook.FailTimeout, Message: "slow", Err: errors.New("the cause stays out")}},
			{Name: "late", Kind: luahook.KindLua, Skipped: SkipNotReached, Background: true},
		},
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"PreToolUse","verdict":"deny","reason":"no","trace":[` +
		`{"id":"a.lua#1","name":"guard","source":"a.lua:3","kind":"lua","stage":"validate","outcome":{"action":"deny","reason":"no"},"durationMs":1.5},` +
		`{"name":"cmd","kind":"command","failure":{"kind":"timeout","message":"slow"},"durationMs":0},` +
		`{"name":"late","kind":"lua","skipped":"` + SkipNotReached + `","background":true,"durationMs":0}],` +
		`"denied":true,"outcome":{"action":"deny","reason":"no"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestResultJSONHasATraceArrayAndAnOutcomeWhenNoHookMatched(t *testing.T) {
	b, err := json.Marshal(Result{Event: luahook.Stop})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"event":"Stop","verdict":"none","reason":"","trace":[],"denied":false,"outcome":{}}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestTraceLinesGiveKindNameStageDurationAndWhatTheHookDid(t *testing.T) {
	res := Result{Trace: []HookTrace{
		{Name: "farewell", Kind: luahook.KindLua, Duration: 12 * time.Microsecond, Outcome: luahook.Context("a && b")},
		{Name: "guard", Kind: luahook.KindCommand, Stage: luahook.StageValidate, Failure: &luahook.Failure{Kind: luahook.FailExit, Message: "exit 3"}},
		{Name: "skipped", Kind: luahook.KindHTTP, Skipped: SkipPolicyOnly},
		{Name: "quiet", Kind: luahook.KindGo},
		{Name: "evil\x1b]52;c;\a", Kind: luahook.KindLua, Outcome: luahook.Deny("\x1b[2J")},
	}}
	var b bytes.Buffer
	if err := res.RenderTrace(&b, TraceOptions{Indent: "  ", OutcomeJSON: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	wants := []string{
		`^  lua     farewell +- +12µs  \{"additionalContext":"a && b"\}$`,
		`^  command guard +validate +0s  failed \(exit\): exit 3$`,
		`^  http    skipped +- +0s  skipped: ` + regexp.QuoteMeta(SkipPolicyOnly) + `$`,
		`^  go      quiet +- +0s  no objection$`,
		`^  lua     evil\\x1b\]52;c;\\x07 +- +0s  \{"action":"deny","reason":"\\u001b\[2J"\}$`,
	}
	if len(lines) != len(wants) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(wants), b.String())
	}
	for i, want := range wants {
		if !regexp.MustCompile(want).MatchString(lines[i]) {
			t.Errorf("line %d\n got %q\nwant %s", i+1, lines[i], want)
		}
	}
	b.Reset()
	if err := (Result{}).RenderTrace(&b, TraceOptions{Indent: "    "}); err != nil || b.String() != "    (no hook matched)\n" {
		t.Errorf("an empty trace renders as %q (%v)", b.String(), err)
	}
}

func TestOutcomesInWordsSayTheActionAndTheFirstLineOfContext(t *testing.T) {
	for _, c := range []struct {
		o    *luahook.Outcome
		want string
	}{
		{luahook.Deny("no & never"), "deny: no & never"},
		{&luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"command":"pnpm add x"}`)}, `mutate: {"command":"pnpm add x"}`},
		{&luahook.Outcome{Action: luahook.ActionAllow, AdditionalContext: "one\ntwo"}, "allow; context: one …"},
		{luahook.Context("bye"), "context: bye"},
		{&luahook.Outcome{}, "no objection"},
	} {
		line := HookTrace{Name: "h", Kind: luahook.KindLua, Outcome: c.o}.String()
		if !strings.HasSuffix(line, "  "+c.want) {
			t.Errorf("%+v: got %q, want it to end in %q", c.o, line, c.want)
		}
	}
}

func TestFailureLineNamesTheHookAndCutsTheMessage(t *testing.T) {
	long := strings.Repeat("x", 3000)
	tr := HookTrace{Name: "no-rm", Source: "10-no-rm.lua:3", Failure: &luahook.Failure{Kind: luahook.FailError, Message: long}}
	if got, want := tr.FailureLine(), `hook "no-rm" (10-no-rm.lua:3) failed (error): `+luahook.TruncateReason(long); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := (HookTrace{Name: "ok"}).FailureLine(); got != "" {
		t.Errorf("a hook that did not fail: %q", got)
	}
}
