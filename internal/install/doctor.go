package install

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luahook/luahook/agent"
)

// fact is one thing luahook's answers rely on that an agent honours, or
// not, depending on its release: what the doctor reports per agent.
type fact struct {
	// Answer is luahook's answer or setting concerned.
	Answer string
	// Since is the first release that honours it; zero when no release
	// is known to change it (then Always says whether it is honoured).
	Since  Version
	Always bool
	// Older says what a release that does not honour it does instead.
	Older string
}

// Title names each agent as its maker does.
var Title = map[agent.Name]string{
	agent.Claude: "Claude Code", agent.Codex: "Codex", agent.Copilot: "Copilot CLI",
	agent.Cursor: "Cursor", agent.Gemini: "Gemini CLI",
}

// facts is what each agent does with luahook's answers, release by
// release (the agents' release notes, and what was seen of 2.1.197 and
// 2.1.332 of Claude Code, and of Codex and Gemini CLI, in December 2026).
// Copilot (1.0.102, seen by the conformance suite) and Cursor: no release
// is known to change what luahook relies on.
var facts = map[agent.Name][]fact{
	agent.Claude: {
		{Answer: claudeOnFailure.Setting, Since: claudeOnFailure.Version,
			Older: "ignore it: a missing luahook or a server that is down lets the prompt or the tool call through"},
		{Answer: `HTTP hooks ("type": "http", install --http)`, Since: claudeHTTP.Version, Older: claudeHTTP.Older},
		{Answer: "HTTP hooks on SessionStart (install wires a command forwarding to serve instead)", Always: false},
		{Answer: "a blocked prompt's exit status in claude -p (it exits 0)", Always: false},
		{Answer: "a block's reason, shown to the user", Always: true},
	},
	agent.Codex: {
		{Answer: codexHooks.Setting + " hooks, run by default", Since: codexHooks.Version, Older: codexHooks.Older},
		{Answer: "running hooks before they are approved in /hooks (none runs; codex exec skips them without a word)", Always: false},
		{Answer: "blocking when luahook itself cannot start (Codex goes on)", Always: false},
		{Answer: "a blocked prompt's exit status in codex exec (it exits 0)", Always: false},
		{Answer: "a block's reason, shown to the user (never shown)", Always: false},
	},
	agent.Copilot: {
		{Answer: "running a project's .github/hooks in a folder it does not trust (none runs, without a word)", Always: false},
		{Answer: "blocking a prompt when luahook itself cannot start (the prompt goes on; each tool call is denied)", Always: false},
		{Answer: "a blocked prompt's exit status in copilot -p (it exits 1)", Always: true},
		{Answer: "a block's reason, shown to the user", Always: true},
	},
	agent.Gemini: {
		{Answer: "a blocked prompt's exit status in gemini -p (it exits 0)", Always: false},
		{Answer: "a block's reason, shown to the user (only as a [WARNING] line)", Always: false},
	},
}

// programs are the commands that say which release of each agent is on
// PATH.
var programs = map[agent.Name][]string{
	agent.Claude:  {"claude", "--version"},
	agent.Codex:   {"codex", "--version"},
	agent.Copilot: {"copilot", "--version"},
	agent.Cursor:  {"cursor-agent", "--version"},
	agent.Gemini:  {"gemini", "--version"},
}

