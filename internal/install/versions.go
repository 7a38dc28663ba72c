package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/luahook/luahook/agent"
)

// Requirement is a release of the agent that a setting install writes
// needs: an older release ignores the setting (or knows no such hook), and
// the hooks do less than install says.
type Requirement struct {
	// Setting is what install writes, as the file spells it.
	Setting string
	// Version is the agent's first release that honours it.
	Version Version
	// Older says what an older release does instead.
	Older string
}

// Claude Code's releases that the entries install writes need (its release
// notes: HTTP hooks, with headers and allowedEnvVars, came in 2.1.63;
// onFailure in 2.1.295, and 2.1.197 was seen to ignore it).
var (
	claudeOnFailure = Requirement{
		Setting: `"onFailure": "block" (PreToolUse, UserPromptSubmit)`,
		Version: Version{2, 1, 295},
		Older:   "ignore it: a hook that cannot start, times out, or whose server cannot be reached lets the action through",
	}
	claudeHTTP = Requirement{
		Setting: `"type": "http" with "headers" and "allowedEnvVars"`,
		Version: Version{2, 1, 63},
		Older:   "have no HTTP hooks: luahook serve is never asked",
	}
	// Codex runs the hooks of hooks.json by default from 0.124.0; before,
	// only with [features] hooks on.
	codexHooks = Requirement{
		Setting: "hooks.json",
		Version: Version{0, 124, 0},
		Older:   "run no hook unless [features] hooks is on in config.toml",
	}
)

// Requirements returns the agent releases that the entries o writes need,
// the newest first; none when no setting install writes needs a known
// release (Copilot, Cursor and Gemini CLI: none is known).
func (o *Options) Requirements() []Requirement {
	switch o.Agent {
	case agent.Claude:
		// Every Claude Code entry on the blocking events fails closed; the
		// HTTP ones are HTTP hooks.
		if o.HTTP != "" && o.Socket == "" {
			return []Requirement{claudeOnFailure, claudeHTTP}
		}
		return []Requirement{claudeOnFailure}
	case agent.Codex:
		return []Requirement{codexHooks}
	}
	return nil
}

// Minimum returns the newest of reqs' versions: the release the agent
// needs for every one of them; the zero Version when reqs is empty.
func Minimum(reqs []Requirement) Version {
	var v Version
	for _, r := range reqs {
		if v.Less(r.Version) {
			v = r.Version
		}
	}
	return v
}

// Version is an agent's release number, major.minor.patch.
type Version [3]int

// String renders v as the agent writes it: "2.1.295".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Less reports whether v is an earlier release than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// versionText finds a release number in an agent's --version output
// ("2.1.295 (Claude Code)", "codex-cli 0.124.0").
var versionText = regexp.MustCompile(`(?:^|[^0-9.])([0-9]{1,6})\.([0-9]{1,6})\.([0-9]{1,6})(?:[^0-9.]|$)`)

// ParseVersion returns the first major.minor.patch in s.
func ParseVersion(s string) (Version, bool) {
	m := versionText.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	var v Version
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1]) // at most six digits: no overflow
	}
	return v, true
}

// versionCommands are the programs that say which release of an agent is
// installed, for the agents whose entries need one.
var versionCommands = map[agent.Name][]string{
	agent.Claude: {"claude", "--version"},
	agent.Codex:  {"codex", "--version"},
}

// ErrNoAgentProgram says that the agent's program is not on PATH, or that
// no program is known to report its release: the release was not checked.
var ErrNoAgentProgram = errors.New("the agent's program is not on PATH")

// maxVersionOutput caps what is read of a --version answer: a line.
const maxVersionOutput = 4 << 10

// InstalledVersion asks the agent's program on PATH for its release
// ("claude --version"), within ctx, and returns the program's path and
// the release. The program runs without standard input, its output is read
// up to maxVersionOutput bytes, and it is killed when ctx ends (its
// children holding the output are not waited for past a second). An agent
// whose program is not on PATH, or that has none known, is
// ErrNoAgentProgram.
func InstalledVersion(ctx context.Context, name agent.Name) (program string, v Version, err error) {
	argv, ok := versionCommands[name]
	if !ok {
		return "", Version{}, ErrNoAgentProgram
	}
	program, err = exec.LookPath(argv[0])
	if err != nil {
		return "", Version{}, fmt.Errorf("%s: %w", argv[0], ErrNoAgentProgram)
	}
	cmd := exec.CommandContext(ctx, program, argv[1:]...)
	out := &cappedBuffer{max: maxVersionOutput}
	cmd.Stdout = out
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return program, Version{}, fmt.Errorf("%s %s gave no answer in time: %w", program, argv[1], context.Cause(ctx))
	case err != nil:
		return program, Version{}, fmt.Errorf("%s %s: %w", program, argv[1], err)
	}
	v, ok = ParseVersion(out.String())
	if !ok {
		return program, Version{}, fmt.Errorf("%s %s printed no version number (%.60q)", program, argv[1], out.String())
	}
	return program, v, nil
}

// cappedBuffer keeps the first max bytes written to it and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
