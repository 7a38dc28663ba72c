package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
)

// Approver decides web approvals (luahook.RouteWeb): a person approves or
// denies a PreToolUse call that a hook asked them about. Await blocks until
// someone decides the request or ctx ends (the runner bounds it by the
// request's Timeout and the caller's context); it returns ctx's error when
// nobody decided, or another error when the request could not be put to
// anyone (too many waiting, the approver closed). It must be safe for
// concurrent use. luahook serve's is internal/approvals' Hub; a policy
// test's answers as the test says.
type Approver interface {
	Await(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)
}

// ApprovalRequest is a PreToolUse call put to a person.
type ApprovalRequest struct {
	// Digest identifies the call (ledger.Digest of the tool and the input
	// asked about): a decision is bound to it.
	Digest string `json:"digest"`
	Tool   string `json:"tool"`
	// Input is the tool input asked about (as the mutate stage left it).
	Input   []byte `json:"-"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// Client is the name the payload's sender authenticated as.
	Client string `json:"client,omitempty"`
	// Reasons are the asks' reasons, in execution order.
	Reasons []string `json:"reasons"`
	// Approvers may decide (every name each web-routed ask allows); empty:
	// anyone the approver authenticates.
	Approvers []string `json:"approvers,omitempty"`
	// Timeout is how long the call waits: the shortest the asks gave.
	Timeout time.Duration `json:"-"`
	// Hooks are the names of the hooks that routed their ask to the web.
	Hooks []string `json:"hooks"`
}

// ApprovalDecision is a person's decision on an ApprovalRequest.
type ApprovalDecision struct {
	// ID names the approval (unguessable, single-use).
	ID       string `json:"id"`
	Approved bool   `json:"approved"`
	// By is the name of who decided.
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// The verdicts of an Approval.
const (
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
	// ApprovalTimedOut: nobody decided within the request's Timeout.
	ApprovalTimedOut = "timeout"
	// ApprovalFailed: the request could not be put to anyone (no
	// approver, too many waiting, the call was cancelled).
	ApprovalFailed = "failed"
)

// Approval records how a web approval ended (Result.Approval): what the
// decision log, explain and policy tests see.
type Approval struct {
	ID     string `json:"id,omitempty"`
	Digest string `json:"digest"`
	// Verdict is ApprovalApproved, ApprovalDenied, ApprovalTimedOut or
	// ApprovalFailed.
	Verdict string `json:"verdict"`
	// By is who decided ("" when nobody did).
	By string `json:"by,omitempty"`
	// At is when it was decided (or gave up).
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
	// Approvers and TimeoutMs are what the asks required.
	Approvers []string `json:"approvers,omitempty"`
	TimeoutMs int64    `json:"timeoutMs"`
}

// SetApprover replaces the approver of web approvals (Options.Approver)
// for the calls that ask afterwards; nil leaves none, and such calls are
// denied.
func (r *Runner) SetApprover(a Approver) {
	if a == nil {
		r.approver.Store(nil)
		return
	}
	r.approver.Store(&a)
}

// Approver returns the runner's approver (Options.Approver, SetApprover),
// nil when it has none.
func (r *Runner) Approver() Approver {
	if p := r.approver.Load(); p != nil {
		return *p
	}
	return nil
}

// approverBox holds the runner's Approver.
type approverBox = atomic.Pointer[Approver]

// webAsk gathers the asks of a call that were routed to the web, from its
// trace: approvers each ask allows, the shortest timeout, and who asked.
type webAsk struct {
	hooks     []string
	reasons   []string
	approvers []string // nil: anyone
	narrowed  bool     // some ask named approvers
	timeout   time.Duration
}

// webAsks reads res's trace for the live asks routed to the web; ok is
// false when none was (the ask stays the agent's own).
func webAsks(res *Result) (w webAsk, ok bool) {
	for i := range res.Trace {
		t := &res.Trace[i]
		o := t.Outcome
		if t.Mode == luahook.ModeShadow || t.Failure != nil || o == nil || o.Action != luahook.ActionAsk {
			continue
		}
		w.reasons = append(w.reasons, o.Reason)
		if o.Route != luahook.RouteWeb {
			continue
		}
		ok = true
		w.hooks = append(w.hooks, t.Name)
		if d := o.ApprovalTimeout(); w.timeout == 0 || d < w.timeout {
			w.timeout = d
		}
		if len(o.Approvers) > 0 {
			if !w.narrowed {
				w.approvers = slices.Clone(o.Approvers)
			} else {
				// A decider must be one every ask that named
				// approvers allows.
				w.approvers = slices.DeleteFunc(w.approvers, func(a string) bool { return !slices.Contains(o.Approvers, a) })
			}
			w.narrowed = true
		}
	}
	return w, ok
}

// routeAsk puts an asked PreToolUse call to a person when a hook routed
// its ask to the web (luahook.RouteWeb): the verdict becomes an explicit
// allow when they approve, a deny otherwise, nobody deciding within the
// timeout, or no Approver to ask. A call that no hook routed to the web
// keeps its ask.
func (r *Runner) routeAsk(ctx context.Context, in *luahook.Input, res *Result) {
	w, ok := webAsks(res)
	if !ok {
		return
	}
	input := in.ToolInput
	if res.Input != nil {
		input = res.Input
	}
	rec := &Approval{Digest: ledger.Digest(in.ToolName, input), Approvers: w.approvers, TimeoutMs: w.timeout.Milliseconds()}
	res.Approval = rec
	who := strings.Join(w.hooks, ", ")
	fail := func(reason string) {
		rec.Verdict, rec.At, rec.Reason = ApprovalFailed, time.Now().UTC(), reason
		res.deny(reason)
		res.Input = nil
	}
	if w.narrowed && len(w.approvers) == 0 {
		fail("this call needs a web approval (asked by " + who + "), but the hooks that asked name no approver in common, so nobody may decide it")
		return
	}
	ap := r.approver.Load()
	if ap == nil {
		fail("this call needs a web approval (asked by " + who + ") and none is served here: run luahook serve --approvals")
		return
	}
	wctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	d, err := (*ap).Await(wctx, ApprovalRequest{
		Digest: rec.Digest, Tool: in.ToolName, Input: input, Session: in.SessionID, Agent: in.Agent, Client: in.Client,
		Reasons: w.reasons, Approvers: w.approvers, Timeout: w.timeout, Hooks: w.hooks,
	})
	rec.ID = d.ID
	switch {
	case err == nil && d.Approved:
		rec.Verdict, rec.By, rec.At, rec.Reason = ApprovalApproved, d.By, d.At, d.Reason
		res.Verdict, res.Reason = luahook.VerdictAllow, ""
	case err == nil:
		rec.Verdict, rec.By, rec.At, rec.Reason = ApprovalDenied, d.By, d.At, d.Reason
		reason := "denied by " + decider(d.By) + " on the web approval"
		if d.Reason != "" {
			reason += ": " + d.Reason
		}
		res.deny(reason)
		res.Input = nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		rec.Verdict, rec.At = ApprovalTimedOut, time.Now().UTC()
		rec.Reason = fmt.Sprintf("no one decided the web approval (asked by %s) within %s", who, w.timeout)
		res.deny(rec.Reason)
		res.Input = nil
	case ctx.Err() != nil:
		fail("the call ended while it waited for a web approval (asked by " + who + "): " + ctx.Err().Error())
	default:
		fail("the web approval (asked by " + who + ") could not be asked: " + err.Error())
	}
}

// decider names who decided, for a reason.
func decider(by string) string {
	if by == "" {
		return "an unnamed client"
	}
	return by
}
