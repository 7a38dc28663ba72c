package hooktest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/runner"
)

func testAllow(t *testing.T, s *suite) {
	g := s.rig(t, Allow, luahook.Spec{Event: luahook.PreToolUse})
	res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	if tr.Outcome == nil || tr.Outcome.Action != luahook.ActionAllow {
		t.Fatalf("the hook answered %s, want action=allow", describe(tr.Outcome))
	}
	if res.Denied() || res.Input != nil || res.AdditionalContext != "" {
		t.Fatalf("result = %+v, want the tool allowed unchanged", res)
	}
	if !res.Allowed() {
		t.Fatalf("result allowed=false, want the explicit allow recorded")
	}
}

func testNoObjection(t *testing.T, s *suite) {
	g := s.rig(t, NoObjection, luahook.Spec{Event: luahook.PreToolUse})
	res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	if o := tr.Outcome; o != nil && (o.Action != "" || o.Reason != "" || o.Input != nil || o.AdditionalContext != "" || o.ContextAs != "") {
		t.Fatalf("the hook answered %s, want no objection (a nil outcome)", describe(tr.Outcome))
	}
	if res.Denied() || res.Input != nil || res.AdditionalContext != "" || res.ContextAs != "" {
		t.Fatalf("result = %+v, want nothing changed", res)
	}
	if res.Allowed() || res.Asked() {
		t.Fatalf("result allowed=%v asked=%v, want no objection, not an explicit allow", res.Allowed(), res.Asked())
	}
}

func testDeny(t *testing.T, s *suite) {
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.UserPromptSubmit} {
		t.Run(string(ev), func(t *testing.T) {
			g := s.rig(t, Deny, luahook.Spec{Event: ev})
			res, tr := g.call(payloadFor(ev, t.TempDir()))
			g.answered(tr)
			if tr.Outcome == nil || tr.Outcome.Action != luahook.ActionDeny || tr.Outcome.Reason != DenyReason {
				t.Fatalf("the hook answered %s, want action=deny reason=%s", describe(tr.Outcome), DenyReason)
			}
			if !res.Denied() || res.Reason != DenyReason {
				t.Fatalf("result denied=%v reason=%q, want denied with %q", res.Denied(), res.Reason, DenyReason)
			}
		})
	}
}

func testAsk(t *testing.T, s *suite) {
	g := s.rig(t, Ask, luahook.Spec{Event: luahook.PreToolUse})
	res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	if tr.Outcome == nil || tr.Outcome.Action != luahook.ActionAsk || tr.Outcome.Reason != AskReason {
		t.Fatalf("the hook answered %s, want action=ask reason=%s", describe(tr.Outcome), AskReason)
	}
	if !res.Asked() || res.Reason != AskReason || res.Denied() || res.Allowed() || res.Input != nil {
		t.Fatalf("result asked=%v reason=%q denied=%v allowed=%v input=%.80s; want asked with %q",
			res.Asked(), res.Reason, res.Denied(), res.Allowed(), res.Input, AskReason)
	}
	if o := res.Outcome(); o.Action != luahook.ActionAsk || o.Reason != AskReason {
		t.Fatalf("outcome %s, want action=ask", describe(o))
	}
}

func testContinue(t *testing.T, s *suite) {
	g := s.rig(t, Continue, luahook.Spec{Event: luahook.Stop})
	res, tr := g.call(payloadFor(luahook.Stop, t.TempDir()))
	g.answered(tr)
	if tr.Outcome == nil || tr.Outcome.Action != luahook.ActionContinue || tr.Outcome.Reason != ContinueReason {
		t.Fatalf("the hook answered %s, want action=continue reason=%s", describe(tr.Outcome), ContinueReason)
	}
	if !res.Continues() || res.Reason != ContinueReason || res.Denied() {
		t.Fatalf("result continue=%v reason=%q denied=%v; want continue with %q", res.Continues(), res.Reason, res.Denied(), ContinueReason)
	}
	if o := res.Outcome(); o.Action != luahook.ActionContinue || o.Reason != ContinueReason {
		t.Fatalf("outcome %s, want action=continue", describe(o))
	}
}

