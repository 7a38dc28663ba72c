package runner

import (
	"encoding/json"
	"time"

	"github.com/luahook/luahook"
)

// Result is what firing an event decided, with a trace of every matching hook.
type Result struct {
	Event luahook.Event
	// Denied is set when a PreToolUse hook denied the call or a
	// UserPromptSubmit hook blocked the prompt.
	Denied bool
	// Reason says why, cut to luahook.MaxReasonChars characters.
	Reason string
	// Input is the final PreToolUse tool input, set only when hooks changed it
	// (compared as decoded JSON values, not bytes) and it passed the tool's
	// schema.
	Input json.RawMessage
	// AdditionalContext joins the hooks' context with "\n", in registration
	// order (PreToolUse: execution order), followed by (PostToolUse) or
	// preceded by (UserPromptSubmit) the session's buffered background context.
	AdditionalContext string
	// ContextAs is "separate" if any contributing hook asked for it, else
	// "inline"; it is empty exactly when AdditionalContext is.
	ContextAs luahook.ContextAs
	// Trace has one entry per matching hook: in execution order for the
	// sequential events (PreToolUse, UserPromptSubmit), in registration order
	// for the parallel ones.
	Trace []HookTrace
}

// HookTrace records what one hook did during a call.
type HookTrace struct {
	ID, Name, Source string
	Kind             luahook.HookKind
	Stage            luahook.Stage
	Duration         time.Duration
	// Outcome is the outcome as the hook returned it (nil: no objection).
	Outcome *luahook.Outcome
	// Failure is set when the hook failed; its outcome was not used.
	Failure *luahook.Failure
	// Skipped says why the hook was not called (SkipPolicyOnly,
	// SkipNotReached, SkipBackground) or why its outcome was ignored
	// (SkipValidatorMutation).
	Skipped    string
	Background bool
}

// Outcome renders the result in the contract's JSON shape for its event;
// json.Marshal of it is what `luahook fire` prints. It is never nil: an
// outcome with no fields set means {} (no objection).
//
//	PreToolUse:        {"action":"deny","reason":…} | {"action":"mutate","input":{…}} | {"action":"allow"},
//	                   plus "additionalContext" and "contextAs" when there is context
//	UserPromptSubmit:  {"action":"deny","reason":…} when blocked, else {"additionalContext":…} or {}
//	PostToolUse, SessionStart: {"additionalContext":…,"contextAs":…} or {}
//	Stop, observational events: {}
func (r Result) Outcome() *luahook.Outcome {
	o := &luahook.Outcome{}
	switch r.Event {
	case luahook.PreToolUse:
		switch {
		case r.Denied:
			o.Action, o.Reason = luahook.ActionDeny, r.Reason
		case r.Input != nil:
			o.Action, o.Input = luahook.ActionMutate, r.Input
		default:
			o.Action = luahook.ActionAllow
		}
		o.AdditionalContext, o.ContextAs = r.AdditionalContext, r.ContextAs
	case luahook.UserPromptSubmit:
		if r.Denied {
			o.Action, o.Reason = luahook.ActionDeny, r.Reason
		} else {
			o.AdditionalContext = r.AdditionalContext
		}
	case luahook.PostToolUse, luahook.SessionStart:
		o.AdditionalContext, o.ContextAs = r.AdditionalContext, r.ContextAs
	}
	return o
}

// deny ends a steering call with reason.
func (r *Result) deny(reason string) {
	r.Denied = true
	r.Reason = luahook.TruncateReason(reason)
}
