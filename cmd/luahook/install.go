package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/install"
	"github.com/luahook/luahook/internal/termtext"
)

type installOptions struct {
	http    string
	socket  string
	project bool
	user    bool
	print   bool
	command string
	// tokenFile and tokenName: the token file a forwarding command names.
	tokenFile, tokenName string
	// oldAgent writes entries the installed agent is too old to honour.
	oldAgent bool
}

func newInstallCmd(s *streams) *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install claude|codex|copilot|cursor|gemini",
		Short: "Wire luahook into a coding agent's hook configuration",
		Long: `install writes luahook's hooks into the agent's own configuration, so that the
agent calls luahook on every event luahook maps for it:

  claude   .claude/settings.json        (--user: ~/.claude/settings.json)
  codex    .codex/hooks.json            (--user: ~/.codex/hooks.json)
  copilot  .github/hooks/luahook.json   (--user: ~/.copilot/hooks/luahook.json)
  cursor   .cursor/hooks.json           (--user: ~/.cursor/hooks.json)
  gemini   .gemini/settings.json        (--user: ~/.gemini/settings.json)

Each hook runs "luahook fire --agent NAME". --project (the default) writes the
project's configuration in the current folder: its hooks run the project's
./hooks.d, which loads only once you trusted the folder (luahook trust);
--user writes your own configuration: its hooks run your
$XDG_CONFIG_HOME/luahook/luahook.toml, else $XDG_CONFIG_HOME/luahook/hooks.d.
Claude Code's hooks on PreToolUse and UserPromptSubmit fail closed
(onFailure "block").

With --http URL the hooks ask a running "luahook serve" at URL instead:
Claude Code through its HTTP hooks (URL/agent/claude, failing closed when
the server cannot be reached), the other agents through
"luahook fire --agent NAME --http URL", which blocks when the server cannot
be reached.

The hooks show luahook serve its token (serve's Authorization: Bearer).
Claude Code's HTTP hooks send "Bearer $LUAHOOK_TOKEN": the file holds the
variable's name (listed in allowedEnvVars, which lets Claude Code fill it
in), never the token, so set LUAHOOK_TOKEN where Claude Code starts. The
other agents' "luahook fire --http" reads LUAHOOK_TOKEN too, or, with
--user --token-file FILE (--token-name NAME), the file it names.

With --socket PATH every hook is luahook-fire (installed next to luahook)
asking the "luahook serve --socket PATH" that you keep running: a call costs
about what starting a small program costs, where luahook fire loads the
policies each time. When the server is not running or cannot decide,
luahook-fire hands the call to luahook, which blocks it.

Only luahook's own entries are added or replaced; every other key, hook
and comment of the file stays as it was. The previous file is kept as
FILE.luahook-backup, and both are replaced atomically. A file that is
already up to date is not touched. A file the agent could not read is
refused with its line and column, and nothing is written. --print writes
nothing and prints the file as it would be written.

Some settings need a release of the agent: Claude Code's onFailure
"block" 2.1.295 or later (older releases ignore it and let an action
through when the hook cannot run), its HTTP hooks 2.1.63, Codex's
hooks.json 0.124.0 (before, hooks run only with [features] hooks on).
install says which its entries need and, when the agent's program is on
PATH (claude, codex), asks it for its release (--version, for at most 5
seconds): an older one is refused, nothing written, unless
--allow-old-agent.

Every agent is wired on its PostToolUse event (Gemini CLI's AfterTool,
Copilot's and Cursor's postToolUse), where luahook's hooks can redact or
replace a tool's output before the model reads it. Where the agent cannot
replace it, install warns, naming the gap and what luahook's answer does
instead: Cursor's built-in tools (its updated_mcp_tool_output is for MCP
tools only: context at most, the model still reads the output), a Claude
Code before 2.1.121 (updatedToolOutput) or among the releases reported to
ignore it for Bash and WebFetch (2.1.121 through 2.1.177). Codex takes
updatedToolOutput in no known release, and Gemini CLI has no such field:
a note says that a block whose reason carries the rewritten output
replaces the result instead. install cannot tell whether a policy
rewrites output (that would load the policies), so it says so for every
agent it wires.

After writing, install prints the steps "luahook doctor" gives for the
file it wrote (Codex: approve the hooks in its /hooks screen; Claude Code:
upgrade a release that does not know onFailure), and fails when that file
cannot block (a switch in it turns every hook off).

The hooks run the luahook binary running install (its absolute path), or
--command; a binary built by "go run" lives in a temporary folder, so the
hooks then run "luahook" from PATH.`,
		Example: `  luahook install claude
  luahook install cursor --user
  luahook install codex --http http://127.0.0.1:8787
  luahook install cursor --user --http https://hooks.internal:8443 --token-file ~/.config/luahook/token
  luahook install claude --socket ~/.local/state/luahook/luahook.sock
  luahook install gemini --print`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, n := range agent.Names() {
				names = append(names, string(n))
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInstall(cmd, s, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.http, "http", "", "base URL of a luahook serve that the hooks ask (http or https)")
	f.StringVar(&o.socket, "socket", "", "Unix socket of a luahook serve --socket that the hooks ask through luahook-fire")
	f.BoolVar(&o.project, "project", false, "write the project's configuration in the current folder (the default)")
	f.BoolVar(&o.user, "user", false, "write your own configuration, in your home folder")
	f.BoolVar(&o.print, "print", false, "write nothing; print the file as it would be written")
	f.StringVar(&o.command, "command", "", "the luahook executable the hooks run, as a shell word (default: this binary's absolute path)")
	f.StringVar(&o.tokenFile, "token-file", "", "with --user --http, for agents without HTTP hooks: the token file luahook fire --http reads (default: $LUAHOOK_TOKEN)")
	f.StringVar(&o.tokenName, "token-name", "", "with --token-file: the line NAME TOKEN whose token is sent")
	f.BoolVar(&o.oldAgent, "allow-old-agent", false, "write the entries even when the agent on PATH is older than they need")
	cmd.MarkFlagsMutuallyExclusive("project", "user")
	cmd.MarkFlagsMutuallyExclusive("http", "socket")
	return cmd
}

