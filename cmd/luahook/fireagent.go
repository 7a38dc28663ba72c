package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/runner"
)

// fireOne is fire, in luahook's own format and with --agent alike: the
// payload read, then the one pipeline every door takes (internal/pipeline)
// decodes it, the project its cwd names is opened, and the pipeline decides
// and renders the answer, which fire writes exactly: standard output,
// standard error, exit status. An agent's own payload given to plain fire is
// recognised and answered in that agent's protocol.
func fireOne(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string) error {
	ctx := cmd.Context()
	format := o.agent
	var event string // the EVENT argument: luahook's event, or the agent's name for it
	if len(args) == 1 {
		event = args[0]
	}
	switch format {
	case "":
		if o.http != "" || o.socket != "" {
			return errors.New("--http and --socket forward an agent's payload: give --agent too")
		}
		if event != "" {
			if _, err := luahook.ParseEvent(event); err != nil {
				return err
			}
		}
	case pipeline.Auto:
	default:
		if _, err := agent.Lookup(format); err != nil {
			return fmt.Errorf("--agent: %w", err)
		}
	}
	if o.tool != "" && format != "" {
		return errors.New("--tool does not apply with --agent: the agent's payload names its tool")
	}
	if o.http != "" && o.socket != "" {
		return errors.New("--http and --socket name two servers: give one")
	}
	if err := o.checkForwardFlags(); err != nil {
		return err
	}
	if err := engine.CheckOnLoadError(o.onLoadError); err != nil {
		return fmt.Errorf("--on-load-error %w", err)
	}
	req, readErr := readPayload(ctx, o.input, s.in, s.err, o.readTimeout)
	if format == "" && readErr == nil && len(bytes.TrimSpace(req.Payload)) == 0 {
		req.Payload = []byte("{}") // luahook fire SessionStart: an empty payload is an empty object
	}
	req.Format, req.Event, req.ReadErr = format, event, readErr
	if o.outputCut > req.Cut {
		req.Cut = o.outputCut // luahook-fire cut the payload before handing it over
	}
	c := pipeline.Read(req)
	if o.tool != "" {
		if c.Agent() != nil {
			return errors.New("--tool does not apply to an agent's payload: it names its tool")
		}
		if in := c.Input(); in != nil {
			in.ToolName = o.tool
		}
	}
	logger, err := g.loggerFor("fire", s.err, false)
	if err != nil {
		return err
	}
	dlog, err := fireDecisionLog(o.decisionLog)
	if err != nil {
		return err
	}
	if o.http != "" || o.socket != "" {
		if c.Agent() == nil {
			return errors.New("--http and --socket forward an agent's payload; this one is in luahook's own format")
		}
		log := &forwardLog{open: func() *engine.Engine {
			// The log fire writes without --http: the same sources, the
			// same config, the same decision log.
			if dlog.To == engine.DecisionLogOff {
				return nil
			}
			named, _ := policiesNamed(cmd, g, true, o.project)
			eng, _, err := openForFire(ctx, named, logger, dlog, payloadStart(c.Input(), o.project), o.project)
			if (err != nil || eng == nil) && dlog.To != "" {
				// Nothing of the config could be opened: --decision-log
				// FILE still has its record, on the default settings.
				eng, _ = engine.New(engine.Options{Logger: logger, DecisionLog: dlog})
			}
			return eng
		}}
		defer log.close()
		return fireForward(ctx, s, o, &c, event, log)
	}

	// Decoded first: the payload's cwd says which project's policies judge it.
	in := c.Input()
	g, problems := policiesNamed(cmd, g, c.Agent() != nil, o.project)
	eng, more, err := openForFire(ctx, g, logger, dlog, payloadStart(in, o.project), o.project)
	problems = append(problems, more...)
	if err != nil {
		// Nothing could be opened (a named folder that is missing, an
		// unreadable config): a load problem like any other, so that an
		// event that can block is denied naming it.
		eng, problems = nil, append(problems, err)
	}
	if eng != nil {
		defer eng.Close()
		var stopTrace func()
		ctx, stopTrace = traceFire(ctx, eng, logger)
		defer stopTrace()
	}
	if in != nil && in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	var res engine.Result
	rep := c.Answer(ctx, firer{eng}, eng.Gate(o.onLoadError, problems), &res, nil)
	if rep.Err != nil {
		if rep.Unavailable && len(problems) > 0 {
			reportLoadErrors(s.err, problems)
			return fmt.Errorf("not fired: %d load error(s) (--on-load-error fail)", len(problems))
		}
		return rep.Err
	}
	var diag bytes.Buffer
	if rep.Fired {
		if o.trace {
			res.RenderTrace(&diag, engine.TraceOptions{})
		}
		reportFailures(&diag, res.Trace)
	}
	for _, w := range rep.Warn {
		if rep.Cause == pipeline.CauseNone {
			fmt.Fprintln(&diag, "luahook: warning: not loaded, running without it:", termtext.Block(w.Error()))
		} else {
			fmt.Fprintln(&diag, "luahook: warning:", termtext.Block(w.Error()))
		}
	}
	return writeReply(s, &c, rep, &diag)
}

