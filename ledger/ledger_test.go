package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

func newLedger(t *testing.T, l ledger.Limits) *ledger.Ledger {
	t.Helper()
	s := luabind.NewStore()
	t.Cleanup(s.Close)
	return ledger.New(s, l)
}

// A detail past MaxDetailBytes is kept cut, on a character boundary, with
// a marker that says how much was cut; so is a summary past
// MaxSummaryBytes.
func TestLongDetailsAndSummariesAreCutWithAMarker(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx := context.Background()
	detail := strings.Repeat("é", 1000) // 2000 bytes
	m, err := lg.Mark(ctx, "s", "long", detail)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Detail) > ledger.MaxDetailBytes || !strings.Contains(m.Detail, "…[cut ") || !strings.HasPrefix(detail, strings.Split(m.Detail, "…")[0]) {
		t.Errorf("detail of %d bytes kept as %d bytes: ...%q", len(detail), len(m.Detail), m.Detail[len(m.Detail)-40:])
	}
	got, _, _ := lg.Has(ctx, "s", "long")
	if got.Detail != m.Detail {
		t.Errorf("Has gives another detail than Mark kept")
	}
	in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: []byte(`{"command":"` + strings.Repeat("a", 1000) + `"}`)}
	if err := lg.Record(ctx, "s", ledger.CallOf(in)); err != nil {
		t.Fatal(err)
	}
	calls, err := lg.Calls(ctx, "s", 0)
	if err != nil || len(calls) != 1 {
		t.Fatalf("calls %v, %v", calls, err)
	}
	if s := calls[0].Summary; len(s) > ledger.MaxSummaryBytes || !strings.HasSuffix(s, fmt.Sprintf("…[cut %d bytes]", 1000-len(strings.Split(s, "…")[0]))) {
		t.Errorf("summary of 1000 bytes kept as %d bytes: %q", len(s), s)
	}
}

