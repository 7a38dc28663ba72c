// Package replay re-runs the events of a decision log against a hooks
// folder and reports the decisions that would change: the gate for a policy
// change, on real traffic. It reads the log written by package decisionlog
// (one decisionlog.Record per line), fires each record's payload through a
// runner, in log order and one at a time (a session's events may depend on
// what earlier events left in the store), and compares the new decision
// with the logged one. It also writes the replayed events as a policy test
// file (TestWriter) whose expectations are the decisions of today's hooks.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/runner"
)

// What a replayed decision may differ in from the logged one.
const (
	// ChangedAction: the action (deny, ask, allow, mutate, continue, or none).
	ChangedAction = "action"
	// ChangedInput: the same mutate or ask, with another rewritten input
	// (compared as JSON values).
	ChangedInput = "input"
	// ChangedReason: the same action with another reason; compared only
	// with Options.Reasons, since reasons often carry variable text.
	ChangedReason = "reason"
	// ChangedOutput: the same replace_output (PostToolUse), with another
	// output for the model (compared as JSON values, or by digest when
	// the log kept only a digest: decisionlog.LoggedOutput).
	ChangedOutput = "output"
)

// Options select the records to replay and what counts as a change. The
// zero value replays every record and compares actions and inputs.
type Options struct {
	// Event, when set, replays only the records of this event.
	Event luahook.Event
	// Since and Until, when set, replay only the records with Since <= Time
	// < Until.
	Since, Until time.Time
	// Limit, when positive, stops after that many records were replayed.
	Limit int
	// Reasons counts a change of reason alone as a change.
	Reasons bool
	// MaskedChanges counts a changed decision on a record whose payload the
	// log masked as a change. By default it is inconclusive
	// (Summary.Inconclusive): the masked payload is not the one decided on,
	// and a policy that looks for the masked secret cannot find it, so the
	// same hooks would report every such record as changed.
	MaskedChanges bool
	// LedgerChanges counts a changed decision whose reads of the session
	// ledger did not find what they found when it was logged as a change.
	// By default it is inconclusive (Summary.Inconclusive): the replay
	// rebuilds the ledger from the log's earlier records, not as the
	// session held it (see ledger.go).
	LedgerChanges bool
	// MaxLineBytes bounds a line of the log (0: DefaultMaxLineBytes).
	MaxLineBytes int
	// Unreadable, if not nil, is called with each line that could not be
	// read as a record; such lines are counted in Summary.Unreadable.
	Unreadable func(*LineError)
}

// Replayed is one record fired again.
type Replayed struct {
	*Logged
	// Result is what the hooks decided now.
	Result engine.Result
	// After is Result as the log would record it.
	After decisionlog.Decision
	// Inconclusive is set when the decision changed on a masked payload and
	// Options.MaskedChanges is off, or its reads of the session ledger
	// differ (LedgerDiff) and Options.LedgerChanges is off: the change is
	// reported, not counted.
	Inconclusive bool
	// Ledger lists the calls the hooks made to the session ledger now;
	// Record.Ledger those they made then.
	Ledger []ledger.Entry
	// ReadLedger is set when the decision read the session ledger, then
	// or now: it was replayed against the ledger the replay rebuilt from
	// the records before it, not against the session's as it was.
	ReadLedger bool
	// LedgerDiff says how its reads differ from the logged ones ("has
	// private-data: marked then, not marked now"); "" when they agree.
	LedgerDiff string
	// LedgerInconclusive is set when the change is inconclusive for
	// LedgerDiff (Inconclusive is set too).
	LedgerInconclusive bool
	// Changes lists what differs from the logged decision (ChangedAction,
	// ChangedInput, ChangedReason); empty when nothing does.
	Changes []string
}

// Changed reports whether the decision differs from the logged one.
func (r *Replayed) Changed() bool { return len(r.Changes) > 0 }

