package hooktest_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
)

// brokenEnv, set in the environment of a test process, makes it the helper
// process of TestSuiteFailsExactlyTheRulesABrokenHookBreaks.
const brokenEnv = "HOOKTEST_BROKEN_HELPER"

// The rules as Run names them, for the expectations below.
const (
	ruleAllow          = "allow is reported as an explicit allow"
	ruleNoObjection    = "no objection is a nil outcome"
	ruleDeny           = "deny stops the tool and blocks the prompt with its reason"
	ruleMutate         = "mutate echo gives the tool input back unchanged"
	ruleMutateLarge    = "a 32 KiB tool input comes back unchanged"
	ruleContext        = "context reaches the host with its contextAs"
	rulePayload        = "the payload arrives intact on every event"
	ruleLarge          = "a 1 MiB tool input arrives intact"
	ruleDeadline       = "a hung hook fails with timeout at its deadline"
	ruleCancel         = "cancelling the caller aborts a hung hook"
	rulePreCancelled   = "an already cancelled call aborts without calling the hook"
	ruleInvalid        = "output that is not a valid outcome is invalid_output"
	ruleArray          = "an array answer is invalid_output, never no objection"
	ruleCrash          = "a crashing hook is a failure and never crashes the host"
	ruleFailClosed     = "a failure of a fail-closed hook denies and names the hook"
	ruleConcurrentDeny = "concurrent calls all get the deny"
	ruleConcurrentEcho = "concurrent calls never see each other's payload"
	ruleApproveRoute   = "a web approval keeps its route, approvers and timeoutMs"
	ruleApproved       = "a web approval a person approves allows, recording who and the call's digest"
	ruleApproveDenied  = "a web approval a person denies denies with their reason"
	ruleApproveNone    = "a web approval with no approver served denies"
	ruleApproveRequest = "the approver is asked with the hook's reason, approvers, timeout and the tool"
)

// breakage is a Go hook that breaks one rule of the contract, standing in
// for a transport with a bug.
type breakage struct {
	name      string
	behaviour hooktest.Behaviour               // the behaviour it replaces
	hook      func(tb testing.TB) luahook.Hook // the broken hook
	fails     []string                         // the rules Run must report as failed, and no others
}

func echoOf(in *luahook.Input) (*luahook.Outcome, error) {
	data, err := json.Marshal(in)
	return luahook.Context(string(data)), err
}