// Every entry expires MaxAge after it was written: marks, calls, counters.
func TestEntriesExpireAfterMaxAge(t *testing.T) {
	lg := newLedger(t, ledger.Limits{MaxAge: 50 * time.Millisecond})
	ctx := context.Background()
	if _, err := lg.Mark(ctx, "s", "m", "d"); err != nil {
		t.Fatal(err)
	}
	if err := lg.Record(ctx, "s", ledger.Call{Tool: "bash"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Count(ctx, "s", "n", 0, 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, held, _ := lg.Has(ctx, "s", "m")
		marks, _ := lg.Marks(ctx, "s")
		calls, _ := lg.Calls(ctx, "s", 0)
		n, _ := lg.Count(ctx, "s", "n", 0, 0)
		if !held && len(marks) == 0 && len(calls) == 0 && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s with a 50 ms age: held %v, marks %v, calls %v, count %v", held, marks, calls, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Writers at once (replicas, or hooks of one call) lose no call of the
// ring and no mark below the bound: each claims its slot with an Incr.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	lg := newLedger(t, ledger.Limits{MaxCalls: 64, MaxMarks: 64})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			if err := lg.Record(ctx, "s", ledger.Call{Tool: fmt.Sprint("t", i)}); err != nil {
				t.Error(err)
			}
			if _, err := lg.Mark(ctx, "s", fmt.Sprint("m", i), ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	calls, _ := lg.Calls(ctx, "s", 0)
	marks, _ := lg.Marks(ctx, "s")
	if len(calls) != 32 || len(marks) != 32 {
		t.Errorf("%d calls and %d marks of 32 each", len(calls), len(marks))
	}
}

// A call with an empty session id is refused, naming why.
func TestNoSessionIsAnError(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx := context.Background()
	_, err := lg.Mark(ctx, "", "m", "")
	if !errors.Is(err, ledger.ErrNoSession) {
		t.Errorf("Mark: %v", err)
	}
	if _, err := lg.Calls(ctx, "", 0); !errors.Is(err, ledger.ErrNoSession) {
		t.Errorf("Calls: %v", err)
	}
}

// A mark past a bound is a *LimitError naming the bound.
func TestBoundsAreLimitErrors(t *testing.T) {
	lg := newLedger(t, ledger.Limits{MaxMarks: 1, MaxBytes: 10})
	ctx := context.Background()
	if _, err := lg.Mark(ctx, "s", "a", ""); err != nil {
		t.Fatal(err)
	}
	var le *ledger.LimitError
	if _, err := lg.Mark(ctx, "s", "b", ""); !errors.As(err, &le) || le.Limit != "ledger_max_marks" || le.Max != 1 {
		t.Errorf("a second mark: %v", err)
	}
	if _, err := lg.Mark(ctx, "s", "a", "0123456789"); !errors.As(err, &le) || le.Limit != "ledger_max_bytes" || le.Max != 10 {
		t.Errorf("a mark past the bytes: %v", err)
	}
	if m, _, _ := lg.Has(ctx, "s", "a"); m.Detail != "" {
		t.Errorf("a refused mark changed the mark: %+v", m)
	}
}

// The digest is the call's identity: the same tool and input (keys in any
// order, any spacing) one digest; another input or another tool another.
func TestDigestNormalizesTheInput(t *testing.T) {
	a := ledger.Digest("bash", []byte(`{"command":"x","timeout":5}`))
	if b := ledger.Digest("bash", []byte(`{ "timeout": 5, "command": "x" }`)); a != b {
		t.Errorf("same input, other order: %s != %s", a, b)
	}
	if b := ledger.Digest("bash", []byte(`{"command":"y","timeout":5}`)); a == b {
		t.Error("another input, same digest")
	}
	if b := ledger.Digest("sh", []byte(`{"command":"x","timeout":5}`)); a == b {
		t.Error("another tool, same digest")
	}
}

// Limits past their bounds are cut to them; Check names the first.
func TestLimitsAreBounded(t *testing.T) {
	lg := newLedger(t, ledger.Limits{MaxMarks: 1 << 30, MaxAge: 100 * 365 * 24 * time.Hour})
	if l := lg.Limits(); l.MaxMarks != ledger.MaxLimitEntries || l.MaxAge > luabind.MaxStoreTTL {
		t.Errorf("limits in force: %+v", l)
	}
	if err := (ledger.Limits{MaxCalls: 1 << 30}).Check(); err == nil || !strings.Contains(err.Error(), "MaxCalls") {
		t.Errorf("Check: %v", err)
	}
}

// BenchmarkRecord is what the feed adds to each PostToolUse on the
// in-process store: the call's summary and digest, an Incr and a Set.
func BenchmarkRecord(b *testing.B) {
	s := luabind.NewStore()
	defer s.Close()
	lg := ledger.New(s, ledger.Limits{})
	in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", SessionID: "session-1",
		ToolInput: []byte(`{"command":"go test ./...","description":"run the tests","timeout":120000}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := lg.Record(ctx, in.SessionID, ledger.CallOf(in)); err != nil {
			b.Fatal(err)
		}
	}
}

// A call's hand-made JSON reads back as the call, whatever its strings.
func TestCallJSONRoundTrips(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx := context.Background()
	want := ledger.Call{Tool: "a\"b\\c\x00\u2028é", Event: "PostToolUse", OK: false, Summary: "<>&\n\t\"", Digest: "d"}
	if err := lg.Record(ctx, "s", want); err != nil {
		t.Fatal(err)
	}
	calls, err := lg.Calls(ctx, "s", 1)
	if err != nil || len(calls) != 1 {
		t.Fatalf("%v %v", calls, err)
	}
	got := calls[0]
	got.AtMs, got.Seq = 0, 0
	if got != want {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

// A label is any name: one spelled like the ledger's own bookkeeping
// ("b", "n", "s1", "s", "x") is a mark like another, and the bookkeeping
// (the marks' list, their count and their bytes) stays whole.
func TestLabelsNeverMeetTheLedgersOwnKeys(t *testing.T) {
	lg := newLedger(t, ledger.Limits{MaxBytes: 100})
	ctx := context.Background()
	labels := []string{"b", "n", "s1", "s2", "s", "x", "cn", "ks", "kc0"}
	for round := range 2 {
		for _, l := range labels {
			if _, err := lg.Mark(ctx, "s", l, fmt.Sprint("d", round)); err != nil {
				t.Fatalf("round %d, mark %q: %v", round, l, err)
			}
		}
	}
	marks, err := lg.Marks(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != len(labels) {
		t.Fatalf("%d marks, want %d: %+v", len(marks), len(labels), marks)
	}
	for i, m := range marks {
		if m.Label != labels[i] || m.Detail != "d1" || m.Slot != int64(i+1) {
			t.Errorf("mark %d = %+v, want %s=d1 in slot %d", i, m, labels[i], i+1)
		}
	}
	// The bytes counted are the labels' and the details' (15 + 9 × 2 = 33
	// of 100): 67 more fit, 68 do not.
	if _, err := lg.Mark(ctx, "s", "y", strings.Repeat("z", 66)); err != nil {
		t.Errorf("a mark up to ledger_max_bytes: %v", err)
	}
	var le *ledger.LimitError
	if _, err := lg.Mark(ctx, "s", "z", ""); !errors.As(err, &le) || le.Limit != "ledger_max_bytes" {
		t.Errorf("a mark past ledger_max_bytes: %v", err)
	}
}

// BenchmarkLedgerMemory times each ledger operation on the in-process
// store (BenchmarkLedgerRedis in internal/redisstore times them on Redis).
func BenchmarkLedgerMemory(b *testing.B) {
	s := luabind.NewStore()
	defer s.Close()
	lg := ledger.New(s, ledger.Limits{})
	ctx := context.Background()
	const session = "bench"
	if _, err := lg.Mark(ctx, session, "private-data", "read ~/.ssh/id_rsa"); err != nil {
		b.Fatal(err)
	}
	call := ledger.Call{Tool: "Bash", Event: "PostToolUse", OK: true, Summary: "make test", Digest: "0123456789abcdef0123456789abcdef"}
	for range 40 {
		if err := lg.Record(ctx, session, call); err != nil {
			b.Fatal(err)
		}
	}
	ops := []struct {
		name string
		do   func() error
	}{
		{"has", func() error { _, _, err := lg.Has(ctx, session, "private-data"); return err }},
		{"has-not", func() error { _, _, err := lg.Has(ctx, session, "untrusted-content"); return err }},
		{"mark", func() error { _, err := lg.Mark(ctx, session, "private-data", "read .env"); return err }},
		{"count", func() error { _, err := lg.Count(ctx, session, "calls", 0, 1); return err }},
		{"record", func() error { return lg.Record(ctx, session, call) }},
		{"calls2", func() error { _, err := lg.Calls(ctx, session, 2); return err }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := op.do(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A mark the store did not keep makes the session's marks unknown: has and
// marks answer it with a *LostMarkError (a policy that fails closed
// denies) rather than with what the store holds, until the same label is
// written; other sessions, and calls that were wrong, are not affected.
func TestALostMarkIsAnErrorNotAnAbsence(t *testing.T) {
	s := luabind.NewStore()
	t.Cleanup(s.Close)
	lg := ledger.New(s, ledger.Limits{})
	ctx := context.Background()
	if _, err := lg.Mark(ctx, "other", "untrusted-content", "evil.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Mark(ctx, "s", "untrusted-content", "evil.example"); err != nil {
		t.Fatal(err)
	}
	// Fill the store: the next mark's keys do not fit.
	s.SetLimits(store.Limits{MaxKeys: 1})
	_, err := lg.Mark(ctx, "s", "private-data", "~/.ssh/id_rsa")
	var full *store.LimitError
	if !errors.As(err, &full) {
		t.Fatalf("a mark in a full store: %v", err)
	}
	var lost *ledger.LostMarkError
	if _, _, err := lg.Has(ctx, "s", "private-data"); !errors.As(err, &lost) || lost.Label != "private-data" ||
		!strings.Contains(err.Error(), `mark "private-data" could not be kept`) || !errors.As(err, &full) {
		t.Errorf("has after a lost mark: %v", err)
	}
	if _, _, err := lg.Has(ctx, "s", "untrusted-content"); !errors.As(err, &lost) {
		t.Errorf("has of another label after a lost mark: %v", err)
	}
	if _, err := lg.Marks(ctx, "s"); !errors.As(err, &lost) {
		t.Errorf("marks after a lost mark: %v", err)
	}
	if _, ok, err := lg.Has(ctx, "other", "untrusted-content"); err != nil || !ok {
		t.Errorf("another session's has: %v, %v", ok, err)
	}
	// A wrong call loses nothing.
	if _, err := lg.Mark(ctx, "other", "", "x"); err == nil {
		t.Fatal("an empty label was taken")
	}
	if _, _, err := lg.Has(ctx, "other", "untrusted-content"); err != nil {
		t.Errorf("has after a wrong mark: %v", err)
	}
	// The label written at last is the information back.
	s.SetLimits(store.Limits{})
	if _, err := lg.Mark(ctx, "s", "private-data", "~/.ssh/id_rsa"); err != nil {
		t.Fatal(err)
	}
	if m, ok, err := lg.Has(ctx, "s", "private-data"); err != nil || !ok || m.Detail != "~/.ssh/id_rsa" {
		t.Errorf("has once the mark was written: %+v %v %v", m, ok, err)
	}
	// A session's own bound refuses a mark: that mark is lost too.
	small := ledger.New(s, ledger.Limits{MaxMarks: 1})
	if _, err := small.Mark(ctx, "t", "a", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := small.Mark(ctx, "t", "b", ""); err == nil {
		t.Fatal("a second mark of one was taken")
	}
	if _, _, err := small.Has(ctx, "t", "a"); !errors.As(err, &lost) || lost.Label != "b" {
		t.Errorf("has after a mark past ledger_max_marks: %v", err)
	}
}

// hostile is a store.LedgerBackend whose server answers every read of a
// list with one entry numbered first, whatever was asked.
type hostile struct {
	store.Backend
	count float64
	first int64
	reads int
}

func (h *hostile) LedgerMark(context.Context, string, string, []byte, int, int, int, time.Duration) (int64, string, error) {
	return 0, "", errors.New("not used")
}

func (h *hostile) LedgerCounts(context.Context, store.LedgerCountsRequest) (store.LedgerCountsReply, error) {
	return store.LedgerCountsReply{}, errors.New("not used")
}

func (h *hostile) LedgerRecord(context.Context, string, string, []byte, int, time.Duration) (int64, error) {
	return 0, errors.New("not used")
}

func (h *hostile) LedgerRange(_ context.Context, _, _ string, _, from, _, _, _ int) (float64, bool, int64, []json.RawMessage, error) {
	h.reads++
	first := h.first
	if from > 0 && h.first == 0 {
		first = int64(from) // an honest page
	}
	if first == 0 {
		first = 1
	}
	return h.count, true, first, []json.RawMessage{json.RawMessage(`{"label":"x","at":1,"slot":1}`)}, nil
}

// Whatever a server answers to the reads of a list, the ledger's loop over
// its pages ends: a page that does not start where the last one ended is
// an error, and no more entries are read than asked for.
func TestAListReadEndsWhateverTheServerAnswers(t *testing.T) {
	s := luabind.NewStore()
	t.Cleanup(s.Close)
	ctx := context.Background()
	stuck := &hostile{Backend: s, count: 100, first: 1}
	if _, err := ledger.New(stuck, ledger.Limits{}).Marks(ctx, "s"); err == nil || !strings.Contains(err.Error(), "asked from 2") {
		t.Errorf("a server that answers the first page again: %v", err)
	}
	if stuck.reads != 2 {
		t.Errorf("%d reads of a list whose pages do not advance, want 2", stuck.reads)
	}
	// An honest server with one entry a page and a count of 2^53: the
	// session's last 3 calls are 3 reads.
	far := &hostile{Backend: s, count: 1 << 53}
	if _, err := ledger.New(far, ledger.Limits{}).Calls(ctx, "s", 3); err != nil {
		t.Fatal(err)
	}
	if far.reads != 3 {
		t.Errorf("%d reads for the last 3 calls, want 3", far.reads)
	}
}

// TestSessionsInTurnKeepTheirOwnCounters: the ledger remembers the key
// prefix of the session last asked for; sessions asked for in turn, from
// many goroutines, still each count in their own counters only.
func TestSessionsInTurnKeepTheirOwnCounters(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx := context.Background()
	sessions := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				s := sessions[(i+g)%len(sessions)]
				if _, _, err := lg.Counts(ctx, s, []ledger.CountOp{{Name: "n", Delta: 1}, {Name: "only-" + s, Delta: 1}}, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		for _, other := range sessions {
			n, err := lg.Count(ctx, s, "only-"+other, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]float64{true: 400, false: 0}[s == other]; n != want {
				t.Errorf("session %s counter only-%s = %v, want %v", s, other, n, want)
			}
		}
		if n, _ := lg.Count(ctx, s, "n", 0, 0); n != 400 {
			t.Errorf("session %s counted %v calls, want 400", s, n)
		}
	}
}
