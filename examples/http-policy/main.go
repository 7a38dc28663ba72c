// Command http-policy is a small policy service that speaks luahook's
// HTTP-hook protocol: luahook POSTs each payload to /hook and reads the
// outcome from the response body.
//
// The policy denies bash commands that delete recursively by force
// ("rm -rf", "rm -r -f", "rm --recursive --force") or pipe a download into a
// shell ("curl … | sh"), and reminds the model to run the tests after a file
// was edited. Anything else gets an empty answer: no objection.
//
//	go run ./examples/http-policy --addr 127.0.0.1:8788
//
// See README.md in this folder for the luahook.toml entries that use it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "http-policy:", err)
		}
		os.Exit(2)
	}
}

// run parses the command line, listens, and serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("http-policy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8788", "`address` to listen on (keep it on loopback unless a proxy with TLS sits in front)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	logger.Info("http-policy listening", "url", "http://"+ln.Addr().String()+"/hook")
	return serve(ctx, ln, logger)
}

// serve answers HTTP-hook requests on ln until ctx is done, then shuts down
// gracefully, letting requests in flight finish.
func serve(ctx context.Context, ln net.Listener, logger *slog.Logger) error {
	srv := &http.Server{
		Handler:           handler(logger),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
