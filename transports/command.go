package transports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/proctree"
)

// pipeGrace is how long Call keeps reading a hook's output after the hook
// itself exited, in case a background process it left behind still holds
// the pipes open. It also bounds the wait for a killed child to go.
const pipeGrace = 250 * time.Millisecond

// CommandSpec configures a command hook. Only Command is required; the zero
// value of every other field is useful.
type CommandSpec struct {
	// Command is the configured command string, split by SplitArgv. Its
	// relative paths are resolved against Dir when NewCommand runs (see
	// Command).
	Command string
	// Dir is the folder relative paths in Command are resolved against,
	// normally the folder of the configuration file that defined the hook;
	// the child finds it in LUAHOOK_CONFIG_DIR. Empty: the current directory
	// when NewCommand runs. Never the payload's working directory.
	Dir string
	// Allow lists extra first words the command may start with (config
	// [command] allow), on top of the built-in allowlist (see Allowed).
	Allow []string
	// PassEnv names parent environment variables passed to the hook as they
	// are (config [command] pass_env); see ChildEnv.
	PassEnv []string
	// Environ returns the parent environment; nil means os.Environ.
	Environ func() []string
	// Logger receives debug lines about each run; nil discards them.
	Logger *slog.Logger
}

// Command is a command hook: a program spawned without a shell for each call.
// It is safe for concurrent use.
//
// Paths in the command are fixed when the hook is built, never by a payload:
// argv[0] when it is a relative path, the script operand of a shell or
// interpreter ("sh ./scripts/guard.sh", "python3 hook.py") and every
// argument that starts with ./ or ../ are made absolute against
// CommandSpec.Dir, and a shell -c script that names a relative path is
// refused (see resolvePaths). The child gets the payload JSON and a newline
// on stdin, runs in the payload's working directory (empty: the host's), so
// that hooks that lint the project find it, with a sanitised environment
// (ChildEnv) that names the configuration folder in LUAHOOK_CONFIG_DIR, and
// in a process group of its own that is killed as a whole when the call
// ends (see Call). Exit code 2 denies, with stderr (or stdout, or
// luahook.DefaultBlockReason) as the reason; another non-zero
// exit is a FailExit failure; exit 0 with blank stdout is no objection; any
// other stdout must be one outcome object (luahook.ParseOutcome). More than
// MaxOutputBytes on stdout stops the hook and fails it (FailInvalidOutput).
type Command struct {
	command  string
	resolved string // command with its paths resolved (see Resolved)
	who      string // `command "<command>"`, the prefix of every failure message
	argv     []string
	dirVar   string // LUAHOOK_CONFIG_DIR=<dir>
	pass     []string
	environ  func() []string
	logger   *slog.Logger
	sweeper  sweeper
}

var (
	_ luahook.Hook         = (*Command)(nil)
	_ luahook.ContextBound = (*Command)(nil)
	_ luahook.Validating   = (*Command)(nil)
	_ interface{ Close() } = (*Command)(nil)
)

