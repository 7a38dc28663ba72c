package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/policytest"
)

// guard denies rm, asks about sudo, rewrites npm into pnpm, blocks prompts
// naming a password, adds context after an edit, and denies the third shell
// call of a session (store state carried from one event to the next).
const guard = `
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("^rm ") then return hook.deny("no rm: " .. cmd) end
  if cmd:find("^sudo ") then return hook.ask("sudo needs a person") end
  if cmd:find("^count") then
    if store.incr("calls:" .. (input.sessionId or ""), 1, 60000) > 2 then
      return hook.deny("too many calls in session " .. input.sessionId)
    end
  end
end, { name = "guard" })

hook.register("PreToolUse", "bash", function(input)
  local args = input.toolInput
  if type(args.command) == "string" and args.command:find("^npm ") then
    args.command = args.command:gsub("^npm ", "pnpm ")
    return hook.mutate(args)
  end
end, { name = "pnpm", stage = "mutate" })

hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("password") then return hook.deny("no passwords in prompts") end
end, { name = "prompts" })

hook.register("PostToolUse", "edit", function(input)
  return hook.context("edited " .. input.toolInput.path .. "; run the tests")
end, { name = "after-edit" })
`

// rig is a hooks folder and an engine on it.
type rig struct {
	t   *testing.T
	dir string
	eng *engine.Engine
}

func newRig(t *testing.T, src string) *rig {
	t.Helper()
	r := &rig{t: t, dir: filepath.Join(t.TempDir(), "hooks.d")}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.write(src)
	return r
}

// write replaces the hook file and opens a fresh engine on the folder.
func (r *rig) write(src string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, "10-guard.lua"), []byte(src), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if r.eng != nil {
		r.eng.Close()
	}
	eng, err := engine.Open(context.Background(), engine.Options{Dir: r.dir, NoWatch: true})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := eng.Err(); err != nil {
		r.t.Fatal(err)
	}
	r.eng = eng
	r.t.Cleanup(func() { eng.Close() })
}

// record fires payload through the rig's engine and returns the decision
// log's line for it, built from the real result as the log records one.
func (r *rig) record(at time.Time, payload string) []byte {
	r.t.Helper()
	in, err := luahook.DecodePayload([]byte(payload))
	if err != nil {
		r.t.Fatal(err)
	}
	res := r.eng.Runner().Fire(context.Background(), in)
	sum := sha256.Sum256([]byte(payload))
	rec := decisionlog.Record{
		Time: at, LuahookVersion: luahook.Version, Agent: in.Agent, SessionID: in.SessionID,
		Event: in.Event, ToolName: in.ToolName, InputDigest: "sha256:" + hex.EncodeToString(sum[:]),
		Input: json.RawMessage(payload), Decision: DecisionOf(res), Approval: res.Approval,
	}
	for _, h := range res.Trace {
		rec.Hooks = append(rec.Hooks, decisionlog.Hook{Name: h.Name, Source: h.Source, Kind: h.Kind,
			Outcome: h.Outcome, Failure: h.Failure, Skipped: h.Skipped})
	}
	line, err := json.Marshal(rec)
	if err != nil {
		r.t.Fatal(err)
	}
	return line
}

var t0 = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

// payloads are one of each kind of decision guard makes.
var payloads = []string{
	`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /tmp/x"},"sessionId":"s1","cwd":"/w"}`,
	`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls -l"},"sessionId":"s1","cwd":"/w"}`,
	`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad","env":{"CI":null}},"sessionId":"s1","cwd":"/w"}`,
	`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"sudo reboot"},"sessionId":"s1","cwd":"/w"}`,
	`{"event":"UserPromptSubmit","prompt":"my password is \"hunter2\"\nuse it","sessionId":"s1","cwd":"/w"}`,
	`{"event":"UserPromptSubmit","prompt":"hello ]] \u0007","sessionId":"s1","cwd":"/w"}`,
	`{"event":"PostToolUse","toolName":"edit","toolInput":{"path":"a b/c.go","end":[1,2]},"toolResult":{"content":"ok"},"sessionId":"s1","cwd":"/w"}`,
	`{"event":"Stop","sessionId":"s1","cwd":"/w"}`,
}

