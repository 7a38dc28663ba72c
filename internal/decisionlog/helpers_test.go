package decisionlog_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/decisionlog"
)

// openWith opens an engine on a fresh hooks folder holding files, with log
// as its decision log, and closes both when the test ends (the engine
// first, then the log, as a host does).
func openWith(t testing.TB, files map[string]string, log *decisionlog.Logger) (*engine.Engine, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, DecisionLog: engine.DecisionLog{Logger: log}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		if log != nil {
			log.Close()
		}
	})
	return e, dir
}

// newLog returns a Logger with opts writing to a file sink at path.
func newLog(t testing.TB, path string, opts decisionlog.Options) *decisionlog.Logger {
	t.Helper()
	sink, err := decisionlog.File(path, decisionlog.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Sink = sink
	l, err := decisionlog.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// readRecords reads every line of a log file as a Record; each must decode.
func readRecords(t testing.TB, path string) []decisionlog.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []decisionlog.Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r decisionlog.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func bash(command string) *luahook.Input {
	in, _ := json.Marshal(map[string]string{"command": command})
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: in, Cwd: "/work", SessionID: "s1"}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
