package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/firstvalue"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/termtext"
)

// maxPayloadBytes bounds what fire reads as one payload: what serve accepts.
const maxPayloadBytes = luahook.DefaultMaxInputBytes

type fireOptions struct {
	readTimeout time.Duration
	// outputCut is what luahook-fire withheld of the payload it hands
	// over (each string cut at luahook.MaxScanBytes): the payload is
	// decided as cut.
	outputCut   int64
	input       string
	tool        string
	trace       bool
	onLoadError string
	// agent mode (fireagent.go): the agent's name or "auto"; http: the
	// luahook serve to forward the payload to, and for how long.
	agent       string
	http        string
	socket      string
	httpTimeout time.Duration
	// what fire --http shows the server (fireforward.go): the token's
	// file and line, the CA, the client certificate.
	tokenFile, tokenName string
	ca, tlsCert, tlsKey  string
	decisionLog          string
	// project: the hooks are the project's, found from the payload's cwd
	// upward; none found denies (what install --project writes).
	project bool
}

func newFireCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &fireOptions{}
	cmd := &cobra.Command{
		Use:   "fire [EVENT] [--agent NAME [--http URL | --socket PATH]]",
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
command hooks read it), 0 otherwise, 1 on bad usage. So "luahook fire" is
itself a valid command hook. Every hook that failed is reported on standard
error, one line each (hook, source, kind, message).

fire fails closed. When a hook file, the config or a config key does not load,
or the folder is not trusted (see luahook trust), or the payload cannot be
read, --on-load-error (or [runner] on_load_error in the config) decides:

  deny  (default) run every hook that loaded; on an event that can block
        (PreToolUse, UserPromptSubmit) deny, the reason naming each problem
        with its file:line next to the policies' own denial, exit 2; other
        events run what loaded and warn on standard error
  skip  run what loaded and warn on standard error
  fail  decide nothing: report the problems and exit 1

A payload that cannot be read denies only when its event is known: give EVENT
on the command line (luahook fire PreToolUse) when fire is a command hook.
luahook check is the tool that fails on any error.

With --agent claude|codex|copilot|cursor|gemini|auto, fire is that agent's
command hook (luahook install writes it): the payload is the agent's own,
the answer exactly what the agent reads (standard output, standard error,
exit status), and EVENT, when given, is the agent's name for the event
(Copilot's camelCase payloads do not name it: luahook fire --agent copilot
preToolUse). auto tells the agent from the payload's keys; a payload in
luahook's own format is fired as without --agent, and an agent's payload
given without --agent is answered as with --agent auto. Everything that keeps
fire from deciding (a payload that cannot be read, a hook file or config
that does not load, an untrusted folder, an interruption) blocks on the
events that can block, with the agent's own block signal and a reason
naming the cause, as --on-load-error says (skip proceeds and warns on
standard error; fail exits 1). With --http URL the payload is not fired
here but sent to the luahook serve at URL (URL/agent/NAME) and its answer
relayed; when that server cannot be reached, is slower than
--http-timeout or answers anything but a well-formed answer, fire blocks
the same way. --socket PATH asks the luahook serve --socket PATH on that
Unix socket instead, and only when the process answering on it runs as
this user or root. luahook-fire is the same command hook as a small
program: with the shipped hooks.d it answers in about a third of the time
luahook fire takes to load and fire them itself.

