package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newCheckCmd(g *globalOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Load the config and every hook file and report every error",
		Long: `check loads the config and every hook file exactly as the engine does and
prints every error with its file and line. Exit status 1 on any error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eng, err := g.open(cmd.Context(), s, false)
			if err != nil {
				return err
			}
			defer eng.Close()
			errs := eng.Errors()
			for _, err := range errs {
				fmt.Fprintln(s.err, err)
			}
			st := eng.Stats()
			if len(errs) > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d error(s); %d hooks from %d files loaded", len(errs), st.Hooks, st.Files)}
			}
			fmt.Fprintf(s.out, "ok: %d hooks from %d Lua files and the config (%s)\n", st.Hooks, st.Files, eng.Dir())
			return nil
		},
	}
}