// Honoured is one fact as an agent's release takes it.
type Honoured struct {
	Answer string `json:"answer"`
	// Honoured is "yes", "no", or "unknown" when the release is not known
	// and a release changes it.
	Honoured string `json:"honoured"`
	// Since is the first release that honours it, when one does.
	Since string `json:"since,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Wiring is what one settings file of an agent holds of luahook.
type Wiring struct {
	Scope string `json:"scope"`
	Path  string `json:"path"`
	// Error says why the file could not be read; nothing else is known.
	Error string `json:"error,omitempty"`
	// Wired: the file has at least one of luahook's entries.
	Wired bool `json:"wired"`
	// Modes are how the entries call luahook: "command" (luahook fire),
	// "--http" (Claude Code's HTTP hooks, or luahook fire --http),
	// "--socket" (luahook-fire asking serve --socket).
	Modes  []string `json:"modes,omitempty"`
	Events []string `json:"events,omitempty"`
	// NoOnFailure are Claude Code's blocking events whose luahook entry
	// lacks onFailure "block".
	NoOnFailure []string `json:"no_on_failure,omitempty"`
	// Skipped are the events whose luahook entry the agent never runs
	// (Claude Code runs no HTTP hook on SessionStart).
	Skipped []string `json:"skipped,omitempty"`
	// Disabled says what turns every hook of the file off.
	Disabled string `json:"disabled,omitempty"`
}

// Report is what the doctor found of one agent.
type Report struct {
	Agent agent.Name `json:"agent"`
	Title string     `json:"title"`
	// Program is the agent's program on PATH, empty when there is none.
	Program string `json:"program,omitempty"`
	// Version is its release, empty when it was not found.
	Version string `json:"version,omitempty"`
	// VersionError says why the release is not known.
	VersionError string     `json:"version_error,omitempty"`
	Files        []Wiring   `json:"files"`
	Wired        bool       `json:"wired"`
	Honours      []Honoured `json:"honours,omitempty"`
	// Seen is what the agent conformance suite saw this release (or the
	// nearest one it ran) do with luahook's answers; nil when it ran no
	// release of the agent.
	Seen *Seen `json:"conformance,omitempty"`
	// CannotBlock says why a wiring cannot block on the release found:
	// the doctor's exit status 1.
	CannotBlock []string `json:"cannot_block,omitempty"`
	// Output says, per kind of tool, what the agent at the release found
	// does with a tool's output that luahook's PostToolUse hooks rewrote
	// (hook.redact, hook.replace_output); set when luahook is wired.
	Output []OutputWay `json:"output,omitempty"`
	// PostToolUse: a settings file wires luahook on the agent's own
	// PostToolUse event (AfterTool, postToolUse), the one where its hooks
	// see a tool's output and can rewrite it.
	PostToolUse bool `json:"post_tool_use"`
	// OutputGaps say where the model still reads a tool's own output that
	// luahook's PostToolUse hooks rewrote, and what luahook's answer does
	// there instead. They are warnings: the doctor's exit status is about
	// blocking, and whether any policy rewrites output is the policies'.
	OutputGaps []string `json:"output_gaps,omitempty"`
	// Steps are what the user must do for the hooks to work as luahook
	// expects.
	Steps []string `json:"steps,omitempty"`
	// Notes say what else is worth knowing.
	Notes []string `json:"notes,omitempty"`

	version    Version
	hasVersion bool
	// wiringFaults are the CannotBlock entries that no release of the
	// agent would lift: the file's own.
	wiringFaults int
}

// cannotBlock records a wiring that cannot block whatever the agent's
// release.
func (r *Report) cannotBlock(why string) {
	r.CannotBlock = append(r.CannotBlock, why)
	r.wiringFaults++
}

// WiringFaults reports whether some wiring cannot block whatever the
// agent's release (a switch turning every hook off, an entry that does
// not fail closed): what --allow-old-agent does not excuse.
func (r *Report) WiringFaults() bool { return r.wiringFaults > 0 }

// CheckOptions says where to look.
type CheckOptions struct {
	// Agents are the agents checked; all of them when empty.
	Agents []agent.Name
	// ProjectDir is the project whose settings files are read; none when
	// empty.
	ProjectDir string
	// Home and Env find the user's settings files (see SettingsFiles);
	// none when Home is empty.
	Home string
	Env  func(string) (string, bool)
	// VersionTimeout bounds each agent's --version (5 seconds when 0).
	VersionTimeout time.Duration
	// NoVersion: no agent's program is run; its release is not known.
	NoVersion bool
}

// Check reports, for each agent, its program and release, each of its
// settings files that exists and how luahook is wired there, what that
// release honours of luahook's answers, and the steps the user must take.
// It writes nothing. A settings file that cannot be read is reported, not
// an error.
func Check(ctx context.Context, o CheckOptions) []Report {
	names := o.Agents
	if len(names) == 0 {
		names = agent.Names()
	}
	timeout := o.VersionTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	// The agents' programs are asked at once: five slow ones then cost the
	// time of one.
	var out []Report
	versions := make([]Report, len(names))
	if !o.NoVersion {
		var wg sync.WaitGroup
		for i, name := range names {
			if _, ok := programs[name]; ok {
				wg.Go(func() { versions[i].findVersion(ctx, name, timeout) })
			}
		}
		wg.Wait()
	}
	for i, name := range names {
		t, err := lookupTarget(name)
		if err != nil {
			continue
		}
		r := versions[i]
		r.Agent, r.Title, r.Files = name, Title[name], []Wiring{}
		if o.ProjectDir != "" {
			r.Files = append(r.Files, inspectFile(t, Project, t.project(o.ProjectDir)))
		}
		if o.Home != "" {
			// In the home folder itself, the project's file can be the
			// user's: it is reported once, as the user's.
			user := t.user(o.Home, o.Env)
			r.Files = slices.DeleteFunc(r.Files, func(w Wiring) bool { return w.Path == user })
			r.Files = append(r.Files, inspectFile(t, User, user))
		}
		// Only the files that exist are of interest, and those that could
		// not be read.
		r.Files = slices.DeleteFunc(r.Files, func(w Wiring) bool { return w.Path == "" })
		for _, w := range r.Files {
			r.Wired = r.Wired || w.Wired
		}
		r.Seen = seenFor(r.Title, r.version, r.hasVersion)
		r.judge()
		out = append(out, r)
	}
	return out
}

// findVersion runs the agent's --version within timeout.
func (r *Report) findVersion(ctx context.Context, name agent.Name, timeout time.Duration) {
	argv := programs[name]
	program, err := exec.LookPath(argv[0])
	if err != nil {
		r.VersionError = argv[0] + " is not on PATH"
		return
	}
	r.Program = program
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := runVersion(ctx, program, argv[1:])
	if err != nil {
		r.VersionError = err.Error()
		return
	}
	r.version, r.hasVersion, r.Version = v, true, v.String()
}

// inspectFile reads one settings file and finds luahook's entries in it;
// a file that does not exist is returned with no Path.
func inspectFile(t *target, scope Scope, path string) Wiring {
	w := Wiring{Scope: scope.String(), Path: path}
	src, _, err := readSettings(path)
	switch {
	case err != nil:
		w.Error = err.Error()
		return w
	case src == nil:
		return Wiring{}
	}
	root, err := parse(path, src, t.comments)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	if root.kind != kindObject {
		w.Error = errorAt(path, src, root.start, "the top level is %s: want an object", root.kind).Error()
		return w
	}
	if t.disabled != nil {
		w.Disabled = t.disabled(root)
	}
	hooks := member0(root, "hooks")
	if hooks == nil || hooks.kind != kindObject {
		return w
	}
	for _, ev := range t.events {
		list := member0(hooks, ev)
		if list == nil || list.kind != kindArray {
			continue
		}
		var handlers []*node
		for _, e := range list.elems {
			if !t.groups {
				handlers = append(handlers, e)
				continue
			}
			if hs := member0(e, "hooks"); hs != nil && hs.kind == kindArray {
				handlers = append(handlers, hs.elems...)
			}
		}
		found, failsClosed := false, false
		for _, h := range handlers {
			if !t.ours(h) {
				continue
			}
			found = true
			m := mode(h)
			w.addMode(m)
			if t.agent == agent.Claude && ev == "SessionStart" && m == "--http" && isHTTPHook(h) {
				w.Skipped = append(w.Skipped, ev)
			}
			if f := member0(h, "onFailure"); f != nil && f.kind == kindString && f.str == "block" {
				failsClosed = true
			}
		}
		if !found {
			continue
		}
		w.Wired = true
		w.Events = append(w.Events, ev)
		if t.agent == agent.Claude && canBlock(ev) && !failsClosed {
			w.NoOnFailure = append(w.NoOnFailure, ev)
		}
	}
	return w
}

// isHTTPHook reports whether handler h is one of the agent's HTTP hooks.
func isHTTPHook(h *node) bool {
	ty := member0(h, "type")
	return ty != nil && ty.kind == kindString && ty.str == "http"
}

// mode says how one of luahook's entries calls it.
func mode(h *node) string {
	if isHTTPHook(h) {
		return "--http"
	}
	var c string
	for _, key := range []string{"command", "bash"} {
		if n := member0(h, key); n != nil && n.kind == kindString {
			c = n.str
		}
	}
	switch {
	case strings.Contains(c, "luahook-fire"):
		return "--socket"
	case strings.Contains(c, " --http"):
		return "--http"
	}
	return "command"
}

func (w *Wiring) addMode(m string) {
	if !slices.Contains(w.Modes, m) {
		w.Modes = append(w.Modes, m)
	}
}

// judge fills in what the release honours, the wirings that cannot block
// on it, and the steps.
func (r *Report) judge() {
	for _, f := range facts[r.Agent] {
		h := Honoured{Answer: f.Answer}
		switch {
		case f.Since == (Version{}) && f.Always:
			h.Honoured = "yes"
		case f.Since == (Version{}):
			h.Honoured = "no"
		case !r.hasVersion:
			h.Honoured, h.Since, h.Note = "unknown", f.Since.String(), "older releases "+f.Older
		case r.version.Less(f.Since):
			h.Honoured, h.Since, h.Note = "no", f.Since.String(), "this release and older "+f.Older
		default:
			h.Honoured, h.Since = "yes", f.Since.String()
		}
		r.Honours = append(r.Honours, h)
	}
	if !r.Wired {
		return
	}
	for _, w := range r.Files {
		if w.Disabled != "" {
			r.cannotBlock(fmt.Sprintf("%s: %s: %s runs none of its hooks", w.Path, w.Disabled, r.Title))
			r.Steps = append(r.Steps, fmt.Sprintf("in %s, %s: change it, or %s runs no hook of luahook", w.Path, w.Disabled, r.Title))
		}
	}
	r.judgeOutput()
	if r.Program == "" && r.VersionError != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("luahook is wired for %s, but %s: its release was not checked", r.Title, r.VersionError))
	} else if r.VersionError != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("%s's release is not known (%s)", r.Title, r.VersionError))
	}
	switch r.Agent {
	case agent.Claude:
		r.judgeClaude()
	case agent.Codex:
		r.judgeCodex()
	case agent.Copilot:
		r.judgeCopilot()
	case agent.Gemini:
		r.Notes = append(r.Notes, "Gemini CLI shows a block's reason only as a [WARNING] line, and gemini -p exits 0 on a blocked prompt")
	default:
		r.Notes = append(r.Notes, "no release of "+r.Title+" is known to change what luahook's entries rely on")
	}
}

// judgeOutput says what the release does with a tool's output that
// luahook's PostToolUse hooks rewrote, and gives the step of each wired
// file that leaves out the agent's PostToolUse event: a redact policy
// there would see no output at all. Whether any policy rewrites output is
// not read (that would load the policies, which may not be trusted yet, or
// live in a server): every wired agent is reported.
func (r *Report) judgeOutput() {
	t, err := lookupTarget(r.Agent)
	if err != nil {
		return
	}
	// The notes OutputFirewall gives are in the ways' own notes.
	r.Output, r.OutputGaps, _ = OutputFirewall(r.Agent, r.version, r.hasVersion)
	for _, w := range r.Files {
		switch {
		case !w.Wired:
		case slices.Contains(w.Events, t.postToolUse):
			r.PostToolUse = true
		default:
			r.Steps = append(r.Steps, fmt.Sprintf("run luahook install %s again (%s scope): %s has no luahook entry on %s, so no PostToolUse policy (redact, replace_output) sees %s's tool output",
				r.Agent, w.Scope, w.Path, t.postToolUse, r.Title))
		}
	}
}

// judgeClaude checks Claude Code's wiring against its release: its
// entries fail closed only with onFailure "block", which releases before
// 2.1.295 ignore, and its HTTP hooks need 2.1.63.
func (r *Report) judgeClaude() {
	var http, failClosed bool
	for _, w := range r.Files {
		if !w.Wired {
			continue
		}
		http = http || slices.Contains(w.Modes, "--http")
		if len(w.NoOnFailure) > 0 {
			r.cannotBlock(fmt.Sprintf("%s: the entries of %s have no onFailure \"block\": when luahook cannot run, Claude Code lets the action through",
				w.Path, strings.Join(w.NoOnFailure, ", ")))
			r.Steps = append(r.Steps, fmt.Sprintf("run luahook install claude again (%s scope) to add onFailure \"block\"", w.Scope))
		}
		failClosed = failClosed || len(w.NoOnFailure) < len(blockingEvents(w.Events))
		if len(w.Skipped) > 0 {
			r.Steps = append(r.Steps, fmt.Sprintf("run luahook install claude --http URL again (%s scope): Claude Code runs no HTTP hook on %s, so the session's context never arrives",
				w.Scope, strings.Join(w.Skipped, ", ")))
		}
	}
	switch {
	case !r.hasVersion:
		r.Steps = append(r.Steps, fmt.Sprintf("make sure the Claude Code that runs these hooks is %s or later", claudeOnFailure.Version))
	case http && r.version.Less(claudeHTTP.Version):
		r.CannotBlock = append(r.CannotBlock, fmt.Sprintf("Claude Code %s has no HTTP hooks (%s or later): luahook serve is never asked", r.version, claudeHTTP.Version))
		r.Steps = append(r.Steps, fmt.Sprintf("upgrade Claude Code to %s or later (claude update)", claudeOnFailure.Version))
	case failClosed && r.version.Less(claudeOnFailure.Version):
		r.CannotBlock = append(r.CannotBlock, fmt.Sprintf("Claude Code %s ignores onFailure (%s or later): a missing luahook or a server that is down lets the prompt or the tool call through",
			r.version, claudeOnFailure.Version))
		r.Steps = append(r.Steps, fmt.Sprintf("upgrade Claude Code to %s or later (claude update): %s does not know onFailure", claudeOnFailure.Version, r.version))
	}
	r.Notes = append(r.Notes, "claude -p exits 0 on a blocked prompt: read its output, not its exit status")
}

// blockingEvents returns the events of evs on which Claude Code's entries
// fail closed.
func blockingEvents(evs []string) []string {
	var out []string
	for _, e := range evs {
		if canBlock(e) {
			out = append(out, e)
		}
	}
	return out
}

// judgeCodex checks Codex's wiring against its release: hooks.json runs by
// default from 0.124.0, and whatever the release no hook runs before the
// user approves it.
func (r *Report) judgeCodex() {
	if r.hasVersion && r.version.Less(codexHooks.Version) {
		r.CannotBlock = append(r.CannotBlock, fmt.Sprintf("Codex %s runs the hooks of hooks.json only with [features] hooks on in config.toml (on by default from %s)",
			r.version, codexHooks.Version))
		r.Steps = append(r.Steps, fmt.Sprintf("upgrade Codex to %s or later, or turn [features] hooks on in config.toml", codexHooks.Version))
	}
	r.Steps = append(r.Steps, CodexApprovalStep)
	r.Notes = append(r.Notes, "when luahook itself cannot start, Codex goes on; Codex never shows a block's reason, and codex exec exits 0 on a blocked prompt")
}

// judgeCopilot gives the folder-trust step of a project's wiring: Copilot
// CLI runs no hook of .github/hooks in a folder it does not trust.
func (r *Report) judgeCopilot() {
	for _, w := range r.Files {
		if w.Wired && w.Scope == Project.String() {
			r.Steps = append(r.Steps, CopilotTrustStep)
			break
		}
	}
	r.Notes = append(r.Notes, "when luahook itself cannot start, Copilot CLI lets the prompt through and denies each tool call")
}

// CopilotTrustStep is the step a project's Copilot wiring needs.
const CopilotTrustStep = "trust this folder in Copilot CLI (it asks when it starts here; copilot -p takes --trust-folder) — it runs none of the project's .github/hooks in a folder it does not trust, and says nothing"

// CodexApprovalStep is the step every Codex wiring needs.
const CodexApprovalStep = "approve the hooks in Codex's /hooks screen (or its trust setting) — Codex runs none until then, and codex exec skips them without a word"

// runVersion runs program args within ctx and parses its release, as
// InstalledVersion does.
func runVersion(ctx context.Context, program string, args []string) (Version, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	out := &cappedBuffer{max: maxVersionOutput}
	cmd.Stdout = out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return Version{}, fmt.Errorf("%s %s gave no answer in time: %w", program, strings.Join(args, " "), context.Cause(ctx))
	case err != nil:
		return Version{}, fmt.Errorf("%s %s: %w", program, strings.Join(args, " "), err)
	}
	v, ok := ParseVersion(out.String())
	if !ok {
		return Version{}, fmt.Errorf("%s %s printed no version number (%.60q)", program, strings.Join(args, " "), out.String())
	}
	return v, nil
}
