package replay

import (
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook/ledger"
)

// A decision that read its session's ledger (session.has, marks, count,
// calls) cannot be replayed against the ledger as it was: the log keeps
// the decision's calls, not the session's ledger. Replay runs every record
// in log order on one engine, so a replayed decision reads the ledger the
// replay rebuilt from the records before it (a PostToolUse that marked, a
// count) — the session's as far as the log, and the records selected, hold
// what made it, with the times of the replay. The calls the decision made
// then and the ones it makes now are compared: when its reads found what
// they found then, a change of decision is a change; when they did not, the
// change is inconclusive, like a change on a masked payload
// (Options.LedgerChanges counts it).

// ledgerDifference says how the reads a decision made of its session's
// ledger now (now) differ from the ones the log recorded (then): the first
// read of now whose call (its operation and label or name) the log does not
// record, or that did not find what the logged one found (whether has found
// the label, a count's total, how many marks or calls a listing returned,
// the labels of the marks). Reads are matched by call, in order, not by
// hook: a policy change may rename the hook, or read in another order.
// Reads made then and not now are not a difference: the decision no longer
// depends on them. "" when they agree.
func ledgerDifference(then, now []ledger.Entry) string {
	logged := reads(then)
	used := make([]bool, len(logged))
	for _, y := range reads(now) {
		i := slices.IndexFunc(logged, func(x ledger.Entry) bool { return x.Op == y.Op && x.Name == y.Name })
		for i >= 0 && used[i] {
			j := slices.IndexFunc(logged[i+1:], func(x ledger.Entry) bool { return x.Op == y.Op && x.Name == y.Name })
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			if len(logged) == 0 {
				return describeRead(y) + " now; the log records no read of the session ledger"
			}
			return describeRead(y) + " now, not read then"
		}
		used[i] = true
		x := logged[i]
		if x.Found != y.Found || x.Value != y.Value || x.Err != y.Err || !slices.Equal(x.Labels, y.Labels) {
			return describeRead(x) + " then, " + found(y) + " now"
		}
	}
	return ""
}

// reads returns the entries that read the ledger.
func reads(entries []ledger.Entry) []ledger.Entry {
	var out []ledger.Entry
	for _, e := range entries {
		if e.Reads() {
			out = append(out, e)
		}
	}
	return out
}

// readsLedger reports whether any entry read the ledger.
func readsLedger(entries []ledger.Entry) bool {
	for _, e := range entries {
		if e.Reads() {
			return true
		}
	}
	return false
}

// describeRead is a read and what it found: "has private-data: marked".
func describeRead(e ledger.Entry) string {
	what := e.Op
	if e.Name != "" {
		what += " " + e.Name
	}
	return what + ": " + found(e)
}

// found says what a read found, without the times and details the log
// may have masked or that a replay cannot reproduce.
func found(e ledger.Entry) string {
	if e.Err != "" {
		return "error " + strconv.Quote(e.Err)
	}
	n := strconv.FormatFloat(e.Value, 'g', -1, 64)
	switch e.Op {
	case ledger.OpHas:
		if e.Found {
			return "marked"
		}
		return "not marked"
	case ledger.OpMarks:
		if len(e.Labels) > 0 {
			return n + " marks (" + strings.Join(e.Labels, ", ") + ")"
		}
		return n + " marks"
	case ledger.OpCalls:
		return n + " calls"
	}
	return n
}
