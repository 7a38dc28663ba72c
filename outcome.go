package luahook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/luahook/luahook/internal/jsontext"
)

// Action is what a hook decides.
type Action string

// The actions of the contract. The empty action means "no objection" too.
//
// An explicit allow approves: several agents (Claude Code, Codex, Copilot)
// skip their own permission prompt on it, so a hook should return it only
// when it means to approve, and return nil (no objection) otherwise. Ask
// (PreToolUse only) hands the decision to the user, with a reason; Continue
// (Stop only) asks the agent to keep going, its reason being the agent's next
// instruction. Every event accepts allow, deny and mutate (an event that
// cannot use one ignores it); ask and continue are invalid output on any
// other event (Outcome.CheckEvent).
const (
	ActionAllow    Action = "allow"
	ActionDeny     Action = "deny"
	ActionMutate   Action = "mutate"
	ActionAsk      Action = "ask"
	ActionContinue Action = "continue"
)

// ContextAs says how additional context reaches the model.
type ContextAs string

// The ways context is delivered.
const (
	ContextInline   ContextAs = "inline"
	ContextSeparate ContextAs = "separate"
)

// MaxReasonChars is how many characters of a deny reason reach the model.
const MaxReasonChars = 2000

// MaxContextChars is how many characters of one hook's additionalContext
// reach the model. A longer context is cut so that, with ContextCutMarker
// at its end, it is exactly MaxContextChars characters.
const MaxContextChars = 10000

// ContextCutMarker ends a hook's context that was cut to MaxContextChars.
const ContextCutMarker = "\n[luahook: this context was cut at 10000 characters]"

// DefaultBlockReason replaces the empty reason of a legacy {"decision":"block"}.
const DefaultBlockReason = "blocked by hook"

// Outcome is a hook's answer. Every field is optional; a nil *Outcome or the
// zero Outcome means "no objection".
type Outcome struct {
	Action            Action          `json:"action,omitempty"`
	Reason            string          `json:"reason,omitempty"`
	Input             json.RawMessage `json:"input,omitempty"` // the rewritten tool input (mutate)
	AdditionalContext string          `json:"additionalContext,omitempty"`
	ContextAs         ContextAs       `json:"contextAs,omitempty"`
	// Output is the tool's new output (replace_output, PostToolUse): a
	// JSON string, the text the model reads, or a value in the tool's own
	// shape for the agents that have one.
	Output json.RawMessage `json:"output,omitempty"`
	// Redact lists the parts of the tool's output to take out (redact,
	// PostToolUse).
	Redact []Redaction `json:"redact,omitempty"`
	// Route says who answers an ask: "" the user at the agent's own prompt,
	// RouteWeb a person on luahook serve's approvals (a remote approval).
	Route Route `json:"route,omitempty"`
	// Approvers names the clients that may decide a web approval (the
	// names luahook serve authenticates); empty: any of them.
	Approvers []string `json:"approvers,omitempty"`
	// TimeoutMs is how long a web approval waits for a decision, in
	// milliseconds; 0 means DefaultApprovalTimeout. No decision in time
	// denies.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
}

// Route says who answers an ask (Outcome.Route).
type Route string

// RouteWeb sends an ask to a person on luahook serve's approvals instead of
// the agent's prompt: the call waits for their decision, which every agent
// receives as an allow or a deny.
const RouteWeb Route = "web"

// The bounds of a web approval's outcome keys.
const (
	// DefaultApprovalTimeout is how long a web approval waits when its
	// outcome gives no timeoutMs.
	DefaultApprovalTimeout = 5 * time.Minute
	// MaxApprovalTimeout is the longest timeoutMs: under luahook serve's
	// write timeout (11 minutes), so that the agent still reads the
	// verdict of a call that waited the whole time.
	MaxApprovalTimeout = 10 * time.Minute
	// MaxApprovers is how many names an outcome's approvers may list.
	MaxApprovers = 64
	// MaxApproverChars is how long one approver's name may be.
	MaxApproverChars = 256
)