--http sends luahook serve's token as "Authorization: Bearer TOKEN": the
token of --token-file FILE (a file that must be your own and closed to
group and others, of lines TOKEN or NAME TOKEN, blank lines and # comments:
the first token line, or the line --token-name NAME names), else of
$LUAHOOK_TOKEN when it is set. No error and no log line shows it, and it is
never sent in clear to another machine: an http URL takes it only to a
loopback address. For an https URL, --ca FILE trusts that CA (in place of
the system's) and --tls-cert FILE --tls-key FILE give a client
certificate. A server that refuses the call (401, 403, 415), or
credentials fire cannot read, block the call naming why, whatever
--on-load-error says. Over --socket no token is sent: the socket's check of
the server's user is the authentication.

An agent's hook names its policies on its command line, so the
environment does not pick them: with --project, LUAHOOK_DIR and
LUAHOOK_CONFIG are not read; answering an agent (--agent, or an agent's
payload) without --dir, --config or --project, either of them set is a
problem like a file that does not load (an event that can block is denied
naming it).

--decision-log FILE appends the decision's record (see luahook serve) to
FILE, rotated as the config's [decision_log] says; the config's log goes to
a file only, never to fire's standard output or error, which the agent
reads. With --http or --socket the server logs what it answers; what fire
answers itself (a server it could not ask, or whose answer it could not
use, a payload it could not read) goes to that same log, with its cause.

Standard input is read up to the end of the payload's JSON object (the host
may keep the pipe open), for at most --read-timeout. On a terminal fire says
that it waits for the payload and reads it without a time limit (Ctrl-D for
none). fire then ends within the hooks' own deadlines; a SIGTERM or interrupt
stops the hooks at once and ends the process within 3 seconds whatever it is
doing, a second one at once.`,
		Example: `  luahook fire PreToolUse --tool bash --input '{"toolInput":{"command":"rm -rf /"}}'
  echo '{"event":"UserPromptSubmit","prompt":"hi"}' | luahook fire UserPromptSubmit
  luahook fire --agent claude < claude-pretooluse.json
  luahook fire --agent copilot preToolUse --http http://127.0.0.1:8787
  luahook fire --agent codex --http https://hooks.internal:8443 --token-file ~/.config/luahook/token --ca ca.pem`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, e := range luahook.Events() {
				names = append(names, string(e))
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if s.process {
				oneShotGC()
			}
			return runFire(cmd, g, s, o, args)
		},
	}
	cmd.Flags().StringVar(&o.input, "input", "", "payload JSON, or @file (default: standard input)")
	cmd.Flags().Int64Var(&o.outputCut, "output-cut", 0, "bytes of the payload's strings a caller withheld before (luahook-fire)")
	cmd.Flags().MarkHidden("output-cut")
	cmd.Flags().StringVar(&o.tool, "tool", "", "set the payload's toolName")
	cmd.Flags().BoolVar(&o.trace, "trace", false, "print the per-hook trace to standard error")
	cmd.Flags().DurationVar(&o.readTimeout, "read-timeout", 10*time.Second, "how long to wait for the payload on standard input")
	cmd.Flags().StringVar(&o.onLoadError, "on-load-error", "", "when something does not load: deny, skip or fail (default: the config's [runner] on_load_error, else deny)")
	cmd.Flags().StringVar(&o.agent, "agent", "", "read and answer this agent's hook protocol: claude, codex, copilot, cursor, gemini or auto")
	cmd.Flags().StringVar(&o.http, "http", "", "with --agent: ask the luahook serve at this URL instead of loading hooks here")
	cmd.Flags().StringVar(&o.socket, "socket", "", "with --agent: ask the luahook serve --socket at this Unix socket instead of loading hooks here")
	cmd.Flags().DurationVar(&o.httpTimeout, "http-timeout", defaultHTTPTimeout, "with --http or --socket: how long the server has to answer")
	cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "with --http: the file of luahook serve's token, yours alone (default: $LUAHOOK_TOKEN, when set)")
	cmd.Flags().StringVar(&o.tokenName, "token-name", "", "with --token-file: the token of the line NAME TOKEN (default: the first token line)")
	cmd.Flags().StringVar(&o.ca, "ca", "", "with an https --http: trust the CA certificates of this PEM file in place of the system's")
	cmd.Flags().StringVar(&o.tlsCert, "tls-cert", "", "with an https --http: the client certificate (PEM), with --tls-key")
	cmd.Flags().StringVar(&o.tlsKey, "tls-key", "", "with --tls-cert: the client certificate's key (PEM), yours alone")
	cmd.Flags().BoolVar(&o.project, "project", false, "the hooks are the project's: found at or above the payload's cwd (up to the repository's root); when none are, events that can block are denied")
	cmd.Flags().StringVar(&o.decisionLog, "decision-log", "", `append the decision's record to this file, or "off" (default: the config's [decision_log], when it names a file)`)
	return cmd
}