// testMisplacedAction: an ask outside PreToolUse and a continue outside
// Stop are invalid output whatever the transport, so that a fail-closed
// hook denies on an event that can block.
func testMisplacedAction(t *testing.T, s *suite) {
	for _, c := range []struct {
		b  Behaviour
		ev luahook.Event
	}{
		{Ask, luahook.UserPromptSubmit}, {Ask, luahook.Stop}, {Continue, luahook.PreToolUse}, {Continue, luahook.SessionStart},
	} {
		t.Run(c.b.String()+"/"+string(c.ev), func(t *testing.T) {
			g := s.rig(t, c.b, luahook.Spec{Event: c.ev, FailurePolicy: luahook.FailClosed})
			res, tr := g.call(payloadFor(c.ev, t.TempDir()))
			f := g.failed(tr, luahook.FailInvalidOutput)
			if !strings.Contains(f.Message, "does not apply to "+string(c.ev)) {
				t.Fatalf("failure %q, want it to name the event and the actions it accepts", f.Message)
			}
			if res.Asked() || res.Continues() || res.Denied() != c.ev.CanBlock() {
				t.Fatalf("result asked=%v continue=%v denied=%v; want denied=%v", res.Asked(), res.Continues(), res.Denied(), c.ev.CanBlock())
			}
		})
	}
}

func testOutputRewrite(t *testing.T, s *suite) {
	token := "ghp_" + strings.Repeat("aB3", 12)
	in := payloadFor(luahook.PostToolUse, t.TempDir())
	in.ToolResult = &luahook.ToolResult{Content: "token " + token + "\npassword hunter2\n"}
	t.Run("redact", func(t *testing.T) {
		g := s.rig(t, RedactOutput, luahook.Spec{Event: luahook.PostToolUse})
		res, tr := g.call(in)
		g.answered(tr)
		want := "token [redacted: " + RedactLabel + "]\npassword [redacted: " + luahook.DefaultRedactLabel + "]\n"
		if res.Output == nil || res.Output.Content != want {
			t.Fatalf("the output the model reads: %+v, want content %q", res.Output, want)
		}
		if len(res.Output.Withheld) != 2 || res.Output.Withheld[0] != (luahook.Withheld{Label: RedactLabel, Count: 1}) {
			t.Fatalf("withheld %+v", res.Output.Withheld)
		}
	})
	t.Run("replace", func(t *testing.T) {
		g := s.rig(t, ReplaceOutput, luahook.Spec{Event: luahook.PostToolUse})
		res, tr := g.call(in)
		g.answered(tr)
		if res.Output == nil || !res.Output.Replaced || !sameJSON(res.Output.Value, json.RawMessage(`{"stdout":"`+ReplacedText+`"}`)) {
			t.Fatalf("the output the model reads: %+v", res.Output)
		}
	})
	t.Run("not on PreToolUse", func(t *testing.T) {
		g := s.rig(t, RedactOutput, luahook.Spec{Event: luahook.PreToolUse, FailurePolicy: luahook.FailClosed})
		res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
		if f := g.failed(tr, luahook.FailInvalidOutput); !strings.Contains(f.Message, "does not apply to PreToolUse") || !res.Denied() {
			t.Fatalf("failure %q, denied %v", f.Message, res.Denied())
		}
	})
}

func testMutateEcho(t *testing.T, s *suite) {
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	checkMutateEcho(t, s, in)
}

func testMutateEchoLarge(t *testing.T, s *suite) {
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	text := strings.Repeat(tricky+" | ", 32<<10/len(tricky)+1)[:32<<10]
	in.ToolInput = json.RawMessage(`{"path":"big.txt","content":` + quote(strings.ToValidUTF8(text, "\uFFFD")) + `}`)
	checkMutateEcho(t, s, in)
}

func checkMutateEcho(t *testing.T, s *suite, in *luahook.Input) {
	t.Helper()
	g := s.rig(t, MutateEcho, luahook.Spec{Event: luahook.PreToolUse})
	res, tr := g.call(in)
	g.answered(tr)
	if tr.Outcome == nil || tr.Outcome.Action != luahook.ActionMutate {
		t.Fatalf("the hook answered %s, want action=mutate", describe(tr.Outcome))
	}
	if !sameJSON(tr.Outcome.Input, in.ToolInput) {
		t.Fatalf("the echoed input differs from the tool input sent:\n got %s\nwant %s",
			luahook.TruncateChars(string(tr.Outcome.Input), 400), luahook.TruncateChars(string(in.ToolInput), 400))
	}
	if res.Denied() || res.Input != nil {
		t.Fatalf("result denied=%v (%s) input=%.80s; want allowed with the input unchanged", res.Denied(), res.Reason, res.Input)
	}
}

