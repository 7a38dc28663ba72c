package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/termtext"
)

type explainOptions struct {
	input       string
	tool        string
	agent       string
	asJSON      bool
	onLoadError string
	readTimeout time.Duration
}

func newExplainCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain [EVENT] [--input JSON|@file|-] [--agent NAME|auto] [--json]",
		Short: "Fire one payload and show what every hook of its event did, and why",
		Long: `explain fires a payload as fire does (the same hooks folder and config, the
same trust and --on-load-error rules, the same semantics) and shows every hook
registered on its event, in the order they run:

  - whether its matcher selected the payload, and why or why not: the tool
    name not in a list (and the name seen), the capabilities, the regular
    expression, or for Tool(pattern) the toolInput field read, its value and
    the pattern it failed; on PreToolUse a Tool(pattern) hook is judged on
    the input as the mutate stage left it
  - whether it was gated (--no-hooks: only hooks marked policy run)
  - its stage, and what it did: its outcome, its failure, how long it ran,
    or why it was skipped (not reached after a deny, background)

then the decision and the hook that decided it. Files and config keys that
did not load are listed first; on an event that can block, the decision is
then fire's: denied because not every policy loaded (--on-load-error deny).

The payload is --input JSON, --input @file, or standard input (--input -, or
no --input). With --agent claude|codex|copilot|cursor|gemini|auto it is that
agent's own payload, decoded as fire --agent decodes it, and EVENT is the
agent's name for the event. --json prints the explanation as one JSON object
(event, key, hooks[], result, problems).

Exit status 0 whenever it could explain, whatever the decision; 1 on bad
usage or a payload it cannot read.`,
		Example: `  luahook explain PreToolUse --tool bash --input '{"toolInput":{"command":"git push -f"}}'
  luahook explain --agent claude < claude-pretooluse.json
  luahook --no-hooks explain --json --input @payload.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd, g, s, o, args)
		},
	}
	cmd.Flags().StringVar(&o.input, "input", "", "payload JSON, @file, or - for standard input (default: standard input)")
	cmd.Flags().StringVar(&o.tool, "tool", "", "set the payload's toolName")
	cmd.Flags().StringVar(&o.agent, "agent", "", "the payload is this agent's own: claude, codex, copilot, cursor, gemini or auto")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the explanation as JSON")
	cmd.Flags().StringVar(&o.onLoadError, "on-load-error", "", "when something does not load: deny, skip or fail (as fire; fail still explains)")
	cmd.Flags().DurationVar(&o.readTimeout, "read-timeout", 10*time.Second, "how long to wait for the payload on standard input")
	return cmd
}

// explained is what explain --json prints: the explanation, and what did
// not load with the --on-load-error mode that judged it.
type explained struct {
	engine.Explanation
	Problems    []string `json:"problems,omitempty"`
	OnLoadError string   `json:"onLoadError,omitempty"`
}

func runExplain(cmd *cobra.Command, g *globalOptions, s *streams, o *explainOptions, args []string) error {
	ctx := cmd.Context()
	if err := engine.CheckOnLoadError(o.onLoadError); err != nil {
		return fmt.Errorf("--on-load-error %w", err)
	}
	if o.tool != "" && o.agent != "" {
		return errors.New("--tool does not apply with --agent: the agent's payload names its tool")
	}
	input := o.input
	if input == "-" {
		input = ""
	}
	req, err := readPayload(ctx, input, s.in, s.err, o.readTimeout)
	if err != nil {
		return err
	}
	in, err := explainInput(o, args, req.Payload)
	if err != nil {
		return err
	}
	// Explained as fire decides it: a tool's output on what was kept of
	// it, any other payload cut not at all.
	if err := pipeline.ApplyCut(in, req.Cut); err != nil {
		if req.CutOver != nil {
			return req.CutOver
		}
		return err
	}
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	logger, err := g.loggerFor("explain", s.err, false)
	if err != nil {
		return err
	}
	// An explanation is not a decision: it never writes the decision log.
	eng, problems, err := openFireSources(ctx, g, logger, engine.DecisionLog{To: engine.DecisionLogOff}, payloadStart(in, false), false, false)
	if err != nil {
		return err
	}
	out := explained{Explanation: engine.Explanation{Event: in.Event, Key: in.MatchKey(), Hooks: []engine.HookExplanation{},
		Result: engine.Result{Event: in.Event}}}
	if eng != nil {
		defer eng.Close()
		out.Explanation = eng.Runner().Explain(ctx, in)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: no explanation")
	}
	if len(problems) > 0 {
		out.OnLoadError = eng.OnLoadError(o.onLoadError)
		for _, p := range problems {
			out.Problems = append(out.Problems, p.Error())
		}
		if out.OnLoadError == engine.OnLoadErrorDeny && in.Event.CanBlock() {
			out.Result = engine.DeniedFor(out.Result, engine.FailClosedReason(problems))
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, p := range out.Problems {
		fmt.Fprintln(s.out, "not loaded:", termtext.Block(p))
	}
	if err := out.Render(s.out); err != nil {
		return err
	}
	switch {
	case out.OnLoadError == engine.OnLoadErrorFail:
		fmt.Fprintln(s.out, "fire would not fire: not every policy loaded (--on-load-error fail)")
	case len(problems) > 0 && out.Result.Denied() && out.OnLoadError == engine.OnLoadErrorDeny && in.Event.CanBlock():
		fmt.Fprintln(s.out, "the decision is luahook's: not every policy loaded (--on-load-error deny)")
	}
	return nil
}

// explainInput decodes the payload: the agent's own with --agent (as fire
// --agent decodes it), else luahook's, with EVENT and --tool applied.
func explainInput(o *explainOptions, args []string, data []byte) (*luahook.Input, error) {
	if o.agent != "" {
		a, ok, err := agentFor(o.agent, data)
		if err != nil {
			return nil, err
		}
		if ok {
			var event string
			if len(args) == 1 {
				event = args[0]
			}
			req, err := a.Decode(data, event)
			if err != nil {
				return nil, err
			}
			if req.Input == nil {
				return nil, fmt.Errorf("%s's event %q has no luahook equivalent: no hook runs for it, and fire answers it with no objection", a.Name(), req.Event)
			}
			return req.Input, nil
		}
	}
	in, err := decodePayload(data)
	if err != nil {
		return nil, err
	}
	if len(args) == 1 {
		ev, err := luahook.ParseEvent(args[0])
		if err != nil {
			return nil, err
		}
		in.Event = ev
	}
	if o.tool != "" {
		in.ToolName = o.tool
	}
	if in.Event == "" {
		return nil, errors.New("no event: give EVENT or an \"event\" key in the payload")
	}
	if _, err := luahook.ParseEvent(string(in.Event)); err != nil {
		return nil, err
	}
	return in, nil
}

// agentFor returns the adapter --agent names; for auto, the one the
// payload's keys tell, or ok false for a payload in luahook's own format.
func agentFor(name string, data []byte) (a agent.Adapter, ok bool, err error) {
	if name == "auto" {
		a, ok = agent.Detect(data)
		return a, ok, nil
	}
	if a, err = agent.Lookup(name); err != nil {
		return nil, false, fmt.Errorf("--agent: %w", err)
	}
	return a, true, nil
}
