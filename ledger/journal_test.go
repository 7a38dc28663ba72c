package ledger_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/ledger"
)

// Every ledger call made under a context that carries a journal is
// recorded in it, attributed to the hook WithHook names, with what it read
// or wrote and what it found; a read is told from a write.
func TestAJournalRecordsEveryCallWithWhatItFound(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx, j := ledger.NewJournal(context.Background())
	hctx := ledger.WithHook(ctx, "flow", "hooks.d/10-flow.lua")
	m, err := lg.Mark(hctx, "s", "private-data", "read ~/.ssh/id_rsa")
	if err != nil {
		t.Fatal(err)
	}
	lg.Has(hctx, "s", "private-data")
	lg.Has(ctx, "s", "untrusted-content")
	lg.Marks(hctx, "s")
	lg.Count(hctx, "s", "uploads", time.Minute, 2)
	lg.Count(hctx, "s", "uploads", time.Minute, 0)
	lg.Calls(hctx, "s", 0)
	_, _, err = lg.Has(hctx, "", "private-data")
	want := []ledger.Entry{
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpMark, Name: "private-data", Detail: "read ~/.ssh/id_rsa", AtMs: m.AtMs},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpHas, Name: "private-data", Found: true, Detail: "read ~/.ssh/id_rsa", AtMs: m.AtMs},
		{Op: ledger.OpHas, Name: "untrusted-content"},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpMarks, Value: 1, Labels: []string{"private-data"}},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpCount, Name: "uploads", Value: 2, Delta: 2, WindowMs: 60000},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpCount, Name: "uploads", Value: 2, WindowMs: 60000},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpCalls},
		{Hook: "flow", File: "hooks.d/10-flow.lua", Op: ledger.OpHas, Name: "private-data", Err: err.Error()},
	}
	if got := j.Entries(); !reflect.DeepEqual(got, want) {
		t.Errorf("journal:\n got %+v\nwant %+v", got, want)
	}
	for i, e := range want {
		if e.Reads() != (e.Op != ledger.OpMark) {
			t.Errorf("entry %d (%s): Reads() = %v", i, e.Op, e.Reads())
		}
	}
}

// A journal's context is the context it was made from, in one allocation:
// its values, deadline and cancellation pass through, and the contexts
// derived from it carry the journal too.
func TestAJournalsContextIsItsParentsPlusTheJournal(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx, j := ledger.NewJournal(parent)
	child, stop := context.WithTimeout(ctx, time.Hour)
	defer stop()
	if ledger.JournalOf(child) != j || child.Value(key{}) != "v" {
		t.Errorf("a derived context lost the journal or the parent's value")
	}
	cancel()
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not reach the derived context")
	}
	if n := testing.AllocsPerRun(100, func() { ledger.NewJournal(parent) }); n > 1 {
		t.Errorf("NewJournal allocates %v times, want 1", n)
	}
}

// Without a journal nothing is recorded, and naming the hook costs
// nothing: WithHook returns the context it was given, without allocating.
func TestWithoutAJournalNothingIsRecordedOrAllocated(t *testing.T) {
	ctx := context.Background()
	if got := ledger.WithHook(ctx, "flow", "f.lua"); got != ctx {
		t.Errorf("WithHook without a journal made a new context")
	}
	if n := testing.AllocsPerRun(100, func() { ledger.WithHook(ctx, "flow", "f.lua") }); n != 0 {
		t.Errorf("WithHook without a journal allocates %v times", n)
	}
	if ledger.JournalOf(ctx) != nil {
		t.Errorf("a bare context carries a journal")
	}
	var none *ledger.Journal
	if none.Entries() != nil || none.Dropped() != 0 {
		t.Errorf("a nil journal is not empty")
	}
}

// A journal keeps MaxJournalEntries entries and counts the others, however
// many hooks call the ledger at once.
func TestAJournalIsBoundedAndSafeForConcurrentHooks(t *testing.T) {
	lg := newLedger(t, ledger.Limits{})
	ctx, j := ledger.NewJournal(context.Background())
	var wg sync.WaitGroup
	for h := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx := ledger.WithHook(ctx, fmt.Sprintf("hook-%d", h), "")
			for range 20 {
				lg.Has(hctx, "s", "label")
			}
		}()
	}
	wg.Wait()
	if got := len(j.Entries()); got != ledger.MaxJournalEntries {
		t.Errorf("%d entries kept, want %d", got, ledger.MaxJournalEntries)
	}
	if got := j.Dropped(); got != 8*20-ledger.MaxJournalEntries {
		t.Errorf("%d dropped, want %d", got, 8*20-ledger.MaxJournalEntries)
	}
}

// An entry reads as a line for a person.
func TestAnEntryReadsAsALine(t *testing.T) {
	at := time.Date(2026, 12, 6, 12, 3, 4, 0, time.Local).UnixMilli()
	for _, c := range []struct {
		e    ledger.Entry
		want string
	}{
		{ledger.Entry{Op: ledger.OpHas, Name: "private-data", Found: true, Detail: "read ~/.ssh/id_rsa", AtMs: at}, "has private-data -> marked 12:03:04 (read ~/.ssh/id_rsa)"},
		{ledger.Entry{Op: ledger.OpHas, Name: "private-data"}, "has private-data -> not marked"},
		{ledger.Entry{Op: ledger.OpMark, Name: "untrusted-content", Detail: "fetched https://example.com", AtMs: at}, "mark untrusted-content (fetched https://example.com)"},
		{ledger.Entry{Op: ledger.OpMark, Name: "untrusted-content"}, "mark untrusted-content"},
		{ledger.Entry{Op: ledger.OpCount, Name: "tool-calls", Delta: 1, Value: 4, WindowMs: 600000}, "count tool-calls +1 over 10m0s -> 4"},
		{ledger.Entry{Op: ledger.OpCount, Name: "tool-calls", Value: 4}, "count tool-calls over the session -> 4"},
		{ledger.Entry{Op: ledger.OpMarks, Value: 2, Labels: []string{"a", "b"}}, "marks -> 2: a, b"},
		{ledger.Entry{Op: ledger.OpCalls, Value: 3}, "calls -> 3 calls"},
		{ledger.Entry{Op: ledger.OpMark, Name: "x", Err: "store down"}, "mark x -> error: store down"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.e, got, c.want)
		}
	}
}
