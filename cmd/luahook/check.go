package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/internal/termtext"
)

func newCheckCmd(g *globalOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Load the config and every hook file and report every error",
		Long: `check loads the config and every hook file exactly as the engine does and
prints every error on standard error, one per line, with its file and line.
A config that fails to load does not stop the check: the hook files and the
valid part of the config are checked all the same. Exit status 1 on any
error, and when there is nothing to check (no hooks folder and no config
here: a check run from the wrong folder must not pass).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := g.loggerFor("check", s.err, false)
			if err != nil {
				return err
			}
			eng, err := g.openWith(cmd.Context(), openOptions{logger: logger, partial: true, needSomething: true})
			if err != nil {
				return err
			}
			defer eng.Close()
			errs := eng.Problems()
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
