package runner

import (
	"encoding/json"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsontext"
	"github.com/luahook/luahook/ledger"
)

// Result is what firing an event decided, with a trace of every matching hook.
//
// Its JSON (json.Marshal) is what a policy test's fire() returns: the fields
// below under their tags, plus "outcome", the contract's outcome of
// Result.Outcome, and "trace" always an array. RenderTrace writes the trace
// for a person.
type Result struct {
	Event luahook.Event `json:"event"`
	// Verdict is the decision: VerdictDeny when a PreToolUse hook denied the
	// call or a UserPromptSubmit hook blocked the prompt; VerdictAsk when a
	// PreToolUse hook asked to hand the decision to the user and none denied
	// (a deny wins over an ask), Reason joining the asks' reasons and Input
	// the rewritten input the user is asked about; VerdictAllow when a
	// PreToolUse or UserPromptSubmit hook returned an explicit allow and none
	// denied or asked; VerdictContinue when a Stop hook asked the agent to
	// keep going, Reason joining the hooks' reasons (its next instruction);
	// VerdictNone, no objection, otherwise. A rewrite (Input) comes with
	// VerdictNone, VerdictAllow or VerdictAsk: mutate, mutate with an
	// explicit allow, mutate with an ask. Several agents (Claude Code, Codex,
	// Copilot) skip their own permission prompt on an explicit allow, so it
	// is kept apart from no objection everywhere, luahook's own wire format
	// included ({} for no objection).
	Verdict luahook.Verdict `json:"verdict"`
	// Reason says why (deny, ask) or what to do next (continue), cut to
	// luahook.MaxReasonChars characters.
	Reason string `json:"reason"`
	// Input is the final PreToolUse tool input, set only when hooks changed it
	// (compared as decoded JSON values, not bytes) and it passed the tool's
	// schema.
	Input json.RawMessage `json:"input,omitempty"`
	// AdditionalContext joins the hooks' context with "\n", in registration
	// order (PreToolUse: execution order), followed by (PostToolUse) or
	// preceded by (UserPromptSubmit) the session's buffered background context.
	AdditionalContext string `json:"additionalContext,omitempty"`
	// ContextAs is "separate" if any contributing hook asked for it, else
	// "inline"; it is empty exactly when AdditionalContext is.
	ContextAs luahook.ContextAs `json:"contextAs,omitempty"`
	// Trace has one entry per matching hook: in execution order for the
	// sequential events (PreToolUse, UserPromptSubmit), in registration order
	// for the parallel ones.
	Trace []HookTrace `json:"trace"`
	// DecidedBy is the name of the hook whose outcome or failure made the
	// decision. PreToolUse: the hook that denied (its deny, its fail-closed
	// failure, its failure of kind rejected, or, fail-closed, the rewrite
	// it tried as a validator), else the first hook that asked, else the
	// first explicit allow, else the last mutate-stage hook whose rewrite
	// stands (Input is set). A rewrite that fails the tool's schema denies
	// with DecidedBy the last mutate-stage hook that rewrote: the rewrite
	// that was checked is the one it left. UserPromptSubmit: the hook that
	// blocked, else the first explicit allow. Stop: the first hook, in
	// registration order, that asked to continue. PostToolUse: the last
	// hook, in the order they apply, that rewrote or withheld the output,
	// when the output was rewritten. "" when no hook decided:
	// no objection, a refusal before any hook ran, and every other event.
	// It is a copy of the entry's name (luahook.Spec.Name): names need not
	// be unique, the trace tells which hook it was.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Output is what the PostToolUse hooks did to the tool's output (the
	// output the model is to read instead), nil when it is the tool's own:
	// their redactions and replacements applied in a defined order (the
	// mutate stage in registration order, then the other hooks in
	// registration order, every redaction applied again at the end), the
	// whole output withheld when a hook whose failure policy is closed
	// failed, or cut past luahook.MaxScanBytes (ToolResult.Cut).
	Output *luahook.OutputRewrite `json:"output,omitempty"`
	// Ledger lists the calls the hooks made to their session's ledger
	// during the decision, in the order they returned (ledger.Journal):
	// set for a decision that is observed (the decision log, explain,
	// FireUnobserved), nil otherwise.
	Ledger []ledger.Entry `json:"ledger,omitempty"`
	// Approval records the web approval a PreToolUse call waited for
	// (luahook.RouteWeb): who decided, when, and how. Nil when no hook
	// routed an ask to the web, or a deny ended the call first.
	Approval *Approval `json:"approval,omitempty"`
}