func runInstall(cmd *cobra.Command, s *streams, o *installOptions, name string) error {
	if strings.EqualFold(name, "auto") {
		return fmt.Errorf("install needs the agent's name, not auto")
	}
	a, err := agent.Lookup(name)
	if err != nil {
		return err
	}
	command, warning := luahookCommand(o.command)
	if !o.user && o.command == "" {
		// A file the team commits names no path of this machine: the
		// project's hooks run luahook from PATH.
		command, warning = "luahook", ""
		if _, err := exec.LookPath("luahook"); err != nil {
			warning = "the project's hooks run \"luahook\" from PATH (a file the team commits names no path of this machine), and there is no luahook on PATH now: install it (go install ./cmd/...) or name it with --command"
		}
	}
	if warning != "" {
		fmt.Fprintln(s.err, "luahook: warning:", warning)
	}
	opts := install.Options{Agent: a.Name(), Command: command, HTTP: o.http, Env: os.LookupEnv, TokenName: o.tokenName}
	if o.tokenFile != "" {
		if opts.TokenFile, err = filepath.Abs(o.tokenFile); err != nil {
			return err
		}
	}
	if o.socket != "" {
		if opts.Socket, err = filepath.Abs(o.socket); err != nil {
			return err
		}
		fire, warning := luahookFireCommand()
		if warning != "" {
			fmt.Fprintln(s.err, "luahook: warning:", warning)
		}
		opts.FireCommand = fire
	}
	var mkdir string // the user's hooks folder, to create
	if !o.user {
		if opts.ProjectDir, err = os.Getwd(); err != nil {
			return err
		}
	} else {
		opts.Scope = install.User
		if opts.Home, err = os.UserHomeDir(); err != nil {
			return err
		}
		if mkdir, err = userPolicies(&opts); err != nil {
			return err
		}
	}

	change, err := install.Plan(opts)
	if err != nil {
		return installError(err)
	}
	if opts.TokenFile != "" {
		// The file fire will read, checked now as fire checks it: a
		// hook that cannot read its token blocks every call.
		if _, err := readTokenFile(opts.TokenFile, opts.TokenName); err != nil {
			return fmt.Errorf("%w\nnothing was written", err)
		}
	}
	for _, w := range change.Warnings {
		fmt.Fprintln(s.err, "luahook: warning:", termtext.Line(w))
	}
	if w := oneShotStoreWarning(opts); w != "" {
		fmt.Fprintln(s.err, "luahook: warning:", termtext.Line(w))
	}
	// Checked before anything is written; said after what was written.
	versionNotes, release, err := checkAgentVersion(cmd.Context(), s.err, opts, o.oldAgent || o.print)
	if err != nil {
		return err
	}
	versionNotes = append(versionNotes, outputWarnings(s.err, opts.Agent, release)...)
	path := termtext.Line(change.Path)
	if o.print {
		if _, err := s.out.Write(change.New); err != nil {
			return err
		}
		if change.UpToDate() {
			fmt.Fprintf(s.err, "luahook install: %s is already up to date: nothing would change\n", path)
		} else {
			fmt.Fprintf(s.err, "luahook install: would write %s (nothing written: --print)\n", path)
		}
		for _, n := range versionNotes {
			fmt.Fprintln(s.err, "note:", n)
		}
		return nil
	}
	if mkdir != "" {
		if err := os.MkdirAll(mkdir, 0o755); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "created %s: put your Lua policies there\n", termtext.Line(mkdir))
	}
	if change.UpToDate() {
		fmt.Fprintf(s.out, "%s is already up to date: nothing written\n", path)
	} else {
		backup, err := change.Write()
		if err != nil {
			return err
		}
		if backup != "" {
			fmt.Fprintf(s.out, "wrote %s (the previous file is %s)\n", path, termtext.Line(backup))
		} else {
			fmt.Fprintf(s.out, "created %s\n", path)
		}
	}
	for _, n := range versionNotes {
		fmt.Fprintln(s.out, "note:", n)
	}
	printInstallHints(s, opts)
	return printInstallSteps(cmd.Context(), s, opts, o.oldAgent)
}

