package replay

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// TestTheReaderSkipsTheChainsCheckpoints: a signed log's checkpoint lines
// (one after each record here) are not records: the Reader returns the
// chained records alone, at their own line numbers, and no line error.
func TestTheReaderSkipsTheChainsCheckpoints(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	w, err := decisionlog.SignedWriter(&log, decisionlog.ChainOptions{SigningKey: priv, CheckpointEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"ls", "pwd"} {
		in, _ := json.Marshal(luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"` + cmd + `"}`)})
		rec := &decisionlog.Record{Time: time.Now(), Event: luahook.PreToolUse, ToolName: "bash", Input: in,
			Decision: decisionlog.Decision{Outcome: &luahook.Outcome{}}}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if n := bytes.Count(log.Bytes(), []byte(`{"checkpoint":`)); n != 2 {
		t.Fatalf("%d checkpoints in\n%s", n, log.Bytes())
	}
	r := NewReader(&log, 0)
	var lines []int
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if l.Record.Seq == 0 {
			t.Errorf("line %d: a record without its seq", l.Line)
		}
		lines = append(lines, l.Line)
	}
	if len(lines) != 2 || lines[0] != 1 || lines[1] != 3 {
		t.Fatalf("records at lines %v, want 1 and 3", lines)
	}
}