// ApprovalTimeout returns how long the web approval o asks for waits:
// its TimeoutMs, else DefaultApprovalTimeout.
func (o *Outcome) ApprovalTimeout() time.Duration {
	if o == nil || o.TimeoutMs <= 0 {
		return DefaultApprovalTimeout
	}
	return time.Duration(o.TimeoutMs) * time.Millisecond
}

// Approve returns an ask routed to a web approval (RouteWeb): reason is
// what the person is shown, approvers who may decide (none: anyone luahook
// serve authenticates), timeout how long the call waits (0: the default).
func Approve(reason string, approvers []string, timeout time.Duration) *Outcome {
	return &Outcome{Action: ActionAsk, Reason: reason, Route: RouteWeb, Approvers: approvers, TimeoutMs: timeout.Milliseconds()}
}

// Allow returns an explicit allow outcome.
func Allow() *Outcome { return &Outcome{Action: ActionAllow} }

// Deny returns a deny outcome with the given reason.
func Deny(reason string) *Outcome { return &Outcome{Action: ActionDeny, Reason: reason} }

// Mutate returns a mutate outcome carrying the rewritten tool input.
func Mutate(input json.RawMessage) *Outcome { return &Outcome{Action: ActionMutate, Input: input} }

// Ask returns an outcome that asks the user to decide on a tool call
// (PreToolUse), saying why.
func Ask(reason string) *Outcome { return &Outcome{Action: ActionAsk, Reason: reason} }

// Continue returns an outcome that asks the agent to keep going instead of
// stopping (Stop); reason is its next instruction.
func Continue(reason string) *Outcome { return &Outcome{Action: ActionContinue, Reason: reason} }

// Redact returns an outcome that takes the parts rs of a tool's output out
// before the model reads it (PostToolUse).
func Redact(rs ...Redaction) *Outcome { return &Outcome{Action: ActionRedact, Redact: rs} }

// ReplaceOutput returns an outcome that replaces a tool's whole output
// with output, a JSON value: a string, or the tool's own shape
// (PostToolUse).
func ReplaceOutput(output json.RawMessage) *Outcome {
	return &Outcome{Action: ActionReplaceOutput, Output: output}
}

// Context returns an outcome that only adds context for the model.
func Context(text string) *Outcome { return &Outcome{AdditionalContext: text} }

// Validate reports an invalid outcome as a *Failure of kind FailInvalidOutput:
// deny, ask or continue without a non-empty reason, mutate without an object
// input, an input without mutate or ask, an unknown action or an unknown
// contextAs, and the keys of a web approval out of place (route, approvers
// or timeoutMs on another action than ask, approvers or timeoutMs without
// route "web") or out of bounds. An ask may carry an input: the rewritten
// tool input the user is asked about (a rewrite and an ask from one hook).
func (o *Outcome) Validate() error {
	if o == nil {
		return nil
	}
	switch o.Action {
	case "", ActionAllow:
		if o.Input != nil {
			return Failf(FailInvalidOutput, "input given without action \"mutate\"")
		}
	case ActionDeny, ActionContinue:
		if strings.TrimSpace(o.Reason) == "" {
			return Failf(FailInvalidOutput, "%s outcome requires a non-empty reason", string(o.Action))
		}
		if o.Input != nil {
			return Failf(FailInvalidOutput, "input given without action \"mutate\"")
		}
	case ActionAsk:
		if strings.TrimSpace(o.Reason) == "" {
			return Failf(FailInvalidOutput, "ask outcome requires a non-empty reason")
		}
		if o.Input != nil && (!IsJSONObject(o.Input) || !json.Valid(o.Input)) {
			return Failf(FailInvalidOutput, "ask outcome's input must be an object")
		}
	case ActionMutate:
		if !IsJSONObject(o.Input) || !json.Valid(o.Input) {
			return Failf(FailInvalidOutput, "mutate outcome requires an object input")
		}
	case ActionRedact, ActionReplaceOutput:
	default:
		return Failf(FailInvalidOutput, "unknown hook action %q (want %s)", string(o.Action), actionList(allActions))
	}
	switch o.ContextAs {
	case "", ContextInline, ContextSeparate:
	default:
		return Failf(FailInvalidOutput, "unknown contextAs %q (want inline or separate)", string(o.ContextAs))
	}
	if err := o.checkRoute(); err != nil {
		return err
	}
	return o.checkOutputFields()
}

