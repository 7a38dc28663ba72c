package decisionlog

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
)

// TestALineIsWhatEncodingJSONWrites checks the hand-written encoder against
// encoding/json: the same members, the same values, for a record with
// every field set and for one with none.
func TestALineIsWhatEncodingJSONWrites(t *testing.T) {
	full := Record{
		Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), LuahookVersion: "v1.2.3", Instance: "replica-a", Agent: "claude", SessionID: "s<1>",
		Event: luahook.PreToolUse, ToolName: "bash", InputDigest: "sha256:00",
		Input:  json.RawMessage(`{"event":"PreToolUse","toolInput":{"command":"a && b \u003c"},"cwd":"/"}`),
		Masked: []string{"toolInput.env", "prompt"}, Truncated: true, InputBytes: 12,
		Hooks: []Hook{
			{Name: "a", Source: "f.lua:1", Kind: luahook.KindLua, Version: "sha256:ab", Mode: "shadow",
				Outcome:    &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"x":1}`), AdditionalContext: "ctx\n\"q\"", ContextAs: luahook.ContextSeparate},
				DurationMs: 0.125},
			{Name: "b", Kind: luahook.KindCommand, Failure: &luahook.Failure{Kind: luahook.FailTimeout, Message: "slow\x01"}, Skipped: "x", DurationMs: 3},
			{Name: "c", Kind: luahook.KindGo, Outcome: &luahook.Outcome{ContextAs: luahook.ContextInline}},
		},
		Decision: Decision{Action: luahook.ActionDeny, Reason: "no\tway", DecidedBy: "a", Outcome: &luahook.Outcome{Action: luahook.ActionDeny, Reason: "no\tway"}},
		Ledger: []ledger.Entry{
			{Hook: "a", File: "f.lua", Op: ledger.OpMark, Name: "private-data", Detail: "read \"x\"", AtMs: 1767225600000},
			{Op: ledger.OpCount, Name: "n", Value: 1e21, Delta: -0.5, WindowMs: 60000, Err: "e"},
			{Op: ledger.OpMarks, Value: 2, Labels: []string{"a", "b<"}},
			{Hook: "h", Op: ledger.OpHas, Name: "l", Found: true},
		},
		Files: map[string]string{"b.lua": "sha256:2", "a.lua": "sha256:1"},
	}
	empty := Record{Event: luahook.Stop, Input: json.RawMessage(`null`), Hooks: []Hook{}, Decision: Decision{Outcome: &luahook.Outcome{}}}
	for name, rec := range map[string]Record{"full": full, "empty": empty} {
		line := AppendLine(nil, &rec)
		if line[len(line)-1] != '\n' || !json.Valid(line) {
			t.Fatalf("%s: %q is not one JSON line", name, line)
		}
		want, _ := json.Marshal(rec)
		var got, exp any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(want, &exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s:\n got %s\nwant %s", name, line, want)
		}
	}
}

// TestALineWritesEveryFieldOfARecord fills every field of a Record, found
// by reflection, and checks that AppendLine writes what encoding/json
// does: a field added to Record and not to AppendLine fails here.
func TestALineWritesEveryFieldOfARecord(t *testing.T) {
	var rec Record
	seed(t, reflect.ValueOf(&rec).Elem(), "text", 0)
	rec.Time = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	line := AppendLine(nil, &rec)
	want, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var got, exp any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	json.Unmarshal(want, &exp)
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("\n got %s\nwant %s", line, want)
	}
}
