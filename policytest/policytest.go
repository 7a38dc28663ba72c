// Package policytest runs the policy tests of a hooks folder: the *_test.lua
// files next to the hook files. A test file declares cases with test(name,
// fn); each case fires events at the folder's hooks, loaded by a fresh engine
// exactly as in production, and asserts on the results:
//
//	test("rm -rf / is denied", function()
//	  local r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf /" } })
//	  expect.denied(r, "dangerous command")
//	end)
//
// fire(event, payload) returns { verdict, denied, reason, input,
// additionalContext, contextAs, decidedBy, outcome, trace } (verdict: none,
// allow, deny, ask or continue); the expect functions (denied, asked,
// allowed, no_objection, proceeds, mutated, context, eq, truthy, contains) raise "file:line: what failed" with
// the line of the assertion. Run prints "ok" or "FAIL" per case and the
// summary line "N passed, M failed".
package policytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
)

// DefaultTimeout bounds one test case.
const DefaultTimeout = 30 * time.Second

// Options configure Run. The zero value runs the tests of ./hooks.d and
// discards the output.
type Options struct {
	// Paths are test files or folders whose *_test.lua files run (not their
	// subfolders). Empty means "hooks.d".
	Paths []string
	// Run, when set, is a regular expression: only the cases whose names it
	// matches run.
	Run string
	// ConfigPath is the luahook.toml every test's engine loads; empty: none.
	ConfigPath string
	// PolicyOnly runs only the hooks marked policy, as --no-hooks does.
	PolicyOnly bool
	// Out receives the ok/FAIL lines, the summary and what the tests print.
	// Nil discards them.
	Out io.Writer
	// Logger receives the engines' logs (hook failures, the Lua log module).
	// Nil discards them.
	Logger *slog.Logger
	// LookupEnv reads the environment for the env module; nil: os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Timeout bounds each case; zero means DefaultTimeout.
	Timeout time.Duration
	// Coverage, when set, counts the lines of the hook files and lib
	// modules the tests run (the test files themselves are not measured);
	// Summary.Coverage is its report, the files under test apart from the
	// other lib modules (CoverageReport). Nil measures nothing.
	Coverage *luabind.Coverage
	// Agent, when set, names a coding agent (claude, codex, copilot,
	// cursor, gemini): fire then writes each payload as that agent would
	// send it (agent.NativePayload: its event and tool names), decodes it
	// with the agent's adapter and fires the decoded payload, so that one
	// test suite checks the policies against every agent's wire format. A
	// case that fires a payload the agent cannot send (an event it has no
	// hook for, an MCP tool's server on Cursor) fails, saying so, even if
	// it caught fire's error: it did not run as that agent would.
	Agent string
	// Host are the host modules every test's engine gives its hook files
	// (engine.Options.Host).
	Host []host.Module
	// Mutants, when set, collects the bypass coverage of the run: after
	// each passing case, every PreToolUse payload it fired that was denied
	// or asked about is fired again in other spellings of the same call
	// (at most Mutants.PerCase per case), which count as blocked when
	// they are denied or asked about too; Mutants.Report reads the counts
	// after Run. Nil fires no mutant.
	Mutants *Mutants
	// Trust checks each file every test's engine loads
	// (engine.Options.Trust): the config, the hook files, the lib modules.
	// The test files themselves are the caller's to vet. Nil trusts
	// everything.
	Trust engine.Trust
}

// Summary counts the results of a run. A test file that does not load, or
// whose hooks do not load, counts as one failure.
type Summary struct {
	Passed, Failed int
	// Unsent counts the failed cases (of Failed) that fired a payload the
	// agent of Options.Agent cannot send.
	Unsent int
	// Coverage is the line coverage of the run, with Options.Coverage; nil
	// without.
	Coverage *CoverageReport
}

// String returns the summary line, exactly "N passed, M failed", followed
// by " (K of them: payloads the agent cannot send)" when there are such.
func (s Summary) String() string {
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Unsent > 0 {
		line += fmt.Sprintf(" (%d of them: payloads the agent cannot send)", s.Unsent)
	}
	return line
}

