package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
)

func newCheckCmd(g *globalOptions, s *streams) *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Load the config and every hook file and report every error and warning",
		Long: `check loads the config and every hook file exactly as the engine does and
prints every error on standard error, one per line, with its file and line.
A config that fails to load does not stop the check: the hook files and the
valid part of the config are checked all the same. Exit status 1 on any
error, and when there is nothing to check (no hooks folder and no config
here: a check run from the wrong folder must not pass).

It then prints the linter's warnings on the files that loaded, as
"file:line: warning: message [rule]": an assignment to a global inside a
function (global-assign), an assignment to a local of the file's top level
in code a hook runs (upvalue-assign: each pooled Lua state has its own, so
calls do not share it; use store or the session ledger), a read of a global
nothing defines
(undefined-global), a read of a field a sandbox module does not have
(unknown-field), a stage on an event that has none (stage-ignored),
an ignore comment naming an unknown rule (bad-ignore). It warns too when
hook files use the store and [store] backend = "memory" is written out: a
one-shot luahook fire then forgets the store between calls. Warnings do not stop
a load and do not fail the check, unless --strict. A comment
"-- luahook: ignore RULE[, RULE]" silences those rules on the line it ends,
or, alone on its line, on the next one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := g.loggerFor("check", s.err, false)
			if err != nil {
				return err
			}
			eng, err := g.openWith(cmd.Context(), openOptions{logger: logger, partial: true, needSomething: true, ownWarnings: true})
			if err != nil {
				return err
			}
			defer eng.Close()
			errs := eng.Problems()
			for _, err := range errs {
				fmt.Fprintln(s.err, termtext.Block(err.Error()))
			}
			warns := eng.Warnings()
			for _, w := range warns {
				fmt.Fprintln(s.err, termtext.Block(w.String()))
			}
			nwarn := len(warns)
			if w := engine.OneShotStoreWarning(eng.Config(), eng.Dir()); w != "" {
				fmt.Fprintln(s.err, "warning:", termtext.Line(w))
				nwarn++
			}
			switch {
			case len(errs) > 0:
				return fmt.Errorf("check failed: %d error(s)", len(errs))
			case strict && nwarn > 0:
				return fmt.Errorf("check failed: %d warning(s) (--strict)", nwarn)
			}
			st, cfg := eng.Stats(), eng.Config()
			from := "no config"
			if cfg.Path != "" {
				from = fmt.Sprintf("%d configured in %s", cfg.NumHooks(), cfg.Path)
			}
			warned := ""
			if nwarn > 0 {
				warned = fmt.Sprintf("; %d warning(s)", nwarn)
			}
			fmt.Fprintf(s.out, "ok: %d hooks (%d Lua files in %s; %s)%s\n", st.Hooks, st.Files, eng.Dir(), from, warned)
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail (exit status 1) on any linter warning")
	return cmd
}
