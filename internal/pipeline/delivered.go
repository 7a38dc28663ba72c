package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/runner"
)

// Answered is one answer a door gave, as Gate.Record receives it: what the
// policies decided, if they ran, and what the agent (or luahook's own
// caller) received. It is valid only during the call to Record.
type Answered struct {
	// In is the payload in luahook's contract; nil when it could not be
	// read or decoded.
	In *luahook.Input
	// Event is the event's name as the payload's format names it.
	Event string
	// Res is the policies' result, after the fail-closed state; nil when
	// no hook ran.
	Res *runner.Result
	// Delivered is what was answered.
	Delivered Delivered
}

// Delivered is what the agent (or luahook's own caller) received: the
// verdict as it reads the rendered answer, the exit status, and why the
// answer is not the policies' decision as they reached it.
type Delivered struct {
	// Verdict is the verdict the answer carries: "deny", "block" (an exit
	// status of 2, a prompt or a stop blocked, a "continue": false), "ask",
	// "allow", "rewrite", "context", "none" (no objection), or "error"
	// (nothing was answered: Reply.Err).
	Verdict string
	// ExitCode is the answer's exit status (1 when nothing was answered).
	ExitCode int
	// Agent is the agent whose protocol the answer is in, "" for
	// luahook's own format.
	Agent string
	// Cause is Reply.Cause's name, "" for CauseNone.
	Cause string
	// Reason is why the answer was given without the policies' decision
	// (a fail-closed block's reason, the error when nothing was answered).
	Reason string
	// Note says what of the policies' decision could not be delivered as
	// they decided it (an ask on an agent without one, a rewrite's reason
	// or added context the answer has no field for).
	Note string
}

var causeNames = [...]string{"", "read", "decode", "load", "interrupted", "server", "overloaded"}

// String returns the cause's name ("" for CauseNone): read, decode, load,
// interrupted, server, overloaded.
func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return "unknown"
}

// record hands the answer rep to g.Record, if set.
func (c *Call) record(g *Gate, rep *Reply, res *runner.Result, reason string) {
	if g.Record == nil {
		return
	}
	a := Answered{In: c.in, Event: c.event, Res: res, Delivered: c.delivered(rep, res, reason)}
	g.Record(&a)
}

// delivered reads what rep answers, and what of res (nil: no hook ran) it
// does not carry.
func (c *Call) delivered(rep *Reply, res *runner.Result, reason string) Delivered {
	d := Delivered{ExitCode: rep.ExitCode, Cause: rep.Cause.String(), Reason: reason}
	if c.adapter != nil {
		d.Agent = string(c.adapter.Name())
	}
	if rep.Err != nil {
		d.Verdict, d.ExitCode, d.Reason = "error", 1, rep.Err.Error()
		return d
	}
	if c.adapter == nil {
		d.Verdict = ownVerdict(rep)
	} else {
		d.Verdict = agentVerdict(rep)
	}
	if res == nil || rep.Cause != CauseNone {
		return d
	}
	dec := agent.FromResult(*res)
	decided := decidedVerdict(dec)
	var notes []string
	// Added context is noted below, on its own: it comes with any verdict.
	if same := decided == d.Verdict || decided == "deny" && d.Verdict == "block" || decided == "block" && d.Verdict == "deny"; !same && decided != "none" && decided != "context" {
		n := decided + " delivered as " + d.Verdict
		if decided == "ask" {
			n += ": " + d.Agent + " has no ask on " + c.event
		}
		notes = append(notes, n)
	}
	if dec.Input != nil && dec.RewriteReason != "" && d.Verdict == "rewrite" && !carries(rep, dec.RewriteReason) {
		notes = append(notes, "the rewrite's reason was not delivered: "+orOwn(d.Agent)+" has no field for it on "+c.event)
	}
	if dec.Context != "" && !carries(rep, dec.Context) {
		notes = append(notes, "the added context was not delivered: "+orOwn(d.Agent)+" takes none on "+c.event)
	}
	d.Note = strings.Join(notes, "; ")
	return d
}

