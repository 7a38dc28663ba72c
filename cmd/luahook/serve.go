package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
	"github.com/luahook/luahook/server"
)

type serveOptions struct {
	addr    string
	maxBody int64
	grace   time.Duration
}

func newServeCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer the HTTP-hook protocol: POST a payload, get the outcome",
		Long: `serve runs an HTTP endpoint of the HTTP-hook protocol with hot reload of the
hooks folder and the config: POST / with a payload as JSON, get the outcome as
JSON. GET /healthz and GET /metrics (Prometheus). It binds loopback unless
--addr says otherwise, and shuts down gracefully on SIGTERM or Ctrl-C,
finishing the requests in flight.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), g, s, o) },
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8787", "listen address")
	cmd.Flags().Int64Var(&o.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes (413 past it)")
	cmd.Flags().DurationVar(&o.grace, "grace", 10*time.Second, "how long shutdown waits for requests in flight")
	return cmd
}

func runServe(ctx context.Context, g *globalOptions, s *streams, o *serveOptions) error {
	logger, err := g.logger(s.err)
	if err != nil {
		return err
	}
	eng, err := g.open(ctx, s, true)
	if err != nil {
		return err
	}
	defer eng.Close()
	for _, err := range eng.Errors() {
		logger.Error("load error", "err", err)
	}
	h := server.New(func(r *http.Request, in *luahook.Input) runner.Result {
		return eng.Runner().Fire(r.Context(), in)
	}, eng.Err, server.Options{MaxBody: o.maxBody, Logger: logger})
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      11 * time.Minute, // a hook may run up to 10 minutes
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(s.out, "luahook serve: listening on http://%s (%d hooks from %s)\n", ln.Addr(), eng.Stats().Hooks, eng.Dir())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Requests in flight finish; new connections are refused.
	sctx, cancel := context.WithTimeout(context.Background(), o.grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(s.out, "luahook serve: stopped")
	return nil
}