// Denied reports whether the event was denied (VerdictDeny).
func (r Result) Denied() bool { return r.Verdict == luahook.VerdictDeny }

// Asked reports whether the decision was handed to the user (VerdictAsk).
func (r Result) Asked() bool { return r.Verdict == luahook.VerdictAsk }

// Allowed reports whether a hook allowed explicitly (VerdictAllow); no
// objection is not an allow.
func (r Result) Allowed() bool { return r.Verdict == luahook.VerdictAllow }

// Continues reports whether a Stop hook asked the agent to keep going
// (VerdictContinue).
func (r Result) Continues() bool { return r.Verdict == luahook.VerdictContinue }

// MarshalJSON encodes r with its tags; adds "denied" (whether the verdict
// is deny: what a policy test's fire() result is recognised by), "asked",
// "allowed" and "continue" when the verdict is that one (the fields policy
// tests have always read), and "outcome" (Result.Outcome); and writes a
// trace without entries as [] rather than null.
func (r Result) MarshalJSON() ([]byte, error) {
	type fields Result // without the method
	out := struct {
		fields
		Denied   bool             `json:"denied"`
		Asked    bool             `json:"asked,omitempty"`
		Allowed  bool             `json:"allowed,omitempty"`
		Continue bool             `json:"continue,omitempty"`
		Outcome  *luahook.Outcome `json:"outcome"`
	}{fields(r), r.Denied(), r.Asked(), r.Allowed(), r.Continues(), r.Outcome()}
	if out.Trace == nil {
		out.Trace = []HookTrace{}
	}
	return json.Marshal(out)
}

// HookTrace records what one hook did during a call. Its JSON carries the
// duration as "durationMs", milliseconds with microsecond precision.
type HookTrace struct {
	ID     string           `json:"id,omitempty"`
	Name   string           `json:"name"`
	Source string           `json:"source,omitempty"`
	Kind   luahook.HookKind `json:"kind"`
	Stage  luahook.Stage    `json:"stage,omitempty"`
	// Duration is how long the hook ran; its JSON is "durationMs".
	Duration time.Duration `json:"-"`
	// Outcome is the outcome as the hook returned it (nil: no objection).
	// It may be held in the entry itself (a Lua hook's, see
	// luahook.PreparedInto): to keep an entry past the array it is in
	// (FireInto's next call overwrites it), copy it with AppendTrace.
	Outcome *luahook.Outcome `json:"outcome,omitempty"`
	// Failure is set when the hook failed; its outcome was not used.
	Failure *luahook.Failure `json:"failure,omitempty"`
	// Skipped says why the hook was not called (SkipPolicyOnly,
	// SkipNotReached, SkipBackground) or why its outcome was ignored
	// (SkipValidatorMutation).
	Skipped    string `json:"skipped,omitempty"`
	Background bool   `json:"background,omitempty"`
	// Mode is the hook's mode: ModeShadow when its outcome was not enforced.
	Mode luahook.Mode `json:"mode,omitempty"`
	// Version is the content hash of the file that registered the hook
	// (luahook.Spec.Version).
	Version string `json:"version,omitempty"`
	// own holds the outcome of a hook that writes it into memory the
	// runner gives (luahook.PreparedInto): Outcome is then &own
	own luahook.Outcome
}

// MarshalJSON encodes t with its tags and its duration as "durationMs".
func (t HookTrace) MarshalJSON() ([]byte, error) {
	type fields HookTrace // without the method
	f := fields(t)
	f.Outcome = t.Outcome.Masked() // a redaction's literal text is the secret itself
	return json.Marshal(struct {
		fields
		DurationMs float64 `json:"durationMs"`
	}{f, float64(t.Duration.Microseconds()) / 1000})
}

// Outcome renders the result in the contract's JSON shape for its event;
// json.Marshal of it is what `luahook fire` prints. It is never nil: an
// outcome with no fields set means {} (no objection).
//
//	PreToolUse:        {"action":"deny","reason":…} | {"action":"ask","reason":…[,"input":{…}]} |
//	                   {"action":"mutate","input":{…}} | {"action":"allow"},
//	                   plus "additionalContext" and "contextAs" when there is context
//	UserPromptSubmit:  {"action":"deny","reason":…} when blocked, else {"additionalContext":…} or {}
//	PostToolUse:       {"action":"replace_output","output":…,"reason":…} when hooks rewrote the output,
//	                   plus "additionalContext" and "contextAs" when there is context
//	SessionStart:      {"additionalContext":…,"contextAs":…} or {}
//	Stop:              {"action":"continue","reason":…} when a hook asked to keep going, else {}
//	observational events: {}
//
// No objection renders {} (with context when there is some), never an
// allow; a rewrite with an explicit allow renders as the mutate it is.
func (r Result) Outcome() *luahook.Outcome { return r.OutcomeInto(new(luahook.Outcome)) }