// printInstallSteps runs luahook doctor's checks on the file just written
// and prints the steps they call for. When that wiring cannot block,
// install fails: an agent too old for it was refused before anything was
// written, unless --allow-old-agent asked for the entries all the same,
// which excuses the release but not a file that turns every hook off.
func printInstallSteps(ctx context.Context, s *streams, o install.Options, allowOld bool) error {
	co := install.CheckOptions{Agents: []agent.Name{o.Agent}, Env: o.Env, VersionTimeout: agentVersionTimeout,
		// An agent none of whose settings needs a release is not run.
		NoVersion: len(o.Requirements()) == 0}
	if o.Scope == install.User {
		co.Home = o.Home
	} else {
		co.ProjectDir = o.ProjectDir
	}
	var cannot []string
	for _, r := range install.Check(ctx, co) {
		for _, st := range r.Steps {
			fmt.Fprintln(s.out, "step:", termtext.Line(st))
		}
		if !allowOld || r.WiringFaults() {
			cannot = append(cannot, r.CannotBlock...)
		}
	}
	if len(cannot) == 0 {
		return nil
	}
	return fmt.Errorf("the hooks written cannot block: %s", strings.Join(cannot, "; "))
}

// userPolicies points the hooks of o at the user's own policies: the
// user's luahook.toml, else the user's hooks folder, which it returns when
// it does not exist yet. Hooks that ask a server run none themselves.
func userPolicies(o *install.Options) (mkdir string, err error) {
	if o.HTTP != "" {
		return "", nil
	}
	home, err := homeFolder()
	if err != nil {
		return "", err
	}
	if cfg := filepath.Join(home, projectConfig); isFile(cfg) {
		o.Config = cfg
		return "", nil
	}
	o.HooksDir = filepath.Join(home, projectHooks)
	if !isDir(o.HooksDir) {
		return o.HooksDir, nil
	}
	return "", nil
}

// oneShotStoreWarning warns when the hooks written run luahook fire on
// policies that use the store while their config keeps it in the process
// (engine.OneShotStoreWarning): each call would start with it empty.
func oneShotStoreWarning(o install.Options) string {
	if o.HTTP != "" || o.Socket != "" {
		return "" // the server keeps the store
	}
	cfg := o.Config
	if o.Scope != install.User {
		cfg = filepath.Join(o.ProjectDir, projectConfig)
	}
	if cfg == "" || !isFile(cfg) {
		return ""
	}
	return engine.OneShotStoreWarningAt(cfg)
}