// NewCommand checks spec and returns its hook. The command is split, its
// first word checked against the allowlist and its paths resolved now, so
// that a bad entry is reported when the configuration loads; such errors are
// *luahook.Failure values of kind FailRejected.
func NewCommand(spec CommandSpec) (*Command, error) {
	argv, err := SplitArgv(spec.Command)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailRejected,
			Message: fmt.Sprintf("command %q: %v", spec.Command, err), Err: err}
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, luahook.Failf(luahook.FailRejected, "command %q: no program to run", spec.Command)
	}
	if !Allowed(argv[0], spec.Allow) {
		return nil, luahook.Failf(luahook.FailRejected,
			"command %q: first word %q is not in the command-hook allowlist; "+
				"run it through an allowed program (e.g. \"bash %s\"), give its absolute path, "+
				"or add %q to [command] allow", spec.Command, argv[0], argv[0], argv[0])
	}
	dir, err := baseDir(spec.Dir)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailRejected,
			Message: fmt.Sprintf("command %q: the folder to resolve its paths against: %v", spec.Command, err), Err: err}
	}
	resolved, err := resolvePaths(argv, dir)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailRejected,
			Message: fmt.Sprintf("command %q: %v", spec.Command, err), Err: err}
	}
	c := &Command{
		command:  spec.Command,
		resolved: spec.Command,
		who:      fmt.Sprintf("command %q", spec.Command),
		argv:     resolved,
		dirVar:   configDirVar + "=" + dir,
		pass:     slices.Clone(spec.PassEnv),
		environ:  spec.Environ,
		logger:   spec.Logger,
	}
	if !slices.Equal(argv, resolved) {
		c.resolved = joinArgv(resolved)
	}
	if c.environ == nil {
		c.environ = os.Environ
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.sweeper.logger = c.logger
	return c, nil
}

// Close waits until the processes that finished calls left behind have been
// swept (see Call). The hook stays usable; Close may be called more than
// once.
func (c *Command) Close() { c.sweeper.wait() }

// String returns the configured command string.
func (c *Command) String() string { return c.command }

// Resolved returns the command that runs: the configured string when no
// path in it was resolved, else its words with the paths made absolute,
// quoted so that SplitArgv splits them back.
func (c *Command) Resolved() string { return c.resolved }

// BoundByContext reports true: Call returns promptly once ctx is done.
func (c *Command) BoundByContext() bool { return true }

// ValidatesOutcomes reports true: stdout goes through luahook.ParseOutcome,
// and an exit code 2 is a deny with a reason.
func (c *Command) ValidatesOutcomes() bool { return true }

// ScopedToCall reports true: the payload is encoded as Call starts, and the
// command's context watcher ends when Wait returns, before Call does.
func (c *Command) ScopedToCall() bool { return true }

// Call runs the command once with in as its payload. Failures are
// *luahook.Failure values whose messages name the command.
//
// Nothing the call started outlives it. The child's environment carries a
// marker unique to the call (LUAHOOK_CALL). When the call ends, however it
// ends (exit, timeout, cancel, output overflow), the child's process group
// is killed, background jobs included; on Linux the processes of the same
// user that carry the marker but left the group (setsid, double-forked
// daemons) are then found in /proc and killed, off the caller's path (Close
// waits for it), in rounds until none is left. A descendant that both
// clears its environment and leaves the group, or changes user, escapes.
func (c *Command) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	start := time.Now()
	payload, err := encodePayload(ctx, in, c.who, start)
	if err != nil {
		return nil, err
	}
	payload = append(payload, '\n')
	if in.Cwd != "" {
		if fi, err := os.Stat(in.Cwd); err != nil {
			msg := fmt.Sprintf("%s: working directory %q does not exist", c.who, in.Cwd)
			if !errors.Is(err, fs.ErrNotExist) {
				msg = fmt.Sprintf("%s: working directory %q: %v", c.who, in.Cwd, err)
			}
			return nil, &luahook.Failure{Kind: luahook.FailError, Message: msg, Err: err}
		} else if !fi.IsDir() {
			return nil, c.fail(luahook.FailError, "working directory %q is not a directory", in.Cwd)
		}
	}

	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	if cmd.Err != nil {
		if errors.Is(cmd.Err, exec.ErrNotFound) {
			return nil, &luahook.Failure{Kind: luahook.FailError,
				Message: fmt.Sprintf("%s: program %q not found in PATH", c.who, c.argv[0]), Err: cmd.Err}
		}
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: c.who + ": " + cmd.Err.Error(), Err: cmd.Err}
	}
	stdout := &capture{limit: MaxOutputBytes}
	stderr := &capture{limit: MaxOutputBytes}
	stdout.onOverflow = func() { _ = proctree.KillTree(cmd.Process) }
	cmd.Dir = in.Cwd
	marker := newMarker()
	cmd.Env = ChildEnv(c.environ(), c.pass, in, c.dirVar, callVar+"="+marker)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	proctree.Isolate(cmd)
	cmd.Cancel = func() error { return proctree.KillTree(cmd.Process) }
	cmd.WaitDelay = pipeGrace

	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, contextFailure(ctx, c.who, start)
		}
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: c.who + ": spawn failed: " + err.Error(), Err: err}
	}
	watch := watchCall() // after Start, so that it overlaps the child's run
	var left *leftovers
	if pid := cmd.Process.Pid; holdExited(pid) {
		// The child is gone but not reaped: its pid, the group's id, is
		// still ours, so the group kill below cannot hit another group.
		_ = proctree.KillTree(cmd.Process)
		left = watch.ended(pid, marker)
	}
	waitErr := cmd.Wait()
	if left != nil {
		c.sweeper.schedule(left)
	}
	out, ferr := c.result(ctx, start, cmd.ProcessState, waitErr, stdout, stderr)
	if c.logger.Enabled(ctx, slog.LevelDebug) {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "command hook finished",
			slog.String("command", c.command), slog.Int("exit", cmd.ProcessState.ExitCode()),
			slog.Duration("took", time.Since(start)), failureAttr(ferr))
	}
	if ferr != nil {
		return nil, ferr
	}
	return out, nil
}

