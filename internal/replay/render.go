package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/termtext"
)

// summaryChars is how much of a command, path or prompt a report quotes.
const summaryChars = 80

// reasonChars is how much of a reason a report quotes.
const reasonChars = 160

// summaryKeys are the tool input keys whose value says what a call does,
// in the order they are looked for.
var summaryKeys = []string{"command", "file_path", "filePath", "path", "url", "pattern", "query"}

// Summary returns a short description of the payload: the tool's command,
// file path or URL, or the prompt, cut to a line; "" when it has none.
func (l *Logged) Summary() string {
	in := l.Input
	s := in.Prompt
	if len(in.ToolInput) > 0 {
		var fields map[string]json.RawMessage
		if json.Unmarshal(in.ToolInput, &fields) == nil {
			for _, k := range summaryKeys {
				var v string
				if json.Unmarshal(fields[k], &v) == nil && v != "" {
					s = v
					break
				}
			}
		}
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) > summaryChars {
		s = luahook.TruncateChars(s, summaryChars) + "…"
	}
	return s
}

// WriteText writes the record as a block for a person: where it is in the
// log and what it was, the decision before and after, the hook that
// decides now, and a note when the log's payload was masked, and when the
// decision read the session ledger (with how its reads differ from the
// logged ones).
func (r *Replayed) WriteText(w io.Writer) error {
	rec := r.Record
	head := []string{fmt.Sprintf("line %d", r.Line), rec.Time.UTC().Format(time.RFC3339)}
	if rec.Agent != "" {
		head = append(head, rec.Agent)
	}
	if rec.SessionID != "" {
		head = append(head, "session "+rec.SessionID)
	}
	what := string(rec.Event)
	if r.Input.ToolName != "" {
		what += " " + r.Input.ToolName
	}
	if s := r.Summary(); s != "" {
		what += ": " + s
	}
	head = append(head, what)
	lines := []string{
		strings.Join(head, "  "),
		"  before: " + describe(rec.Decision, hookSource(rec.Hooks, rec.Decision.DecidedBy), r.Changes),
		"  after:  " + describe(decisionlog.Decision{Action: r.After.Action, Reason: r.After.Reason, Outcome: r.After.Outcome}, "", r.Changes),
	}
	by := r.After.DecidedBy
	if by == "" {
		by = "(no hook decided)"
	} else if src := r.afterSource(); src != "" {
		by += " (" + src + ")"
	}
	lines = append(lines, "  now decided by: "+by)
	if len(rec.Masked) > 0 {
		note := "  note: the log's payload was masked (" + strings.Join(rec.Masked, ", ") +
			"); the masked payload was replayed, not the one decided on"
		if r.Inconclusive && !r.LedgerInconclusive {
			note += ", so this change is not counted (--masked-changes counts it)"
		}
		lines = append(lines, note)
	}
	if r.ReadLedger {
		note := "  note: read the session ledger: replayed against the ledger this replay rebuilt from the log's earlier records"
		switch {
		case r.LedgerDiff == "":
			note += "; its reads found what they found then"
		case r.LedgerInconclusive:
			note += "; " + r.LedgerDiff + ", so this change is not counted"
		default:
			note += "; " + r.LedgerDiff
		}
		lines = append(lines, note)
	}
	for _, line := range lines {
		if _, err := fmt.Fprintln(w, termtext.Line(line)); err != nil {
			return err
		}
	}
	return nil
}

// afterSource returns the source (file:line) of the hook that decides now.
func (r *Replayed) afterSource() string {
	if r.After.DecidedBy == "" {
		return ""
	}
	for _, t := range r.Result.Trace {
		if t.Name == r.After.DecidedBy {
			return t.Source
		}
	}
	return ""
}

// hookSource returns the source of the hook named name in a record's hooks.
func hookSource(hooks []decisionlog.Hook, name string) string {
	if name == "" {
		return ""
	}
	for _, h := range hooks {
		if h.Name == name {
			return h.Source
		}
	}
	return ""
}

// describe words a decision: its action ("none" when it has none), and
// what the change is about: the hook, the reason, the rewritten input.
func describe(d decisionlog.Decision, source string, changes []string) string {
	action := string(d.Action)
	if action == "" {
		action = "none"
	}
	var parts []string
	if d.DecidedBy != "" {
		by := "by " + d.DecidedBy
		if source != "" && source != d.DecidedBy {
			by += " at " + source
		}
		parts = append(parts, by)
	}
	if d.Reason != "" {
		parts = append(parts, strconv.Quote(cut(d.Reason, reasonChars)))
	}
	if in := outcomeInput(d.Outcome); len(in) > 0 && (d.Action == luahook.ActionMutate || d.Action == luahook.ActionAsk) {
		for _, c := range changes {
			if c == ChangedInput {
				parts = append(parts, "input "+cut(string(in), reasonChars))
			}
		}
	}
	if d.Action == luahook.ActionReplaceOutput && d.Outcome != nil && len(d.Outcome.Output) > 0 {
		for _, c := range changes {
			if c == ChangedOutput {
				parts = append(parts, "output "+cut(string(d.Outcome.Output), reasonChars))
			}
		}
	}
	if len(parts) == 0 {
		return action
	}
	return action + " (" + strings.Join(parts, " ") + ")"
}

func cut(s string, n int) string {
	if t := luahook.TruncateChars(s, n); t != s {
		return t + "…"
	}
	return s
}

// JSON is a replayed record as `luahook replay --json` prints it.
type JSON struct {
	Line      int           `json:"line"`
	Time      time.Time     `json:"time"`
	Agent     string        `json:"agent,omitempty"`
	SessionID string        `json:"sessionId,omitempty"`
	Event     luahook.Event `json:"event"`
	ToolName  string        `json:"toolName,omitempty"`
	Summary   string        `json:"summary,omitempty"`
	Changed   []string      `json:"changed"`
	Masked    []string      `json:"masked,omitempty"`
	// Inconclusive: the change was on a masked payload, or its reads of
	// the session ledger differ, and it was not counted.
	Inconclusive bool `json:"inconclusive,omitempty"`
	// ReadLedger: the decision read the session ledger (then or now);
	// LedgerDiff: how its reads differ from the logged ones.
	ReadLedger bool                 `json:"readLedger,omitempty"`
	LedgerDiff string               `json:"ledgerDiff,omitempty"`
	Before     decisionlog.Decision `json:"before"`
	After      decisionlog.Decision `json:"after"`
}

// JSON returns the record's JSON form.
func (r *Replayed) JSON() JSON {
	rec := r.Record
	return JSON{
		Line: r.Line, Time: rec.Time, Agent: rec.Agent, SessionID: rec.SessionID,
		Event: rec.Event, ToolName: r.Input.ToolName, Summary: r.Summary(),
		Changed: r.Changes, Masked: rec.Masked, Inconclusive: r.Inconclusive, ReadLedger: r.ReadLedger, LedgerDiff: r.LedgerDiff,
		Before: rec.Decision, After: r.After,
	}
}
