//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The suite's results: each test says what an agent's release did for one
// check (observe), and once every test has run and passed, the table of
// those observations must be resultsFile, which luahook doctor embeds and
// the README quotes between its conformance markers. With -update the
// suite writes both instead.
//
//	LUAHOOK_AGENTS_DIR=DIR go test -tags conformance ./internal/conformance -update

var update = flag.Bool("update", false, "write "+resultsFile+" and the README's agent table from this run's observations")

// resultsFile is the table as luahook doctor embeds it.
const resultsFile = "../install/conformance.md"

// check is one row of the table: a question each agent's release answers.
type check string

// The checks, in the table's order.
const (
	checkSessionContext  check = "SessionStart context reaches the model"
	checkPromptBlocked   check = "a blocked prompt sends no request (titles included)"
	checkDenyDoesNotRun  check = "a denied shell call does not run"
	checkDenyReason      check = "the model receives a deny's reason"
	checkFileWrite       check = "a denied file write does not happen"
	checkFileRead        check = "a denied file read does not reach the model"
	checkAsk             check = "an ask (a rewrite no hook approved), in non-interactive mode"
	checkAskInteractive  check = "a policy's ask (hook.ask) of a rewritten call, in interactive mode"
	checkHookAsk         check = "a policy's ask (hook.ask) of a rewritten call, in non-interactive mode"
	checkRewrite         check = "a rewrite a hook approved runs as rewritten"
	checkPostContext     check = "PostToolUse context reaches the model"
	checkBrokenFolder    check = "a hooks folder that does not load blocks the prompt"
	checkUntrusted       check = "a file added since `luahook trust` blocks the prompt"
	checkMissingLuahook  check = "luahook missing from PATH blocks the prompt"
	checkHTTPDeny        check = "a deny through `install --http` (a running serve)"
	checkHTTPDown        check = "`install --http` with serve down blocks the prompt"
	checkSocketDeny      check = "a deny through `install --socket` (a running serve)"
	checkSocketDown      check = "`install --socket` with serve down blocks the prompt"
	checkMCPDeny         check = "a denied MCP tool call does not run"
	checkBlockExitStatus check = "exit status of a blocked prompt in non-interactive mode"
	checkBlockShown      check = "a prompt block's reason, shown to the user"
)

var checks = []check{
	checkSessionContext, checkPromptBlocked, checkDenyDoesNotRun, checkDenyReason, checkFileWrite, checkFileRead, checkAsk, checkHookAsk,
	checkAskInteractive, checkRewrite, checkPostContext, checkBrokenFolder, checkUntrusted, checkMissingLuahook,
	checkHTTPDeny, checkHTTPDown, checkSocketDeny, checkSocketDown, checkMCPDeny,
	checkBlockExitStatus, checkBlockShown,
}

// titles names each npm package of agents.txt as its maker names the agent.
var titles = map[string]string{
	"@anthropic-ai/claude-code": "Claude Code",
	"@google/gemini-cli":        "Gemini CLI",
	"@openai/codex":             "Codex",
	"@github/copilot":           "Copilot CLI",
}

// release is one agent program of agents.txt: its npm package and version.
type release struct{ pkg, version string }

func (r release) String() string { return titles[r.pkg] + " " + r.version }

// releaseOf is the release of agentCases' agents the suite runs by
// default: the package and version each agent's file pins.
func releaseOf(t *testing.T, name string) (pkg, version string) {
	t.Helper()
	switch name {
	case "claude":
		return "@anthropic-ai/claude-code", claudeNew
	case "gemini":
		return "@google/gemini-cli", geminiVersion
	case "codex":
		return "@openai/codex", codexVersion
	case "copilot":
		return copilotPkg, copilotVersion
	}
	t.Fatalf("releaseOf knows no release of %q: add its package and version", name)
	return "", ""
}

// observeAgent is observe for one of agentCases' agents.
func observeAgent(t *testing.T, name string, c check, value string) {
	t.Helper()
	pkg, version := releaseOf(t, name)
	observe(pkg, version, c, value)
}

