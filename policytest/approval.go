package policytest

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/runner"
)

// The answers a policy test gives a web approval (fire's third argument,
// {approval = ...}).
const (
	answerApprove = "approve"
	answerDeny    = "deny"
	answerTimeout = "timeout"
)

// approvalAnswer is how a test's fire answers the web approvals its call
// asks for: approve or deny as by with reason, or let it time out.
type approvalAnswer struct {
	verdict string
	by      string
	reason  string
}

type answerKey struct{}

// testApprover is the runner.Approver of policy tests: it answers at once
// with what the fire call asked for (fire(event, payload, {approval =
// "approve" | "deny" | "timeout", by = name, reason = text})); a call that
// gave no answer times out, as when nobody is there to decide, without
// the wait. A test that names no decider decides as "test".
type testApprover struct{}

var _ runner.Approver = testApprover{}

func (testApprover) Await(ctx context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	a, _ := ctx.Value(answerKey{}).(*approvalAnswer)
	if a == nil || a.verdict == answerTimeout {
		return runner.ApprovalDecision{ID: "test"}, context.DeadlineExceeded
	}
	by := a.by
	if by == "" {
		by = "test"
	}
	return runner.ApprovalDecision{ID: "test", Approved: a.verdict == answerApprove, By: by, At: time.Now().UTC(), Reason: a.reason}, nil
}

// fireOptions reads fire's third argument, {approval = ..., by = ...,
// reason = ...}, into ctx; a nil argument leaves ctx as it is.
func fireOptions(L *lua.LState, ctx context.Context) context.Context {
	switch o := L.Get(3).(type) {
	case *lua.LNilType:
		return ctx
	case *lua.LTable:
		a := &approvalAnswer{}
		for k, v := o.Next(lua.LNil); k != lua.LNil; k, v = o.Next(k) {
			s, ok := v.(lua.LString)
			if !ok {
				L.ArgError(3, "fire's options: "+k.String()+" must be a string, got "+v.Type().String())
			}
			switch k.String() {
			case "approval":
				switch string(s) {
				case answerApprove, answerDeny, answerTimeout:
					a.verdict = string(s)
				default:
					L.ArgError(3, "fire's options: approval must be \"approve\", \"deny\" or \"timeout\", got "+string(s))
				}
			case "by":
				a.by = string(s)
			case "reason":
				a.reason = string(s)
			default:
				L.ArgError(3, "fire's options: unknown key "+k.String()+" (known keys: approval, by, reason)")
			}
		}
		if a.verdict == "" {
			L.ArgError(3, "fire's options: approval is required (\"approve\", \"deny\" or \"timeout\")")
		}
		return context.WithValue(ctx, answerKey{}, a)
	default:
		L.ArgError(3, "an options table expected, got "+o.Type().String())
	}
	return ctx
}
