// Package repl is luahook's interactive Lua prompt: a sandboxed Lua session
// with the whole hook API (hook, json, log, re, store, env, require, and the
// test API's fire and expect), whose hook.register calls are live hooks of
// the engine, plus commands to fire events, list hooks, load files and reload
// the hooks folder.
//
// On a terminal it edits lines with history and completion; with any other
// input it reads the lines of a script and prints the results, so that it
// can be driven by other programs:
//
//	> =1 + 1                        a value (a bare expression prints too)
//	2
//	> function add(a, b)            an incomplete chunk continues...
//	>>   return a + b
//	>> end
//	> :fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}
//	{"action":"deny","reason":"..."}
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/policytest"
)

// Owner owns the hooks registered at the prompt in the engine's registry.
const Owner = "repl"

// ErrFailed is what Run returns, in script mode, when a line failed: its
// error has been printed already.
var ErrFailed = errors.New("repl: the script had errors")

// Options configure Run. The zero value reads standard input as a script,
// with a private engine and no hooks folder, and keeps no history.
type Options struct {
	// In is read line by line; nil means os.Stdin.
	In io.Reader
	// Out receives values and command output, Err errors; nil means
	// os.Stdout and os.Stderr.
	Out, Err io.Writer
	// Engine supplies the hooks that :fire and fire() run, :list shows and
	// :reload reloads. Hooks registered at the prompt join its registry under
	// Owner. Nil means a private engine with no hooks folder (engine.New).
	Engine *engine.Engine
	// HistoryPath is the file of the line history (interactive mode). Empty
	// means no history is kept.
	HistoryPath string
	// Interactive selects line editing, history, completion and prompts. In
	// must then be a terminal (an *os.File); otherwise In is read as a
	// script.
	Interactive bool
	// Interrupts cancel the Lua chunk or the :fire running when they arrive
	// (typically os.Interrupt from signal.Notify); in script mode one that
	// arrives between lines ends the script. Nil means none.
	Interrupts <-chan os.Signal
	// Logger receives the Lua log module's records. Nil discards them.
	Logger *slog.Logger
}

// Run runs the prompt until the input ends (Ctrl-D), :quit, or ctx is done.
// It returns nil then, ErrFailed after a script with errors, or the error
// that stopped it.
func Run(ctx context.Context, opts Options) error {
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Err == nil {
		opts.Err = os.Stderr
	}
	r := &repl{opts: opts, out: opts.Out, errw: opts.Err, eng: opts.Engine}
	if err := r.setup(ctx); err != nil {
		return err
	}
	defer r.close()
	var in lineReader
	if opts.Interactive {
		t, err := newTerminalReader(ctx, opts, completer{r})
		if err != nil {
			return err
		}
		defer t.close()
		in = t
		r.banner()
	} else {
		in = newScriptReader(ctx, opts.In, opts.Interrupts)
	}
	for _, err := range r.eng.Errors() {
		fmt.Fprintln(r.errw, err)
	}
	err := r.loop(ctx, in)
	if err == nil && r.failed && !opts.Interactive {
		return ErrFailed
	}
	return err
}

// repl is one run of the prompt.
type repl struct {
	opts      Options
	out, errw io.Writer
	eng       *engine.Engine
	ownEngine bool
	sess      *luabind.Session
	synced    []string // ids of the prompt's hooks in the registry
	trace     bool
	failed    bool
}

func (r *repl) setup(ctx context.Context) error {
	if r.eng == nil {
		eng, err := engine.New(engine.Options{Logger: r.opts.Logger})
		if err != nil {
			return err
		}
		r.eng, r.ownEngine = eng, true
	}
	// The engine's own options: the prompt shares the hooks' store, caps and lib folder.
	lopts := r.eng.LuaOptions()
	if r.opts.Logger != nil {
		lopts.Logger = r.opts.Logger
	}
	sess, err := luabind.NewSession(luabind.SessionOptions{Options: lopts, Name: Owner, Stdout: r.out})
	if err != nil {
		r.closeEngine()
		return err
	}
	r.sess = sess
	if err := policytest.Bind(ctx, sess, r.eng.Runner, defaults); err != nil {
		sess.Close()
		r.closeEngine()
		return err
	}
	return nil
}

func (r *repl) close() {
	if err := r.eng.RegisterSession(Owner, nil); err != nil {
		fmt.Fprintln(r.errw, err) // removing hooks cannot fail; kept visible if it ever does
	}
	r.sess.Close()
	r.closeEngine()
}

// closeEngine closes the engine if the prompt made it.
func (r *repl) closeEngine() {
	if r.ownEngine {
		r.eng.Close()
	}
}