func testContext(t *testing.T, s *suite) {
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.PostToolUse, luahook.UserPromptSubmit, luahook.SessionStart} {
		t.Run(string(ev), func(t *testing.T) {
			g := s.rig(t, AddContext, luahook.Spec{Event: ev})
			res, tr := g.call(payloadFor(ev, t.TempDir()))
			g.answered(tr)
			if res.AdditionalContext != ContextText || res.ContextAs != luahook.ContextSeparate || res.Denied() {
				t.Fatalf("result context=%q contextAs=%q denied=%v; want %q, %q, not denied (hook answered %s)",
					res.AdditionalContext, res.ContextAs, res.Denied(), ContextText, luahook.ContextSeparate, describe(tr.Outcome))
			}
		})
	}
}

func testPayload(t *testing.T, s *suite) {
	for _, ev := range luahook.Events() {
		t.Run(string(ev), func(t *testing.T) {
			g := s.rig(t, EchoPayload, luahook.Spec{Event: ev})
			dir := t.TempDir()
			want := payloadFor(ev, dir)
			_, tr := g.call(want)
			if diff := payloadDiff(want, payloadFor(ev, dir)); diff != "" {
				t.Fatalf("the hook changed the caller's payload: %s", diff)
			}
			g.answered(tr)
			if tr.Outcome == nil || tr.Outcome.AdditionalContext == "" {
				t.Fatalf("the hook answered %s, want the payload as additionalContext", describe(tr.Outcome))
			}
			got, err := decodeEcho(tr.Outcome.AdditionalContext)
			if err != nil {
				t.Fatalf("the echoed payload does not decode as a payload: %v\n%s", err, luahook.TruncateChars(tr.Outcome.AdditionalContext, 400))
			}
			if diff := payloadDiff(got, want); diff != "" {
				t.Fatalf("the payload changed on the way: %s", diff)
			}
		})
	}
}

func testLargePayload(t *testing.T, s *suite) {
	block := strings.Repeat(tricky+" | ", 1024/len(tricky)+1)
	ri := repeatInput(block, 1<<20)
	raw, err := json.Marshal(&ri)
	if err != nil {
		t.Fatal(err)
	}
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	in.ToolInput = raw
	g := s.rig(t, VerifyRepeat, luahook.Spec{Event: luahook.PreToolUse})
	res, tr := g.call(in)
	g.answered(tr)
	if res.Denied() {
		t.Fatalf("the hook found the content changed: %s", res.Reason)
	}
	if res.AdditionalContext != block {
		t.Fatalf("the hook reported the block as %q, want %q", luahook.TruncateChars(res.AdditionalContext, 200), luahook.TruncateChars(block, 200))
	}
}

func testDeadline(t *testing.T, s *suite) {
	const deadline = 200 * time.Millisecond
	g := s.rig(t, Hang, luahook.Spec{Event: luahook.PreToolUse, Timeout: deadline})
	res, took := g.fire(context.Background(), payloadFor(luahook.PreToolUse, t.TempDir()), 5*hungLimit)
	tr := g.only(res)
	g.failed(tr, luahook.FailTimeout)
	if took > deadline+hungLimit {
		t.Fatalf("the runner returned %v after the call started, with a %v deadline; want within %v of it", took, deadline, hungLimit)
	}
	if res.Denied() {
		t.Fatalf("a fail-open hook that timed out denied: %s", res.Reason)
	}
}

func testCancel(t *testing.T, s *suite) {
	const after = 100 * time.Millisecond
	g := s.rig(t, Hang, luahook.Spec{Event: luahook.PreToolUse})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := g.start(ctx, payloadFor(luahook.PreToolUse, t.TempDir()))
	select {
	case <-g.probe.entered:
	case res := <-done:
		t.Fatalf("the runner returned without calling the hook: %+v", res)
	}
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(after, func() {
		cancelled <- time.Now()
		cancel()
	})
	res := g.wait(done, callTimeout)
	at := <-cancelled
	if took := time.Since(at); took > hungLimit {
		t.Fatalf("the runner returned %v after the caller cancelled; want within %v", took, hungLimit)
	}
	g.failed(g.only(res), luahook.FailAborted)
}