var breakages = []breakage{
	{"deny with another reason", hooktest.Deny,
		func(testing.TB) luahook.Hook { return answer(luahook.Deny("not the reason asked for")) },
		[]string{ruleDeny, ruleConcurrentDeny}},
	{"allow answered as no objection", hooktest.Allow,
		func(testing.TB) luahook.Hook { return answer(nil) },
		[]string{ruleAllow}},
	{"no objection answered as allow", hooktest.NoObjection,
		func(testing.TB) luahook.Hook { return answer(luahook.Allow()) },
		[]string{ruleNoObjection}},
	{"mutate echo changes a value", hooktest.MutateEcho,
		func(testing.TB) luahook.Hook {
			return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				var v map[string]any
				if err := json.Unmarshal(in.ToolInput, &v); err != nil {
					return nil, err
				}
				v["extra"] = 1
				data, err := json.Marshal(v)
				return luahook.Mutate(data), err
			})
		},
		[]string{ruleMutate, ruleMutateLarge}},
	{"context delivered inline", hooktest.AddContext,
		func(testing.TB) luahook.Hook {
			return answer(&luahook.Outcome{AdditionalContext: hooktest.ContextText, ContextAs: luahook.ContextInline})
		},
		[]string{ruleContext}},
	{"payload loses its session id", hooktest.EchoPayload,
		func(testing.TB) luahook.Hook {
			return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				c := *in
				c.SessionID = ""
				return echoOf(&c)
			})
		},
		[]string{rulePayload, ruleConcurrentEcho}},
	{"payload of one call answered to another", hooktest.EchoPayload,
		func(testing.TB) luahook.Hook {
			var once sync.Once
			var first *luahook.Input
			return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				once.Do(func() { first = in })
				return echoOf(first)
			})
		},
		[]string{ruleConcurrentEcho}},
	{"a large input arrives truncated", hooktest.VerifyRepeat,
		func(testing.TB) luahook.Hook {
			return luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
				var ri hooktest.RepeatInput
				if err := json.Unmarshal(in.ToolInput, &ri); err != nil {
					return nil, err
				}
				ri.Content = ri.Content[:64<<10]
				if why := ri.Check(); why != "" {
					return luahook.Deny(why), nil
				}
				return luahook.Context(ri.Block), nil
			})
		},
		[]string{ruleLarge}},
	{"a hung hook answers at once", hooktest.Hang,
		func(testing.TB) luahook.Hook { return answer(nil) },
		[]string{ruleDeadline, ruleCancel, ruleFailClosed}},
	{"invalid output taken for an answer", hooktest.InvalidOutput,
		func(testing.TB) luahook.Hook { return answer(luahook.Allow()) },
		[]string{ruleInvalid}},
	{"a deny without reason still denies", hooktest.DenyWithoutReason,
		func(testing.TB) luahook.Hook { return answer(luahook.Deny("filled in by the transport")) },
		[]string{ruleInvalid, ruleFailClosed}},
	{"an array answer taken for no objection", hooktest.ArrayOutput,
		func(testing.TB) luahook.Hook { return answer(nil) },
		[]string{ruleArray}},
	{"an array answer unwrapped to its first item", hooktest.ArrayOutput,
		func(testing.TB) luahook.Hook { return answer(luahook.Deny(hooktest.DenyReason)) },
		[]string{ruleArray}},
	{"a crash swallowed as no objection", hooktest.Crash,
		func(testing.TB) luahook.Hook { return answer(nil) },
		[]string{ruleCrash, ruleFailClosed}},
	{"web approval loses its approvers and timeout", hooktest.Approve,
		func(testing.TB) luahook.Hook {
			return answer(&luahook.Outcome{Action: luahook.ActionAsk, Reason: hooktest.ApproveReason, Route: luahook.RouteWeb})
		},
		[]string{ruleApproveRoute, ruleApproveRequest}},
	{"web approval loses its route", hooktest.Approve,
		func(testing.TB) luahook.Hook { return answer(luahook.Ask(hooktest.ApproveReason)) },
		[]string{ruleApproveRoute, ruleApproved, ruleApproveDenied, ruleApproveNone, ruleApproveRequest}},
	{"web approval gives a longer timeout", hooktest.Approve,
		func(testing.TB) luahook.Hook {
			return answer(luahook.Approve(hooktest.ApproveReason, []string{hooktest.ApproveBy}, 2*hooktest.ApproveTimeout))
		},
		[]string{ruleApproveRoute, ruleApproveRequest}},
}

// TestHelperBrokenFactory is not a test of its own: it runs the suite over
// each breakage when TestSuiteFailsExactlyTheRulesABrokenHookBreaks starts
// this test binary as a helper process, and does nothing otherwise.
func TestHelperBrokenFactory(t *testing.T) {
	if os.Getenv(brokenEnv) == "" {
		return
	}
	for _, bk := range breakages {
		t.Run(bk.name, func(t *testing.T) {
			t.Parallel()
			hooktest.Run(t, func(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
				if b == bk.behaviour {
					return bk.hook(tb)
				}
				return goFactory(tb, b)
			}, hooktest.Options{Parallel: 4, Calls: 5})
		})
	}
}

var resultLine = regexp.MustCompile(`--- (PASS|FAIL): TestHelperBrokenFactory/([^/\s]+)/([^/\s]+) `)

func TestSuiteFailsExactlyTheRulesABrokenHookBreaks(t *testing.T) {
	rules := hooktest.Rules()
	for _, bk := range breakages {
		for _, r := range bk.fails {
			if !slices.Contains(rules, r) {
				t.Fatalf("breakage %q expects rule %q, which Run does not have", bk.name, r)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperBrokenFactory$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the helper passed although every breakage breaks a rule:\n%s", out)
	}
	// got[mode][rule] = "PASS" or "FAIL"
	got := map[string]map[string]string{}
	for _, m := range resultLine.FindAllStringSubmatch(string(out), -1) {
		if got[m[2]] == nil {
			got[m[2]] = map[string]string{}
		}
		got[m[2]][m[3]] = m[1]
	}
	for _, bk := range breakages {
		mode := subtestName(bk.name)
		for _, rule := range rules {
			want := "PASS"
			if slices.Contains(bk.fails, rule) {
				want = "FAIL"
			}
			if g := got[mode][subtestName(rule)]; g != want {
				t.Errorf("with a hook whose %s, rule %q: %q, want %s", bk.name, rule, g, want)
			}
		}
	}
	if t.Failed() {
		t.Logf("helper output:\n%s", out)
	}
}

// subtestName is the name testing gives a subtest run as t.Run(name, ...).
func subtestName(name string) string { return strings.ReplaceAll(name, " ", "_") }
