package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/internal/install"
	"github.com/luahook/luahook/internal/termtext"
)

func newDoctorCmd(s *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what each coding agent here will really do with luahook",
		Long: `doctor looks at each coding agent luahook knows (claude, codex, copilot,
cursor, gemini): whether its program is on PATH and which release it is
(its --version, for at most 5 seconds), each of its settings files that
exists (the project's, in the current folder, and your own, in your home),
whether luahook is wired there and how (a command, --http, --socket; on
which events; Claude Code's onFailure "block"), which of luahook's answers
that release honours, what luahook's agent conformance suite saw that
release (or the nearest one it ran) do, and the steps you must take: approve the hooks in
Codex's /hooks screen, upgrade a Claude Code older than 2.1.295, which
ignores onFailure. doctor writes nothing.

For each wired agent, the output firewall: whether that release replaces a
tool's output (built-in tools, MCP tools) when luahook's PostToolUse hooks
redact or replace it, or what luahook's answer does instead (Codex: a
block whose reason replaces the result; Gemini CLI: a deny whose reason
does; Cursor's built-in tools: context at most, the model still reads the
output; a Claude Code release reported to ignore updatedToolOutput for
Bash and WebFetch). "cannot replace output" lines are warnings, and a
settings file without luahook on the agent's PostToolUse event is a step.

Exit status: 0 when every wired agent can block as luahook expects (output
it cannot replace does not change it), 1 when some wiring cannot block on
the release installed (doctor says which), 2 on a usage error. --json
prints the same as one JSON array.`,
		Example: `  luahook doctor
  luahook doctor --json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("doctor takes no arguments, got %q (see: %s --help)", args[0], c.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDoctor(cmd, s, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON, for scripts")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: 2, err: fmt.Errorf("%w (see: %s --help)", err, c.CommandPath())}
	})
	return cmd
}

func runDoctor(cmd *cobra.Command, s *streams, asJSON bool) error {
	o := install.CheckOptions{Env: os.LookupEnv, VersionTimeout: agentVersionTimeout}
	var err error
	if o.ProjectDir, err = os.Getwd(); err != nil {
		return err
	}
	if o.Home, err = os.UserHomeDir(); err != nil {
		o.Home = ""
		fmt.Fprintln(s.err, "luahook: warning: no home folder, so none of your own settings files was read:", termtext.Line(err.Error()))
	}
	reports := install.Check(cmd.Context(), o)
	if asJSON {
		b, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			return err
		}
		if _, err := s.out.Write(append(b, '\n')); err != nil {
			return err
		}
	} else {
		printDoctor(s.out, reports)
	}
	for _, r := range reports {
		if len(r.CannotBlock) > 0 {
			return &exitError{code: 1}
		}
	}
	return nil
}

// printDoctor writes the reports as text, each line made safe for a
// terminal (paths and an agent's output are the machine's, not luahook's).
func printDoctor(w io.Writer, reports []install.Report) {
	var wired, failing, leaking []string
	for _, r := range reports {
		fmt.Fprintf(w, "%s (%s)\n", r.Title, r.Agent)
		switch {
		case r.Version != "":
			fmt.Fprintf(w, "  program: %s, release %s\n", termtext.Line(r.Program), r.Version)
		case r.Program != "":
			fmt.Fprintf(w, "  program: %s, release unknown: %s\n", termtext.Line(r.Program), termtext.Line(r.VersionError))
		default:
			fmt.Fprintf(w, "  program: not installed (%s)\n", termtext.Line(r.VersionError))
		}
		if len(r.Files) == 0 {
			fmt.Fprintln(w, "  settings: none")
		}
		for _, f := range r.Files {
			fmt.Fprintf(w, "  %s settings %s: %s\n", f.Scope, termtext.Line(f.Path), termtext.Line(wiringText(f)))
		}
		if r.Wired {
			wired = append(wired, string(r.Agent))
			for _, h := range r.Honours {
				line := fmt.Sprintf("  honours %-7s %s", h.Honoured+":", h.Answer)
				if h.Since != "" {
					line += " (from " + h.Since + ")"
				}
				if h.Note != "" {
					line += ": " + h.Note
				}
				fmt.Fprintln(w, termtext.Line(line))
			}
		}
		if r.Seen != nil && (r.Wired || r.Program != "") {
			which := "the release found"
			if !r.Seen.Exact {
				which = "the nearest release it ran"
			}
			fmt.Fprintf(w, "  seen by luahook's agent conformance suite on %s (%s):\n", r.Seen.Release, which)
			for _, c := range r.Seen.Checks {
				fmt.Fprintln(w, termtext.Line(fmt.Sprintf("    %s: %s", c.Check, c.Result)))
			}
		}
		for _, o := range r.Output {
			fmt.Fprintln(w, termtext.Line(outputText(o)))
		}
		for _, c := range r.CannotBlock {
			fmt.Fprintln(w, "  cannot block:", termtext.Line(c))
		}
		for _, g := range r.OutputGaps {
			fmt.Fprintln(w, "  cannot replace output:", termtext.Line(g))
		}
		for _, st := range r.Steps {
			fmt.Fprintln(w, "  step:", termtext.Line(st))
		}
		for _, n := range r.Notes {
			fmt.Fprintln(w, "  note:", termtext.Line(n))
		}
		if len(r.CannotBlock) > 0 {
			failing = append(failing, string(r.Agent))
		}
		if len(r.OutputGaps) > 0 {
			leaking = append(leaking, string(r.Agent))
		}
	}
	switch {
	case len(wired) == 0:
		fmt.Fprintln(w, "note: luahook is wired into no agent here: run luahook install AGENT to wire one")
	case len(failing) > 0:
		fmt.Fprintf(w, "luahook cannot block as it expects in: %s (see \"cannot block\" above)\n", strings.Join(failing, ", "))
	default:
		fmt.Fprintf(w, "every wired agent (%s) can block as luahook expects\n", strings.Join(wired, ", "))
	}
	// A warning, not a failure: whether any policy rewrites output is the
	// policies' to say.
	if len(leaking) > 0 {
		fmt.Fprintf(w, "warning: the model can still read tool output that luahook's PostToolUse hooks redact or replace, in: %s (see \"cannot replace output\" above)\n",
			strings.Join(leaking, ", "))
	}
}

// outputText says what an agent does with one kind of tool's output that
// luahook's PostToolUse hooks rewrote.
func outputText(o install.OutputWay) string {
	tools := map[string]string{install.BuiltinTools: "built-in tools", install.MCPTools: "MCP tools"}[o.Tools]
	if tools == "" {
		tools = "built-in and MCP tools"
	}
	what := map[string]string{
		install.Replaced: "replaced", install.ReplacedByReason: "replaced by a block's reason",
		install.ReplacedMaybe: "replaced, but reported ignored for some tools on this release", install.NotReplaced: "not replaced",
		install.ReplacedUnknown: "unknown (the release is not known)",
	}[o.Replaced]
	if what == "" {
		what = o.Replaced
	}
	s := fmt.Sprintf("  output firewall, %s: %s", tools, what)
	switch {
	case o.Fields != "" && o.Since != "":
		s += " (" + o.Fields + "; from " + o.Since + ")"
	case o.Fields != "":
		s += " (" + o.Fields + ")"
	}
	if o.Note != "" {
		s += ": " + o.Note
	}
	return s
}

// wiringText says what one settings file holds of luahook.
func wiringText(f install.Wiring) string {
	if f.Error != "" {
		return "cannot be read: " + f.Error
	}
	if !f.Wired {
		return "luahook not wired"
	}
	s := fmt.Sprintf("luahook wired (%s) on %s", strings.Join(f.Modes, ", "), strings.Join(f.Events, ", "))
	if len(f.NoOnFailure) > 0 {
		s += "; no onFailure \"block\" on " + strings.Join(f.NoOnFailure, ", ")
	}
	if len(f.Skipped) > 0 {
		s += "; never run: " + strings.Join(f.Skipped, ", ")
	}
	if f.Disabled != "" {
		s += "; " + f.Disabled + ": every hook is off"
	}
	return s
}
