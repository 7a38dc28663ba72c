package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/policytest"
)

type testOptions struct {
	run         string
	coverage    bool
	coverageMin float64
	json        bool
	agent       string
	mutants     bool
	mutantsMin  float64
}

func newTestCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &testOptions{}
	cmd := &cobra.Command{
		Use:   "test [paths]",
		Short: "Run the *_test.lua policy tests next to the hooks",
		Long: `test runs the *_test.lua files of the given folders (or the given files;
default: --dir, else ./hooks.d). Each case fires events at the hooks of the
test file's folder, loaded by a fresh engine exactly as in production, and
asserts on the results:

  test("rm -rf / is denied", function()
    local r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf /" } })
    expect.denied(r, "dangerous command")
  end)

fire(event[, payload]) returns { verdict, denied, reason, input,
additionalContext, contextAs, decidedBy, outcome, trace }; verdict is none (no
hook objected), allow (an explicit hook.allow()), deny, ask or continue.
Assertions: expect.denied(r[, substring]), expect.asked(r[, substring]),
expect.allowed(r) (an explicit allow), expect.no_objection(r),
expect.proceeds(r) (neither denied nor asked), expect.mutated(r[, subset]),
expect.context(r, substring), expect.eq(actual, expected[, msg]),
expect.truthy(v[, msg]), expect.contains(s, sub).

--agent NAME (claude, codex, copilot, cursor, gemini) sends every payload
fire() builds as that agent would (its event and tool names: bash is
run_shell_command on gemini, Shell on cursor) and fires what the agent's
adapter decodes from it, so that the same tests check the policies against
the agent's own wire format. A case that fires a payload the agent cannot
send (an event it has no hook for; an MCP tool named with its server on
cursor, which names MCP tools MCP:tool) fails, saying so, and the summary
counts such cases apart.

Prints "ok" or "FAIL" per case (a failure with the file:line of the failing
assertion) and a summary line "N passed, M failed". Exit status 1 on any
failure, including a test file or a hook file that does not load.

--coverage measures which lines of the hook files and lib modules the tests
ran (the test files themselves are not measured) and prints, after the
results, a table of the files under test: per file the covered and
executable lines, the percentage and the uncovered lines ("12-14, 20"), then
their total; then a table of the lib modules, the same way, with their own
total ("lib total"). The files under test are the hook files of the tested
folders and the lib modules a test file requires itself (a lib's own tests:
local shell = require("shell")); every other module of a lib folder (what
those require in turn) is a lib module. A line is executable when a
statement starts on it (an if, each elseif, a loop header, a return, a local
function header, ...; not a line of only do, else, end or a comment).
--coverage-min N (a percentage, 0-100) exits 1 when the total of the files
under test is under N, naming those under N themselves; the lib modules do
not count. --json prints the report as one JSON document on stdout instead
(files and total, lib and libTotal), the test results going to stderr.

--mutants measures bypass coverage: after each passing case, every
PreToolUse call it fired that was denied or asked about is fired again in
other spellings of the same call, at most 40 per case, each through fresh
hooks as the case's: a shell command with its program's quotes split or
doubled (r''m, "rm"), backslashes (\rm), a variable (X=rm; $X), wrappers
(sudo, sudo -u root, env, env -i, nice -n 5, timeout 10, nohup, command,
echo ARGS | xargs), /bin/ and /usr/bin/ program paths, argument path forms
(//, /./, /../, $HOME for ~), blanks, chains (true && ..., ...; true, ( ... ),
{ ...; }), bash -c '...' and sh -c "..."; a PowerShell command in lower and
upper case; a file tool's path as /./, //, /../ or ./ forms; a URL's host in
upper case. A mutant still denied or asked about is blocked (a rewrite is
not). Prints, after the results, per test file "mutants: N of M still
blocked (P%)" with each case some spelling gets past (its call and the
first spelling that passes), then the total. --mutants-min N exits 1 when
the total share is under N. --json prints the report as JSON instead (with
either --coverage or --mutants, not both).`,
		Example: `  luahook test
  luahook test ./hooks.d -run 'rm -rf'
  luahook test hooks.d/10-dangerous-commands_test.lua
  luahook test --coverage --coverage-min 80 hooks.d
  luahook test --mutants --mutants-min 99 hooks.d
  luahook test --agent gemini ./hooks.d`,
		// Flags are parsed in RunE, so that the Go-style "-run" works too.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.InheritedFlags() // merges the global flags into cmd.Flags()
			if err := cmd.Flags().Parse(goStyleFlags(args)); err != nil {
				return fmt.Errorf("%w (see: %s --help)", err, cmd.CommandPath())
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			minSet := cmd.Flags().Changed("coverage-min")
			mutMinSet := cmd.Flags().Changed("mutants-min")
			if (minSet && !o.coverage) || (o.json && !o.coverage && !o.mutants) {
				return fmt.Errorf("--coverage-min and --json need --coverage (or, for --json, --mutants) (see: %s --help)", cmd.CommandPath())
			}
			if mutMinSet && !o.mutants {
				return fmt.Errorf("--mutants-min needs --mutants (see: %s --help)", cmd.CommandPath())
			}
			if o.json && o.coverage && o.mutants {
				return fmt.Errorf("--json prints one report: --coverage or --mutants, not both (see: %s --help)", cmd.CommandPath())
			}
			if minSet && (o.coverageMin < 0 || o.coverageMin > 100) {
				return fmt.Errorf("--coverage-min %v: a percentage from 0 to 100", o.coverageMin)
			}
			if mutMinSet && (o.mutantsMin < 0 || o.mutantsMin > 100) {
				return fmt.Errorf("--mutants-min %v: a percentage from 0 to 100", o.mutantsMin)
			}
			paths := cmd.Flags().Args()
			src, err := g.sources()
			if err != nil {
				return err
			}
			// Named paths are the operator's choice, as --dir is; a config
			// found in the current folder still needs its trust. The test
			// files run too: the folder's content must be the content
			// trusted as a whole, and each file the engines load is
			// checked again as they load it.
			if len(paths) == 0 || src.configFromProject {
				if err := src.untrustedWhole(); err != nil {
					return err
				}
			}
			// The engines check each file of the project they load
			// against its record; folders named are the operator's.
			trust := src.configTrust()
			if len(paths) == 0 {
				trust = src.engineTrust()
				dir, err := engine.HooksDir(src.dir, src.config)
				if err != nil {
					return err
				}
				paths = []string{dir}
			}
			logger, err := g.loggerFor("test", s.err, false)
			if err != nil {
				return err
			}
			var cov *luabind.Coverage // its report: sum.Coverage
			out := s.out
			if o.coverage {
				cov = luabind.NewCoverage()
			}
			var muts *policytest.Mutants
			if o.mutants {
				muts = policytest.NewMutants()
			}
			if o.json {
				out = s.err // stdout holds the JSON document alone
			}
			sum, err := policytest.Run(cmd.Context(), policytest.Options{
				Paths:      paths,
				Run:        o.run,
				ConfigPath: src.config,
				PolicyOnly: g.noHooks,
				Out:        out,
				Logger:     logger,
				Coverage:   cov,
				Mutants:    muts,
				Agent:      o.agent,
				Host:       hostModules(),
				Trust:      trust,
			})
			if err != nil {
				return err
			}
			var under error
			if rep := sum.Coverage; rep != nil {
				if err := writeCoverage(s, *rep, o.json); err != nil {
					return err
				}
				if minSet && rep.Below(o.coverageMin) {
					under = coverageUnder(*rep, o.coverageMin)
				}
			}
			if muts != nil {
				rep := muts.Report()
				if err := writeMutants(s, rep, o.json); err != nil {
					return err
				}
				if mutMinSet && rep.Below(o.mutantsMin) {
					under = fmt.Errorf("%d of %d mutants still blocked (%.1f%%), under --mutants-min %v%%",
						rep.Total.Blocked, rep.Total.Mutants, rep.Total.Percent, o.mutantsMin)
				}
			}
			if sum.Failed > 0 || under != nil {
				return &exitError{code: 1, err: under}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.run, "run", "", "run only the cases whose names match this regular expression")
	cmd.Flags().BoolVar(&o.coverage, "coverage", false, "measure and print the line coverage of the hook files and lib modules")
	cmd.Flags().Float64Var(&o.coverageMin, "coverage-min", 0, "with --coverage: exit 1 when the total coverage of the files under test (not the lib modules) is under this percentage")
	cmd.Flags().BoolVar(&o.json, "json", false, "with --coverage or --mutants: print its report as JSON (the test results go to stderr)")
	cmd.Flags().BoolVar(&o.mutants, "mutants", false, "fire every blocked call again in other spellings of the same call and print the share still blocked")
	cmd.Flags().Float64Var(&o.mutantsMin, "mutants-min", 0, "with --mutants: exit 1 when the share of mutants still blocked is under this percentage")
	cmd.Flags().StringVar(&o.agent, "agent", "", "send each payload in this agent's native format (claude, codex, copilot, cursor, gemini)")
	return cmd
}

// writeCoverage prints the coverage report after the test results: a
// table, or the JSON document alone on stdout.
func writeCoverage(s *streams, rep policytest.CoverageReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintln(s.out)
	return rep.WriteText(s.out)
}

// coverageUnder words a total under --coverage-min: the total of the
// files under test, and the first of those under the minimum themselves.
func coverageUnder(rep policytest.CoverageReport, min float64) error {
	const shown = 5
	var names []string
	files := rep.Under(min)
	for i, f := range files {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(files)-shown))
			break
		}
		names = append(names, fmt.Sprintf("%s %s", termtext.Line(f.Path), strconv.FormatFloat(f.Percent, 'f', 1, 64)+"%"))
	}
	return fmt.Errorf("coverage of the files under test %.1f%% is under --coverage-min %v%% (under it: %s)", rep.Total.Percent, min, strings.Join(names, ", "))
}

// writeMutants prints the mutant report after the test results: its text,
// or the JSON document alone on stdout.
func writeMutants(s *streams, rep policytest.MutantReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintln(s.out)
	return rep.WriteText(s.out)
}

// goStyleFlags rewrites "-run" (the go test spelling) as "--run".
func goStyleFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "-run" || strings.HasPrefix(a, "-run=") {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