func testPreCancelled(t *testing.T, s *suite) {
	g := s.rig(t, Deny, luahook.Spec{Event: luahook.PreToolUse})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ := g.fire(ctx, payloadFor(luahook.PreToolUse, t.TempDir()), 5*hungLimit)
	if len(res.Trace) != 1 || res.Trace[0].Failure == nil || res.Trace[0].Failure.Kind != luahook.FailAborted {
		t.Fatalf("trace = %+v, want the one hook failed with kind aborted", res.Trace)
	}
	if n := g.probe.calls.Load(); n != 0 {
		t.Fatalf("the hook was called %d times with a context cancelled before the call", n)
	}
}

// testNilPayload pins one answer for every transport: the runner refuses a
// nil payload before any hook, and denies on an event that can block (Lua
// hooks once said rejected, command and HTTP hooks error).
func testNilPayload(t *testing.T, s *suite) {
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.UserPromptSubmit} {
		t.Run(string(ev), func(t *testing.T) {
			g := s.rig(t, Allow, luahook.Spec{Event: ev})
			for name, res := range map[string]runner.Result{
				"Fire":     g.wait(g.start(context.Background(), nil), callTimeout),
				string(ev): eventMethod(g.runner, ev)(context.Background(), nil),
			} {
				if !res.Denied() || !strings.Contains(res.Reason, "no payload (nil input)") || len(res.Trace) != 0 {
					t.Fatalf("%s(nil) = %+v; want denied naming the nil payload, no hook traced", name, res)
				}
			}
			if n := g.probe.calls.Load(); n != 0 {
				t.Fatalf("the hook was called %d times with a nil payload", n)
			}
		})
	}
}

func eventMethod(r *runner.Runner, ev luahook.Event) func(context.Context, *luahook.Input) runner.Result {
	if ev == luahook.UserPromptSubmit {
		return r.UserPromptSubmit
	}
	return r.PreToolUse
}

// testOverCap: the cap on a hook's payload (max_input_bytes) is the
// runner's, so it holds for every transport, Lua sessions included.
func testOverCap(t *testing.T, s *suite) {
	g := s.cappedRig(t, Allow, luahook.Spec{Event: luahook.PreToolUse}, 1<<10)
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	in.ToolInput = json.RawMessage(`{"content":"` + strings.Repeat("x", 4<<10) + `"}`)
	res, _ := g.fire(context.Background(), in, callTimeout)
	f := g.failed(g.only(res), luahook.FailRejected)
	if !strings.Contains(f.Message, "max_input_bytes") {
		t.Fatalf("failure %v, want it to name max_input_bytes", f)
	}
	if n := g.probe.calls.Load(); n != 0 {
		t.Fatalf("the hook was called %d times with an over-cap payload", n)
	}
	if !res.Denied() || !strings.Contains(res.Reason, "luahook could not decide") {
		t.Fatalf("result denied=%v reason=%q; want denied: no hook could judge the payload", res.Denied(), res.Reason)
	}
}

func testInvalidOutput(t *testing.T, s *suite) {
	for _, b := range []Behaviour{InvalidOutput, UnknownAction, DenyWithoutReason} {
		t.Run(b.String(), func(t *testing.T) {
			g := s.rig(t, b, luahook.Spec{Event: luahook.PreToolUse})
			res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
			g.failed(tr, luahook.FailInvalidOutput)
			if res.Denied() || res.Input != nil {
				t.Fatalf("result denied=%v (%s) input=%.80s; a fail-open hook with invalid output must change nothing",
					res.Denied(), res.Reason, res.Input)
			}
		})
	}
}

func testArrayOutput(t *testing.T, s *suite) {
	for _, policy := range []luahook.FailurePolicy{luahook.FailOpen, luahook.FailClosed} {
		t.Run(string(policy), func(t *testing.T) {
			g := s.rig(t, ArrayOutput, luahook.Spec{Event: luahook.PreToolUse, FailurePolicy: policy})
			res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
			g.failed(tr, luahook.FailInvalidOutput)
			if policy == luahook.FailOpen {
				if res.Denied() || res.Input != nil {
					t.Fatalf("result denied=%v (%s) input=%.80s; a fail-open hook with invalid output must change nothing",
						res.Denied(), res.Reason, res.Input)
				}
				return
			}
			if !res.Denied() || !strings.Contains(res.Reason, "fail-closed") || !strings.Contains(res.Reason, g.name) {
				t.Fatalf("result denied=%v reason=%q; want the fail-closed denial naming the hook", res.Denied(), res.Reason)
			}
		})
	}
}