var (
	observedMu sync.Mutex
	observed   = map[release]map[check][]string{}
)

// observe records what the release of pkg did for c: "yes", "no", or a
// few words. A test observes only what it has asserted, after asserting
// it: a test that failed leaves the table unchecked anyway.
func observe(pkg, version string, c check, value string) {
	observedMu.Lock()
	defer observedMu.Unlock()
	r := release{pkg, version}
	if observed[r] == nil {
		observed[r] = map[check][]string{}
	}
	if !slices.Contains(observed[r][c], value) {
		observed[r][c] = append(observed[r][c], value)
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code != 0 {
		os.Exit(code)
	}
	if flag.Lookup("test.run").Value.String() != "" || flag.Lookup("test.skip").Value.String() != "" {
		// Part of the suite ran: its observations are not the whole table.
		os.Exit(code)
	}
	if err := settleTable(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// settleTable compares this run's table with resultsFile,
// or writes both with -update.
func settleTable() error {
	releases, err := pinnedReleases()
	if err != nil {
		return err
	}
	table, err := renderTable(releases)
	if err != nil {
		return err
	}
	readme := filepath.Join("..", "..", "README.md")
	if *update {
		if err := os.WriteFile(resultsFile, []byte(table), 0o644); err != nil {
			return err
		}
		return spliceReadme(readme, table)
	}
	have, err := os.ReadFile(resultsFile)
	if err != nil {
		return err
	}
	if string(have) != table {
		return fmt.Errorf("what the agents did is not %s: run the suite with -update, and say in the commit what changed.\nthis run:\n%s\n%s:\n%s", resultsFile, table, resultsFile, have)
	}
	return nil
}

// pinnedReleases reads agents.txt.
func pinnedReleases() ([]release, error) {
	f, err := os.Open("agents.txt")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []release
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := strings.LastIndex(line, "@")
		if at <= 0 || titles[line[:at]] == "" {
			return nil, fmt.Errorf("agents.txt:%d: %q is not PACKAGE@VERSION of a known agent", n, line)
		}
		out = append(out, release{line[:at], line[at+1:]})
	}
	return out, sc.Err()
}

// renderTable is the Markdown table of the observations: a row per check
// any release was seen doing, a column per release in agents.txt's order.
func renderTable(releases []release) (string, error) {
	observedMu.Lock()
	defer observedMu.Unlock()
	var b strings.Builder
	b.WriteString("| check |")
	for _, r := range releases {
		fmt.Fprintf(&b, " %s |", r)
	}
	b.WriteString("\n| --- |")
	for range releases {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	var conflicts []string
	for _, c := range checks {
		seen := false
		row := "| " + string(c) + " |"
		for _, r := range releases {
			vals := observed[r][c]
			switch len(vals) {
			case 0:
				row += " — |"
			case 1:
				seen = true
				row += " " + vals[0] + " |"
			default:
				conflicts = append(conflicts, fmt.Sprintf("%s, %q: %q", r, c, vals))
			}
		}
		if seen {
			b.WriteString(row + "\n")
		}
	}
	if len(conflicts) > 0 {
		return "", fmt.Errorf("tests saw one release do different things for one check: %s", strings.Join(conflicts, "; "))
	}
	return b.String(), nil
}

// The README quotes resultsFile between these lines.
const (
	readmeBegin = "<!-- conformance results: written by the conformance suite with -update -->\n"
	readmeEnd   = "<!-- end of conformance results -->\n"
)

func spliceReadme(path, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(readmeBegin))
	j := bytes.Index(b, []byte(readmeEnd))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q ... %q section for the table", path, strings.TrimSpace(readmeBegin), strings.TrimSpace(readmeEnd))
	}
	out := append([]byte{}, b[:i+len(readmeBegin)]...)
	out = append(out, table...)
	out = append(out, b[j:]...)
	return os.WriteFile(path, out, 0o644)
}