// checkRoute checks the keys of a web approval: route, approvers and
// timeoutMs, each named in its error.
func (o *Outcome) checkRoute() error {
	if o.Route == "" && o.Approvers == nil && o.TimeoutMs == 0 {
		return nil
	}
	if o.Action != ActionAsk {
		key := "route"
		switch {
		case o.Route != "":
		case o.Approvers != nil:
			key = "approvers"
		default:
			key = "timeoutMs"
		}
		return Failf(FailInvalidOutput, "outcome key %q applies to action \"ask\" only, not %q", key, string(o.Action))
	}
	switch o.Route {
	case RouteWeb:
	case "":
		key := "approvers"
		if o.Approvers == nil {
			key = "timeoutMs"
		}
		return Failf(FailInvalidOutput, "outcome key %q needs route \"web\" (a web approval)", key)
	default:
		return Failf(FailInvalidOutput, "outcome key \"route\": unknown route %q (want \"web\", or no route for the agent's own prompt)", string(o.Route))
	}
	if len(o.Approvers) > MaxApprovers {
		return Failf(FailInvalidOutput, "outcome key \"approvers\" lists %d names (at most %d)", len(o.Approvers), MaxApprovers)
	}
	for i, a := range o.Approvers {
		if strings.TrimSpace(a) == "" || len(a) > MaxApproverChars || !utf8.ValidString(a) {
			return Failf(FailInvalidOutput, "outcome key \"approvers\": name %d must be a non-empty UTF-8 string of at most %d bytes, got %s",
				i+1, MaxApproverChars, snippet([]byte(strconv.Quote(a)), outcomeSnippetChars))
		}
	}
	if o.TimeoutMs < 0 || o.TimeoutMs > MaxApprovalTimeout.Milliseconds() {
		return Failf(FailInvalidOutput, "outcome key \"timeoutMs\" must be between 1 and %d (%s), got %d",
			MaxApprovalTimeout.Milliseconds(), MaxApprovalTimeout, o.TimeoutMs)
	}
	return nil
}

// CheckEvent reports an outcome whose action the event ev does not accept
// (Actions) as a *Failure of kind FailInvalidOutput naming the actions it
// does accept: ask outside PreToolUse, continue outside Stop. It does not
// Validate the rest of the outcome.
func (o *Outcome) CheckEvent(ev Event) error {
	if o == nil {
		return nil
	}
	switch {
	case o.Action == ActionAsk && ev != PreToolUse,
		o.Action == ActionContinue && ev != Stop,
		(o.Action == ActionRedact || o.Action == ActionReplaceOutput) && ev != PostToolUse:
		return Failf(FailInvalidOutput, "action %q does not apply to %s (%s accepts %s)",
			string(o.Action), ev, ev, actionList(Actions(ev)))
	}
	return nil
}

// Actions returns the actions a hook of ev may return: allow, deny and
// mutate on every event (an event that cannot use one ignores it), ask on
// PreToolUse, redact and replace_output on PostToolUse, continue on Stop.
func Actions(ev Event) []Action {
	switch ev {
	case PreToolUse:
		return []Action{ActionAllow, ActionDeny, ActionAsk, ActionMutate}
	case PostToolUse:
		return []Action{ActionAllow, ActionDeny, ActionMutate, ActionRedact, ActionReplaceOutput}
	case Stop:
		return []Action{ActionAllow, ActionDeny, ActionMutate, ActionContinue}
	}
	return []Action{ActionAllow, ActionDeny, ActionMutate}
}