func testCrash(t *testing.T, s *suite) {
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.PostToolUse} {
		t.Run(string(ev), func(t *testing.T) {
			g := s.rig(t, Crash, luahook.Spec{Event: ev})
			res, tr := g.call(payloadFor(ev, t.TempDir()))
			f := g.failed(tr, luahook.FailError, luahook.FailExit)
			if f.Message == "" {
				t.Fatal("the failure has no message")
			}
			if res.Denied() || res.AdditionalContext != "" {
				t.Fatalf("result denied=%v context=%q; a fail-open hook that crashed must change nothing", res.Denied(), res.AdditionalContext)
			}
		})
	}
}

func testFailClosed(t *testing.T, s *suite) {
	tests := []struct {
		event luahook.Event
		b     Behaviour
		kinds []luahook.FailureKind
	}{
		{luahook.PreToolUse, Crash, []luahook.FailureKind{luahook.FailError, luahook.FailExit}},
		{luahook.PreToolUse, DenyWithoutReason, []luahook.FailureKind{luahook.FailInvalidOutput}},
		{luahook.PreToolUse, Hang, []luahook.FailureKind{luahook.FailTimeout}},
		{luahook.UserPromptSubmit, Crash, []luahook.FailureKind{luahook.FailError, luahook.FailExit}},
	}
	for _, tt := range tests {
		t.Run(string(tt.event)+"/"+tt.b.String(), func(t *testing.T) {
			spec := luahook.Spec{Event: tt.event, FailurePolicy: luahook.FailClosed}
			if tt.b == Hang {
				spec.Timeout = 200 * time.Millisecond
			}
			g := s.rig(t, tt.b, spec)
			res, _ := g.fire(context.Background(), payloadFor(tt.event, t.TempDir()), callTimeout+15*time.Second)
			f := g.failed(g.only(res), tt.kinds...)
			if !res.Denied() {
				t.Fatalf("a fail-closed hook failed (%v) and the result is not a denial", f)
			}
			for _, want := range []string{g.name, string(f.Kind), "fail-closed"} {
				if !strings.Contains(res.Reason, want) {
					t.Fatalf("denial reason %q does not mention %q", res.Reason, want)
				}
			}
		})
	}
}

func testConcurrentDeny(t *testing.T, s *suite) {
	g := s.rig(t, Deny, luahook.Spec{Event: luahook.PreToolUse})
	cwd := t.TempDir()
	concurrently(t, s.opts, func(w, i int) error {
		res := g.runner.PreToolUse(context.Background(), payloadFor(luahook.PreToolUse, cwd))
		if len(res.Trace) == 1 && res.Trace[0].Failure != nil {
			return res.Trace[0].Failure
		}
		if !res.Denied() || res.Reason != DenyReason {
			return fmt.Errorf("denied=%v reason=%q, want denied with %q", res.Denied(), res.Reason, DenyReason)
		}
		return nil
	})
}

func testConcurrentEcho(t *testing.T, s *suite) {
	g := s.rig(t, EchoPayload, luahook.Spec{Event: luahook.PreToolUse})
	cwd := t.TempDir()
	concurrently(t, s.opts, func(w, i int) error {
		in := payloadFor(luahook.PreToolUse, cwd)
		in.SessionID = fmt.Sprintf("hooktest-%d-%d", w, i)
		in.ToolInput = json.RawMessage(fmt.Sprintf(`{"worker":%d,"call":%d}`, w, i))
		res := g.runner.PreToolUse(context.Background(), in)
		if len(res.Trace) != 1 {
			return fmt.Errorf("the trace has %d entries, want 1", len(res.Trace))
		}
		tr := res.Trace[0]
		if tr.Failure != nil {
			return tr.Failure
		}
		if tr.Outcome == nil {
			return fmt.Errorf("no answer, want the payload echoed")
		}
		got, err := decodeEcho(tr.Outcome.AdditionalContext)
		if err != nil {
			return fmt.Errorf("the echo does not decode: %v", err)
		}
		if diff := payloadDiff(got, in); diff != "" {
			return fmt.Errorf("the hook saw another payload: %s", diff)
		}
		return nil
	})
}