// hasFolder reports whether the prompt's engine loads a hooks folder.
func (r *repl) hasFolder() bool { return r.eng.Dir() != "" }

// defaults fills what a payload fired at the prompt leaves out.
func defaults(in *luahook.Input) {
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
}

func (r *repl) banner() {
	what := "no hooks folder"
	if r.hasFolder() {
		what = fmt.Sprintf("%d hooks from %s", r.eng.Stats().Hooks, r.eng.Dir())
	}
	fmt.Fprintf(r.out, "luahook repl (Lua 5.1, sandboxed): %s. :help for commands, Ctrl-D to quit.\n", what)
}

// loop reads lines until the input ends. A line starting with ':' is a
// command; anything else is Lua, gathered until the chunk is complete.
func (r *repl) loop(ctx context.Context, in lineReader) error {
	var pending []string
	for {
		prompt := "> "
		if len(pending) > 0 {
			prompt = ">> "
		}
		line, err := in.readLine(prompt)
		switch {
		case errors.Is(err, errInterrupted):
			pending = nil // Ctrl-C drops the chunk being typed
			continue
		case errors.Is(err, io.EOF):
			if len(pending) > 0 {
				r.evalChunk(ctx, pending, true)
			}
			return nil
		case err != nil:
			return err
		}
		if len(pending) == 0 {
			trimmed := strings.TrimSpace(line)
			if trimmed == "" {
				continue
			}
			if strings.HasPrefix(trimmed, ":") {
				in.save(trimmed)
				if quit := r.command(ctx, trimmed); quit {
					return nil
				}
				continue
			}
		}
		pending = append(pending, line)
		if r.evalChunk(ctx, pending, false) {
			for _, e := range historyEntries(pending) {
				in.save(e)
			}
			pending = nil
		}
	}
}

// evalChunk evaluates the lines of a chunk and prints what it returned. It
// reports false, printing nothing, when the chunk is incomplete and more
// input may follow.
func (r *repl) evalChunk(ctx context.Context, lines []string, final bool) (done bool) {
	src := strings.Join(lines, "\n") + "\n"
	var vals []string
	err := r.interruptible(ctx, func(ctx context.Context) error {
		var err error
		vals, err = r.sess.Eval(ctx, "stdin", src)
		return err
	})
	if luabind.Incomplete(err) && !final {
		return false
	}
	r.sync()
	if err != nil {
		r.report(err)
		return true
	}
	if len(vals) > 0 {
		sep := "\t"
		if slices.ContainsFunc(vals, func(v string) bool { return strings.Contains(v, "\n") }) {
			sep = "\n"
		}
		fmt.Fprintln(r.out, termtext.Block(strings.Join(vals, sep)))
	}
	return true
}

// report prints an error of a chunk or a command.
func (r *repl) report(err error) {
	r.failed = true
	var f *luahook.Failure
	switch {
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(r.errw, "interrupted")
	case errors.As(err, &f) && f.Kind == luahook.FailAborted:
		fmt.Fprintln(r.errw, "interrupted")
	case errors.As(err, &f):
		fmt.Fprintln(r.errw, termtext.Block(f.Message))
	default:
		fmt.Fprintln(r.errw, termtext.Block(err.Error()))
	}
}

// interruptible runs fn with a context that the next interrupt cancels.
// An interrupt that arrived while nothing ran is dropped first.
func (r *repl) interruptible(ctx context.Context, fn func(context.Context) error) error {
	if r.opts.Interrupts == nil {
		return fn(ctx)
	}
	select {
	case <-r.opts.Interrupts:
	default:
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-r.opts.Interrupts:
			cancel()
		case <-done:
		}
	}()
	err := fn(cctx)
	close(done)
	<-watched // so that no watcher is left to take the next call's interrupt
	if err == nil && cctx.Err() != nil && ctx.Err() == nil {
		err = errInterrupted
	}
	return err
}

// sync puts the prompt's hooks in the registry when they changed.
func (r *repl) sync() {
	regs := r.sess.Registrations()
	ids := make([]string, len(regs))
	for i, reg := range regs {
		ids[i] = reg.ID
	}
	if slices.Equal(ids, r.synced) {
		return
	}
	// A hook registered at the prompt with no name is listed by its id, the
	// one :unregister takes.
	named := make([]luabind.Registration, len(regs))
	for i, reg := range regs {
		if reg.Name == "" {
			reg.Name = reg.ID
		}
		named[i] = reg
	}
	if err := r.eng.RegisterSession(Owner, named); err != nil {
		r.report(err)
		return
	}
	r.synced = ids
}
