package engine

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/termtext"
)

// Listing returns every registered hook, event by event, each event's hooks
// in the order the runner calls them (registry.Registry.Listing): what
// luahook list and the REPL's :list print.
func (e *Engine) Listing() []luahook.Listed { return e.reg.Listing() }

// ListingOptions say how WriteListing prints a listing. The zero value
// prints every column.
type ListingOptions struct {
	// Short stops after the SOURCE column (no POLICY, TIMEOUT, FAILURE), as
	// the REPL's :list prints it.
	Short bool
}

// WriteListing prints hooks as a table with a header line: event, place in
// the run order, name, matcher as parsed, stage ("-" for none), kind,
// source, and, unless opts.Short, the policy flag, timeout and failure
// policy. When some hook is a shadow hook, a last MODE column says "shadow"
// or "live" for each (a listing of live hooks only has no such column).
// Text from hook files is escaped for the terminal. An empty listing prints
// the header alone; callers say "no hooks" their own way.
func WriteListing(w io.Writer, hooks []luahook.Listed, opts ListingOptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	modes := slices.ContainsFunc(hooks, func(h luahook.Listed) bool { return h.Mode == luahook.ModeShadow })
	header := "EVENT\t#\tNAME\tMATCHER\tSTAGE\tKIND\tSOURCE"
	if !opts.Short {
		header += "\tPOLICY\tTIMEOUT\tFAILURE"
	}
	if modes {
		header += "\tMODE"
	}
	fmt.Fprintln(tw, header)
	for _, h := range hooks {
		stage := string(h.Stage)
		if stage == "" {
			stage = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s", h.Event, h.Order, termtext.Line(h.Name), termtext.Line(h.MatcherForm),
			stage, h.Kind, termtext.Line(h.Source))
		if !opts.Short {
			policy := "-"
			if h.Policy {
				policy = "yes"
			}
			timeout := fmt.Sprintf("%dms", h.Timeout.Milliseconds())
			if h.Background {
				timeout += " (background)"
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s", policy, timeout, h.FailurePolicy)
		}
		if modes {
			mode := "live"
			if h.Mode == luahook.ModeShadow {
				mode = "shadow"
			}
			fmt.Fprintf(tw, "\t%s", mode)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