// Run runs the test files found in opts.Paths, one after another, prints a
// line per case and the summary, and returns the counts. Its error reports
// bad options only (a bad -run pattern, a path that does not exist, no test
// files at all); failing tests are counted, not returned.
func Run(ctx context.Context, opts Options) (Summary, error) {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	var match *regexp.Regexp
	if opts.Run != "" {
		re, err := regexp.Compile(opts.Run)
		if err != nil {
			return Summary{}, fmt.Errorf("-run %q: %w", opts.Run, err)
		}
		match = re
	}
	if opts.Agent != "" {
		a, err := agent.Lookup(opts.Agent)
		if err != nil {
			return Summary{}, err
		}
		// Refuse an agent without a native writer before any case runs.
		if _, _, err := agent.NativePayload(a.Name(), &luahook.Input{Event: luahook.SessionStart}); err != nil {
			return Summary{}, fmt.Errorf("--agent: %w", err)
		}
		opts.Agent = string(a.Name())
	}
	if len(opts.Paths) == 0 {
		opts.Paths = []string{engine.DefaultHooksDir}
	}
	files, err := engine.TestFiles(opts.Paths)
	if err != nil {
		return Summary{}, err
	}
	if len(files) == 0 {
		return Summary{}, fmt.Errorf("no *_test.lua files in %s", strings.Join(opts.Paths, ", "))
	}
	// Every case opens an engine of its own (no state leaks between
	// cases); the files they load are compiled once for the whole run and
	// kept in a compiled-chunk cache of its own, removed at the end.
	// Coverage, which compiles counting lines, goes without.
	var chunks *luabind.DiskCache
	if opts.Coverage == nil {
		if dir, err := os.MkdirTemp("", "luahook-policytest-"); err == nil {
			defer os.RemoveAll(dir)
			if c, err := luabind.OpenDiskCache(filepath.Join(dir, "chunks")); err == nil {
				c.KeepDecoded() // the run's own cache: nobody else writes it
				chunks = c
			}
		}
	}
	var sum Summary
	var rc *runCoverage
	if opts.Coverage != nil {
		rc = &runCoverage{}
	}
	for _, file := range files {
		if ctx.Err() != nil {
			return sum, ctx.Err()
		}
		runFile(ctx, opts, match, file, chunks, rc, &sum)
	}
	if rc != nil {
		rep := newCoverageReport(opts.Coverage, rc.lib)
		sum.Coverage = &rep
	}
	fmt.Fprintln(opts.Out, sum)
	return sum, nil
}

// testFile is one test file being run: its session, its cases, and the
// engine of the case in progress.
type testFile struct {
	opts   Options
	chunks *luabind.DiskCache // nil: every open compiles
	path   string
	dir    string
	sess   *luabind.Session
	cases  []testCase
	eng    *engine.Engine
	// failed lists the hooks that failed during the case in progress, one
	// line each, printed under the case when it fails.
	failed []string
	// unsent is the first payload of the case in progress that the agent
	// of Options.Agent cannot send, nil when there is none.
	unsent error
	// fired lists the payloads of the case in progress, with Mutants set;
	// tooMany is set when the case fired more than maxFiredPerCase.
	fired   []fired
	tooMany bool
	// mutEntry is 1 + the index of the file's entry in Mutants, 0 before
	// its first case with mutants.
	mutEntry int
}

type testCase struct {
	name string
	fn   *lua.LFunction
}