// result turns how the child ended into the hook's answer.
func (c *Command) result(ctx context.Context, start time.Time, ps *os.ProcessState, waitErr error, stdout, stderr *capture) (*luahook.Outcome, *luahook.Failure) {
	if stdout.overflowed {
		return nil, c.fail(luahook.FailInvalidOutput, "stdout exceeded %d KiB; the hook was stopped", MaxOutputBytes>>10)
	}
	if ctxErr := ctx.Err(); ctxErr != nil && (errors.Is(waitErr, ctxErr) || !ps.Exited()) {
		return nil, contextFailure(ctx, c.who, start)
	}
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "command hook exited but a background process kept its output open; stopped reading",
			slog.String("command", c.command))
	}
	errText := cleanText(stderr.buf)
	if how, killed := signalled(ps); killed {
		return nil, c.fail(luahook.FailExit, "%s", joinText(how, errText))
	}
	switch code := ps.ExitCode(); code {
	case 0:
	case 2:
		reason := errText
		if reason == "" {
			reason = cleanText(stdout.buf)
		}
		if reason == "" {
			reason = luahook.DefaultBlockReason
		}
		return luahook.Deny(reason), nil
	default:
		return nil, c.fail(luahook.FailExit, "%s", joinText(fmt.Sprintf("exited with code %d", code), errText))
	}
	out, err := luahook.ParseOutcome(stdout.buf)
	if err != nil {
		f := luahook.AsFailure(err)
		return nil, &luahook.Failure{Kind: f.Kind, Message: c.who + ": " + f.Message, Err: err}
	}
	return out, nil
}

// cleanText trims b and cuts it to luahook.MaxReasonChars characters of
// valid UTF-8 (invalid bytes become U+FFFD; valid text is kept intact).
func cleanText(b []byte) string {
	return strings.ToValidUTF8(luahook.TruncateReason(strings.TrimSpace(string(b))), "\uFFFD")
}

// failureAttr is the log attribute of a call's failure, empty when there is none.
func failureAttr(f *luahook.Failure) slog.Attr {
	if f == nil {
		return slog.Attr{}
	}
	return slog.String("failure", f.Error())
}

func joinText(what, detail string) string {
	if detail == "" {
		return what
	}
	return what + ": " + detail
}

func (c *Command) fail(kind luahook.FailureKind, format string, args ...any) *luahook.Failure {
	return &luahook.Failure{Kind: kind, Message: c.who + ": " + fmt.Sprintf(format, args...)}
}