var allActions = []Action{ActionAllow, ActionDeny, ActionAsk, ActionMutate, ActionContinue, ActionRedact, ActionReplaceOutput}

// actionList writes actions as "a, b or c".
func actionList(actions []Action) string {
	var b strings.Builder
	for i, a := range actions {
		switch {
		case i == len(actions)-1 && i > 0:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(string(a))
	}
	return b.String()
}

// IsJSONObject reports whether raw JSON text starts an object (after white space).
// It does not check the rest of the text.
func IsJSONObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// wireOutcome is the outcome as it crosses a transport boundary, legacy keys included.
type wireOutcome struct {
	Action            json.RawMessage `json:"action"`
	Decision          json.RawMessage `json:"decision"`
	Reason            json.RawMessage `json:"reason"`
	Input             json.RawMessage `json:"input"`
	ModifiedInput     json.RawMessage `json:"modifiedInput"`
	AdditionalContext json.RawMessage `json:"additionalContext"`
	ContextAs         json.RawMessage `json:"contextAs"`
	Output            json.RawMessage `json:"output"`
	Redact            json.RawMessage `json:"redact"`
	Route             json.RawMessage `json:"route"`
	Approvers         json.RawMessage `json:"approvers"`
	TimeoutMs         json.RawMessage `json:"timeoutMs"`
}

// ParseOutcome parses a transport's output (command stdout, HTTP body) into a
// validated outcome. Empty or white-space output and {} mean "no objection" and
// give a nil outcome. Legacy fields are normalised: decision "block" becomes
// deny (an empty reason becomes DefaultBlockReason), decision "allow" becomes
// allow, modifiedInput becomes mutate. Anything else that is not a valid outcome
// object is a *Failure of kind FailInvalidOutput saying what was wrong.
func ParseOutcome(data []byte) (*Outcome, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	if data[0] != '{' {
		return nil, Failf(FailInvalidOutput, "output is not a JSON object: %s", snippet(data, outcomeSnippetChars))
	}
	var w wireOutcome
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, &Failure{Kind: FailInvalidOutput, Message: "output is not valid outcome JSON: " + err.Error(), Err: err}
	}
	o := &Outcome{}
	var err error
	var action, decision, reason, ctxAs string
	if action, err = optString("action", w.Action); err != nil {
		return nil, err
	}
	if decision, err = optString("decision", w.Decision); err != nil {
		return nil, err
	}
	if reason, err = optString("reason", w.Reason); err != nil {
		return nil, err
	}
	if o.AdditionalContext, err = optString("additionalContext", w.AdditionalContext); err != nil {
		return nil, err
	}
	if ctxAs, err = optString("contextAs", w.ContextAs); err != nil {
		return nil, err
	}
	o.ContextAs = ContextAs(ctxAs)
	input, err := optObject("input", w.Input)
	if err != nil {
		return nil, err
	}
	modified, err := optObject("modifiedInput", w.ModifiedInput)
	if err != nil {
		return nil, err
	}
	o.Reason = reason
	if present(w.Output) {
		o.Output = w.Output
	}
	if present(w.Redact) {
		if o.Redact, err = parseRedactions(w.Redact); err != nil {
			return nil, err
		}
	}
	if err := parseRoute(o, &w); err != nil {
		return nil, err
	}
	switch {
	case present(w.Action):
		if action == "" {
			return nil, Failf(FailInvalidOutput, "unknown hook action \"\" (want %s)", actionList(allActions))
		}
		o.Action = Action(action)
		o.Input = input
		if o.Action == ActionMutate && o.Input == nil && present(w.Input) {
			return nil, Failf(FailInvalidOutput, "mutate outcome requires an object input")
		}
	case present(w.Decision):
		switch decision {
		case "block":
			o.Action = ActionDeny
			o.Reason = strings.TrimSpace(reason)
			if o.Reason == "" {
				o.Reason = DefaultBlockReason
			}
		case "allow":
			o.Action = ActionAllow
			if modified != nil {
				o.Action, o.Input = ActionMutate, modified
			}
		default:
			return nil, Failf(FailInvalidOutput, "unknown decision %q (want block or allow)", decision)
		}
	case modified != nil:
		o.Action, o.Input = ActionMutate, modified
	case input != nil:
		return nil, Failf(FailInvalidOutput, "input given without action \"mutate\"")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Action == "" && o.Reason == "" && o.AdditionalContext == "" && o.ContextAs == "" && o.Route == "" && o.Approvers == nil && o.TimeoutMs == 0 {
		return nil, nil
	}
	return o, nil
}

// parseRoute reads the keys of a web approval: route a string, approvers an
// array of strings (an empty object counts as an empty array: a Lua table
// cannot tell them apart), timeoutMs a whole number of milliseconds.
func parseRoute(o *Outcome, w *wireOutcome) error {
	route, err := optString("route", w.Route)
	if err != nil {
		return err
	}
	o.Route = Route(route)
	if present(w.Approvers) {
		raw := bytes.TrimSpace(w.Approvers)
		switch {
		case raw[0] == '[':
			if err := json.Unmarshal(raw, &o.Approvers); err != nil {
				return Failf(FailInvalidOutput, "outcome key \"approvers\" must be an array of names (strings), got %s", snippet(raw, outcomeSnippetChars))
			}
			if o.Approvers == nil {
				o.Approvers = []string{}
			}
		case string(raw) == "{}":
			o.Approvers = []string{}
		default:
			return Failf(FailInvalidOutput, "outcome key \"approvers\" must be an array of names (strings), got %s", snippet(raw, outcomeSnippetChars))
		}
	}
	if present(w.TimeoutMs) {
		n, err := strconv.ParseInt(string(bytes.TrimSpace(w.TimeoutMs)), 10, 64)
		if err != nil || n <= 0 {
			// A float with a zero fraction (1e3, 500.0) is a whole number too.
			var f float64
			if json.Unmarshal(w.TimeoutMs, &f) != nil || f != float64(int64(f)) || f <= 0 || f > float64(MaxApprovalTimeout.Milliseconds()) {
				return Failf(FailInvalidOutput, "outcome key \"timeoutMs\" must be a positive whole number of milliseconds (at most %d), got %s",
					MaxApprovalTimeout.Milliseconds(), snippet(w.TimeoutMs, outcomeSnippetChars))
			}
			n = int64(f)
		}
		o.TimeoutMs = n
	}
	return nil
}

// parseRedactions reads an outcome's redact list: an array of objects with
// the keys of Redaction and no others (a misspelt key would take nothing
// out, silently).
func parseRedactions(raw json.RawMessage) ([]Redaction, error) {
	if raw[0] != '[' {
		return nil, Failf(FailInvalidOutput, "outcome key \"redact\" must be an array, got %s", snippet(raw, outcomeSnippetChars))
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, Failf(FailInvalidOutput, "outcome key \"redact\": %v", err)
	}
	if len(list) > MaxRedactions {
		return nil, Failf(FailInvalidOutput, "redact outcome lists %d redactions (at most %d)", len(list), MaxRedactions)
	}
	out := make([]Redaction, len(list))
	for i, item := range list {
		d := json.NewDecoder(bytes.NewReader(item))
		d.DisallowUnknownFields()
		if err := d.Decode(&out[i]); err != nil {
			return nil, Failf(FailInvalidOutput, "redact[%d]: %v (want an object with pattern, text, or start and end, and label)", i+1, err)
		}
	}
	return out, nil
}

func present(raw json.RawMessage) bool { return raw != nil && string(raw) != "null" }

func optString(key string, raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", Failf(FailInvalidOutput, "outcome key %q must be a string, got %s", key, snippet(raw, outcomeSnippetChars))
	}
	return s, nil
}