func runFile(ctx context.Context, opts Options, match *regexp.Regexp, path string, chunks *luabind.DiskCache, rc *runCoverage, sum *Summary) {
	tf := &testFile{opts: opts, chunks: chunks, path: path, dir: filepath.Dir(path)}
	if rc != nil {
		rc.addLibDir(filepath.Join(tf.dir, "lib"))
	}
	fail := func(what string, err error) {
		sum.Failed++
		fmt.Fprintf(opts.Out, "FAIL %s %s\n%s", path, what, indent(err.Error()))
	}
	// The hooks must load before any case can mean anything.
	eng, err := tf.open(ctx)
	if err == nil {
		err = eng.Err()
		eng.Close()
	}
	if err != nil {
		fail("(hooks do not load)", err)
		return
	}
	sess, err := luabind.NewSession(luabind.SessionOptions{
		Options: luabind.Options{
			LibDir:    filepath.Join(tf.dir, "lib"),
			Logger:    opts.Logger,
			LookupEnv: opts.LookupEnv,
			Coverage:  opts.Coverage,
		},
		Name:   path,
		Stdout: opts.Out,
	})
	if err != nil {
		fail("(setup)", err)
		return
	}
	defer sess.Close()
	tf.sess = sess
	lctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	err = sess.Do(lctx, tf.bind)
	if err == nil && rc != nil {
		err = sess.Do(lctx, func(L *lua.LState) error { tf.wrapRequire(L, rc); return nil })
	}
	if err == nil {
		err = bind(lctx, sess, tf.runner, tf.defaults, tf.observe, agent.Name(opts.Agent), tf.noteUnsent)
	}
	if err == nil {
		err = sess.Load(lctx, path)
	}
	cancel()
	if err != nil {
		fail("(does not load)", loadFailure(err))
		return
	}
	if len(tf.cases) == 0 {
		fmt.Fprintf(opts.Out, "?    %s [no test cases]\n", path)
		return
	}
	for _, c := range tf.cases {
		if match != nil && !match.MatchString(c.name) {
			continue
		}
		start := time.Now()
		tf.failed, tf.unsent, tf.fired, tf.tooMany = nil, nil, nil, false
		err := tf.runCase(ctx, c)
		d := time.Since(start)
		if err == nil && tf.unsent == nil && opts.Mutants != nil {
			// The mutants of a case that passed: its blocked calls,
			// spelled otherwise. They do not count in the case's time.
			if merr := tf.mutate(ctx, c.name); merr != nil {
				err = merr
			}
		}
		if tf.unsent != nil {
			// The case did not run as the agent would send it, whether or
			// not it caught fire's error: it cannot pass.
			sum.Unsent++
			if err == nil || !strings.Contains(err.Error(), tf.unsent.Error()) {
				err = fmt.Errorf("fire: %w", tf.unsent)
			}
		}
		if err != nil {
			sum.Failed++
			fmt.Fprintf(opts.Out, "FAIL %s %s\n%s", path, termtext.Line(c.name), indent(err.Error()))
			for _, f := range tf.failed {
				fmt.Fprint(opts.Out, indent(f))
			}
			continue
		}
		sum.Passed++
		fmt.Fprintf(opts.Out, "ok   %s %s (%s)\n", path, termtext.Line(c.name), roundDuration(d))
	}
}

// open opens an engine on the test file's folder, as `luahook fire` would.
func (tf *testFile) open(ctx context.Context) (*engine.Engine, error) {
	return tf.openWith(ctx, tf.opts.Coverage)
}

// openWith is open with the coverage cov counts in (nil: none).
func (tf *testFile) openWith(ctx context.Context, cov *luabind.Coverage) (*engine.Engine, error) {
	chunks := tf.chunks
	if cov != tf.opts.Coverage {
		chunks = nil // the cache's chunks were compiled for the run's coverage
	}
	return engine.Open(ctx, engine.Options{
		Dir:        tf.dir,
		ConfigPath: tf.opts.ConfigPath,
		Logger:     tf.opts.Logger,
		PolicyOnly: tf.opts.PolicyOnly,
		NoWatch:    true,
		LookupEnv:  tf.opts.LookupEnv,
		Coverage:   cov,
		Host:       tf.opts.Host,
		ChunkCache: chunks,
		Trust:      tf.opts.Trust,
		// A web approval is answered as the case's fire says.
		Approver: testApprover{},

		// A case's payload runs in the test file's folder, the hooks
		// folder, unless it names a cwd: the engine's self-protection
		// would answer before the policies under test (its own tests are
		// the engine's).
		NoSelfProtect: true,
	})
}

// runCase runs one case on a fresh engine, so that state kept in the store
// (counters, rate limits) never leaks from one case to the next.
func (tf *testFile) runCase(ctx context.Context, c testCase) error {
	eng, err := tf.openCase(ctx, true)
	if err != nil {
		return err
	}
	defer eng.Close()
	tf.eng = eng
	defer func() { tf.eng = nil }()
	cctx, cancel := context.WithTimeout(ctx, tf.opts.Timeout)
	defer cancel()
	err = tf.sess.Call(cctx, c.fn)
	var f *luahook.Failure
	switch {
	case err == nil:
		return nil
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return fmt.Errorf("the case did not finish within %v", tf.opts.Timeout)
	case errors.As(err, &f):
		return errors.New(f.Message)
	}
	return err
}