// installError words a refused settings file: the fix is the operator's.
func installError(err error) error {
	var fe *install.FileError
	if errors.As(err, &fe) {
		return fmt.Errorf("%w\nnothing was written: fix the file (or move it away), then run luahook install again", err)
	}
	return err
}

// agentTrustHints say what each agent needs before it runs a project's hooks.
var agentTrustHints = map[agent.Name]string{
	agent.Claude: "Claude Code runs a project's hooks once you trust the workspace",
	agent.Codex:  "Codex runs new or changed hooks only after you review them (/hooks in Codex)",
	agent.Gemini: "Gemini CLI runs a project's hooks only in a trusted folder",
}

// printInstallHints says what else the hooks need to run.
func printInstallHints(s *streams, o install.Options) {
	if h := agentTrustHints[o.Agent]; h != "" {
		fmt.Fprintln(s.out, "note:", h+".")
	}
	if o.Socket != "" {
		fmt.Fprintf(s.out, "note: the hooks ask the luahook serve --socket %s: keep it running; when it cannot decide, luahook blocks %s's tool calls and prompts.\n",
			termtext.Line(o.Socket), o.Agent)
		return
	}
	if o.HTTP != "" {
		fmt.Fprintf(s.out, "note: the hooks ask the luahook serve at %s: keep it running (luahook serve); when it cannot be reached, %s blocks its tool calls and prompts.\n",
			termtext.Line(o.HTTP), o.Agent)
		if o.TokenFile != "" {
			fmt.Fprintf(s.out, "note: the hooks send serve the token of %s; the file must stay yours alone (mode 600).\n", termtext.Line(o.TokenFile))
		} else {
			fmt.Fprintf(s.out, "note: the hooks send serve the token of $%s (the file names the variable, not the token): set it where %s starts.\n",
				install.TokenEnv, o.Agent)
		}
		return
	}
	if o.Scope == install.User {
		return
	}
	hereConfig, hereHooks := isFile(projectConfig), isDir(projectHooks)
	if !hereConfig && !hereHooks {
		fmt.Fprintf(s.out, "note: there is no ./%s here yet: put the project's Lua policies there, then run luahook trust.\n", projectHooks)
		return
	}
	if wd, err := os.Getwd(); err == nil {
		if wd, err = filepath.EvalSymlinks(wd); err == nil {
			if err := checkTrust(wd, hereConfig, hereHooks); err == nil {
				return
			}
		}
	}
	fmt.Fprintf(s.out, "note: this folder's policies load only once you trust them: review ./%s, then run luahook trust; "+
		"until then luahook blocks %s's tool calls and prompts here, naming the untrusted folder.\n", projectHooks, o.Agent)
}

// agentTitles name the agents as their makers do, for notes.
var agentTitles = map[agent.Name]string{
	agent.Claude: "Claude Code", agent.Codex: "Codex", agent.Copilot: "Copilot", agent.Cursor: "Cursor", agent.Gemini: "Gemini CLI",
}

// agentVersionTimeout bounds the agent's --version: install never waits
// long on a program it does not need.
const agentVersionTimeout = 5 * time.Second

// agentRelease is the agent's release install found, if it asked.
type agentRelease struct {
	v     install.Version
	found bool
}

// outputWarnings warns on warn where the agent, at the release found,
// cannot keep from the model a tool's output that luahook's PostToolUse
// hooks redact or replace, naming the gap and what luahook's answer does
// there instead, and returns the notes of a fallback that does keep it
// (Codex's block). Install cannot tell whether any policy rewrites output
// (that would load them), so it says so for every agent it wires. Only
// Claude Code's answer depends on its release, which install asks for
// its entries' sake: an agent it did not ask is taken as of no known
// release, which is no gap.
func outputWarnings(warn io.Writer, name agent.Name, r agentRelease) (notes []string) {
	_, gaps, notes := install.OutputFirewall(name, r.v, r.found)
	for _, g := range gaps {
		fmt.Fprintln(warn, "luahook: warning:", termtext.Line(g)+".")
	}
	for i, n := range notes {
		notes[i] = n + "."
	}
	return notes
}

