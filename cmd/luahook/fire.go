package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// maxPayloadBytes bounds what fire and serve read as one payload.
const maxPayloadBytes = 16 << 20

type fireOptions struct {
	input string
	tool  string
	trace bool
}

func newFireCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &fireOptions{}
	cmd := &cobra.Command{
		Use:   "fire [EVENT]",
		Short: "Run one payload through every hook and print the outcome as JSON",
		Long: `fire reads a payload (--input JSON, --input @file, or standard input), runs it
through the full engine (config and hooks folder) and prints exactly one JSON
object in the outcome contract's shape. Exit status 2 when the action was
denied or the prompt blocked, 0 otherwise, 1 on bad usage or a load error.
So "luahook fire" is itself a valid command hook.`,
		Example: `  luahook fire PreToolUse --tool bash --input '{"toolInput":{"command":"rm -rf /"}}'
  echo '{"event":"UserPromptSubmit","prompt":"hi"}' | luahook fire`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, e := range luahook.Events() {
				names = append(names, string(e))
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFire(cmd, g, s, o, args)
		},
	}
	cmd.Flags().StringVar(&o.input, "input", "", "payload JSON, or @file (default: standard input)")
	cmd.Flags().StringVar(&o.tool, "tool", "", "set the payload's toolName")
	cmd.Flags().BoolVar(&o.trace, "trace", false, "print the per-hook trace to standard error")
	return cmd
}

func runFire(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string) error {
	data, err := readPayload(o.input, s.in)
	if err != nil {
		return err
	}
	in, err := decodePayload(data)
	if err != nil {
		return err
	}
	if len(args) == 1 {
		in.Event = luahook.Event(args[0])
	}
	if o.tool != "" {
		in.ToolName = o.tool
	}
	if in.Event == "" {
		return fmt.Errorf("no event: give EVENT or an \"event\" field in the payload")
	}
	if _, err := luahook.ParseEvent(string(in.Event)); err != nil {
		return err
	}
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	ctx := cmd.Context()
	eng, err := g.open(ctx, s, false)
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := eng.Err(); err != nil {
		return err
	}
	res := eng.Runner().Fire(ctx, in)
	if o.trace {
		printTrace(s.err, res.Trace)
	}
	out, err := json.Marshal(res.Outcome())
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "%s\n", out)
	if res.Denied {
		return &exitError{code: 2}
	}
	return nil
}

func readPayload(flag string, stdin io.Reader) ([]byte, error) {
	switch {
	case strings.HasPrefix(flag, "@"):
		f, err := os.Open(flag[1:])
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		defer f.Close()
		return readCapped(f, "--input "+flag)
	case flag != "":
		return []byte(flag), nil
	}
	return readCapped(stdin, "standard input")
}

func readCapped(r io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPayloadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(data) > maxPayloadBytes {
		return nil, fmt.Errorf("%s: payload larger than %d MiB", what, maxPayloadBytes>>20)
	}
	return data, nil
}

// decodePayload parses a payload strictly: unknown fields are errors, so that
// a typo ("toolname") does not silently fire an empty payload.
func decodePayload(data []byte) (*luahook.Input, error) {
	in := &luahook.Input{}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("payload: more than one JSON value")
	}
	if in.ToolInput != nil && !luahook.IsJSONObject(in.ToolInput) && string(in.ToolInput) != "null" {
		return nil, fmt.Errorf("payload: toolInput must be an object")
	}
	return in, nil
}

func printTrace(w io.Writer, trace []runner.HookTrace) {
	for _, t := range trace {
		status := "no objection"
		switch {
		case t.Failure != nil:
			status = "failed (" + string(t.Failure.Kind) + "): " + t.Failure.Message
		case t.Skipped != "":
			status = "skipped: " + t.Skipped
		case t.Outcome != nil:
			status = describeOutcome(t.Outcome)
		}
		fmt.Fprintf(w, "%-8s %-28s %-7s %9s  %s\n", t.Kind, t.Name, t.Stage, t.Duration.Round(1000), status)
	}
}

func describeOutcome(o *luahook.Outcome) string {
	var parts []string
	switch o.Action {
	case luahook.ActionDeny:
		parts = append(parts, "deny: "+o.Reason)
	case luahook.ActionMutate:
		parts = append(parts, "mutate: "+string(o.Input))
	case luahook.ActionAllow:
		parts = append(parts, "allow")
	}
	if o.AdditionalContext != "" {
		parts = append(parts, "context: "+firstLine(o.AdditionalContext))
	}
	if len(parts) == 0 {
		return "no objection"
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