func optObject(key string, raw json.RawMessage) (json.RawMessage, error) {
	if !present(raw) {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, Failf(FailInvalidOutput, "outcome key %q must be an object, got %s", key, snippet(raw, outcomeSnippetChars))
	}
	return raw, nil
}

// outcomeSnippetChars is how much of a transport's output an error quotes.
const outcomeSnippetChars = 80

// snippet returns b as text, cut to n characters (and marked so) when longer.
func snippet(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return TruncateChars(string(b), n) + "…"
}

// TruncateChars cuts s to at most n characters (runes), never splitting one.
// Invalid UTF-8 bytes each count as one character.
func TruncateChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// TruncateReason cuts a deny reason to MaxReasonChars characters.
func TruncateReason(s string) string { return TruncateChars(s, MaxReasonChars) }

// CutContext returns the part of a hook's context that reaches the model:
// s itself when it has at most MaxContextChars characters (cut is false),
// else its first characters, to be followed by ContextCutMarker (cut is
// true). It allocates nothing; TruncateContext joins the two.
func CutContext(s string) (head string, cut bool) {
	if len(s) <= MaxContextChars || len(TruncateChars(s, MaxContextChars)) == len(s) {
		return s, false
	}
	return TruncateChars(s, MaxContextChars-contextCutMarkerChars), true
}

