package decisionlog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/runner"
)

func TestRecordCarriesTheDecisionItsHooksAndTheirFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	const guard = `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm %-rf") then return hook.deny("no rm -rf") end
end, {name = "guard", stage = "validate"})
`
	e, dir := openWith(t, map[string]string{"10-guard.lua": guard, "20-pass.lua": echoHook}, log)
	before := time.Now().UTC()
	in := bash("rm -rf /")
	in.Agent = "claude"
	res := e.Runner().Fire(context.Background(), in)
	if !res.Denied() {
		t.Fatalf("not denied: %+v", res)
	}
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Time.Before(before) || r.Time.After(time.Now()) || r.Time.Location() != time.UTC {
		t.Errorf("time %v not the decision's, in UTC", r.Time)
	}
	if r.LuahookVersion != luahook.Version || r.Agent != "claude" || r.SessionID != "s1" || r.Event != luahook.PreToolUse || r.ToolName != "bash" {
		t.Errorf("identity = %q %q %q %q %q", r.LuahookVersion, r.Agent, r.SessionID, r.Event, r.ToolName)
	}
	data, _ := json.Marshal(in)
	if r.InputDigest != sha(data) {
		t.Errorf("inputDigest %s, want %s", r.InputDigest, sha(data))
	}
	got, err := luahook.DecodeInput(r.Input)
	if err != nil {
		t.Fatalf("input %s does not decode as a payload: %v", r.Input, err)
	}
	if g, _ := json.Marshal(got); string(g) != string(data) {
		t.Errorf("input %s, want the payload %s", g, data)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "10-guard.lua"))
	src2, _ := os.ReadFile(filepath.Join(dir, "20-pass.lua"))
	guardFile, passFile := filepath.Join(dir, "10-guard.lua"), filepath.Join(dir, "20-pass.lua")
	wantFiles := map[string]string{guardFile: sha(src), passFile: sha(src2)}
	if fmt.Sprint(r.Files) != fmt.Sprint(wantFiles) {
		t.Errorf("files = %v, want %v", r.Files, wantFiles)
	}
	var names []string
	for _, h := range r.Hooks {
		names = append(names, h.Name)
		if h.Kind != luahook.KindLua || (h.DurationMs <= 0) != (h.Skipped != "") || !strings.Contains(h.Source, ".lua:") {
			t.Errorf("hook %+v: kind, duration or source missing", h)
		}
		if want := r.Files[strings.Split(h.Source, ".lua:")[0]+".lua"]; h.Version != want {
			t.Errorf("hook %s version %q, want its file's %q", h.Name, h.Version, want)
		}
	}
	// The mutator runs first, then the validators in file order: guard
	// denies and echo is not reached.
	if want := []string{"rewrite", "guard", "echo"}; !slices.Equal(names, want) {
		t.Errorf("hooks %v, want %v", names, want)
	}
	if h := r.Hooks[1]; h.Outcome == nil || h.Outcome.Action != luahook.ActionDeny || h.Outcome.Reason != "no rm -rf" {
		t.Errorf("guard's outcome %+v", h.Outcome)
	}
	if h := r.Hooks[2]; h.Skipped != runner.SkipNotReached {
		t.Errorf("echo skipped %q, want %q", h.Skipped, runner.SkipNotReached)
	}
	d := r.Decision
	if d.Action != luahook.ActionDeny || d.Reason != "no rm -rf" || d.Outcome == nil || d.Outcome.Action != luahook.ActionDeny || d.DecidedBy != res.DecidedBy {
		t.Errorf("decision %+v", d)
	}
}

func TestAHugePayloadIsLoggedAsItsDigestAndSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	log := newLog(t, path, decisionlog.Options{})
	e, _ := openWith(t, map[string]string{"10-pass.lua": `hook.register("PreToolUse", nil, function() end)`}, log)
	in := bash(strings.Repeat("x", 8<<20))
	e.Runner().Fire(context.Background(), in)
	log.Close()
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	data, _ := json.Marshal(in)
	r := recs[0]
	if !r.Truncated || r.InputBytes != in.Size() || r.InputDigest != sha(data) || string(r.Input) != "null" {
		t.Errorf("truncated %v, inputBytes %d (want %d), digest %s (want %s), input %.40s", r.Truncated, r.InputBytes, in.Size(), r.InputDigest, sha(data), r.Input)
	}
	if st, _ := os.Stat(path); st.Size() > 4<<10 {
		t.Errorf("the record of a truncated payload takes %d bytes", st.Size())
	}
}

func TestRotationKeepsAtMostMaxFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	sink, err := decisionlog.File(path, decisionlog.FileOptions{MaxBytes: 4096, MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Close waits for the 2,000 records and their 300-odd rotations: 0.5 s
	// alone, over 5 s (the default wait) beside other tests under the race
	// detector on a loaded machine.
	log, err := decisionlog.New(decisionlog.Options{Sink: sink, Queue: 100_000, CloseTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openWith(t, map[string]string{"10-pass.lua": `hook.register("PreToolUse", nil, function() end)`}, log)
	const n = 2000
	for i := range n {
		e.Runner().Fire(context.Background(), bash(fmt.Sprintf("echo %d", i)))
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, ent := range ents {
		names = append(names, ent.Name())
	}
	if want := []string{"decisions.jsonl", "decisions.jsonl.1", "decisions.jsonl.2", "decisions.jsonl.3"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	total := 0
	for _, name := range names {
		st, _ := os.Stat(filepath.Join(dir, name))
		if st.Size() > 4096 {
			t.Errorf("%s: %d bytes, over max_bytes", name, st.Size())
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, st.Mode().Perm())
		}
		total += len(readRecords(t, filepath.Join(dir, name)))
	}
	// The newest records are kept, whole.
	last := readRecords(t, path)
	if st := log.Stats(); st.Written != n || st.Dropped != 0 || total >= n || !strings.Contains(string(last[len(last)-1].Input), fmt.Sprintf("echo %d", n-1)) {
		t.Errorf("stats %+v, %d records kept of %d, last %s", st, total, n, last[len(last)-1].Input)
	}
}

func TestABlockedSinkNeverDelaysDecisionsAndDropsAreCounted(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	taken := make(chan struct{}, 1)
	log, err := decisionlog.New(decisionlog.Options{
		Sink:         decisionlog.Func(func(decisionlog.Record) { taken <- struct{}{}; <-block }),
		Queue:        4,
		CloseTimeout: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openWith(t, map[string]string{"10-deny.lua": `hook.register("PreToolUse", nil, function() return hook.deny("no") end)`}, log)
	const n = 1000
	for range n {
		if res := e.Runner().Fire(context.Background(), bash("ls")); !res.Denied() {
			t.Fatal("not denied")
		}
	}
	<-taken // the writer holds its batch, blocked in the sink at its first record
	// At most 4 are in the writer's batch, at most 4 wait: every other was
	// dropped.
	if d := log.Dropped(); d < n-8 {
		t.Errorf("dropped %d of %d with a blocked sink and a queue of 4", d, n)
	}
	if err := log.Close(); err == nil {
		t.Error("Close with a blocked sink returned no error")
	}
	before := log.Dropped()
	e.Runner().Fire(context.Background(), bash("ls"))
	if d := log.Dropped(); d != before+1 {
		t.Errorf("dropped %d, then %d after a decision made after Close", before, d)
	}
}

func TestAPipeNobodyReadsNeverDelaysDecisions(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	log, err := decisionlog.New(decisionlog.Options{Sink: decisionlog.Writer(w), Queue: 8, CloseTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openWith(t, map[string]string{"10-pass.lua": `hook.register("PreToolUse", nil, function() end)`}, log)
	const n = 5000 // far more than a pipe's buffer holds
	for i := range n {
		e.Runner().Fire(context.Background(), bash(fmt.Sprintf("echo %d %s", i, strings.Repeat("y", 200))))
	}
	if st := log.Stats(); st.Dropped == 0 || st.Written+st.Dropped > n {
		t.Errorf("stats %+v after %d decisions into a pipe nobody reads", st, n)
	}
}

func TestAFIFOIsRefusedAsALogFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(path); err != nil {
		t.Skip(err)
	}
	if _, err := decisionlog.File(path, decisionlog.FileOptions{}); err == nil || !strings.Contains(err.Error(), "decision log") {
		t.Errorf("File(fifo) = %v, want an error", err)
	}
}

// The writer reuses its buffers record after record; the records a Func
// sink hands the host are the host's, untouched by the records after them.
func TestFuncRecordsAreTheHostsToKeep(t *testing.T) {
	var got []decisionlog.Record
	var mu sync.Mutex
	log, err := decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(func(r decisionlog.Record) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	})})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openWith(t, map[string]string{"10-guard.lua": `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm") then return hook.deny("no rm") end
end, {name = "guard"})`}, log)
	commands := []string{"rm -rf /tmp/a", "ls -la /home/someone/with/a/longer/path", "rm x"}
	for i, c := range commands {
		e.Runner().Fire(context.Background(), bash(c))
		// One record at a time: each is built in the writer's buffers and
		// handed over before the next is built in the same ones.
		for deadline := time.Now().Add(10 * time.Second); log.Stats().Written < uint64(i+1); {
			if time.Now().After(deadline) {
				t.Fatalf("record %d not written", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(commands) {
		t.Fatalf("%d records, want %d", len(got), len(commands))
	}
	for i, c := range commands {
		var in struct {
			ToolInput struct{ Command string } `json:"toolInput"`
		}
		if err := json.Unmarshal(got[i].Input, &in); err != nil || in.ToolInput.Command != c {
			t.Errorf("record %d: input %s (%v), want the command %q", i, got[i].Input, err, c)
		}
		if len(got[i].Hooks) != 1 || got[i].Hooks[0].Name != "guard" || len(got[i].Files) != 1 {
			t.Errorf("record %d: hooks %+v, files %v", i, got[i].Hooks, got[i].Files)
		}
	}
}

func TestEveryRecordNamesTheInstanceThatDecided(t *testing.T) {
	for _, instance := range []string{"replica-a", ""} {
		path := filepath.Join(t.TempDir(), "decisions.jsonl")
		log := newLog(t, path, decisionlog.Options{Instance: instance})
		e, _ := openWith(t, map[string]string{"20-pass.lua": echoHook}, log)
		e.Runner().Fire(context.Background(), bash("ls"))
		e.Runner().Fire(context.Background(), bash("ls -l"))
		log.Close()
		recs := readRecords(t, path)
		if len(recs) != 2 {
			t.Fatalf("%d records, want 2", len(recs))
		}
		for _, r := range recs {
			if r.Instance != instance {
				t.Errorf("record's instance %q, want %q", r.Instance, instance)
			}
		}
		line, _ := os.ReadFile(path)
		if instance == "" && strings.Contains(string(line), `"instance"`) {
			t.Errorf("a log without an instance writes one: %s", line)
		}
	}
}

// A record given to a Func sink is its own: its hooks' outcomes are not
// the writer's copies, rewritten for the next record; and a hook's outcome
// held in the Result's trace (a Lua hook's, written into the trace entry)
// is copied with the decision, so that a host firing the next event into
// the same Result (FireInto) before the writer gets to the record does not
// change what the record says the hook returned.
func TestRecordsKeepTheirHooksOutcomes(t *testing.T) {
	for _, into := range []bool{false, true} {
		block := make(chan struct{})
		var mu sync.Mutex
		var recs []decisionlog.Record
		log, err := decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(func(r decisionlog.Record) {
			<-block // the writer waits until every decision is made
			mu.Lock()
			recs = append(recs, r)
			mu.Unlock()
		})})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := openWith(t, map[string]string{"10-deny.lua": `hook.register("PreToolUse", nil, function(input)
  return hook.deny("denied " .. input.toolInput.command)
end, {name = "deny"})`}, log)
		const n = 20
		var res runner.Result
		for i := range n {
			in := bash(fmt.Sprintf("echo %d", i))
			if into {
				e.Runner().FireInto(context.Background(), in, &res)
			} else {
				res = e.Runner().Fire(context.Background(), in)
			}
			if want := fmt.Sprintf("denied echo %d", i); res.Reason != want {
				t.Fatalf("call %d: reason %q, want %q", i, res.Reason, want)
			}
		}
		close(block)
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(recs) != n {
			t.Fatalf("FireInto %v: %d records of %d decisions", into, len(recs), n)
		}
		for i, r := range recs {
			want := fmt.Sprintf("denied echo %d", i)
			if len(r.Hooks) != 1 || r.Hooks[0].Outcome == nil || r.Hooks[0].Outcome.Reason != want ||
				r.Decision.Outcome == nil || r.Decision.Outcome.Reason != want {
				t.Fatalf("FireInto %v, record %d: hook outcome %+v, decision %+v; want the reason %q", into, i, r.Hooks[0].Outcome, r.Decision.Outcome, want)
			}
		}
		mu.Unlock()
	}
}

// What the writer keeps in reused memory of its own (what was delivered,
// the web approval) is copied into each record a Func sink hands over: an
// earlier record does not change when a later one is built.
func TestFuncRecordsKeepWhatWasDelivered(t *testing.T) {
	var got []decisionlog.Record
	var mu sync.Mutex
	log, err := decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(func(r decisionlog.Record) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	})})
	if err != nil {
		t.Fatal(err)
	}
	verdicts := []string{"deny", "allow", "ask"}
	for i, v := range verdicts {
		res := &runner.Result{Event: luahook.PreToolUse, Approval: &runner.Approval{Digest: v, Verdict: v, Approvers: []string{v}}}
		log.Deliver(bash("ls"), "PreToolUse", res, decisionlog.Delivered{Verdict: v, Reason: "because " + v, Agent: "codex"})
		for deadline := time.Now().Add(10 * time.Second); log.Stats().Written < uint64(i+1); {
			if time.Now().After(deadline) {
				t.Fatalf("record %d not written", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	log.Close()
	if len(got) != len(verdicts) {
		t.Fatalf("%d records, want %d", len(got), len(verdicts))
	}
	for i, v := range verdicts {
		d, a := got[i].Delivered, got[i].Approval
		if d == nil || d.Verdict != v || d.Reason != "because "+v {
			t.Errorf("record %d delivered %+v, want %s", i, d, v)
		}
		if a == nil || a.Verdict != v || len(a.Approvers) != 1 || a.Approvers[0] != v {
			t.Errorf("record %d approval %+v, want %s", i, a, v)
		}
	}
}
