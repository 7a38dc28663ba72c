package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
	"github.com/luahook/luahook/server"
)

// maxPayloadBytes bounds what fire reads as one payload: what serve accepts.
const maxPayloadBytes = server.DefaultMaxBody

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
object in the outcome contract's shape:

  PreToolUse        {"action":"deny","reason":…}, {"action":"mutate","input":{…}}
                    or {"action":"allow"}, with "additionalContext" and
                    "contextAs" when hooks added context
  UserPromptSubmit  {"action":"deny","reason":…} when blocked, else
                    {"additionalContext":…} or {}
  PostToolUse, SessionStart
                    {"additionalContext":…,"contextAs":…} or {}
  Stop and the observational events
                    {}

EVENT overrides the payload's "event", --tool its "toolName"; a payload without
"cwd" gets the current folder. Exit status 2 when the call was denied or the
prompt blocked (the reason is also printed on standard error, where hosts of
command hooks read it), 0 otherwise, 1 on bad usage, a bad payload or a load
error. So "luahook fire" is itself a valid command hook.`,
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
		return fmt.Errorf("no event: give EVENT or an \"event\" key in the payload")
	}
	if _, err := luahook.ParseEvent(string(in.Event)); err != nil {
		return err
	}
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	// Error level by default: when fire is itself a command hook, its
	// standard error is the deny reason its host reads.
	logger, err := g.loggerAt(s.err, slog.LevelError, false)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	eng, err := g.openWith(ctx, openOptions{logger: logger, quietLoad: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	if errs := eng.Errors(); len(errs) > 0 {
		reportLoadErrors(s.err, errs)
		return fmt.Errorf("not fired: %d load error(s)", len(errs))
	}
	res := eng.Runner().Fire(ctx, in)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: no outcome")
	}
	if o.trace {
		printTrace(s.err, res.Trace)
	}
	if err := writeJSON(s.out, res.Outcome()); err != nil {
		return err
	}
	if res.Denied {
		// A command hook that exits 2 is read for its reason on stderr.
		fmt.Fprintln(s.err, res.Reason)
		return &exitError{code: 2}
	}
	return nil
}

// writeJSON writes v as one line of JSON, without HTML escaping (a reason
// that says "&&" should read "&&").
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// readPayload reads the payload of --input: JSON text, @file, or, when the
// flag is empty, standard input. A terminal on standard input counts as an
// empty payload, so that "luahook fire SessionStart" does not wait for one.
func readPayload(flag string, stdin io.Reader) ([]byte, error) {
	switch {
	case strings.HasPrefix(flag, "@"):
		f, err := os.Open(flag[1:])
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		defer f.Close()
		return readCapped(f, "--input "+flag, maxPayloadBytes)
	case flag != "":
		return []byte(flag), nil
	case stdin == nil || isTerminal(stdin):
		return nil, nil
	}
	return readCapped(stdin, "standard input", maxPayloadBytes)
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// readCapped reads r to the end, refusing more than limit bytes.
func readCapped(r io.Reader, what string, limit int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: payload larger than %s", what, byteSize(limit))
	}
	return data, nil
}

func byteSize(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodePayload parses a payload as strictly as serve does (unknown or
// misspelt keys, duplicate keys and a toolInput that is not an object are
// errors), but leaves the event to the command line. An empty payload is
// an empty Input.
func decodePayload(data []byte) (*luahook.Input, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &luahook.Input{}, nil
	}
	return server.DecodeInput(data)
}

// printTrace prints one line per hook of a trace: kind, name, stage,
// duration and what it did.
func printTrace(w io.Writer, trace []runner.HookTrace) {
	for _, t := range trace {
		stage := string(t.Stage)
		if stage == "" {
			stage = "-"
		}
		fmt.Fprintf(w, "%-8s %-28s %-8s %9s  %s\n", t.Kind, t.Name, stage, t.Duration.Round(time.Microsecond), traceStatus(&t))
	}
}

// traceStatus says in a few words what a hook did.
func traceStatus(t *runner.HookTrace) string {
	switch {
	case t.Failure != nil:
		return "failed (" + string(t.Failure.Kind) + "): " + t.Failure.Message
	case t.Skipped != "":
		return "skipped: " + t.Skipped
	case t.Outcome != nil:
		return describeOutcome(t.Outcome)
	}
	return "no objection"
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
