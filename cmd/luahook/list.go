package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
)

type listedHook struct {
	Event         luahook.Event `json:"event"`
	Order         int           `json:"order"`
	Name          string        `json:"name"`
	Matcher       string        `json:"matcher"`
	Stage         string        `json:"stage,omitempty"`
	Kind          string        `json:"kind"`
	Source        string        `json:"source"`
	Policy        bool          `json:"policy"`
	TimeoutMs     int64         `json:"timeoutMs"`
	FailurePolicy string        `json:"failurePolicy"`
	Background    bool          `json:"background,omitempty"`
}

func newListCmd(g *globalOptions, s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered hooks in the order they run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eng, err := g.open(cmd.Context(), s, false)
			if err != nil {
				return err
			}
			defer eng.Close()
			for _, err := range eng.Errors() {
				fmt.Fprintln(s.err, "luahook:", err)
			}
			var hooks []listedHook
			for _, ev := range luahook.Events() {
				for i, e := range eng.Registry().List(ev) {
					matcher := e.Matcher
					if matcher == "" {
						matcher = "*"
					}
					hooks = append(hooks, listedHook{
						Event: ev, Order: i + 1, Name: e.Name, Matcher: matcher, Stage: string(e.Stage),
						Kind: string(e.Kind), Source: e.Source, Policy: e.Policy, TimeoutMs: e.Timeout.Milliseconds(),
						FailurePolicy: string(e.FailurePolicy), Background: e.Background,
					})
				}
			}
			if asJSON {
				if hooks == nil {
					hooks = []listedHook{}
				}
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(hooks)
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EVENT\t#\tNAME\tMATCHER\tSTAGE\tKIND\tSOURCE\tPOLICY\tTIMEOUT\tFAILURE")
			for _, h := range hooks {
				stage := h.Stage
				if stage == "" {
					stage = "-"
				}
				policy := "-"
				if h.Policy {
					policy = "yes"
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%dms\t%s\n", h.Event, h.Order, h.Name, h.Matcher,
					stage, h.Kind, h.Source, policy, h.TimeoutMs, h.FailurePolicy)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}