// oneShotGCPercent is the collector's GOGC in a one-shot fire: its first
// cycle comes at 32 MiB of heap instead of 4 MiB. Opening the shipped
// hooks.d and firing one payload allocates about 15 MiB (the states of six
// files, each running the lib modules it requires; about 6 MiB of it
// live), so a fire collects nothing; a cycle there (its mark workers and
// the sweep of every span) cost about a sixth of the whole process
// (BenchmarkOneShotFire: 40.3 -> 33.7 ms when the first cycle was moved
// past the heap a fire used then). The heap stays bounded: past 32 MiB
// the collector runs, letting the heap grow to nine times what is live.
const oneShotGCPercent = 800

// oneShotGC sets the collector for a fire that owns its process, unless
// the operator set GOGC, which then stands (as does GOMEMLIMIT, always).
func oneShotGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(oneShotGCPercent)
	}
}

func runFire(cmd *cobra.Command, g *globalOptions, s *streams, o *fireOptions, args []string) error {
	return fireOne(cmd, g, s, o, args)
}

// openForFire opens what fire runs: every source that is trusted, with what
// is valid of a broken config. problems lists what did not load, each on
// its own: the untrusted folder, each config problem, each hook file. eng
// is nil when nothing is left to open.
//
// start is the payload's cwd ("" when it names none): the project is the
// nearest folder at or above it that holds luahook.toml or hooks.d
// (sourcesAt); with expect (--project) one must be found, else that is the
// problem and nothing is opened.
//
// fire's process ends with the call: unless the config names a store
// backend, the store is kept in a file (engine.Options.KeepStore), so that
// what a hook counts still counts on the next call.
func openForFire(ctx context.Context, g *globalOptions, logger *slog.Logger, dlog engine.DecisionLog, start string, expect bool) (eng *engine.Engine, problems []error, err error) {
	return openFireSources(ctx, g, logger, dlog, start, expect, true)
}

// openFireSources is openForFire, the store kept in a file or not (explain,
// which must not count what it explains, keeps it in the process).
func openFireSources(ctx context.Context, g *globalOptions, logger *slog.Logger, dlog engine.DecisionLog, start string, expect, keepStore bool) (eng *engine.Engine, problems []error, err error) {
	src, err := g.sourcesAt(start, expect)
	if err != nil {
		return nil, nil, err
	}
	if src.missing != nil {
		return nil, []error{src.missing}, nil
	}
	cfg, dir, ok := src.config, src.dir, true
	if src.untrusted != nil {
		problems = append(problems, src.untrusted)
		cfg, dir, ok = src.trusted()
	}
	if !ok {
		return nil, problems, nil
	}
	eng, err = g.open(ctx, cfg, dir, openOptions{logger: logger, partial: true, decisionLog: dlog, trust: src.engineTrust(),
		keepStore: keepStore})
	if err != nil {
		return nil, nil, err
	}
	return eng, append(problems, eng.Problems()...), nil
}

// payloadStart is where fire looks for the project's policies: the
// payload's cwd when it names an absolute one, else the current folder
// (with --project, found upward from there too), else "" (the current
// folder only, as every other command).
func payloadStart(in *luahook.Input, project bool) string {
	if in != nil && filepath.IsAbs(in.Cwd) && isDir(in.Cwd) {
		return in.Cwd
	}
	if wd, err := os.Getwd(); err == nil && (project || in != nil && in.Cwd != "") {
		return wd
	}
	return ""
}

// fireDecisionLog says where fire's decision log goes: the file of
// --decision-log, or off, or the config's log when that is a file. Fire's
// standard output and error belong to the agent: a config's "stdout" or
// "stderr" log is not written.
func fireDecisionLog(flag string) (engine.DecisionLog, error) {
	if flag == "stdout" || flag == "stderr" {
		return engine.DecisionLog{}, fmt.Errorf("--decision-log %s: fire's standard output and error carry its answer; give a file", flag)
	}
	return engine.DecisionLog{To: flag, ToName: "--decision-log", Stdout: io.Discard, Stderr: io.Discard}, nil
}

