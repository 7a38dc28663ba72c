package hooktest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
)

func TestBehaviourNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range hooktest.Behaviours() {
		name := b.String()
		if seen[name] || strings.ContainsAny(name, " /'\"") {
			t.Errorf("behaviour %d has the name %q: want unique words fit for argv and URL paths", int(b), name)
		}
		seen[name] = true
		if got, err := hooktest.ParseBehaviour(name); err != nil || got != b {
			t.Errorf("ParseBehaviour(%q) = %v, %v; want %d", name, got, err, int(b))
		}
	}
	if _, err := hooktest.ParseBehaviour("block"); err == nil {
		t.Error("an unknown name parsed")
	}
}

func TestAnswerGivesEachBehaviourInTheContractsWireShape(t *testing.T) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls","n":[1,{}]}`), Cwd: "/"}
	payload, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		b       hooktest.Behaviour
		want    *luahook.Outcome // nil: no objection
		invalid bool             // ParseOutcome must call it invalid_output
	}{
		{hooktest.Allow, luahook.Allow(), false},
		{hooktest.NoObjection, nil, false},
		{hooktest.Deny, luahook.Deny(hooktest.DenyReason), false},
		{hooktest.MutateEcho, luahook.Mutate(in.ToolInput), false},
		{hooktest.AddContext, &luahook.Outcome{AdditionalContext: hooktest.ContextText, ContextAs: luahook.ContextSeparate}, false},
		{hooktest.EchoPayload, luahook.Context(string(payload)), false},
		{hooktest.InvalidOutput, nil, true},
		{hooktest.UnknownAction, nil, true},
		{hooktest.DenyWithoutReason, nil, true},
		{hooktest.ArrayOutput, nil, true},
		{hooktest.Ask, luahook.Ask(hooktest.AskReason), false},
		{hooktest.Continue, luahook.Continue(hooktest.ContinueReason), false},
		{hooktest.Approve, luahook.Approve(hooktest.ApproveReason, []string{hooktest.ApproveBy}, hooktest.ApproveTimeout), false},
	}
	for _, tt := range tests {
		out, err := hooktest.Answer(tt.b, append(payload, '\n'))
		if err != nil {
			t.Errorf("%s: %v", tt.b, err)
			continue
		}
		got, err := luahook.ParseOutcome(out)
		if tt.invalid {
			var f *luahook.Failure
			if !errors.As(err, &f) || f.Kind != luahook.FailInvalidOutput {
				t.Errorf("%s: answer %s parses as %+v, %v; want invalid_output", tt.b, out, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: answer %s: %v", tt.b, out, err)
			continue
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(tt.want)
		if string(g) != string(w) {
			t.Errorf("%s: answer parses as %s, want %s", tt.b, g, w)
		}
	}
	for _, b := range []hooktest.Behaviour{hooktest.Hang, hooktest.Crash} {
		if out, err := hooktest.Answer(b, payload); err == nil {
			t.Errorf("%s: Answer gave %q; only the transport can produce it", b, out)
		}
	}
}

func TestVerifyRepeatDeniesUnlessTheContentIsTheBlockRepeated(t *testing.T) {
	payload := func(block string, count int, content string) []byte {
		ti, _ := json.Marshal(hooktest.RepeatInput{Block: block, Count: count, Content: content})
		b, _ := json.Marshal(&luahook.Input{Event: luahook.PreToolUse, ToolInput: ti, Cwd: "/"})
		return b
	}
	tests := []struct {
		name, block string
		count       int
		content     string
		deny        string // part of the reason; "" = intact
	}{
		{"intact", "ab€", 3, "ab€ab€ab€", ""},
		{"one byte changed", "ab€", 3, "ab€aB€ab€", "repetition 2"},
		{"truncated", "ab€", 3, "ab€ab€", "has 10 bytes, want 15"},
		{"no block", "", 3, "", "no block"},
	}
	for _, tt := range tests {
		out, err := hooktest.Answer(hooktest.VerifyRepeat, payload(tt.block, tt.count, tt.content))
		if err != nil {
			t.Fatal(err)
		}
		got, err := luahook.ParseOutcome(out)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.deny == "" && (got.Action != "" || got.AdditionalContext != tt.block):
			t.Errorf("%s: answer %s, want the block as context", tt.name, out)
		case tt.deny != "" && (got.Action != luahook.ActionDeny || !strings.Contains(got.Reason, tt.deny)):
			t.Errorf("%s: answer %s, want a deny mentioning %q", tt.name, out, tt.deny)
		}
	}
}