// concurrently runs call(w, i) for opts.Calls values of i on each of
// opts.Parallel goroutines w, all at once, and reports the first errors.
func concurrently(t *testing.T, opts Options, call func(w, i int) error) {
	t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
		n    int
	)
	start := make(chan struct{})
	for w := range opts.Parallel {
		wg.Go(func() {
			<-start
			for i := range opts.Calls {
				err := call(w, i)
				mu.Lock()
				n++
				if err != nil {
					errs = append(errs, fmt.Sprintf("goroutine %d call %d: %v", w, i, err))
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d concurrent calls went wrong; the first:\n%s", len(errs), n, strings.Join(errs[:min(len(errs), 5)], "\n"))
	}
}

// start fires in through the runner on another goroutine.
func (g *rig) start(ctx context.Context, in *luahook.Input) <-chan runner.Result {
	done := make(chan runner.Result, 1)
	go func() { done <- g.runner.Fire(ctx, in) }()
	return done
}

// wait waits for a call started with start; a runner that has not returned
// after limit fails the test rather than hang it.
func (g *rig) wait(done <-chan runner.Result, limit time.Duration) runner.Result {
	g.t.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case res := <-done:
		return res
	case <-timer.C:
		g.t.Fatalf("the runner did not return within %v: the hook holds the host", limit)
		panic("unreachable")
	}
}

// approver is the runner.Approver of the web approval cases: it decides
// every request at once, as the case says (approve or deny, as ApproveBy,
// with reason), and keeps the requests it was asked.
type approver struct {
	approve bool
	reason  string
	mu      sync.Mutex
	asked   []runner.ApprovalRequest
}

// approvalID is the ID of every decision of an approver.
const approvalID = "hooktest-approval"

// Await records req and decides it.
func (a *approver) Await(ctx context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return runner.ApprovalDecision{}, err
	}
	return runner.ApprovalDecision{ID: approvalID, Approved: a.approve, By: ApproveBy, At: time.Now().UTC(), Reason: a.reason}, nil
}

// requests returns the requests a was asked so far.
func (a *approver) requests() []runner.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}

// approveRig is a rig of the Approve behaviour on PreToolUse whose runner
// has a as its approver (nil: none).
func (s *suite) approveRig(t *testing.T, a *approver) *rig {
	t.Helper()
	g := s.rig(t, Approve, luahook.Spec{Event: luahook.PreToolUse})
	if a != nil {
		g.runner.SetApprover(a)
	}
	return g
}

// testApproveRoute: route "web", the approvers and timeoutMs of a web
// approval survive each transport's encoding, exactly.
func testApproveRoute(t *testing.T, s *suite) {
	g := s.approveRig(t, &approver{approve: true})
	_, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	o := tr.Outcome
	if o == nil || o.Action != luahook.ActionAsk || o.Reason != ApproveReason {
		t.Fatalf("the hook answered %s, want action=ask reason=%s", describe(o), ApproveReason)
	}
	if o.Route != luahook.RouteWeb || !slices.Equal(o.Approvers, []string{ApproveBy}) || o.TimeoutMs != ApproveTimeout.Milliseconds() {
		t.Fatalf("the hook's web approval reached the runner as route=%q approvers=%q timeoutMs=%d; want route=%q approvers=%q timeoutMs=%d",
			o.Route, o.Approvers, o.TimeoutMs, luahook.RouteWeb, []string{ApproveBy}, ApproveTimeout.Milliseconds())
	}
}

// testApproveApproved: a person's approval allows the call, and the result
// records it: approved, by whom, bound to the call's digest.
func testApproveApproved(t *testing.T, s *suite) {
	g := s.approveRig(t, &approver{approve: true})
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	res, tr := g.call(in)
	g.answered(tr)
	if !res.Allowed() || res.Denied() || res.Asked() {
		t.Fatalf("result allowed=%v denied=%v (%s) asked=%v; want the approved call allowed", res.Allowed(), res.Denied(), res.Reason, res.Asked())
	}
	a := res.Approval
	if a == nil {
		t.Fatal("the result records no approval")
	}
	if want := ledger.Digest(in.ToolName, in.ToolInput); a.Verdict != runner.ApprovalApproved || a.By != ApproveBy || a.ID != approvalID || a.Digest != want {
		t.Fatalf("approval %+v; want verdict %q by %q, id %q, digest %s", *a, runner.ApprovalApproved, ApproveBy, approvalID, want)
	}
}

