package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
)

// runFireAgent is fire --agent: the agent's payload in, exactly the
// agent's answer out. Every path that cannot reach a decision goes through
// undecided, which blocks on an event that can block (--on-load-error deny,
// the default), proceeds with a warning (skip) or exits 1 (fail).
func runFireAgent(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string) error {
	return fireAgentWith(cmd, g, s, o, args, nil)
}

// fireAgentWith is fire --agent with the payload pre when plain fire read it
// already (and found it to be an agent's), else the one it reads.
func fireAgentWith(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string, pre *readResult) error {
	ctx := cmd.Context()
	if o.tool != "" {
		return errors.New("--tool does not apply with --agent: the agent's payload names its tool")
	}
	if o.http != "" && o.socket != "" {
		return errors.New("--http and --socket name two servers: give one")
	}
	if err := engine.CheckOnLoadError(o.onLoadError); err != nil {
		return fmt.Errorf("--on-load-error %w", err)
	}
	var a agent.Adapter
	if o.agent != "auto" {
		var err error
		if a, err = agent.Lookup(o.agent); err != nil {
			return fmt.Errorf("--agent: %w", err)
		}
	}
	var event string // the agent's name for the event, "" when the payload names it
	if len(args) == 1 {
		event = args[0]
	}
	var data []byte
	var readErr error
	if pre != nil {
		data, readErr = pre.data, pre.err
	} else {
		data, readErr = readPayload(ctx, o.input, s.in, s.err, o.readTimeout)
	}
	if a == nil {
		var ok bool
		if a, ok = agent.Detect(data); !ok {
			if readErr == nil && (o.http != "" || o.socket != "") {
				return errors.New("--http and --socket forward an agent's payload; this one is in luahook's own format")
			}
			// luahook's own format: fire as without --agent. A payload that
			// could not be read at all is left to plain fire's rules too:
			// without an agent there is no block signal to answer with.
			return firePlain(cmd, g, s, o, args, &readResult{data, readErr})
		}
	}
	if o.http != "" || o.socket != "" {
		return fireForward(ctx, s, o, a, event, data, readErr)
	}

	logger, err := g.loggerFor("fire", s.err, false)
	if err != nil {
		return err
	}
	dlog, err := fireDecisionLog(o.decisionLog)
	if err != nil {
		return err
	}
	// Decoded first: the payload's cwd says which project's policies judge it.
	var req *agent.Request
	var decodeErr error
	if readErr == nil {
		req, decodeErr = a.Decode(data, event)
	}
	var decoded *luahook.Input
	if req != nil {
		decoded = req.Input
	}
	eng, problems, err := openForFire(ctx, g, logger, dlog, payloadStart(decoded, o.project), o.project)
	if err != nil {
		// Nothing could be opened (a named folder that is missing, an
		// unreadable config): a load problem like any other.
		eng, problems = nil, append(problems, err)
	}
	if eng != nil {
		defer eng.Close()
	}
	u := undecided{a: a, mode: eng.OnLoadError(o.onLoadError), s: s}

	if answered, err := u.decoded(event, readErr, decodeErr); answered {
		return err
	}
	var diag bytes.Buffer
	if req.Input == nil {
		// An event with no luahook equivalent: no objection, nothing fired.
		return writeAnswer(s, a.Encode(req, agent.Decision{}), &diag)
	}
	in := req.Input
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	if eng.Undecidable(problems, u.mode) != nil {
		reportLoadErrors(s.err, problems)
		return fmt.Errorf("not fired: %d load error(s) (--on-load-error fail)", len(problems))
	}
	res := engine.Result{Event: in.Event}
	if eng != nil {
		res = eng.Runner().Fire(ctx, in)
	}
	if ctx.Err() != nil {
		// Stopped by a signal: whatever the hooks returned was cut short.
		return writeAnswer(s, a.Block(req.Event, "luahook was interrupted before it could decide ("+
			context.Cause(ctx).Error()+")"), &diag)
	}
	if o.trace {
		res.RenderTrace(s.err, engine.TraceOptions{})
	}
	reportFailures(&diag, res.Trace)
	warn, closed, err := eng.CloseOver(&res, problems, u.mode)
	if err != nil {
		return err
	}
	if closed {
		// Denied for what did not load: the agent's own block signal.
		return writeAnswer(s, a.Block(req.Event, res.Reason), &diag)
	}
	for _, p := range warn {
		fmt.Fprintln(&diag, "luahook: warning: not loaded, running without it:", termtext.Block(p.Error()))
	}
	return writeAnswer(s, a.Encode(req, agent.FromResult(res)), &diag)
}

// undecided answers a call fire could not decide, as the --on-load-error
// mode in force says.
type undecided struct {
	a    agent.Adapter
	mode string
	s    *streams
}

// answer answers the call on event (the agent's name, "" when unknown)
// that fire could not decide, for reason: the agent's block signal (deny),
// a warning and no objection (skip), or exit 1 (fail).
func (u undecided) answer(event, reason string) error {
	switch u.mode {
	case engine.OnLoadErrorSkip:
		var diag bytes.Buffer
		fmt.Fprintln(&diag, "luahook: warning:", termtext.Block(reason)+"; proceeding (--on-load-error skip)")
		return writeAnswer(u.s, agent.Answer{}, &diag)
	case engine.OnLoadErrorFail:
		return errors.New(reason)
	}
	return writeAnswer(u.s, u.a.Block(event, luahook.TruncateReason(reason)), nil)
}

// decoded answers as undecided a native payload for event that could not
// be read (readErr) or decoded (decodeErr): answered is true, and err what
// answering returned.
func (u undecided) decoded(event string, readErr, decodeErr error) (answered bool, err error) {
	switch {
	case readErr != nil:
		return true, u.answer(event, "luahook could not read the payload ("+readErr.Error()+")")
	case decodeErr != nil:
		if de := (*agent.DecodeError)(nil); errors.As(decodeErr, &de) {
			event = de.Event
		}
		return true, u.answer(event, "luahook could not read the payload ("+decodeErr.Error()+")")
	}
	return false, nil
}

// writeAnswer writes ans exactly as the agent reads it: ans.Stdout on
// standard output, ans.Stderr on standard error, exit status ans.ExitCode.
// diag (failed hooks, warnings) goes to standard error before
// ans.Stderr only when the answer lets the agent proceed (exit 0): on exit
// 2 standard error is the reason the agent reads.
func writeAnswer(s *streams, ans agent.Answer, diag *bytes.Buffer) error {
	if _, err := s.out.Write(ans.Stdout); err != nil {
		return err
	}
	if diag != nil && ans.ExitCode == 0 {
		_, _ = io.Copy(s.err, diag)
	}
	_, _ = io.WriteString(s.err, ans.Stderr)
	if ans.ExitCode != 0 {
		return &exitError{code: ans.ExitCode}
	}
	return nil
}
