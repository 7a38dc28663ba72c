package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

func newListCmd(g *globalOptions, s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered hooks in the order they run",
		Long: `list prints the registered hooks of every event in the order they run:
configured hooks first (config order), then Lua files (by file name, then
registration order), and on PreToolUse every mutate-stage hook before every
validate-stage one. Each line gives the matcher as parsed ("names bash|sh",
"regex ^(?i:mcp__.*)$", "capability @shell", 'Bash command prefix "git push"'),
stage, kind, source, policy flag, timeout and failure policy. --json prints
the same as a JSON array, with the matcher as written and as parsed.

Files that fail to load are reported on standard error and make the exit
status 1; the hooks that did load are listed all the same. With no hooks
folder and no config here, list says so and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := g.loggerFor("list", s.err, false)
			if err != nil {
				return err
			}
			eng, err := g.openWith(cmd.Context(), openOptions{logger: logger, needSomething: true})
			if err != nil {
				return err
			}
			defer eng.Close()
			errs := eng.Errors()
			reportLoadErrors(s.err, errs)
			hooks := eng.Listing()
			if err := printHooks(s, hooks, asJSON); err != nil {
				return err
			}
			if len(errs) > 0 {
				return fmt.Errorf("%d load error(s)", len(errs))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func printHooks(s *streams, hooks []luahook.Listed, asJSON bool) error {
	if asJSON {
		if hooks == nil {
			hooks = []luahook.Listed{}
		}
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(hooks)
	}
	if len(hooks) == 0 {
		fmt.Fprintln(s.out, "no hooks")
		return nil
	}
	return engine.WriteListing(s.out, hooks, engine.ListingOptions{})
}