// openCase opens the engine of a case: the folder's hooks and those the
// test file registered. measured says whether the coverage of the run, if
// any, counts what it runs (the mutants' engines are not measured: coverage
// is what the tests ran).
func (tf *testFile) openCase(ctx context.Context, measured bool) (*engine.Engine, error) {
	var cov *luabind.Coverage
	if measured {
		cov = tf.opts.Coverage
	}
	eng, err := tf.openWith(ctx, cov)
	if err != nil {
		return nil, err
	}
	// The file's first engine loaded (runFile), but this one may not (a
	// load timeout on a loaded machine): a case without a hook file would
	// report "no hook matched" of a call its hooks never saw.
	if err := eng.Err(); err != nil {
		eng.Close()
		return nil, fmt.Errorf("the hooks did not load for this case: %w", err)
	}
	if regs := tf.sess.Registrations(); len(regs) > 0 {
		if err := eng.RegisterSession(filepath.Base(tf.path), regs); err != nil {
			eng.Close()
			return nil, err
		}
	}
	return eng, nil
}

func (tf *testFile) runner() *engine.Runner {
	if tf.eng == nil {
		return nil
	}
	return tf.eng.Runner()
}

// noteUnsent records the first payload of the case in progress that the
// agent cannot send.
func (tf *testFile) noteUnsent(err error) {
	if tf.unsent == nil {
		tf.unsent = err
	}
}

// observe records the hooks that failed in a result of fire, each once per
// case: a failed expectation is shown with the errors behind it; with
// Mutants, it keeps the payload in (a copy, as fire built it).
func (tf *testFile) observe(in *luahook.Input, res *engine.Result) {
	tf.record(in, res)
	for _, t := range res.Trace {
		line := t.FailureLine()
		if line != "" && !slices.Contains(tf.failed, line) {
			tf.failed = append(tf.failed, line)
		}
	}
}

// defaults fills what a test's payload leaves out: the folder of the test
// file as cwd. A relative cwd is made absolute against that folder, as an
// agent would send it (agents send absolute ones), so that what a hook
// reads there (rt.cwd, the fs module, host.git) does not depend on the
// folder luahook test runs in; a Windows path is left as written.
func (tf *testFile) defaults(in *luahook.Input) {
	dir, _ := filepath.Abs(tf.dir)
	switch {
	case in.Cwd == "":
		in.Cwd = dir
	case relativeCwd(in.Cwd):
		in.Cwd = filepath.Join(dir, in.Cwd)
	}
}

// relativeCwd reports whether cwd is relative both here and on Windows
// (not "C:...", "\\server\share" or "\\dir").
func relativeCwd(cwd string) bool {
	windows := strings.HasPrefix(cwd, `\`) || len(cwd) >= 2 && cwd[1] == ':' &&
		('a' <= cwd[0] && cwd[0] <= 'z' || 'A' <= cwd[0] && cwd[0] <= 'Z')
	return !filepath.IsAbs(cwd) && !windows
}

// bind installs test(name, fn), which declares a case.
func (tf *testFile) bind(L *lua.LState) error {
	L.SetGlobal("test", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		fn := L.CheckFunction(2)
		if L.GetTop() > 2 {
			L.RaiseError("test: too many arguments; usage: test(name, function() ... end)")
		}
		if strings.TrimSpace(name) == "" {
			L.ArgError(1, "a test case needs a name")
		}
		tf.cases = append(tf.cases, testCase{name: name, fn: fn})
		return 0
	}))
	return nil
}

// loadFailure words a test file's load error: a syntax error as it is, a
// runtime error by its message, which carries file:line.
func loadFailure(err error) error {
	var f *luahook.Failure
	if errors.As(err, &f) {
		return errors.New(f.Message)
	}
	return err
}

func indent(msg string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(termtext.Line(line))
		b.WriteByte('\n')
	}
	return b.String()
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
