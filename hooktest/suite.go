package hooktest

import (
	"testing"
)

// suite is one run of the conformance cases over a factory.
type suite struct {
	factory Factory
	opts    Options
}

// conformance case: a rule of the contract and the test that guards it.
type conformance struct {
	rule string
	run  func(t *testing.T, s *suite)
}

// Run runs every conformance case as a subtest of t, named after the rule it
// guards. Each case calls f for the behaviours it needs, registers the hook
// in a fresh registry as the only hook of its event and fires the event
// through a real runner.
func Run(t *testing.T, f Factory, opts Options) {
	t.Helper()
	s := &suite{factory: f, opts: opts.withDefaults()}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) { c.run(t, s) })
	}
}

// Rules returns the names of the conformance cases, in the order Run runs
// them: the rules a transport keeps when it passes.
func Rules() []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c.rule
	}
	return out
}

// cases are the conformance cases, in the order Run runs them. Read-only.
var cases = [...]conformance{
	{"allow is reported as an explicit allow", testAllow},
	{"no objection is a nil outcome", testNoObjection},
	{"deny stops the tool and blocks the prompt with its reason", testDeny},
	{"ask hands the tool call to the user with its reason", testAsk},
	{"continue keeps the agent going at Stop with its reason", testContinue},
	{"ask and continue are invalid_output on the events that do not take them", testMisplacedAction},
	{"a web approval keeps its route, approvers and timeoutMs", testApproveRoute},
	{"a web approval a person approves allows, recording who and the call's digest", testApproveApproved},
	{"a web approval a person denies denies with their reason", testApproveDenied},
	{"a web approval with no approver served denies", testApproveUnserved},
	{"the approver is asked with the hook's reason, approvers, timeout and the tool", testApproveRequest},
	{"a web approval is invalid_output outside PreToolUse and asks no one", testApproveMisplaced},
	{"redact and replace_output rewrite a tool's output, the same way on every transport", testOutputRewrite},
	{"mutate echo gives the tool input back unchanged", testMutateEcho},
	{"a 32 KiB tool input comes back unchanged", testMutateEchoLarge},
	{"context reaches the host with its contextAs", testContext},
	{"the payload arrives intact on every event", testPayload},
	{"a 1 MiB tool input arrives intact", testLargePayload},
	{"a hung hook fails with timeout at its deadline", testDeadline},
	{"cancelling the caller aborts a hung hook", testCancel},
	{"an already cancelled call aborts without calling the hook", testPreCancelled},
	{"a nil payload is refused before the hook is called", testNilPayload},
	{"a payload over the input cap is rejected without calling the hook", testOverCap},
	{"output that is not a valid outcome is invalid_output", testInvalidOutput},
	{"an array answer is invalid_output, never no objection", testArrayOutput},
	{"a crashing hook is a failure and never crashes the host", testCrash},
	{"a failure of a fail-closed hook denies and names the hook", testFailClosed},
	{"concurrent calls all get the deny", testConcurrentDeny},
	{"concurrent calls never see each other's payload", testConcurrentEcho},
}
