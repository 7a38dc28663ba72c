// Command luahook fires lifecycle events at the hooks of a hooks.d folder and a
// luahook.toml, lists and checks them, runs their tests, and serves them over
// HTTP. Run `luahook demo` for a first look.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/luahook/luahook/internal/redisstore"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/luahook/luahook/internal/termtext"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	st := &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr, process: true}
	st.stopGrace.Store(int64(defaultStopGrace))
	go endOnSignals(sigs, cancel, st, os.Exit)
	code := runStreams(ctx, os.Args[1:], st)
	signal.Stop(sigs)
	os.Exit(code)
}

// defaultStopGrace is how long a command may go on after the first SIGTERM
// or interrupt before the process ends anyway. serve raises it to its own
// --grace plus this much.
const defaultStopGrace = 3 * time.Second

// endOnSignals turns the first signal into a cancellation of the command's
// context (serve finishes its requests, fire stops its hooks) and ends the
// process at the second signal, or when the command is still running
// stopGrace after the first: work that does not watch the context (a read
// that never returns, an open(2) of a FIFO) cannot keep the process alive.
func endOnSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, st *streams, exit func(int)) {
	sig := <-sigs
	cancel(fmt.Errorf("received %v", sig))
	grace := time.Duration(st.stopGrace.Load())
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case sig = <-sigs:
		fmt.Fprintf(st.err, "luahook: second %v: exiting now\n", sig)
	case <-timer.C:
		fmt.Fprintf(st.err, "luahook: still running %v after %v: exiting\n", grace, sig)
	}
	code := 128 + 15
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	exit(code)
}

// exitError carries an exit status other than 1 (2 = denied or blocked), or
// an exit status 1 whose explanation was already printed (err nil).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// run executes the CLI and returns the process exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStreams(ctx, args, &streams{in: stdin, out: stdout, err: stderr})
}

func runStreams(ctx context.Context, args []string, s *streams) int {
	// A Redis store's client would log its failures on stderr, which a
	// fire's host reads as the deny's reason; they reach the hook instead.
	redisstore.SilenceClientLog()
	stdin, stdout, stderr := s.in, s.out, s.err
	root := newRootCmd(s)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "luahook:", termtext.Block(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "luahook:", termtext.Block(err.Error()))
	return 1
}
