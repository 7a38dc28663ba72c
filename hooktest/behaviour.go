// Package hooktest is a conformance suite for luahook transports, in the
// spirit of log/slog's slogtest: every transport (Lua, command, HTTP, Go)
// supplies a Factory that builds a hook behaving as asked, and Run proves,
// case by case, that the hook keeps the one contract of the luahook package: the same
// payload arrives, the same answers mean the same thing, and deadlines,
// cancellation, invalid output and crashes end as the same typed failures.
//
// Every case drives the hook through a real registry and runner, registered
// as the only hook of its event, and checks the runner's Result and
// HookTrace. So the rule "a hook can never crash the host" is checked for
// every transport in the same way, Go panics included.
//
// A transport's test wires it up with a factory:
//
//	func TestCommandHooksKeepTheContract(t *testing.T) {
//		hooktest.Run(t, func(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
//			c, err := transports.NewCommand(transports.CommandSpec{Command: prog + " " + b.String()})
//			if err != nil {
//				tb.Fatal(err)
//			}
//			return c
//		}, hooktest.Options{Kind: luahook.KindCommand, Parallel: 4, Calls: 5})
//	}
//
// A Lua factory compiles one small source per behaviour, for example
// `return hook.deny("hooktest: denied")` for Deny or `error("hooktest: crash")`
// for Crash. Answer gives the wire answer of each behaviour for hooks
// written in Go (a test program, a test HTTP server).
package hooktest

import (
	"fmt"
	"time"

	"github.com/luahook/luahook"
)

// Behaviour is what a hook built by a Factory must do when called. Every
// transport must be able to produce every behaviour.
//
// The documentation of each value gives the answer in the contract's JSON
// shape; Answer produces it for transports written in Go, and a Lua hook
// returns the same table.
type Behaviour int

// The behaviours a Factory must support.
const (
	// Allow answers {"action":"allow"}.
	Allow Behaviour = iota
	// NoObjection answers nothing: empty output, an empty body, nil.
	NoObjection
	// Deny answers {"action":"deny","reason":DenyReason}.
	Deny
	// MutateEcho answers {"action":"mutate","input":<toolInput>}, the
	// payload's toolInput exactly as the hook received it.
	MutateEcho
	// AddContext answers {"additionalContext":ContextText,"contextAs":"separate"}.
	AddContext
	// EchoPayload answers {"additionalContext":<payload>}, where <payload>
	// is the whole payload JSON as the hook received it, as a string.
	EchoPayload
	// VerifyRepeat reads a toolInput of the shape
	// {"block":<string>,"count":<integer>,"content":<string>}. It answers
	// {"additionalContext":<block>} when content is block repeated count
	// times, and {"action":"deny","reason":<why not>} otherwise. It proves
	// that a payload too large to echo (command and HTTP output is capped at
	// 64 KiB) arrived intact.
	VerifyRepeat
	// Hang never answers: it sleeps or waits forever, and ignores its
	// context as far as its transport lets it. Only the deadline or the
	// caller's cancellation may end the call.
	Hang
	// InvalidOutput answers something that is not an outcome object: the
	// text "hooktest: not json" (a Go hook, which cannot, answers a mutate
	// whose input is not JSON).
	InvalidOutput
	// UnknownAction answers {"action":"block"}.
	UnknownAction
	// DenyWithoutReason answers {"action":"deny"}.
	DenyWithoutReason
	// Crash fails the way its transport fails: a command exits 1, an HTTP
	// endpoint answers 500, a Lua hook calls error(), a Go hook panics.
	Crash
	// ArrayOutput answers an array holding a deny outcome,
	// [{"action":"deny","reason":DenyReason}]: a Lua hook returns
	// { hook.deny(DenyReason) }, a Go hook (which cannot) a mutate whose
	// input is that array. An outcome is an object: this is invalid output,
	// neither no objection nor its first item's deny.
	ArrayOutput
	// Ask answers {"action":"ask","reason":AskReason}.
	Ask
	// Continue answers {"action":"continue","reason":ContinueReason}.
	Continue
	// RedactOutput answers {"action":"redact","redact":[{"pattern":
	// RedactPattern,"label":RedactLabel},{"text":RedactText}]}: it takes
	// parts of a PostToolUse output out.
	RedactOutput
	// ReplaceOutput answers {"action":"replace_output","output":
	// {"stdout":ReplacedText}}: a PostToolUse output replaced whole, by a
	// value in a tool's own shape.
	ReplaceOutput
	// Approve answers {"action":"ask","reason":ApproveReason,"route":"web",
	// "approvers":[ApproveBy],"timeoutMs":ApproveTimeout in milliseconds}
	// (ApproveOutcome): an ask put to a person on luahook serve's approvals
	// rather than the agent's prompt. A Lua hook returns
	// hook.approve{reason=…, approvers={…}, timeout_ms=…}.
	Approve

	numBehaviours
)

// DenyReason is the reason of the Deny behaviour.
const DenyReason = "hooktest: denied"

// ContextText is the additional context of the AddContext behaviour.
const ContextText = "hooktest: context"

// AskReason is the reason of the Ask behaviour.
const AskReason = "hooktest: ask the user"

// ContinueReason is the reason of the Continue behaviour.
const ContinueReason = "hooktest: keep going"

// The redactions of the RedactOutput behaviour, and the output of the
// ReplaceOutput behaviour.
const (
	RedactPattern = `ghp_[A-Za-z0-9]{36}`
	RedactLabel   = "a GitHub token"
	RedactText    = "hunter2"
	ReplacedText  = "hooktest: replaced"
)

// The web approval the Approve behaviour asks for: the reason the person is
// shown, the one approver who may decide, and how long the call waits.
const (
	ApproveReason  = "hooktest: a person decides"
	ApproveBy      = "hooktest-approver"
	ApproveTimeout = 5 * time.Second
)

// ApproveOutcome is the outcome of the Approve behaviour.
func ApproveOutcome() *luahook.Outcome {
	return luahook.Approve(ApproveReason, []string{ApproveBy}, ApproveTimeout)
}

var behaviourNames = [numBehaviours]string{
	Allow:             "allow",
	NoObjection:       "no-objection",
	Deny:              "deny",
	MutateEcho:        "mutate-echo",
	AddContext:        "add-context",
	EchoPayload:       "echo-payload",
	VerifyRepeat:      "verify-repeat",
	Hang:              "hang",
	InvalidOutput:     "invalid-output",
	UnknownAction:     "unknown-action",
	DenyWithoutReason: "deny-without-reason",
	Crash:             "crash",
	ArrayOutput:       "array-output",
	Ask:               "ask",
	Continue:          "continue",
	RedactOutput:      "redact-output",
	ReplaceOutput:     "replace-output",
	Approve:           "approve",
}

// String returns the behaviour's name, such as "mutate-echo": a word that
// fits in a command line, a URL path or a Lua file name.
func (b Behaviour) String() string {
	if b >= 0 && b < numBehaviours {
		return behaviourNames[b]
	}
	return fmt.Sprintf("Behaviour(%d)", int(b))
}

// Behaviours returns every behaviour, in declaration order.
func Behaviours() []Behaviour {
	out := make([]Behaviour, numBehaviours)
	for i := range out {
		out[i] = Behaviour(i)
	}
	return out
}

// ParseBehaviour returns the behaviour named name (see Behaviour.String).
func ParseBehaviour(name string) (Behaviour, error) {
	for i, n := range behaviourNames {
		if n == name {
			return Behaviour(i), nil
		}
	}
	return 0, fmt.Errorf("hooktest: unknown behaviour %q", name)
}
