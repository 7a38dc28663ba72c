package decisionfeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/runner"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// record returns a record of a bash call by agent in session, decided by
// decidedBy with action (deny: denied).
func record(agent, session string, action luahook.Action, decidedBy string) *decisionlog.Record {
	return &decisionlog.Record{
		Time: t0, LuahookVersion: "test", Agent: agent, SessionID: session,
		Event: luahook.PreToolUse, ToolName: "bash", InputDigest: "sha256:00",
		Input: json.RawMessage(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"cwd":"/w","sessionId":"` + session + `"}`),
		Hooks: []decisionlog.Hook{{Name: decidedBy, Source: "10-" + decidedBy + ".lua:1", Kind: "lua",
			Outcome: &luahook.Outcome{Action: action, Reason: "because"}}},
		Decision: decisionlog.Decision{Action: action, Reason: "because", DecidedBy: decidedBy,
			Outcome: &luahook.Outcome{Action: action, Reason: "because"}},
		Files: map[string]string{"10-" + decidedBy + ".lua": "sha256:ab"},
	}
}

// withFile adds file to the files of r.
func withFile(r *decisionlog.Record, file string) *decisionlog.Record {
	r.Files[file] = "sha256:cd"
	return r
}

func write(t testing.TB, f *Feed, recs ...*decisionlog.Record) {
	t.Helper()
	s := f.Sink()
	for _, r := range recs {
		if err := s.Write(r); err != nil {
			t.Fatal(err)
		}
	}
}

func seqs(entries []Entry) []uint64 {
	var out []uint64
	for _, e := range entries {
		out = append(out, e.Seq)
	}
	return out
}

// seqRange is hi, hi-1, ... lo.
func seqRange(hi, lo uint64) []uint64 {
	var out []uint64
	for s := hi; s >= lo && s > 0; s-- {
		out = append(out, s)
	}
	return out
}

func TestTheWindowLetsTheOldestEntryGoAtItsCap(t *testing.T) {
	f := New(Options{Window: 10})
	for i := range 11 {
		write(t, f, record("claude", fmt.Sprint("s", i), luahook.ActionDeny, "no-bash"))
	}
	if f.Len() != 10 || f.Seq() != 11 {
		t.Fatalf("Len %d, Seq %d; want 10 and 11", f.Len(), f.Seq())
	}
	got, more := f.Query(Filter{}, 0, 100)
	if !slices.Equal(seqs(got), seqRange(11, 2)) || more {
		t.Errorf("Query = %v more=%v, want 11..2 and no more", seqs(got), more)
	}
	if _, ok := f.Detail(1); ok {
		t.Error("Detail of the entry that left the window is still there")
	}
	if rec, ok := f.Detail(2); !ok || rec.SessionID != "s1" {
		t.Errorf("Detail(2) = %+v, %v; want session s1", rec, ok)
	}
	for _, seq := range []uint64{0, 12} {
		if _, ok := f.Detail(seq); ok {
			t.Errorf("Detail(%d) found a record that never was", seq)
		}
	}
}

// lineLen is the size the feed counts for rec's detail.
func lineLen(t *testing.T, rec *decisionlog.Record) int64 {
	probe := New(Options{})
	write(t, probe, rec)
	line, ok := probe.DetailJSON(1)
	if !ok {
		t.Fatal("no detail")
	}
	return int64(len(line))
}

func TestTheByteBudgetLetsTheOldestDetailsGoAndKeepsTheirEntries(t *testing.T) {
	n := lineLen(t, record("claude", "s0", luahook.ActionDeny, "no-bash"))
	f := New(Options{MaxBytes: 3*n + n/2})
	for i := range 5 {
		write(t, f, record("claude", fmt.Sprint("s", i), luahook.ActionDeny, "no-bash"))
	}
	if f.Len() != 5 {
		t.Fatalf("Len %d, want the 5 entries", f.Len())
	}
	for seq := uint64(1); seq <= 5; seq++ {
		_, ok := f.Detail(seq)
		if want := seq >= 3; ok != want {
			t.Errorf("Detail(%d) kept = %v, want %v (the 3 newest fit)", seq, ok, want)
		}
	}
	if got, _ := f.Query(Filter{}, 0, 10); !slices.Equal(seqs(got), seqRange(5, 1)) {
		t.Errorf("entries %v, want all 5 though their details went", seqs(got))
	}
	// A record larger than the whole budget is not kept, and lets no
	// other go.
	big := record("claude", "big", luahook.ActionDeny, "no-bash")
	big.Input = json.RawMessage(`{"event":"PreToolUse","toolInput":{"command":"` + strings.Repeat("x", int(4*n)) + `"},"cwd":"/w"}`)
	write(t, f, big)
	if _, ok := f.Detail(6); ok {
		t.Error("a record over the budget was kept")
	}
	for seq := uint64(3); seq <= 5; seq++ {
		if _, ok := f.Detail(seq); !ok {
			t.Errorf("the record over the budget let %d go", seq)
		}
	}
	if f.detailBytes > f.maxBytes {
		t.Errorf("details hold %d bytes, over the budget of %d", f.detailBytes, f.maxBytes)
	}
}

func TestFiltersMatchEachFieldAndTogether(t *testing.T) {
	f := New(Options{})
	block := record("codex", "s2", luahook.ActionContinue, "keep-going")
	block.Hooks = append(block.Hooks, decisionlog.Hook{Name: "audit", Kind: "lua"})
	write(t, f,
		record("claude", "s1", luahook.ActionDeny, "no-bash"),                                   // 1
		record("claude", "s2", luahook.ActionAllow, "ok-read"),                                  // 2
		withFile(record("codex", "s1", luahook.ActionDeny, "no-network"), "/etc/hooks.d/x.lua"), // 3
		block, // 4: a Stop kept going: blocked
		record("codex", "s2", luahook.ActionAsk, "no-bash"), // 5
	)
	for _, c := range []struct {
		flt  Filter
		want []uint64
	}{
		{Filter{}, []uint64{5, 4, 3, 2, 1}},
		{Filter{Agent: "claude"}, []uint64{2, 1}},
		{Filter{Session: "s2"}, []uint64{5, 4, 2}},
		{Filter{Verdict: "deny"}, []uint64{3, 1}},
		{Filter{Verdict: "block"}, []uint64{4}},
		{Filter{Verdict: "denied"}, []uint64{4, 3, 1}},
		{Filter{Policy: "no-bash"}, []uint64{5, 1}},     // DecidedBy
		{Filter{Policy: "audit"}, []uint64{4}},          // a hook of the trace
		{Filter{Policy: "10-ok-read.lua"}, []uint64{2}}, // a file
		{Filter{Policy: "no"}, nil},                     // exact, not contained
		{Filter{Agent: "codex", Verdict: "denied"}, []uint64{4, 3}},
		{Filter{Agent: "codex", Session: "s2", Policy: "no-bash"}, []uint64{5}},
		{Filter{Agent: "claude", Session: "s1", Verdict: "allow"}, nil},
	} {
		got, more := f.Query(c.flt, 0, 0)
		if !slices.Equal(seqs(got), c.want) || more {
			t.Errorf("%+v: %v more=%v, want %v", c.flt, seqs(got), more, c.want)
		}
	}
}

func TestQueryPagesNewestFirstBeforeASeq(t *testing.T) {
	f := New(Options{})
	for i := range 25 {
		agent := "claude"
		if i%2 == 1 {
			agent = "codex"
		}
		write(t, f, record(agent, "s", luahook.ActionDeny, "no-bash"))
	}
	var all []uint64
	before, pages := uint64(0), 0
	for {
		got, more := f.Query(Filter{}, before, 10)
		pages++
		all = append(all, seqs(got)...)
		if !more {
			break
		}
		before = got[len(got)-1].Seq
	}
	if pages != 3 || !slices.Equal(all, seqRange(25, 1)) {
		t.Errorf("%d pages of %v, want 3 pages of 25..1", pages, all)
	}
	// Filtered: claude's are the odd seqs.
	got, more := f.Query(Filter{Agent: "claude"}, 20, 3)
	if !slices.Equal(seqs(got), []uint64{19, 17, 15}) || !more {
		t.Errorf("claude before 20: %v more=%v, want 19 17 15 and more", seqs(got), more)
	}
	if got, more := f.Query(Filter{Agent: "claude"}, 4, 3); !slices.Equal(seqs(got), []uint64{3, 1}) || more {
		t.Errorf("claude before 4: %v more=%v, want 3 1 and no more", seqs(got), more)
	}
	if got, _ := f.Query(Filter{}, 1, 10); len(got) != 0 {
		t.Errorf("before 1: %v, want none", seqs(got))
	}
	if got, _ := f.Query(Filter{}, 1000, 2); !slices.Equal(seqs(got), []uint64{25, 24}) {
		t.Errorf("before a seq to come: %v, want the newest", seqs(got))
	}
	for i := range MaxQueryLimit {
		_ = i
		write(t, f, record("claude", "s", luahook.ActionDeny, "no-bash"))
	}
	if got, more := f.Query(Filter{}, 0, 10*MaxQueryLimit); len(got) != MaxQueryLimit || !more {
		t.Errorf("a limit over the cap gave %d entries (more=%v), want %d and more", len(got), more, MaxQueryLimit)
	}
}

// receive reads one entry from s, failing after a wide timeout.
func receive(t *testing.T, s *Subscription) (Entry, bool) {
	t.Helper()
	select {
	case e, ok := <-s.C():
		return e, ok
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received in 10s")
		return Entry{}, false
	}
}

func TestASubscriberGetsTheNewEntries(t *testing.T) {
	f := New(Options{})
	write(t, f, record("claude", "before", luahook.ActionDeny, "no-bash"))
	s, err := f.Subscribe(8)
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, record("claude", "a", luahook.ActionDeny, "no-bash"), record("codex", "b", luahook.ActionAllow, "ok"))
	for _, want := range []struct {
		seq     uint64
		session string
	}{{2, "a"}, {3, "b"}} {
		e, ok := receive(t, s)
		if !ok || e.Seq != want.seq || e.Session != want.session {
			t.Errorf("got %+v (open %v), want seq %d of session %s", e, ok, want.seq, want.session)
		}
	}
	s.Cancel()
	if _, ok := receive(t, s); ok {
		t.Error("the channel is open after Cancel")
	}
	s.Cancel() // again: no panic
	write(t, f, record("claude", "after", luahook.ActionDeny, "no-bash"))
}

func TestASlowSubscriberMissesEntriesAndHoldsNothingUp(t *testing.T) {
	f := New(Options{})
	slow, err := f.Subscribe(1)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.Subscribe(100)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10 {
			write(t, f, record("claude", "s", luahook.ActionDeny, "no-bash"))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write waited for a subscriber")
	}
	if slow.Dropped() != 9 || fast.Dropped() != 0 {
		t.Errorf("dropped: slow %d, fast %d; want 9 and 0", slow.Dropped(), fast.Dropped())
	}
	if e, _ := receive(t, slow); e.Seq != 1 {
		t.Errorf("the slow subscriber got %d, want the first entry it had room for", e.Seq)
	}
	if len(fast.C()) != 10 {
		t.Errorf("the fast subscriber holds %d entries, want 10", len(fast.C()))
	}
}

func TestSubscriptionsAreBoundedAndEndWithTheFeed(t *testing.T) {
	f := New(Options{})
	var subs []*Subscription
	for range MaxSubscribers {
		s, err := f.Subscribe(0)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	if _, err := f.Subscribe(1); !errors.Is(err, ErrTooManySubscribers) {
		t.Fatalf("subscription %d: %v, want ErrTooManySubscribers", MaxSubscribers+1, err)
	}
	subs[0].Cancel()
	s, err := f.Subscribe(1)
	if err != nil {
		t.Fatalf("after a Cancel: %v", err)
	}
	f.Close()
	for _, s := range append(subs[1:], s) {
		if _, ok := receive(t, s); ok {
			t.Fatal("a subscription is open after Close")
		}
	}
	if _, err := f.Subscribe(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrClosed", err)
	}
	write(t, f, record("claude", "s", luahook.ActionDeny, "no-bash"))
	if f.Len() != 1 {
		t.Error("a closed feed stopped taking records")
	}
}

// Write keeps a copy: the record changed after it (as the log's builder
// reuses it) changes neither the entry nor the detail.
func TestWriteKeepsNothingOfTheRecord(t *testing.T) {
	f := New(Options{})
	rec := record("claude", "s1", luahook.ActionDeny, "no-bash")
	rec.Masked = []string{"toolInput.env"}
	rec.Delivered = &decisionlog.Delivered{Verdict: "deny", Agent: "claude"}
	rec.Approval = &runner.Approval{Verdict: "denied", By: "ana", Approvers: []string{"ana"}}
	rec.Ledger = nil
	want := string(decisionlog.AppendLine(nil, rec))
	write(t, f, rec)
	entryBefore, _ := f.Query(Filter{}, 0, 1)

	copy(rec.Input, strings.Repeat("#", len(rec.Input)))
	rec.Masked[0] = "changed"
	rec.Hooks[0].Name, rec.Hooks[0].Outcome.Reason = "changed", "changed"
	rec.Decision.Outcome.Reason = "changed"
	rec.Files["10-no-bash.lua"] = "changed"
	rec.Files["new.lua"] = "x"
	rec.Delivered.Verdict, rec.Approval.By, rec.Approval.Approvers[0] = "allow", "eve", "eve"

	got, ok := f.DetailJSON(1)
	if !ok || string(got)+"\n" != want {
		t.Errorf("detail after the record changed:\n%s\nwant\n%s", got, want)
	}
	if d, ok := f.Detail(1); !ok || d.Hooks[0].Name != "no-bash" || d.Approval.By != "ana" {
		t.Errorf("Detail after the record changed: %+v", d)
	}
	entryAfter, _ := f.Query(Filter{}, 0, 1)
	if fmt.Sprint(entryAfter) != fmt.Sprint(entryBefore) || entryAfter[0].Approval != "denied by ana" {
		t.Errorf("entry after the record changed: %+v, was %+v", entryAfter, entryBefore)
	}
}

func TestEntriesSayWhatTheAgentReceived(t *testing.T) {
	f := New(Options{})
	ctx := record("claude", "s", "", "")
	ctx.Decision.Outcome = &luahook.Outcome{AdditionalContext: "note"}
	rewrite := record("claude", "s", luahook.ActionMutate, "fix")
	rewrite.Decision.Outcome.Input = json.RawMessage(`{"command":"ls -l"}`)
	askAsDeny := record("codex", "s", luahook.ActionAsk, "ask-me")
	askAsDeny.Delivered = &decisionlog.Delivered{Verdict: "deny", Agent: "codex"}
	failClosed := record("", "s", "", "")
	failClosed.Delivered = &decisionlog.Delivered{Verdict: "block", Agent: "gemini", Cause: "load", Reason: "no policy in force"}
	write(t, f, ctx, rewrite, askAsDeny, failClosed, record("claude", "s", "", ""))
	got, _ := f.Query(Filter{}, 0, 0)
	slices.Reverse(got)
	for i, want := range []struct {
		verdict, agent, reason string
		denied                 bool
	}{
		{"context", "claude", "because", false},
		{"rewrite", "claude", "because", false},
		{"deny", "codex", "because", true},
		{"block", "gemini", "no policy in force", true},
		{"none", "claude", "because", false},
	} {
		e := got[i]
		if e.Verdict != want.verdict || e.Agent != want.agent || e.Reason != want.reason || e.Denied != want.denied {
			t.Errorf("entry %d: verdict %q agent %q reason %q denied %v; want %+v", e.Seq, e.Verdict, e.Agent, e.Reason, e.Denied, want)
		}
	}
}

func TestTheClientIsThePayloadsOwn(t *testing.T) {
	for in, want := range map[string]string{
		`{"event":"PreToolUse","toolInput":{"client":"nested","a":[1,{"client":"x"}]},"note":"\"client\":\"q\"","client":"ci-bot"}`: "ci-bot",
		` { "client" : "sp\u00e9cial \"q\"" } `: `spécial "q"`,
		`{"toolInput":{"client":"nested"}}`:     "",
		`{"client":42}`:                         "",
		`{"a":tru`:                              "",
		`["client","x"]`:                        "",
		`null`:                                  "",
		`{"a":"unterminated,"client":"x"}`:      "",
		`{"a":{"b":"}"},"n":-1.5e3,"t":true,"client":"y"}`: "y",
	} {
		if got := topLevelString([]byte(in), "client"); got != want {
			t.Errorf("%s: client %q, want %q", in, got, want)
		}
	}
	f := New(Options{})
	rec := record("claude", "s", luahook.ActionDeny, "no-bash")
	rec.Input = json.RawMessage(`{"event":"PreToolUse","toolInput":{"client":"no"},"cwd":"/w","client":"ci-bot"}`)
	write(t, f, rec)
	if got, _ := f.Query(Filter{}, 0, 1); got[0].Client != "ci-bot" {
		t.Errorf("client %q, want ci-bot", got[0].Client)
	}
}

// A record as large as the log writes (a 64 KiB payload, long reasons and
// names, many hooks and files) makes an entry within the Entry bounds.
func TestAHugeRecordMakesABoundedEntry(t *testing.T) {
	rec := record(strings.Repeat("a", 10_000), strings.Repeat("é", 10_000), luahook.ActionDeny, strings.Repeat("d", 5000))
	rec.Input = json.RawMessage(`{"event":"PreToolUse","toolInput":{"command":"` + strings.Repeat("x", 64<<10) + `"},"client":"` + strings.Repeat("c", 70_000) + `"}`)
	rec.Decision.Reason = strings.Repeat("ü", 100_000)
	rec.Hooks, rec.Files = nil, map[string]string{}
	for i := range 100 {
		rec.Hooks = append(rec.Hooks, decisionlog.Hook{Name: fmt.Sprint(i, strings.Repeat("h", 1000)), Kind: "lua"})
		rec.Files[fmt.Sprint(i, strings.Repeat("f", 1000))] = "sha256:ab"
	}
	f := New(Options{})
	write(t, f, rec)
	got, _ := f.Query(Filter{}, 0, 1)
	e := got[0]
	if n := utf8.RuneCountInString(e.Reason); n != MaxReasonChars || !utf8.ValidString(e.Reason) {
		t.Errorf("reason of %d characters (valid %v), want %d", n, utf8.ValidString(e.Reason), MaxReasonChars)
	}
	if len(e.Hooks) != MaxNames || len(e.Files) != MaxNames {
		t.Errorf("%d hooks and %d files, want %d each", len(e.Hooks), len(e.Files), MaxNames)
	}
	for _, s := range append(append([]string{e.Agent, e.Session, e.DecidedBy, e.Client}, e.Hooks...), e.Files...) {
		if len(s) > MaxFieldBytes || len(s) < MaxFieldBytes-3 || !utf8.ValidString(s) {
			t.Errorf("a field of %d bytes (valid %v), want it cut to %d", len(s), utf8.ValidString(s), MaxFieldBytes)
		}
	}
	if d, ok := f.Detail(1); !ok || len(d.Input) < 64<<10 {
		t.Error("the whole record is not kept within the default budget")
	}
	small := New(Options{MaxBytes: 32 << 10})
	write(t, small, rec)
	if _, ok := small.Detail(1); ok || small.Len() != 1 || small.detailBytes != 0 {
		t.Errorf("a record over a 32 KiB budget: detail kept %v, %d entries, %d bytes; want its entry only", ok, small.Len(), small.detailBytes)
	}
}

func TestCountsPerMinuteAndTopRules(t *testing.T) {
	now := t0.Add(10*time.Minute + 30*time.Second) // in minute 10
	f := New(Options{Now: func() time.Time { return now }})
	at := func(m int, r *decisionlog.Record) *decisionlog.Record {
		r.Time = t0.Add(time.Duration(m)*time.Minute + 5*time.Second)
		return r
	}
	write(t, f,
		at(-1, record("claude", "s", luahook.ActionDeny, "old")), // before the range
		at(7, record("claude", "s", luahook.ActionDeny, "no-bash")),
		at(7, record("claude", "s", luahook.ActionAllow, "ok-read")),
		at(8, record("claude", "s", luahook.ActionDeny, "no-network")),
		at(8, record("claude", "s", luahook.ActionDeny, "no-network")),
		at(8, record("claude", "s", luahook.ActionAllow, "no-bash")),
		at(10, record("claude", "s", luahook.ActionContinue, "keep-going")),
		at(10, record("claude", "s", luahook.ActionDeny, "no-bash")),
		at(10, record("claude", "s", luahook.ActionDeny, "")), // no rule
	)
	c := f.Counts(5, 10)
	want := []Minute{
		{t0.Add(6 * time.Minute), 0, 0},
		{t0.Add(7 * time.Minute), 2, 1},
		{t0.Add(8 * time.Minute), 3, 2},
		{t0.Add(9 * time.Minute), 0, 0},
		{t0.Add(10 * time.Minute), 3, 3},
	}
	if !slices.Equal(c.Minutes, want) {
		t.Errorf("minutes\n%v\nwant\n%v", c.Minutes, want)
	}
	wantRules := []Rule{{"no-bash", 2, 3}, {"no-network", 2, 2}, {"keep-going", 1, 1}}
	if !slices.Equal(c.TopRules, wantRules) {
		t.Errorf("top rules %v, want %v (ok-read denied nothing)", c.TopRules, wantRules)
	}
	if c := f.Counts(5, 1); !slices.Equal(c.TopRules, wantRules[:1]) {
		t.Errorf("top 1: %v", c.TopRules)
	}
	if c := f.Counts(12, 0); c.Minutes[0].Decisions != 1 || len(c.Minutes) != 12 || c.TopRules[len(c.TopRules)-1].Name != "old" {
		t.Errorf("12 minutes: %v %v, want the one before too", c.Minutes, c.TopRules)
	}
	if c := f.Counts(100_000, 0); len(c.Minutes) != MaxCountMinutes {
		t.Errorf("%d minutes, want the cap of %d", len(c.Minutes), MaxCountMinutes)
	}
	// A day later, the minutes of the day before are forgotten, and a
	// record of the day before is not counted over today's minute.
	now = now.Add(24 * time.Hour)
	write(t, f, at(10+24*60, record("claude", "s", luahook.ActionDeny, "today")))
	write(t, f, at(10, record("claude", "s", luahook.ActionDeny, "late")))
	c = f.Counts(MaxCountMinutes, 0)
	total := 0
	for _, m := range c.Minutes {
		total += m.Decisions
	}
	if total != 1 || len(c.TopRules) != 1 || c.TopRules[0].Name != "today" {
		t.Errorf("a day later: %d decisions, rules %v; want today's one", total, c.TopRules)
	}
}

// Writers, readers and subscribers at once (run with -race).
func TestTheFeedIsSafeForConcurrentUse(t *testing.T) {
	f := New(Options{Window: 100, MaxBytes: 20 << 10})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 500 {
				write(t, f, record(fmt.Sprint("agent", w), fmt.Sprint("s", i%7), luahook.ActionDeny, "no-bash"))
			}
		})
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, _ := f.Query(Filter{Session: "s3"}, 0, 50)
			for _, e := range got {
				if e.Session != "s3" {
					t.Errorf("filtered entry of session %q", e.Session)
				}
				f.Detail(e.Seq)
			}
			f.Counts(60, 5)
		}
	})
	readers.Go(func() {
		for {
			s, err := f.Subscribe(4)
			if err != nil {
				t.Error(err)
				return
			}
			select {
			case <-s.C():
			case <-stop:
				s.Cancel()
				return
			}
			s.Cancel()
		}
	})
	wg.Wait()
	close(stop)
	readers.Wait()
	if f.Seq() != 1000 || f.Len() != 100 {
		t.Errorf("Seq %d Len %d, want 1000 and 100", f.Seq(), f.Len())
	}
}

