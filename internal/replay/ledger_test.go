package replay

import (
	"testing"

	"github.com/luahook/luahook/ledger"
)

// What a replayed decision read of its session's ledger is compared with
// what it read then, call by call (an operation and a label or name),
// whatever the hook: a read that found something else, or that the log
// does not record, is a difference; a read made then and not now, a write,
// a time or a detail (which the log may mask) is not.
func TestLedgerReadsAreComparedByWhatTheyFound(t *testing.T) {
	has := func(hook string, found bool) ledger.Entry {
		return ledger.Entry{Hook: hook, Op: ledger.OpHas, Name: "private-data", Found: found}
	}
	count := func(v float64) ledger.Entry {
		return ledger.Entry{Op: ledger.OpCount, Name: "uploads", Delta: 1, Value: v, WindowMs: 60000}
	}
	mark := ledger.Entry{Op: ledger.OpMark, Name: "x", Detail: "d"}
	masked := has("a", true)
	masked.Detail, masked.AtMs = "[masked]", 1
	for _, c := range []struct {
		name      string
		then, now []ledger.Entry
		want      string
	}{
		{"the same reads", []ledger.Entry{has("a", true), count(2)}, []ledger.Entry{has("a", true), count(2)}, ""},
		{"another hook, another order", []ledger.Entry{count(2), has("a", true)}, []ledger.Entry{has("b", true), count(2)}, ""},
		{"details and times aside", []ledger.Entry{masked}, []ledger.Entry{has("a", true)}, ""},
		{"writes aside", []ledger.Entry{mark, has("a", false)}, []ledger.Entry{has("a", false)}, ""},
		{"read then, not now", []ledger.Entry{has("a", true)}, nil, ""},
		{"neither", nil, nil, ""},
		{"not found now", []ledger.Entry{has("a", true)}, []ledger.Entry{has("a", false)}, "has private-data: marked then, not marked now"},
		{"another total", []ledger.Entry{count(3)}, []ledger.Entry{count(1)}, "count uploads: 3 then, 1 now"},
		{"a read the log lacks", []ledger.Entry{has("a", true)}, []ledger.Entry{has("a", true), count(1)}, "count uploads: 1 now, not read then"},
		{"a log without reads", []ledger.Entry{mark}, []ledger.Entry{has("a", false)}, "has private-data: not marked now; the log records no read of the session ledger"},
		{"the second of two reads", []ledger.Entry{has("a", false), has("a", true)}, []ledger.Entry{has("a", false), has("a", false)}, "has private-data: marked then, not marked now"},
		{"labels", []ledger.Entry{{Op: ledger.OpMarks, Value: 1, Labels: []string{"a"}}}, []ledger.Entry{{Op: ledger.OpMarks, Value: 1, Labels: []string{"b"}}}, "marks: 1 marks (a) then, 1 marks (b) now"},
	} {
		if got := ledgerDifference(c.then, c.now); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