func orOwn(name string) string {
	if name == "" {
		return "luahook"
	}
	return name
}

// decidedVerdict is the verdict of the policies' decision, in the names
// Delivered.Verdict uses.
func decidedVerdict(d agent.Decision) string {
	switch d.Verdict {
	case agent.Deny:
		return "deny"
	case agent.Ask:
		return "ask"
	case agent.Allow:
		return "allow"
	case agent.Continue:
		return "block"
	}
	switch {
	case d.Input != nil:
		return "rewrite"
	case d.Context != "":
		return "context"
	}
	return "none"
}

// carries reports whether the answer holds text, as JSON writes it in
// standard output or as it is on standard error (the first 64 bytes of
// it: an adapter may shorten a long text).
func carries(rep *Reply, text string) bool {
	q, _ := json.Marshal(text)
	q = bytes.Trim(q, `"`)
	if len(q) > 64 {
		q = q[:64]
	}
	t := text
	if len(t) > 64 {
		t = t[:64]
	}
	return bytes.Contains(rep.Stdout, q) || strings.Contains(rep.Stderr, t)
}

// ownVerdict reads the verdict of luahook's own outcome line.
func ownVerdict(rep *Reply) string {
	var o struct {
		Action            string          `json:"action"`
		Input             json.RawMessage `json:"input"`
		AdditionalContext string          `json:"additionalContext"`
	}
	_ = json.Unmarshal(rep.Stdout, &o)
	switch o.Action {
	case "deny", "ask", "allow":
		return o.Action
	case "mutate":
		return "rewrite"
	case "continue":
		return "block"
	}
	switch {
	case rep.ExitCode == 2:
		return "deny"
	case o.AdditionalContext != "":
		return "context"
	}
	return "none"
}

// answerFields are the members of an agents' answer that say its verdict,
// at its top or in hookSpecificOutput. A rewritten input or context is
// only looked for (presence), never kept.
type answerFields struct {
	PermissionDecision string   `json:"permissionDecision"`
	Permission         string   `json:"permission"`
	Decision           string   `json:"decision"`
	Continue           *bool    `json:"continue"`
	FollowupMessage    string   `json:"followup_message"`
	UpdatedInput       presence `json:"updatedInput"`
	ModifiedArgs       presence `json:"modifiedArgs"`
	UpdatedInputSnake  presence `json:"updated_input"`
	ToolInput          presence `json:"tool_input"`
	AdditionalContext  presence `json:"additionalContext"`
	AdditionalCtxSnake presence `json:"additional_context"`
}

// presence records that a member was there, without copying its value.
type presence bool

// UnmarshalJSON records a member that is there and not null.
func (p *presence) UnmarshalJSON(b []byte) error {
	*p = string(b) != "null"
	return nil
}

// agentVerdict reads the verdict of an agent's answer the way the agents
// read it: the exit status 2 blocks; then the decision members of standard
// output (at its top or in hookSpecificOutput); then a rewritten input;
// then added context.
func agentVerdict(rep *Reply) string {
	if rep.ExitCode == 2 {
		return "block"
	}
	var top struct {
		answerFields
		HookSpecificOutput *answerFields `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(rep.Stdout, &top) != nil {
		return "none"
	}
	objs := []*answerFields{&top.answerFields}
	if top.HookSpecificOutput != nil {
		objs = append(objs, top.HookSpecificOutput)
	}
	for _, o := range objs {
		for _, v := range []string{o.PermissionDecision, o.Permission, o.Decision} {
			switch v {
			case "deny", "ask", "allow", "block":
				return v
			case "approve":
				return "allow"
			}
		}
	}
	if top.Continue != nil && !*top.Continue || top.FollowupMessage != "" {
		return "block"
	}
	for _, o := range objs {
		if o.UpdatedInput || o.ModifiedArgs || o.UpdatedInputSnake || o.ToolInput {
			return "rewrite"
		}
	}
	for _, o := range objs {
		if o.AdditionalContext || o.AdditionalCtxSnake {
			return "context"
		}
	}
	return "none"
}