// logOf fires every payload on r and returns the log, one line each.
func (r *rig) logOf(payloads ...string) []byte {
	var b bytes.Buffer
	for i, p := range payloads {
		b.Write(r.record(t0.Add(time.Duration(i)*time.Second), p))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func replayAll(t *testing.T, r *rig, log []byte, opts Options) ([]*Replayed, Summary) {
	t.Helper()
	var got []*Replayed
	sum, err := Run(context.Background(), r.eng.Runner(), bytes.NewReader(log), opts, func(x *Replayed) error {
		got = append(got, x)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, sum
}

func TestUnchangedHooksChangeNoDecision(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads...)
	r.write(guard) // a fresh engine: a fresh store, as a replay the next day
	got, sum := replayAll(t, r, log, Options{Reasons: true})
	if sum != (Summary{Replayed: len(payloads)}) {
		t.Fatalf("summary %v, want %d replayed and nothing changed", sum, len(payloads))
	}
	for _, x := range got {
		if x.Changed() {
			t.Errorf("line %d changed: %v", x.Line, x.Changes)
		}
	}
}

func TestAChangedPolicyReportsItsDecisionsBeforeAndAfter(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads...)
	r.write(strings.Replace(guard, `cmd:find("^rm ")`, `cmd:find("^rmdir ")`, 1))
	got, sum := replayAll(t, r, log, Options{})
	if sum.Changed != 1 {
		t.Fatalf("summary %v, want exactly the rm call changed", sum)
	}
	x := got[0]
	if !slices.Equal(x.Changes, []string{ChangedAction}) || x.Record.Decision.Action != luahook.ActionDeny || x.After.Action != "" {
		t.Fatalf("line 1: changes %v, %s -> %s; want action deny -> none (no objection)", x.Changes, x.Record.Decision.Action, x.After.Action)
	}
	var text bytes.Buffer
	if err := x.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"line 1  2025-06-01T10:00:00Z  session s1  PreToolUse bash: rm -rf /tmp/x",
		`before: deny (`, `"no rm: rm -rf /tmp/x"`, "after:  none", "now decided by: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
}

func TestAnotherRewriteIsAChangeOfInput(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads[2])
	r.write(strings.Replace(guard, `"pnpm "`, `"yarn "`, 1))
	got, _ := replayAll(t, r, log, Options{})
	if len(got) != 1 || !slices.Equal(got[0].Changes, []string{ChangedInput}) {
		t.Fatalf("got %+v, want one change of input", got)
	}
	// The same rewrite spelled otherwise (key order, spacing) is no change.
	before := decisionlog.Decision{Action: luahook.ActionMutate, Outcome: &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"b":1, "a":[1.0]}`)}}
	after := decisionlog.Decision{Action: luahook.ActionMutate, Outcome: &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"a":[1],"b":1}`)}}
	if c := Compare(before, after, true); len(c) != 0 {
		t.Errorf("equal JSON values compare as changed: %v", c)
	}
}

func TestAChangeOfReasonAloneCountsOnlyWithReasons(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads[0])
	r.write(strings.Replace(guard, `"no rm: "`, `"rm is not allowed: "`, 1))
	if _, sum := replayAll(t, r, log, Options{}); sum.Changed != 0 {
		t.Errorf("without Reasons: %v, want no change", sum)
	}
	got, sum := replayAll(t, r, log, Options{Reasons: true})
	if sum.Changed != 1 || !slices.Equal(got[0].Changes, []string{ChangedReason}) {
		t.Errorf("with Reasons: %v %v, want a change of reason", sum, got[0].Changes)
	}
}