// OutcomeInto is Outcome written over *o, for a caller that reuses one
// Outcome decision after decision; it returns o.
func (r *Result) OutcomeInto(o *luahook.Outcome) *luahook.Outcome {
	*o = luahook.Outcome{Action: r.Action()}
	switch o.Action {
	case luahook.ActionDeny, luahook.ActionContinue:
		o.Reason = r.Reason
	case luahook.ActionAsk:
		o.Reason, o.Input = r.Reason, r.Input
	case luahook.ActionMutate:
		o.Input = r.Input
	}
	switch r.Event {
	case luahook.PreToolUse:
		o.AdditionalContext, o.ContextAs = r.AdditionalContext, r.ContextAs
	case luahook.UserPromptSubmit:
		if !r.Denied() {
			o.AdditionalContext = r.AdditionalContext
		}
	case luahook.PostToolUse:
		o.AdditionalContext, o.ContextAs = r.AdditionalContext, r.ContextAs
		if w := r.Output; w != nil {
			o.Reason = w.Summary()
			if w.Value != nil {
				o.Output = w.Value
			} else {
				o.Output = jsontext.AppendString(nil, w.Content)
			}
		}
	case luahook.SessionStart:
		o.AdditionalContext, o.ContextAs = r.AdditionalContext, r.ContextAs
	}
	return o
}

// Action is the action of r.Outcome(), the event's decision: deny, ask,
// mutate, allow (an explicit hook.allow()) or "" (no objection) on
// PreToolUse; deny, allow or "" on UserPromptSubmit; continue or "" on
// Stop; "" on the other events. No objection is never written as allow:
// a host reading luahook's answer must not take it for an approval.
func (r Result) Action() luahook.Action {
	switch r.Event {
	case luahook.PreToolUse:
		switch {
		case r.Verdict == luahook.VerdictDeny:
			return luahook.ActionDeny
		case r.Verdict == luahook.VerdictAsk:
			return luahook.ActionAsk
		case r.Input != nil:
			return luahook.ActionMutate
		case r.Verdict == luahook.VerdictAllow:
			return luahook.ActionAllow
		}
	case luahook.UserPromptSubmit:
		switch r.Verdict {
		case luahook.VerdictDeny:
			return luahook.ActionDeny
		case luahook.VerdictAllow:
			return luahook.ActionAllow
		}
	case luahook.PostToolUse:
		if r.Output != nil {
			return luahook.ActionReplaceOutput
		}
	case luahook.Stop:
		if r.Verdict == luahook.VerdictContinue {
			return luahook.ActionContinue
		}
	}
	return ""
}

// UndecodedReason is the reason of the denial of a payload that could not
// be decoded (err says why) on an event that can block: luahook could not
// decide, so it blocks, on every door.
func UndecodedReason(err error) string {
	return "the payload could not be read (" + err.Error() + "); the action was denied because luahook could not decide"
}

// Undecided is the result of a payload of event ev that could not be
// decoded (err): denied with UndecodedReason when ev can block, nothing
// decided otherwise (ok false: the door reports err instead).
func Undecided(ev luahook.Event, err error) (res Result, ok bool) {
	if !ev.CanBlock() {
		return Result{}, false
	}
	res = Result{Event: ev}
	res.deny(UndecodedReason(err))
	return res, true
}

// deny ends a steering call with reason.
func (r *Result) deny(reason string) {
	r.Verdict = luahook.VerdictDeny
	r.Reason = luahook.TruncateReason(reason)
}

// AppendTrace appends copies of the entries src to dst and returns the
// extended slice. A copy's outcome is its own: an outcome held in an entry
// of src is held in its copy.
func AppendTrace(dst []HookTrace, src ...HookTrace) []HookTrace {
	n := len(dst)
	dst = append(dst, src...)
	for i := range src {
		if src[i].Outcome == &src[i].own {
			dst[n+i].Outcome = &dst[n+i].own
		}
	}
	return dst
}