// checkAgentVersion returns notes stating the agent release each setting
// o writes needs and, when the agent's program is on PATH, checks the
// installed release against them: an older one is an error (nothing is to
// be written) unless allowOld, which makes it a warning on warn. An agent
// that cannot be asked is a note: the check is never required. The
// release found is returned.
func checkAgentVersion(ctx context.Context, warn io.Writer, o install.Options, allowOld bool) (notes []string, found agentRelease, err error) {
	reqs := o.Requirements()
	if len(reqs) == 0 {
		return nil, found, nil
	}
	title := agentTitles[o.Agent]
	for _, r := range reqs {
		notes = append(notes, fmt.Sprintf("%s needs %s %s or later; older releases %s.", r.Setting, title, r.Version, r.Older))
	}
	ctx, cancel := context.WithTimeout(ctx, agentVersionTimeout)
	defer cancel()
	program, v, err := install.InstalledVersion(ctx, o.Agent)
	if err != nil {
		return append(notes, fmt.Sprintf("%s's release was not checked (%s): make sure it is %s or later.",
			title, termtext.Line(err.Error()), install.Minimum(reqs))), found, nil
	}
	found = agentRelease{v: v, found: true}
	var old []string
	for _, r := range reqs {
		if v.Less(r.Version) {
			old = append(old, fmt.Sprintf("%s needs %s (older releases %s)", r.Setting, r.Version, r.Older))
		}
	}
	if len(old) == 0 {
		return append(notes, fmt.Sprintf("%s on PATH is %s: recent enough.", termtext.Line(program), v)), found, nil
	}
	msg := fmt.Sprintf("%s on PATH is %s %s: %s", termtext.Line(program), title, v, strings.Join(old, "; "))
	if !allowOld {
		return nil, found, fmt.Errorf("%s\nnothing was written: upgrade %s, or write the entries all the same with --allow-old-agent", msg, title)
	}
	fmt.Fprintf(warn, "luahook: warning: %s.\n", msg)
	return notes, found, nil
}

// luahookCommand returns the executable the hooks run: override as given,
// else this binary's absolute path (the name on PATH when that is the same
// file, which survives upgrades that move the binary behind it), else, for
// a binary in a temporary go build folder (go run, go test), "luahook"
// from PATH with a warning.
func luahookCommand(override string) (command, warning string) {
	if override != "" {
		return override, ""
	}
	exe, err := os.Executable()
	if err == nil && !inGoBuildDir(exe) {
		if lp, err := exec.LookPath("luahook"); err == nil {
			if abs, err := filepath.Abs(lp); err == nil && sameFile(abs, exe) {
				return install.ShellQuote(abs), ""
			}
		}
		return install.ShellQuote(exe), ""
	}
	warning = "this luahook is a temporary build (go run or go test), so the hooks run \"luahook\" from PATH; " +
		"install luahook (go install ./cmd/luahook) or name it with --command"
	if _, err := exec.LookPath("luahook"); err != nil {
		warning += "; there is no luahook on PATH now"
	}
	return "luahook", warning
}

// luahookFireCommand returns the luahook-fire the hooks run: the one next
// to this binary, else (a temporary build, or none there) "luahook-fire"
// from PATH with a warning. luahook-fire hands what it cannot answer to
// the luahook next to it, so the two are installed together
// (go install ./cmd/...).
func luahookFireCommand() (command, warning string) {
	exe, err := os.Executable()
	if err == nil && !inGoBuildDir(exe) {
		p := filepath.Join(filepath.Dir(exe), "luahook-fire")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return install.ShellQuote(p), ""
		}
	}
	warning = "there is no luahook-fire next to this luahook, so the hooks run \"luahook-fire\" from PATH; " +
		"install both (go install ./cmd/...)"
	if _, err := exec.LookPath("luahook-fire"); err != nil {
		warning += "; there is no luahook-fire on PATH now"
	}
	return "luahook-fire", warning
}

// inGoBuildDir reports whether path is inside a go-build* folder, where the
// go command puts the binaries of go run and go test and deletes them after.
func inGoBuildDir(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