// testApproveDenied: a person's denial denies the call with their reason.
func testApproveDenied(t *testing.T, s *suite) {
	const why = "hooktest: not on a Friday"
	g := s.approveRig(t, &approver{approve: false, reason: why})
	res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	if !res.Denied() || !strings.Contains(res.Reason, why) || res.Input != nil {
		t.Fatalf("result denied=%v reason=%q input=%.80s; want denied with the person's reason %q", res.Denied(), res.Reason, res.Input, why)
	}
	if a := res.Approval; a == nil || a.Verdict != runner.ApprovalDenied || a.By != ApproveBy || a.Reason != why {
		t.Fatalf("approval %+v; want verdict %q by %q with reason %q", a, runner.ApprovalDenied, ApproveBy, why)
	}
}

// testApproveUnserved: with no approver on the runner, nobody can decide a
// web approval, so the call is denied, saying so.
func testApproveUnserved(t *testing.T, s *suite) {
	g := s.approveRig(t, nil)
	res, tr := g.call(payloadFor(luahook.PreToolUse, t.TempDir()))
	g.answered(tr)
	if !res.Denied() || !strings.Contains(strings.ToLower(res.Reason), "approval") {
		t.Fatalf("result denied=%v asked=%v reason=%q; want denied, the reason naming the approval nobody serves", res.Denied(), res.Asked(), res.Reason)
	}
	if a := res.Approval; a == nil || a.Verdict != runner.ApprovalFailed || a.By != "" {
		t.Fatalf("approval %+v; want verdict %q, decided by nobody", a, runner.ApprovalFailed)
	}
}

// testApproveRequest: the person is asked about the call as the hook put
// it: its reason, its approvers, a timeout no longer than it gave, the
// tool and input, and the hook that asked.
func testApproveRequest(t *testing.T, s *suite) {
	a := &approver{approve: true}
	g := s.approveRig(t, a)
	in := payloadFor(luahook.PreToolUse, t.TempDir())
	g.call(in)
	reqs := a.requests()
	if len(reqs) != 1 {
		t.Fatalf("the approver was asked %d times, want once", len(reqs))
	}
	r := reqs[0]
	if !slices.Equal(r.Reasons, []string{ApproveReason}) || !slices.Equal(r.Approvers, []string{ApproveBy}) {
		t.Fatalf("the approver was asked with reasons %q and approvers %q; want %q and %q", r.Reasons, r.Approvers, []string{ApproveReason}, []string{ApproveBy})
	}
	if r.Timeout <= 0 || r.Timeout > ApproveTimeout {
		t.Fatalf("the approver was given %v to decide, want at most the %v the hook asked for", r.Timeout, ApproveTimeout)
	}
	if r.Tool != in.ToolName || !sameJSON(r.Input, in.ToolInput) || r.Digest != ledger.Digest(in.ToolName, in.ToolInput) {
		t.Fatalf("the approver was asked about tool %q input %.80s digest %s; want the call's tool %q and input", r.Tool, r.Input, r.Digest, in.ToolName)
	}
	if !slices.Equal(r.Hooks, []string{g.name}) {
		t.Fatalf("the approver was told hooks %q asked, want %q", r.Hooks, g.name)
	}
}

// testApproveMisplaced: a web approval is an ask, so outside PreToolUse it
// is invalid_output on every transport, and no person is asked.
func testApproveMisplaced(t *testing.T, s *suite) {
	for _, ev := range []luahook.Event{luahook.UserPromptSubmit, luahook.Stop, luahook.PostToolUse} {
		t.Run(string(ev), func(t *testing.T) {
			a := &approver{approve: true}
			g := s.rig(t, Approve, luahook.Spec{Event: ev, FailurePolicy: luahook.FailClosed})
			g.runner.SetApprover(a)
			res, tr := g.call(payloadFor(ev, t.TempDir()))
			f := g.failed(tr, luahook.FailInvalidOutput)
			if !strings.Contains(f.Message, "does not apply to "+string(ev)) {
				t.Fatalf("failure %q, want it to name the event and the actions it accepts", f.Message)
			}
			if res.Asked() || res.Allowed() || res.Approval != nil || res.Denied() != ev.CanBlock() {
				t.Fatalf("result asked=%v allowed=%v approval=%+v denied=%v; want denied=%v and no approval",
					res.Asked(), res.Allowed(), res.Approval, res.Denied(), ev.CanBlock())
			}
			if n := len(a.requests()); n != 0 {
				t.Fatalf("the approver was asked %d times on %s", n, ev)
			}
		})
	}
}
