package decisionlog_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook/internal/decisionlog"
)

// TestAnswersAreLoggedOnceWithWhatWasDelivered: engine.Answer, the door a
// Go host takes, writes one record per answer: a decided call with the
// policies' decision next to what the caller received, and a payload that
// did not decode, which no hook decided, with its cause and a null input.
func TestAnswersAreLoggedOnceWithWhatWasDelivered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, _ := openWith(t, map[string]string{"10-ask.lua": `hook.register("PreToolUse", nil, function() return hook.ask("confirm") end)`}, log)
	ctx := context.Background()
	codex := `{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","model":"m","turn_id":"1","tool_name":"Bash","tool_use_id":"u","tool_input":{"command":"ls"}}`
	if rep := e.Answer(ctx, "codex", "", []byte(codex)); rep.Err != nil {
		t.Fatal(rep.Err)
	}
	if rep := e.Answer(ctx, "", "", []byte(`{"event":"PreToolUse","toolInput":`)); rep.Err != nil || rep.ExitCode != 2 {
		t.Fatalf("an undecodable payload on PreToolUse: %+v, want a denial", rep)
	}
	e.Close()
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per answer: %+v", len(recs), recs)
	}
	if d := recs[0].Delivered; d == nil || recs[0].Decision.Action != "ask" || d.Verdict != "deny" || d.Agent != "codex" ||
		d.Note != "ask delivered as deny: codex has no ask on PreToolUse" {
		t.Errorf("codex's ask: decision %q, delivered %+v", recs[0].Decision.Action, d)
	}
	if d := recs[1].Delivered; d == nil || d.Verdict != "deny" || d.ExitCode != 2 || d.Cause != "decode" || d.Reason == "" ||
		string(recs[1].Input) != "null" || recs[1].Event != "PreToolUse" || len(recs[1].Hooks) != 0 {
		t.Errorf("an undecodable payload: %+v, delivered %+v", recs[1], d)
	}
}
