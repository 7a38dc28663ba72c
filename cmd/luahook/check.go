package main

import (
	"fmt"
	"github.com/luahook/luahook/internal/termtext"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/config"
)

func newCheckCmd(g *globalOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Load the config and every hook file and report every error",
		Long: `check loads the config and every hook file exactly as the engine does and
prints every error on standard error, one per line, with its file and line.
A config that fails to load does not stop the check: the hook files are then
checked without it. Exit status 1 on any error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.checkDir(); err != nil {
				return err
			}
			logger, err := g.loggerAt(s.err, slog.LevelWarn, false)
			if err != nil {
				return err
			}
			var errs []error
			o := openOptions{logger: logger, quietLoad: true}
			eng, err := g.openWith(cmd.Context(), o)
			if err != nil {
				errs = append(errs, splitConfigErrors(err)...)
				o.noConfig = true
				if eng, err = g.openWith(cmd.Context(), o); err != nil {
					errs = append(errs, err)
				}
			}
			if eng != nil {
				defer eng.Close()
				errs = append(errs, eng.Errors()...)
			}
			for _, err := range errs {
				fmt.Fprintln(s.err, termtext.Block(err.Error()))
			}
			if len(errs) > 0 {
				return fmt.Errorf("check failed: %d error(s)", len(errs))
			}
			st, cfg := eng.Stats(), eng.Config()
			from := "no config"
			if cfg.Path != "" {
				from = fmt.Sprintf("%d configured in %s", cfg.NumHooks(), cfg.Path)
			}
			fmt.Fprintf(s.out, "ok: %d hooks (%d Lua files in %s; %s)\n", st.Hooks, st.Files, eng.Dir(), from)
			return nil
		},
	}
}

// splitConfigErrors returns the problems of a config error one by one, each
// naming its file and line.
func splitConfigErrors(err error) []error {
	ces := config.Errors(err)
	if len(ces) == 0 {
		return []error{err}
	}
	out := make([]error, len(ces))
	for i, ce := range ces {
		out[i] = ce
	}
	return out
}
