package engine

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook/internal/decisionlog"
)

// tapRecorder is a DecisionLog.Tap that keeps what it needs of each record
// (never the record itself, which the log reuses), notes a Write that
// overlaps another and a Close, and fails every write when err is set.
type tapRecorder struct {
	mu      sync.Mutex
	inputs  []string
	by      []string
	busy    atomic.Bool
	overlap atomic.Bool
	closed  atomic.Bool
	err     error
}

func (r *tapRecorder) Write(rec *decisionlog.Record) error {
	if !r.busy.CompareAndSwap(false, true) {
		r.overlap.Store(true)
	}
	defer r.busy.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs = append(r.inputs, string(rec.Input))
	r.by = append(r.by, rec.Decision.DecidedBy)
	return r.err
}

func (r *tapRecorder) Close() error { r.closed.Store(true); return nil }

func (r *tapRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.inputs...)
}

// lines counts the records of a log file.
func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

const tapDenyHook = `hook.register("PreToolUse", "bash", function() return hook.deny("no") end, {name = "no-bash"})`

// With the log on, the tap gets each record the log's file gets, masked as
// the config says, and the engine does not close it.
func TestTheTapGetsEveryRecordTheLogWrites(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"d.jsonl\"\nmask = [\"toolInput.command\"]\n")
	dir := hooksDir(t, map[string]string{"10-deny.lua": tapDenyHook})
	tap := &tapRecorder{}
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true, DecisionLog: DecisionLog{Tap: tap}})
	e.Runner().PreToolUse(context.Background(), bashInput(root))
	e.Runner().PreToolUse(context.Background(), bashInput(root))
	e.Close()
	if n := lines(t, filepath.Join(root, "d.jsonl")); n != 2 {
		t.Errorf("the log has %d records, want 2", n)
	}
	got := tap.seen()
	if len(got) != 2 {
		t.Fatalf("the tap got %d records, want 2", len(got))
	}
	for i, in := range got {
		if !strings.Contains(in, `"command":"[masked]"`) || strings.Contains(in, `"ls"`) {
			t.Errorf("record %d: input %s, want the command masked as the config says", i, in)
		}
		if tap.by[i] != "no-bash" {
			t.Errorf("record %d: decided by %q, want no-bash", i, tap.by[i])
		}
	}
	if tap.closed.Load() {
		t.Error("the engine closed the tap")
	}
	if st := e.DecisionLogStats(); st.Written != 2 {
		t.Errorf("stats %+v, want the log's 2 records written", st)
	}
}

// With the log off, by To or by no config at all, the engine opens a log
// for the tap alone; its records are not the log's counts.
func TestTheTapGetsRecordsWithTheLogOff(t *testing.T) {
	for name, dl := range map[string]DecisionLog{
		"to off":    {To: DecisionLogOff, Default: "stdout"},
		"no config": {},
	} {
		t.Run(name, func(t *testing.T) {
			tap := &tapRecorder{}
			dl.Tap = tap
			dir := hooksDir(t, map[string]string{"10-deny.lua": tapDenyHook})
			e := openEngine(t, Options{Dir: dir, NoWatch: true, DecisionLog: dl})
			e.Runner().PreToolUse(context.Background(), bashInput(dir))
			e.Close()
			if got := tap.seen(); len(got) != 1 || !strings.Contains(got[0], `"command":"ls"`) {
				t.Errorf("the tap got %q, want the one record", got)
			}
			if st := e.DecisionLogStats(); st != (decisionlog.Stats{}) {
				t.Errorf("stats %+v with the log off, want none", st)
			}
		})
	}
}

// A reload that turns the log on, off and on again, to another file, keeps
// the tap: it gets every record, one at a time, and is never closed.
func TestAReloadKeepsTheTap(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	dir := hooksDir(t, map[string]string{"10-deny.lua": tapDenyHook})
	tap := &tapRecorder{}
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"one.jsonl\"\n")
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true, DecisionLog: DecisionLog{Tap: tap}})
	fire := func(n int) {
		for range n {
			e.Runner().PreToolUse(context.Background(), bashInput(root))
		}
	}
	fire(20)
	for _, cfg := range []string{
		"[decision_log]\nenabled = false\n",
		"[decision_log]\nenabled = false\nmask = [\"toolInput.command\"]\n",
		"[decision_log]\nenabled = true\npath = \"two.jsonl\"\n",
	} {
		writeFile(t, cfgPath, cfg)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		fire(20)
	}
	e.Close()
	got := tap.seen()
	if len(got) != 80 {
		t.Errorf("the tap got %d records, want 80", len(got))
	}
	masked := 0
	for _, in := range got {
		if strings.Contains(in, "[masked]") {
			masked++
		}
	}
	if masked != 20 {
		t.Errorf("%d records masked, want the 20 the tap-only log masked as its config said", masked)
	}
	if tap.overlap.Load() {
		t.Error("two logs wrote to the tap at once")
	}
	if tap.closed.Load() {
		t.Error("a reload or Close closed the tap")
	}
	if a, b := lines(t, filepath.Join(root, "one.jsonl")), lines(t, filepath.Join(root, "two.jsonl")); a != 20 || b != 20 {
		t.Errorf("log files hold %d and %d records, want 20 each", a, b)
	}
	if st := e.DecisionLogStats(); st.Written != 40 {
		t.Errorf("stats %+v, want the 40 records of the two log files", st)
	}
}

// A tap that fails is not the log's failure: the log's records are written
// and counted as written, none as failed, and the run of failures is
// warned of once.
func TestAFailingTapIsNotTheLogsFailure(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[decision_log]\nenabled = true\npath = \"d.jsonl\"\n")
	dir := hooksDir(t, map[string]string{"10-deny.lua": tapDenyHook})
	tap := &tapRecorder{err: errors.New("page gone")}
	rec := &logRecorder{}
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: dir, NoWatch: true, Logger: slog.New(rec),
		DecisionLog: DecisionLog{Tap: tap}})
	e.Runner().PreToolUse(context.Background(), bashInput(root))
	e.Runner().PreToolUse(context.Background(), bashInput(root))
	e.Close()
	if st := e.DecisionLogStats(); st.Written != 2 || st.Failed != 0 {
		t.Errorf("stats %+v, want 2 written and none failed", st)
	}
	if n := lines(t, filepath.Join(root, "d.jsonl")); n != 2 {
		t.Errorf("the log has %d records, want 2", n)
	}
	if len(tap.seen()) != 2 {
		t.Errorf("the tap was given %d records, want 2", len(tap.seen()))
	}
	if w := rec.records(slog.LevelWarn, "decision log: the tap's write failed; the log goes on"); len(w) != 1 || !strings.Contains(w[0], "page gone") {
		t.Errorf("warnings %q, want one naming the tap's error", w)
	}
}