// Summary counts a replay.
type Summary struct {
	Replayed, Changed, Unreadable int
	// Inconclusive counts the changed decisions that were not counted as
	// changes: on masked payloads (Options.MaskedChanges), or whose reads
	// of the session ledger differ (Options.LedgerChanges), the latter
	// counted in LedgerInconclusive too.
	Inconclusive       int
	LedgerInconclusive int
}

// String returns the summary line, "N events replayed, M changed, K
// unreadable".
func (s Summary) String() string {
	line := fmt.Sprintf("%d events replayed, %d changed, %d unreadable", s.Replayed, s.Changed, s.Unreadable)
	switch {
	case s.Inconclusive == 0:
	case s.LedgerInconclusive == 0:
		line += fmt.Sprintf(", %d inconclusive (masked payload)", s.Inconclusive)
	case s.LedgerInconclusive == s.Inconclusive:
		line += fmt.Sprintf(", %d inconclusive (session ledger)", s.Inconclusive)
	default:
		line += fmt.Sprintf(", %d inconclusive (%d masked payload, %d session ledger)", s.Inconclusive,
			s.Inconclusive-s.LedgerInconclusive, s.LedgerInconclusive)
	}
	return line
}

// Run replays the log read from log through run, in log order, calling
// visit with every record replayed (changed or not). It stops at the end of
// the log, at opts.Limit, at the first error of visit, and when ctx ends
// (an interrupted replay decides nothing: its error is ctx's cause). A line
// that is not a record is counted and reported to opts.Unreadable, and the
// replay goes on.
func Run(ctx context.Context, run *engine.Runner, log io.Reader, opts Options, visit func(*Replayed) error) (Summary, error) {
	var sum Summary
	rd := NewReader(log, opts.MaxLineBytes)
	// A call a person approved on the web is answered, while it is
	// replayed, by the decision logged for it (loggedApproval): no one is
	// asked again.
	prev := run.Approver()
	defer run.SetApprover(prev)
	for opts.Limit <= 0 || sum.Replayed < opts.Limit {
		if ctx.Err() != nil {
			return sum, context.Cause(ctx)
		}
		l, err := rd.Next()
		var le *LineError
		switch {
		case err == io.EOF:
			return sum, nil
		case errors.As(err, &le):
			sum.Unreadable++
			if opts.Unreadable != nil {
				opts.Unreadable(le)
			}
			continue
		case err != nil:
			return sum, err
		}
		if !opts.selects(l.Record) {
			continue
		}
		// The replayed decision's ledger calls are kept, to compare with
		// the logged ones.
		jctx, j := ledger.NewJournal(ctx)
		run.SetApprover(loggedApproval{l.Record.Approval})
		res := run.Fire(jctx, l.Input)
		if ctx.Err() != nil {
			return sum, context.Cause(ctx)
		}
		r := &Replayed{Logged: l, Result: res, After: DecisionOf(res), Ledger: j.Entries()}
		r.Changes = Compare(l.Record.Decision, r.After, opts.Reasons)
		if r.ReadLedger = readsLedger(l.Record.Ledger) || readsLedger(r.Ledger); r.ReadLedger {
			r.LedgerDiff = ledgerDifference(l.Record.Ledger, r.Ledger)
		}
		sum.Replayed++
		switch {
		case !r.Changed():
		case len(l.Record.Masked) > 0 && !opts.MaskedChanges:
			r.Inconclusive = true
			sum.Inconclusive++
		case r.LedgerDiff != "" && !opts.LedgerChanges:
			r.Inconclusive, r.LedgerInconclusive = true, true
			sum.Inconclusive++
			sum.LedgerInconclusive++
		default:
			sum.Changed++
		}
		if err := visit(r); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func (o *Options) selects(rec *decisionlog.Record) bool {
	switch {
	case o.Event != "" && rec.Event != o.Event:
		return false
	case !o.Since.IsZero() && rec.Time.Before(o.Since):
		return false
	case !o.Until.IsZero() && !rec.Time.Before(o.Until):
		return false
	}
	return true
}

// DecisionOf returns a result's final decision as the log records it
// (before masking): the action of its outcome (Result.Outcome), the reason
// of a deny, ask or continue, and the hook that decided (Result.DecidedBy).
func DecisionOf(res engine.Result) decisionlog.Decision {
	o := res.Outcome()
	return decisionlog.Decision{Action: o.Action, Reason: o.Reason, DecidedBy: res.DecidedBy, Outcome: o}
}

// Compare returns what differs between a logged decision and a replayed
// one: the action; for the same mutate or ask, the rewritten input as a
// JSON value; for the same replace_output, the output; with reasons, the
// reason of the same action.
//
// No objection and an explicit allow are different actions. A record
// written before the two were told apart on the wire says "allow" for
// both; its allow with no hook that decided (DecidedBy empty) is read as
// no objection (LoggedAction).
func Compare(before, after decisionlog.Decision, reasons bool) []string {
	if LoggedAction(before) != after.Action {
		return []string{ChangedAction}
	}
	var changes []string
	if a := before.Action; a == luahook.ActionMutate || a == luahook.ActionAsk {
		if !sameJSON(outcomeInput(before.Outcome), outcomeInput(after.Outcome)) {
			changes = append(changes, ChangedInput)
		}
	}
	if before.Action == luahook.ActionReplaceOutput && !sameOutput(before.Outcome, after.Outcome) {
		changes = append(changes, ChangedOutput)
	}
	if reasons && before.Reason != after.Reason {
		changes = append(changes, ChangedReason)
	}
	return changes
}

// LoggedAction is a logged decision's action: "" (no objection) for a
// PreToolUse "allow" that no hook decided, as records wrote no objection
// before an explicit allow had an action of its own; an explicit allow
// always names the hook that allowed.
func LoggedAction(d decisionlog.Decision) luahook.Action {
	if d.Action == luahook.ActionAllow && d.DecidedBy == "" {
		return ""
	}
	return d.Action
}

func outcomeInput(o *luahook.Outcome) json.RawMessage {
	if o == nil {
		return nil
	}
	return o.Input
}

// sameJSON reports whether two JSON texts hold the same value (absent and
// null being the same); text that does not parse equals only itself.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil && len(a) > 0 || json.Unmarshal(b, &vb) != nil && len(b) > 0 {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// sameOutput reports whether two replace_output outcomes give the model the
// same output: equal JSON values, or, where the log kept only the digest
// of a large output, equal digests.
func sameOutput(before, after *luahook.Outcome) bool {
	var b, a json.RawMessage
	if before != nil {
		b = before.Output
	}
	if after != nil {
		a = after.Output
	}
	if logged := decisionlog.LoggedOutput(a); !bytes.Equal(logged, a) {
		return bytes.Equal(b, logged)
	}
	return sameJSON(b, a)
}

// loggedApproval answers the web approval of a replayed call with the
// decision its record logged: the same person's approval or denial when
// the call asked about is the one logged (its digest); an error (a deny)
// when the record logged none, when the call differs (a changed input
// needs a new approval), or when no one decided then.
type loggedApproval struct{ a *runner.Approval }

func (l loggedApproval) Await(_ context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	a := l.a
	switch {
	case a == nil:
		return runner.ApprovalDecision{}, errors.New("the log holds no web approval for this call, and a replay asks no one")
	case a.Digest != req.Digest:
		return runner.ApprovalDecision{}, errors.New("the call differs from the one decided when it was logged, and a replay asks no one")
	case a.Verdict == runner.ApprovalApproved || a.Verdict == runner.ApprovalDenied:
		return runner.ApprovalDecision{ID: a.ID, Approved: a.Verdict == runner.ApprovalApproved, By: a.By, At: a.At, Reason: a.Reason}, nil
	}
	return runner.ApprovalDecision{}, errors.New("no one decided when it was logged (" + a.Verdict + "), and a replay asks no one")
}