func TestEventsReplayInLogOrderOnOneStore(t *testing.T) {
	r := newRig(t, guard)
	count := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"count"},"sessionId":"s9","cwd":"/w"}`
	log := r.logOf(count, count, count)
	r.write(guard)
	got, sum := replayAll(t, r, log, Options{})
	if sum.Changed != 0 || got[2].After.Action != luahook.ActionDeny {
		t.Fatalf("summary %v, third call %s; want the third call denied again, nothing changed", sum, got[2].After.Action)
	}
}

func TestUnreadableLinesAreNamedByNumberAndCounted(t *testing.T) {
	r := newRig(t, guard)
	good := r.record(t0, payloads[1])
	noEvent := bytes.Replace(good, []byte(`"event":"PreToolUse","toolName"`), []byte(`"event":"PreTool","toolName"`), 1)
	strict := bytes.Replace(good, []byte(`"toolName":"bash","toolInput"`), []byte(`"toolname":"bash","toolInput"`), 1)
	long := append(bytes.Repeat([]byte(" "), 600), good...)
	lines := [][]byte{good, []byte(`{"time":`), noEvent, {}, strict, long, []byte(`{"event":"Stop","input":{"cwd":"/"}}`), good}
	var unreadable []*LineError
	opts := Options{MaxLineBytes: len(good) + 100, Unreadable: func(le *LineError) { unreadable = append(unreadable, le) }}
	got, sum := replayAll(t, r, append(bytes.Join(lines, []byte("\n")), '\n'), opts)
	var nums []int
	for _, x := range got {
		nums = append(nums, x.Line)
	}
	if sum.Replayed != 2 || sum.Unreadable != 5 || !slices.Equal(nums, []int{1, 8}) {
		t.Errorf("summary %v, lines %v; want lines 1 and 8 replayed, 5 unreadable", sum, nums)
	}
	want := map[int]string{2: "not a decision record", 3: `unknown event "PreTool"`, 5: `did you mean "toolName"`, 6: fmt.Sprintf("longer than %d bytes", len(good)+100), 7: `no "time"`}
	for _, le := range unreadable {
		if !strings.Contains(le.Error(), want[le.Line]) || want[le.Line] == "" {
			t.Errorf("line %d: %v, want an error with %q", le.Line, le, want[le.Line])
		}
	}
}

func TestFiltersSelectByEventTimeAndCount(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads...)
	for _, c := range []struct {
		opts  Options
		lines []int
	}{
		{Options{Event: luahook.UserPromptSubmit}, []int{5, 6}},
		{Options{Since: t0.Add(2 * time.Second), Until: t0.Add(4 * time.Second)}, []int{3, 4}},
		{Options{Limit: 3}, []int{1, 2, 3}},
		{Options{Event: luahook.PreToolUse, Limit: 1, Since: t0.Add(time.Second)}, []int{2}},
	} {
		got, _ := replayAll(t, r, log, c.opts)
		var lines []int
		for _, x := range got {
			lines = append(lines, x.Line)
		}
		if !slices.Equal(lines, c.lines) {
			t.Errorf("%+v: lines %v, want %v", c.opts, lines, c.lines)
		}
	}
}

func TestAnInterruptedReplayDecidesNothing(t *testing.T) {
	r := newRig(t, guard)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stop"))
	_, err := Run(ctx, r.eng.Runner(), bytes.NewReader(r.logOf(payloads[0])), Options{}, func(*Replayed) error { return nil })
	if err == nil || err.Error() != "stop" {
		t.Fatalf("got %v, want the context's cause", err)
	}
}

// TestTheWrittenTestPassesAsWritten: the test file written from a replay
// passes luahook's policy test runner against the hooks it was replayed on,
// and fails once a decision changes.
func TestTheWrittenTestPassesAsWritten(t *testing.T) {
	r := newRig(t, guard)
	log := r.logOf(payloads...)
	var file bytes.Buffer
	tw := NewTestWriter(&file, "decisions.jsonl")
	if _, err := Run(context.Background(), r.eng.Runner(), bytes.NewReader(log), Options{}, tw.Add); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.dir, "replayed_test.lua")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{path}, Out: &out})
	if err != nil || sum.Failed != 0 || sum.Passed != len(payloads) {
		t.Fatalf("%v %v\n%s\nthe file:\n%s", sum, err, out.String(), file.String())
	}
	for _, want := range []string{`expect.denied(r, "no rm: rm -rf /tmp/x")`, `expect.mutated(r, {`,
		`expect.asked(r, "sudo needs a person")`, `expect.no_objection(r)`, `expect.context(r, "edited a b/c.go; run the tests")`,
		`["end"] = { 1, 2 }`, `env = { CI = json.null }`, `"hello ]] \007"`} {
		if !strings.Contains(file.String(), want) {
			t.Errorf("the file lacks %s:\n%s", want, file.String())
		}
	}
	r.write(strings.Replace(guard, `"^sudo "`, `"^doas "`, 1))
	sum, _ = policytest.Run(context.Background(), policytest.Options{Paths: []string{path}, Out: &out})
	if sum.Failed != 1 {
		t.Errorf("after the ask went: %v, want the sudo case to fail\n%s", sum, out.String())
	}
	// No objection turning into an explicit allow is a change too.
	out.Reset()
	r.write(strings.Replace(guard, `if cmd:find("^rm ")`, `if cmd:find("^ls ") then return hook.allow() end
  if cmd:find("^rm ")`, 1))
	sum, _ = policytest.Run(context.Background(), policytest.Options{Paths: []string{path}, Out: &out})
	if sum.Failed != 1 || !strings.Contains(out.String(), "it was allowed explicitly") {
		t.Errorf("after ls became an explicit allow: %v, want the ls case to fail\n%s", sum, out.String())
	}
}

// TestALineMayBeExactlyTheCap: a line of MaxLineBytes is read, one byte
// more is refused, with or without its newline, and reading goes on.
func TestALineMayBeExactlyTheCap(t *testing.T) {
	r := newRig(t, guard)
	good := r.record(t0, payloads[1])
	padded := append(bytes.Repeat([]byte(" "), 1), good...)
	for _, log := range []string{
		string(good) + "\n" + string(padded) + "\n" + string(good),
		string(good) + "\n" + string(padded) + "\n" + string(good) + "\n",
	} {
		var bad []int
		opts := Options{MaxLineBytes: len(good), Unreadable: func(le *LineError) { bad = append(bad, le.Line) }}
		_, sum := replayAll(t, r, []byte(log), opts)
		if sum.Replayed != 2 || !slices.Equal(bad, []int{2}) {
			t.Errorf("%v, unreadable lines %v; want lines 1 and 3 read, line 2 refused", sum, bad)
		}
	}
}

// A fleet's records name their replica; records written before the field
// existed have none. Replay reads both.
func TestRecordsWithAndWithoutAnInstanceAreRead(t *testing.T) {
	const old = `{"time":"2025-06-01T10:00:00Z","luahookVersion":"v0.9.0","event":"Stop","inputDigest":"sha256:00","input":{"event":"Stop"},"hooks":[],"decision":{"outcome":{}}}`
	fleet := strings.Replace(old, `"luahookVersion":"v0.9.0"`, `"luahookVersion":"v0.9.0","instance":"replica-a"`, 1)
	for line, want := range map[string]string{old: "", fleet: "replica-a"} {
		rec, in, err := DecodeRecord([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if rec.Instance != want || in.Event != luahook.Stop {
			t.Errorf("%s: instance %q, event %s; want %q and Stop", line, rec.Instance, in.Event, want)
		}
	}
}

// Records say what the agent received since a later version; replay reads
// them as it reads the older ones, and names a fail-closed block of a
// payload that did not decode as one it cannot replay.
func TestRecordsWithAndWithoutWhatWasDeliveredAreRead(t *testing.T) {
	const old = `{"time":"2025-06-01T10:00:00Z","luahookVersion":"v0.9.0","event":"Stop","inputDigest":"sha256:00","input":{"event":"Stop"},"hooks":[],"decision":{"outcome":{}}}`
	delivered := strings.Replace(old, `"decision":{"outcome":{}}`, `"decision":{"outcome":{}},"delivered":{"verdict":"none","exitCode":0,"agent":"codex"}`, 1)
	for line, want := range map[string]string{old: "", delivered: "none"} {
		rec, in, err := DecodeRecord([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got := ""
		if rec.Delivered != nil {
			got = rec.Delivered.Verdict
		}
		if got != want || in.Event != luahook.Stop {
			t.Errorf("%s: delivered %q, event %s; want %q and Stop", line, got, in.Event, want)
		}
	}
	undecoded := `{"time":"2025-06-01T10:00:00Z","luahookVersion":"v1","agent":"claude","event":"PreToolUse","inputDigest":"","input":null,"hooks":[],"decision":{"outcome":{}},"delivered":{"verdict":"block","exitCode":2,"agent":"claude","cause":"decode","reason":"luahook could not read the payload"}}`
	if _, _, err := DecodeRecord([]byte(undecoded)); err == nil || !strings.Contains(err.Error(), "not decided (cause decode)") {
		t.Errorf("a record of a payload that did not decode: %v, want it named as not decided", err)
	}
}
