package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/luahook/luahook/internal/proctree"
)

// runCeiling bounds one git run whatever the hook's deadline.
const runCeiling = 2 * time.Second

// maxOutput bounds what one git run's stdout may hold in memory; stderr
// keeps its first maxStderr bytes.
const (
	maxOutput = 1 << 20
	maxStderr = 4 << 10
)

// waitGrace bounds the wait for a killed git's pipes to close.
const waitGrace = 100 * time.Millisecond

// hardening is the configuration every git run is given on its command
// line, where it overrides the system, global and repository files. The
// repository is written by others: nothing it configures may make git run
// a program. The filter drivers it configures are neutralised per run
// (filterOverrides), since their names are the repository's.
var hardening = []string{
	"core.fsmonitor=false",      // status runs the fsmonitor hook
	"core.hooksPath=/dev/null",  // post-index-change and every other hook
	"core.untrackedCache=false", // no cache written into the repository
	"core.pager=cat",
	"diff.external=",
	"log.showSignature=false", // would run gpg.program on a signed commit
	"status.submoduleSummary=false",
	"protocol.allow=never", // no transport, so no lazy fetch of a partial clone
	"credential.helper=",
	"safe.bareRepository=explicit", // no embedded bare repository's config
	"gc.auto=0",
	"maintenance.auto=false",
}

// gitEnv is the whole environment of a git run: the parent's PATH and
// HOME (the operator's own ~/.gitconfig and its safe.directory entries
// stay in force), messages in English for the refusals read from stderr,
// and nothing else: no GIT_DIR, GIT_WORK_TREE, GIT_EXTERNAL_DIFF, GIT_SSH
// or GIT_CONFIG_* from the parent.
func gitEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"LANG=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_REPLACE_OBJECTS=1",
	}
}

// run is one git run in dir: what it wrote (bounded) and how it ended.
type run struct {
	out    []byte
	stderr string
	// cut: stdout went past its limit and git was stopped.
	cut bool
	// enough: the reader had what it needed and git was stopped.
	enough bool
}

// runGit runs git with the hardening and extra configuration (key=value)
// in dir, under ctx and runCeiling whichever ends first. enough, when not
// nil, is asked after each write whether the output so far says all the
// caller needs; when it does, git's process group is killed and the run
// counts as a success. A git that exits non-zero is an *exitError.
func runGit(ctx context.Context, dir string, extra []string, enough func([]byte) bool, args ...string) (*run, error) {
	argv := make([]string, 0, 2*(len(hardening)+len(extra))+2+len(args))
	for _, kv := range hardening {
		argv = append(argv, "-c", kv)
	}
	for _, kv := range extra {
		argv = append(argv, "-c", kv)
	}
	argv = append(argv, "--no-pager", "--no-optional-locks")
	argv = append(argv, args...)

	rctx, cancel := context.WithTimeout(ctx, runCeiling)
	defer cancel()
	sctx, stop := context.WithCancel(rctx)
	defer stop()
	cmd := exec.CommandContext(sctx, "git", argv...)
	if cmd.Err != nil {
		if errors.Is(cmd.Err, exec.ErrNotFound) {
			return nil, errors.New("git not found in PATH")
		}
		return nil, cmd.Err
	}
	cmd.Dir = dir
	cmd.Env = gitEnv()
	out := &bounded{limit: maxOutput, enough: enough, stop: stop}
	errOut := &bounded{limit: maxStderr}
	cmd.Stdout, cmd.Stderr = out, errOut
	proctree.Isolate(cmd)
	cmd.Cancel = func() error { return proctree.KillTree(cmd.Process) }
	cmd.WaitDelay = waitGrace
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	r := &run{stderr: strings.TrimSpace(string(errOut.buf))}
	out.mu.Lock()
	r.out, r.cut, r.enough = out.buf, out.cut, out.done
	out.mu.Unlock()
	switch {
	case r.enough || r.cut:
		return r, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	case rctx.Err() != nil:
		return nil, fmt.Errorf("git %s took longer than %v; stopped", args[0], runCeiling)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return r, &exitError{args: args[0], code: ee.ExitCode(), stderr: r.stderr}
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return r, nil
}

// exitError is a git run that exited with a non-zero status.
type exitError struct {
	args   string
	code   int
	stderr string
}

func (e *exitError) Error() string {
	line, _, _ := strings.Cut(e.stderr, "\n")
	if line == "" {
		return fmt.Sprintf("git %s exited with status %d", e.args, e.code)
	}
	return fmt.Sprintf("git %s exited with status %d: %s", e.args, e.code, line)
}

// bounded is a writer that keeps the first limit bytes it is given and
// drops the rest. When it drops something, or when enough says the bytes
// kept are all the reader needs, it calls stop (which kills git).
type bounded struct {
	limit  int
	enough func([]byte) bool
	stop   func()

	mu   sync.Mutex
	buf  []byte
	cut  bool
	done bool
}

func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut || b.done {
		return len(p), nil
	}
	keep := min(len(p), b.limit-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	switch {
	case b.enough != nil && b.enough(b.buf):
		b.done = true
	case keep < len(p):
		b.cut = true
	default:
		return len(p), nil
	}
	if b.stop != nil {
		b.stop()
	}
	return len(p), nil
}

// records splits NUL-terminated records; a last record without its NUL is
// left out (it may be incomplete).
func records(b []byte) [][]byte {
	var rs [][]byte
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return rs
		}
		rs = append(rs, b[:i])
		b = b[i+1:]
	}
}