// TruncateContext cuts a hook's context to MaxContextChars characters, the
// ContextCutMarker at its end included. Cutting a cut context again leaves
// it as it is.
func TruncateContext(s string) string {
	if head, cut := CutContext(s); cut {
		return head + ContextCutMarker
	}
	return s
}

var contextCutMarkerChars = utf8.RuneCountInString(ContextCutMarker)

// AppendJSON appends the outcome's JSON form to b: what json.Marshal
// writes with HTML escaping off, without reflection. The error is Input's
// when it is not valid JSON. A nil outcome is null.
func (o *Outcome) AppendJSON(b []byte) ([]byte, error) {
	if o == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	start := len(b)
	member := func(key string) {
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
	}
	if o.Action != "" {
		member("action")
		b = jsontext.AppendString(b, string(o.Action))
	}
	if o.Reason != "" {
		member("reason")
		b = jsontext.AppendString(b, o.Reason)
	}
	if len(o.Input) > 0 {
		member("input")
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, o.Input); err != nil {
			return nil, fmt.Errorf("outcome input: %w", err)
		}
		b = buf.Bytes()
	}
	if o.AdditionalContext != "" {
		member("additionalContext")
		b = jsontext.AppendString(b, o.AdditionalContext)
	}
	if o.ContextAs != "" {
		member("contextAs")
		b = jsontext.AppendString(b, string(o.ContextAs))
	}
	if len(o.Output) > 0 {
		member("output")
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, o.Output); err != nil {
			return nil, fmt.Errorf("outcome output: %w", err)
		}
		b = buf.Bytes()
	}
	if o.Redact != nil {
		member("redact")
		buf := bytes.NewBuffer(b)
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.Redact); err != nil {
			return nil, err
		}
		b = bytes.TrimRight(buf.Bytes(), "\n")
	}
	if o.Route != "" {
		member("route")
		b = jsontext.AppendString(b, string(o.Route))
	}
	if len(o.Approvers) > 0 {
		member("approvers")
		b = append(b, '[')
		for i, a := range o.Approvers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, a)
		}
		b = append(b, ']')
	}
	if o.TimeoutMs != 0 {
		member("timeoutMs")
		b = strconv.AppendInt(b, o.TimeoutMs, 10)
	}
	return append(b, '}'), nil
}
