package luahook

import "fmt"

// Verdict is what luahook decided about an event, apart from a rewritten
// input and added context: the one enum every layer keeps, from the runner's
// Result to an agent's answer and the decision log, so that no objection,
// an explicit allow, an ask and a deny never blur into one another.
type Verdict uint8

const (
	// VerdictNone is no objection: no hook decided, and the agent's own
	// permission rules and prompts apply. It is never written as an allow.
	VerdictNone Verdict = iota
	// VerdictAllow is an explicit approval (hook.allow()): Claude Code,
	// Codex and Copilot skip their permission prompt on it.
	VerdictAllow
	// VerdictDeny refuses the tool call (PreToolUse) or the prompt
	// (UserPromptSubmit), with a reason.
	VerdictDeny
	// VerdictAsk hands the decision to the user, with a reason; with a
	// rewritten input, the user is asked about that input.
	VerdictAsk
	// VerdictContinue asks the agent not to stop (Stop), with its next
	// instruction.
	VerdictContinue
)

var verdictNames = [...]string{"none", "allow", "deny", "ask", "continue"}

// String returns the verdict's name: none, allow, deny, ask or continue.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) {
	if int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("unknown verdict %d", uint8(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText reads a verdict's name.
func (v *Verdict) UnmarshalText(text []byte) error {
	for i, name := range verdictNames {
		if string(text) == name {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q (known: none, allow, deny, ask, continue)", text)
}