// Through a real engine and decision log, whose writer reuses each record's
// memory for the next, every entry and detail stays the decision it was.
func TestTheEngineTapFeedsEachDecisionAsItWas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `hook.register("PreToolUse", "bash", function(e)
	if e.toolInput.command:find("rm") then return hook.deny("no rm: " .. e.toolInput.command) end
end, {name = "no-rm"})`
	if err := os.WriteFile(filepath.Join(dir, "10-rm.lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f := New(Options{})
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true,
		DecisionLog: engine.DecisionLog{To: engine.DecisionLogOff, Tap: f.Sink()}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	cwd := t.TempDir() // not the hooks folder, which luahook guards
	for i := range n {
		cmd := fmt.Sprint("ls ", i)
		if i%3 == 0 {
			cmd = fmt.Sprint("rm ", i)
		}
		in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Cwd: cwd,
			SessionID: fmt.Sprint("s", i), ToolInput: json.RawMessage(`{"command":"` + cmd + `"}`)}
		e.Runner().PreToolUse(context.Background(), in)
	}
	e.Close() // writes what the log holds
	got, _ := f.Query(Filter{}, 0, MaxQueryLimit)
	if len(got) != n {
		t.Fatalf("%d entries, want %d", len(got), n)
	}
	if rm, _ := f.Query(Filter{Policy: "10-rm.lua", Verdict: "deny"}, 0, MaxQueryLimit); len(rm) != (n+2)/3 {
		t.Errorf("%d entries denied by 10-rm.lua (the file's base name), want %d", len(rm), (n+2)/3)
	}
	for _, en := range got {
		d, ok := f.Detail(en.Seq)
		if !ok {
			t.Fatalf("no detail of %d", en.Seq)
		}
		var i int
		if _, err := fmt.Sscanf(en.Session, "s%d", &i); err != nil || d.SessionID != en.Session {
			t.Fatalf("entry %d of session %q, detail of %q", en.Seq, en.Session, d.SessionID)
		}
		rm := i%3 == 0
		if en.Denied != rm || rm && (en.Reason != fmt.Sprint("no rm: rm ", i) || en.DecidedBy != "no-rm" ||
			!slices.Equal(en.Hooks, []string{"no-rm"}) || !slices.Equal(en.Files, []string{filepath.Join(dir, "10-rm.lua")})) {
			t.Errorf("entry of command %d: %+v", i, en)
		}
		if !strings.Contains(string(d.Input), fmt.Sprintf(" %d\"", i)) {
			t.Errorf("detail of session %s holds %s", en.Session, d.Input)
		}
	}
}