// reportFailures prints one line per hook that failed (HookTrace.FailureLine:
// its name, source, failure kind and message, which carries file:line for a
// Lua hook).
func reportFailures(w io.Writer, trace []engine.HookTrace) {
	for _, t := range trace {
		if line := t.FailureLine(); line != "" {
			fmt.Fprintln(w, "luahook:", termtext.Line(line))
		}
	}
}

// writeJSON writes v as one line of JSON, without HTML escaping (a reason
// that says "&&" should read "&&").
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// readPayload reads the payload of --input: JSON text, @file, or, when the
// flag is empty, standard input. Standard input is read up to the end of its
// first JSON object (a host that writes the payload and keeps the pipe open
// is answered at once) or to its end, and for at most timeout; a terminal is
// told on msgs that fire waits for the payload, and has no time limit. A
// file or standard input is read with its long strings cut (readCut); the
// request returned carries the payload, what was cut, and the refusal of a
// payload over the cap that was within it only for what was cut.
func readPayload(ctx context.Context, flag string, stdin io.Reader, msgs io.Writer, timeout time.Duration) (pipeline.Request, error) {
	switch {
	case strings.HasPrefix(flag, "@"):
		f, err := openRegular(flag[1:])
		if err != nil {
			return pipeline.Request{}, fmt.Errorf("--input: %w", err)
		}
		defer f.Close()
		return readCut(f, "--input "+flag, maxPayloadBytes, true)
	case flag != "":
		return pipeline.Request{Payload: []byte(flag)}, nil
	case stdin == nil:
		return pipeline.Request{}, nil
	}
	var deadline <-chan time.Time
	if isTTY(stdin) {
		fmt.Fprintln(msgs, "luahook fire: waiting for the payload on the terminal (a JSON object, or Ctrl-D for none; --input gives it on the command line)")
	} else {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		deadline = timer.C
	}
	type read struct {
		req pipeline.Request
		err error
	}
	done := make(chan read, 1)
	go func() {
		req, err := readCut(stdin, "standard input", maxPayloadBytes, false)
		done <- read{req, err}
	}()
	select {
	case r := <-done:
		return r.req, r.err
	case <-deadline:
		return pipeline.Request{}, fmt.Errorf("standard input: no complete payload within --read-timeout %v", timeout)
	case <-ctx.Done():
		return pipeline.Request{}, fmt.Errorf("standard input: %w", context.Cause(ctx))
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

// readCut reads a payload from r (pipeline.ReadPayload): to its end
// (whole), else up to the end of the JSON object it starts with, its
// strings longer than luahook.MaxScanBytes cut, refusing more than limit
// bytes kept. A payload that was longer than limit, and within it only for
// what was cut, is refused as one over the cap unless it is a tool's output
// (Request.CutOver).
func readCut(r io.Reader, what string, limit int, whole bool) (pipeline.Request, error) {
	cr := &countingReader{r: r}
	data, cut, err := pipeline.ReadPayload(cr, limit, whole, nil, nil)
	switch {
	case errors.Is(err, firstvalue.ErrTooLarge):
		return pipeline.Request{Payload: oversizeStart(data)}, overCap(what, limit)
	case err != nil:
		return pipeline.Request{}, fmt.Errorf("read %s: %w", what, err)
	}
	req := pipeline.Request{Payload: data, Cut: cut}
	if cut > 0 && cr.n > int64(limit) {
		req.CutOver = overCap(what, limit)
	}
	return req, nil
}

// readCapped reads r to the end as readCut does, refusing more than limit
// bytes kept.
func readCapped(r io.Reader, what string, limit int) ([]byte, error) {
	req, err := readCut(r, what, limit, true)
	return req.Payload, err
}

func overCap(what string, limit int) error {
	return fmt.Errorf("%s: payload larger than %s", what, byteSize(limit))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// oversizeStart is what of a payload over the cap comes with the error
// (pipeline.Oversize): its start, for the event it names, as serve keeps it.
func oversizeStart(data []byte) []byte { return bytes.Clone(pipeline.Oversize(data)) }

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
	return luahook.DecodeInput(data)
}
