package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/runner"
	"github.com/luahook/luahook/server"
)

// maxPayloadBytes bounds what fire reads as one payload: what serve accepts.
const maxPayloadBytes = server.DefaultMaxBody

type fireOptions struct {
	readTimeout time.Duration
	input       string
	tool        string
	trace       bool
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
error. So "luahook fire" is itself a valid command hook.

Standard input is read up to the end of the payload's JSON object (the host
may keep the pipe open), for at most --read-timeout. fire then ends within
the hooks' own deadlines; a SIGTERM or interrupt stops the hooks at once and
ends the process within 3 seconds whatever it is doing, a second one at once.`,
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
	cmd.Flags().DurationVar(&o.readTimeout, "read-timeout", 10*time.Second, "how long to wait for the payload on standard input")
	return cmd
}

func runFire(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string) error {
	data, err := readPayload(cmd.Context(), o.input, s.in, o.readTimeout)
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
		fmt.Fprintln(s.err, termtext.Block(res.Reason))
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
// Standard input is read up to the end of its first JSON object (a host that
// writes the payload and keeps the pipe open is answered at once) or to its
// end, and for at most timeout.
func readPayload(ctx context.Context, flag string, stdin io.Reader, timeout time.Duration) ([]byte, error) {
	switch {
	case strings.HasPrefix(flag, "@"):
		f, err := openRegular(flag[1:])
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
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := readFirstValue(stdin, "standard input", maxPayloadBytes)
		done <- read{data, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.data, r.err
	case <-timer.C:
		return nil, fmt.Errorf("standard input: no complete payload within --read-timeout %v", timeout)
	case <-ctx.Done():
		return nil, fmt.Errorf("standard input: %w", context.Cause(ctx))
	}
}

// openRegular opens path for reading without blocking on a FIFO or a device,
// and refuses anything but a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	return f, nil
}

// readFirstValue reads r until the JSON object or array it starts with is
// complete, or to its end, refusing more than limit bytes. What follows the
// first value is not read.
func readFirstValue(r io.Reader, what string, limit int) ([]byte, error) {
	var sc valueEnd
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), limit+1-len(buf)))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		if sc.scan(buf[len(buf) : len(buf)+n]) {
			buf = buf[:len(buf)+n]
			if len(buf) > limit {
				return nil, fmt.Errorf("%s: payload larger than %s", what, byteSize(limit))
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, fmt.Errorf("%s: payload larger than %s", what, byteSize(limit))
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
	}
}

// valueEnd finds where the first JSON object or array of a stream ends.
type valueEnd struct {
	started, inString, escaped, scalar bool
	depth                              int
}

// scan reads the next bytes of the stream and reports whether the first value
// ended in them. A stream that starts with anything but '{' or '[' is read to
// its end (the decoder refuses it).
func (v *valueEnd) scan(p []byte) bool {
	for _, c := range p {
		switch {
		case v.scalar:
			return false
		case !v.started:
			switch c {
			case ' ', '\t', '\n', '\r':
			case '{', '[':
				v.started, v.depth = true, 1
			default:
				v.scalar = true
			}
		case v.inString:
			switch {
			case v.escaped:
				v.escaped = false
			case c == '\\':
				v.escaped = true
			case c == '"':
				v.inString = false
			}
		case c == '"':
			v.inString = true
		case c == '{' || c == '[':
			v.depth++
		case c == '}' || c == ']':
			v.depth--
			if v.depth == 0 {
				return true
			}
		}
	}
	return false
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
		fmt.Fprintf(w, "%-8s %-28s %-8s %9s  %s\n", t.Kind, termtext.Line(t.Name), stage, t.Duration.Round(time.Microsecond), termtext.Line(traceStatus(&t)))
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