// policiesNamed returns the global options fire opens its policies with.
// An agent's hook names them on its command line (luahook install writes
// --project, --dir or --config), so that whatever the agent's environment
// holds, it does not pick the policies that judge the agent: answering an
// agent (forAgent) or with --project, a hooks folder or config that only
// LUAHOOK_DIR or LUAHOOK_CONFIG named is not opened. With --project the
// project's policies are the ones named; without it, the variable set is a
// problem, so that an event that can block is denied naming it rather than
// decided by a folder the operator did not mean.
func policiesNamed(cmd *cobra.Command, g *globalOptions, forAgent, project bool) (*globalOptions, []error) {
	if !forAgent && !project {
		return g, nil
	}
	named := *g
	var problems []error
	for _, v := range []struct {
		flag, env string
		val       *string
	}{{"dir", "LUAHOOK_DIR", &named.dir}, {"config", "LUAHOOK_CONFIG", &named.config}} {
		if f := cmd.Flag(v.flag); *v.val == "" || f == nil || f.Changed {
			continue
		}
		if !project {
			problems = append(problems, fmt.Errorf("%s is set (%s), but an agent's hook does not take its policies from the environment: "+
				"name them on the hook's command line (--%s, --config or --project, as luahook install writes it)", v.env, *v.val, v.flag))
		}
		*v.val = ""
	}
	return &named, problems
}

// firer fires at the engine's hooks; with no engine (nothing could be
// opened) no hook runs, and the gate's problems decide.
type firer struct{ eng *engine.Engine }

func (f firer) Fire(ctx context.Context, in *luahook.Input) runner.Result {
	if f.eng == nil {
		return runner.Result{Event: in.Event}
	}
	return f.eng.Runner().Fire(ctx, in)
}

// FireUnobserved fires without the runner's decision observer: the
// pipeline writes the decision log's record itself, with what the agent
// received.
func (f firer) FireUnobserved(ctx context.Context, in *luahook.Input, res *runner.Result) {
	if f.eng == nil {
		*res = runner.Result{Event: in.Event}
		return
	}
	f.eng.Runner().FireUnobserved(ctx, in, res)
}

// writeReply writes the pipeline's answer as a command hook answers. In
// luahook's own format the diagnostics (trace, failed hooks, warnings)
// come first on standard error, then the outcome, and a denial's reason
// last; in an agent's protocol they are written only when the answer lets
// the agent proceed (exit 0), since on exit 2 standard error is the reason
// the agent reads.
func writeReply(s *streams, c *pipeline.Call, rep pipeline.Reply, diag *bytes.Buffer) error {
	stderr := rep.Stderr
	if c.Agent() == nil {
		_, _ = io.Copy(s.err, diag)
		diag = nil
		if stderr != "" {
			stderr = termtext.Block(strings.TrimSuffix(stderr, "\n")) + "\n"
		}
	}
	return writeAnswer(s, agent.Answer{Stdout: rep.Stdout, Stderr: stderr, ExitCode: rep.ExitCode}, diag)
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
