// Command luahook fires lifecycle events at the hooks of a hooks.d folder and a
// luahook.toml, lists and checks them, runs their tests, and serves them over
// HTTP. Run `luahook demo` for a first look.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels ctx (serve finishes its requests, fire stops
	// its hooks); a second one gets the default behaviour and ends the process.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
	root := newRootCmd(&streams{in: stdin, out: stdout, err: stderr})
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
			fmt.Fprintln(stderr, "luahook:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "luahook:", err)
	return 1
}
