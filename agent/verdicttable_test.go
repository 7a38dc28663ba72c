package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
)

// updating reports whether the test runs with -update (the flag
// golden_test.go defines, in the same test binary): then the golden table
// is rewritten.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// verdictTablePath is the golden table: every agent's exact answer to every
// verdict luahook can reach.
const verdictTablePath = "testdata/verdicts.md"

// The payloads the table answers: per agent, the native payload of each
// event that luahook install wires for it (Copilot's camelCase dialect,
// Cursor's preToolUse), with the event name the command line gives. The
// PostToolUse payloads are a built-in shell tool's output ("cat .env")
// carrying a GitHub token and an AWS access key ID (fakes).
var tablePayloads = map[agent.Name]map[luahook.Event]struct{ file, event string }{
	agent.Claude: {luahook.PreToolUse: {"PreToolUse-npm", ""}, luahook.UserPromptSubmit: {"UserPromptSubmit", ""},
		luahook.Stop: {"Stop", ""}, luahook.PostToolUse: {"PostToolUse-bash", ""}},
	agent.Codex: {luahook.PreToolUse: {"PreToolUse-npm", ""}, luahook.UserPromptSubmit: {"UserPromptSubmit", ""},
		luahook.Stop: {"Stop", ""}, luahook.PostToolUse: {"PostToolUse-secret", ""}},
	agent.Copilot: {luahook.PreToolUse: {"preToolUse-object", "preToolUse"},
		luahook.UserPromptSubmit: {"userPromptSubmitted", "userPromptSubmitted"}, luahook.Stop: {"agentStop", "agentStop"},
		luahook.PostToolUse: {"postToolUse-secret", "postToolUse"}},
	agent.Cursor: {luahook.PreToolUse: {"preToolUse-npm", ""}, luahook.UserPromptSubmit: {"beforeSubmitPrompt", ""},
		luahook.Stop: {"stop", ""}, luahook.PostToolUse: {"postToolUse-secret", ""}},
	agent.Gemini: {luahook.PreToolUse: {"BeforeTool-npm", ""}, luahook.UserPromptSubmit: {"BeforeAgent", ""},
		luahook.Stop: {"AfterAgent", ""}, luahook.PostToolUse: {"AfterTool-secret", ""}},
}

// The policies of the table's rows: each reaches one verdict on the
// payloads above (a shell call "npm install left-pad", a prompt, a Stop).
const (
	rewritePolicy = `hook.register("PreToolUse", "@shell", function(input)
  local t = input.toolInput
  t.command = (t.command:gsub("^npm install ", "pnpm add "))
  return hook.mutate(t, "this repository uses pnpm")
end, { name = "prefer-pnpm", stage = "mutate" })
`
	allowPolicy = `hook.register("PreToolUse", "@shell", function() return hook.allow() end, { name = "approve", stage = "validate" })
`
	askPolicy = `hook.register("PreToolUse", "@shell", function() return hook.ask("installs a package: confirm") end, { name = "confirm", stage = "validate" })
`
)

// The policies of the table's output rows, on the PostToolUse payloads
// above: the secrets redacted, the output replaced by a text, and the
// output withheld because a hook that checks it failed, closed.
const (
	redactPolicy = `hook.register("PostToolUse", "@shell", function(input)
  return hook.redact({
    { pattern = "ghp_[A-Za-z0-9]{36}", label = "a GitHub token" },
    { pattern = "AKIA[0-9A-Z]{16}", label = "an AWS access key ID" },
  }, "secrets in tool output")
end, { name = "secrets-redact" })
`
	replacePolicy = `hook.register("PostToolUse", "@shell", function(input)
  return hook.replace_output("[the build log is withheld: ask for a failing test by name]", "build logs stay out of the model")
end, { name = "build-log" })
`
	withholdPolicy = `hook.register("PostToolUse", "@shell", function(input)
  error("the output scanner is down", 0)
end, { name = "secrets-scan", failure_policy = "closed" })
`
)

// outputWithheld is the name of the row whose output a fail-closed hook's
// failure withholds: its hook fails by design.
const outputWithheld = "output withheld (a fail-closed hook failed)"

// verdictRows are the table's rows: a name, the event, and the policy.
var verdictRows = []struct {
	name   string
	event  luahook.Event
	policy string
}{
	{"no objection", luahook.PreToolUse, `hook.register("PreToolUse", "@shell", function() return nil end)
`},
	{"allow", luahook.PreToolUse, allowPolicy},
	{"ask", luahook.PreToolUse, askPolicy},
	{"deny", luahook.PreToolUse, `hook.register("PreToolUse", "@shell", function() return hook.deny("no new dependency without a review") end)
`},
	{"mutate", luahook.PreToolUse, rewritePolicy},
	{"mutate + allow", luahook.PreToolUse, rewritePolicy + allowPolicy},
	{"mutate + ask", luahook.PreToolUse, rewritePolicy + askPolicy},
	{"deny (prompt)", luahook.UserPromptSubmit, `hook.register("UserPromptSubmit", nil, function() return hook.deny("say which test is flaky") end)
`},
	{"continue (Stop)", luahook.Stop, `hook.register("Stop", nil, function() return hook.continue("the tests still fail: fix them") end)
`},
	{string(luahook.ActionRedact), luahook.PostToolUse, redactPolicy},
	{string(luahook.ActionReplaceOutput), luahook.PostToolUse, replacePolicy},
	{outputWithheld, luahook.PostToolUse, withholdPolicy},
}

// tableCell is one agent's answer to one row.
type tableCell struct {
	agent, verdict, payload string
	ans                     agent.Answer
}

// verdictTable fires every row's policy through the runner on each agent's
// payload and encodes the result as the agent's answer.
func verdictTable(t *testing.T) []tableCell {
	t.Helper()
	var cells []tableCell
	for _, row := range verdictRows {
		run := luaRunner(t, "hooks.d/verdict.lua", row.policy)
		for _, name := range agent.Names() {
			p, ok := tablePayloads[name][row.event]
			if !ok {
				t.Fatalf("no %s payload for %s", row.event, name)
			}
			a, req := decodeTestdata(t, name, p.file, p.event)
			res := run.Fire(context.Background(), req.Input)
			fails, failed := row.name == outputWithheld, false
			for _, tr := range res.Trace {
				if tr.Failure != nil && !fails {
					t.Fatalf("%s %s: hook %s failed: %v", name, row.name, tr.Name, tr.Failure)
				}
				failed = failed || tr.Failure != nil
			}
			if fails && !failed {
				t.Fatalf("%s %s: the hook meant to fail did not", name, row.name)
			}
			cells = append(cells, tableCell{string(name), row.name, string(name) + "/" + p.file,
				a.Encode(req, agent.FromResult(res))})
		}
	}
	return cells
}

const tableHeader = "| agent | verdict | payload | exit | stdout | stderr |"

// renderTable writes cells as the golden's markdown table. Standard output
// and standard error are one line each (or nothing); their final newline is
// left out, and a "|" in them is written "\|".
func renderTable(t *testing.T, cells []tableCell) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`# What each agent reads back for each verdict

Each row is what ` + "`luahook fire --agent AGENT`" + ` writes (standard output, standard error,
exit code) when the policies reach the row's verdict on the payload named, one of the events
` + "`luahook install`" + ` wires for that agent. TestVerdictTable fires each row's Lua policy through
the runner on each payload and compares its answers with this file
(` + "`go test ./agent -run TestVerdictTable -update`" + ` rewrites it); README.md and docs/agents.md
summarise it, and TestVerdictTableInDocs holds them to it. A standard output or error is one line;
its final newline is left out here.

The last rows are a PostToolUse policy's output actions on a shell's output that carries a GitHub
token and an AWS access key ID: the secrets redacted (` + "`hook.redact`" + `), the output replaced
(` + "`hook.replace_output`" + `), and the output withheld because a hook that checks it failed, with
its failure policy closed. README.md's output firewall table summarises them, and
TestOutputTableInDocs holds it to them.

`)
	b.WriteString(tableHeader + "\n| --- | --- | --- | --- | --- | --- |\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |\n", c.agent, c.verdict, c.payload, c.ans.ExitCode,
			codeCell(t, string(c.ans.Stdout)), codeCell(t, c.ans.Stderr))
	}
	return b.Bytes()
}

// codeCell is s (one line and its newline, or nothing) as a table cell.
func codeCell(t *testing.T, s string) string {
	t.Helper()
	if s == "" {
		return ""
	}
	line, ok := strings.CutSuffix(s, "\n")
	if !ok || strings.ContainsAny(line, "\n`") || strings.Contains(line, `\|`) {
		t.Fatalf("answer %q is not one line the table can hold", s)
	}
	return "`" + strings.ReplaceAll(line, "|", `\|`) + "`"
}

// parseTable returns the rows of the markdown table in text whose header
// line is header: each row's cells, trimmed, with "\|" read as "|" and
// code spans kept as written.
func parseTable(text, header string) ([][]string, error) {
	lines := strings.Split(text, "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		return nil, fmt.Errorf("no table with the header %s", header)
	}
	if start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "| ---") {
		return nil, fmt.Errorf("the table %s has no separator line", header)
	}
	width := len(splitRow(header))
	var rows [][]string
	for i, l := range lines[start+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		row := splitRow(l)
		if len(row) != width {
			return nil, fmt.Errorf("line %d of the table %s has %d cells, want %d", i+1, header, len(row), width)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// readTable reads the golden table's cells back, keyed by agent and verdict.
func readTable(t *testing.T) map[[2]string]tableCell {
	t.Helper()
	data, err := os.ReadFile(verdictTablePath)
	if err != nil {
		t.Fatalf("%v (go test ./agent -run TestVerdictTable -update writes it)", err)
	}
	rows, err := parseTable(string(data), tableHeader)
	if err != nil {
		t.Fatalf("%s: %v", verdictTablePath, err)
	}
	out := map[[2]string]tableCell{}
	for _, r := range rows {
		exit, err := strconv.Atoi(r[3])
		if err != nil {
			t.Fatalf("%s: exit %q: %v", verdictTablePath, r[3], err)
		}
		c := tableCell{agent: r[0], verdict: r[1], payload: r[2], ans: agent.Answer{ExitCode: exit}}
		if s := strings.Trim(r[4], "`"); s != "" {
			c.ans.Stdout = []byte(s + "\n")
		}
		if s := strings.Trim(r[5], "`"); s != "" {
			c.ans.Stderr = s + "\n"
		}
		key := [2]string{c.agent, c.verdict}
		if _, dup := out[key]; dup {
			t.Errorf("%s: %s / %s is there twice", verdictTablePath, c.agent, c.verdict)
		}
		out[key] = c
	}
	return out
}

// requiredVerdicts is every verdict the table must have a row for, named
// as its rows are: each of luahook's verdicts, with and without a rewrite
// where a rewrite can come with it (not with a deny or a Stop's continue),
// and the deny of a prompt. A verdict added to luahook has no name here
// and fails the test until the table has a row for it.
func requiredVerdicts(t *testing.T) []string {
	t.Helper()
	names := map[luahook.Verdict][2]string{
		luahook.VerdictNone:     {"no objection", "mutate"},
		luahook.VerdictAllow:    {"allow", "mutate + allow"},
		luahook.VerdictAsk:      {"ask", "mutate + ask"},
		luahook.VerdictDeny:     {"deny", ""},
		luahook.VerdictContinue: {"continue (Stop)", ""},
	}
	var out []string
	for v := luahook.Verdict(0); !strings.HasPrefix(v.String(), "Verdict("); v++ {
		n, ok := names[v]
		if !ok {
			t.Errorf("the verdict table has no row for luahook's verdict %q", v)
			continue
		}
		out = append(out, n[0])
		if n[1] != "" {
			out = append(out, n[1])
		}
	}
	return append(out, "deny (prompt)")
}

// requiredOutputRows is every PostToolUse output row the table must have,
// named as its rows are: each action a PostToolUse hook has that no other
// event's hook has (redact, replace_output), and the output withheld. An
// output action added to luahook has no row and fails the test until the
// table has one.
func requiredOutputRows() []string {
	var out []string
	for _, a := range luahook.Actions(luahook.PostToolUse) {
		if !slices.Contains(luahook.Actions(luahook.SessionStart), a) {
			out = append(out, string(a))
		}
	}
	return append(out, outputWithheld)
}

// TestVerdictTable: every agent's answer to every verdict — no objection,
// allow, ask, deny, mutate, mutate + allow, mutate + ask, a prompt's deny,
// a Stop's continue — and to every PostToolUse output action — redact,
// replace_output, the output withheld — reached by a real Lua policy
// through the runner, is exactly the one testdata/verdicts.md holds, and
// the file holds a cell for every agent and every row.
func TestVerdictTable(t *testing.T) {
	got := renderTable(t, verdictTable(t))
	if updating() {
		if err := os.WriteFile(verdictTablePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(verdictTablePath)
	if err != nil {
		t.Fatalf("%v (go test ./agent -run TestVerdictTable -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the adapters' answers (-update rewrites it):\n--- got\n%s\n--- want\n%s",
			verdictTablePath, got, want)
	}
	cells := readTable(t)
	required := append(requiredVerdicts(t), requiredOutputRows()...)
	for _, name := range agent.Names() {
		for _, v := range required {
			if _, ok := cells[[2]string{string(name), v}]; !ok {
				t.Errorf("%s has no cell for %s / %s", verdictTablePath, name, v)
			}
		}
	}
	if want := len(agent.Names()) * len(required); len(cells) != want {
		t.Errorf("%s has %d cells, want %d (one per agent and row)", verdictTablePath, len(cells), want)
	}
}

// TestNoVerdictApprovesMoreThanThePolicy: for every verdict of the table,
// reached by its policy, an agent's answer approves (an allow that skips
// the agent's own prompt) only where a hook allowed explicitly, and carries
// the rewritten input only with no decision, an ask or an allow the hooks
// gave: never on a deny or a block, and never with an approval the hooks
// did not give.
func TestNoVerdictApprovesMoreThanThePolicy(t *testing.T) {
	for _, c := range verdictTable(t) {
		key := [2]string{c.agent, c.verdict}
		allowed := key[1] == "allow" || key[1] == "mutate + allow"
		f := answerFields(t, c.ans.Stdout)
		decision := f.decision()
		if decision == "allow" && !allowed {
			t.Errorf("%s / %s approves: %s", key[0], key[1], c.ans.Stdout)
		}
		if _, rewrite := f.rewrite(); rewrite && (decision == "deny" || decision == "block" || (decision == "allow" && !allowed)) {
			t.Errorf("%s / %s carries a rewrite with %q: %s", key[0], key[1], decision, c.ans.Stdout)
		}
	}
}

// fields is an answer's JSON object, hookSpecificOutput's members lifted
// to the top (hookEventName left out).
type fields map[string]json.RawMessage

func answerFields(t *testing.T, stdout []byte) fields {
	t.Helper()
	f := fields{}
	if len(stdout) == 0 {
		return f
	}
	if err := json.Unmarshal(stdout, &f); err != nil {
		t.Fatalf("answer %q: %v", stdout, err)
	}
	if hso, ok := f["hookSpecificOutput"]; ok {
		delete(f, "hookSpecificOutput")
		var inner fields
		if err := json.Unmarshal(hso, &inner); err != nil {
			t.Fatalf("hookSpecificOutput %q: %v", hso, err)
		}
		delete(inner, "hookEventName")
		for k, v := range inner {
			f[k] = v
		}
	}
	return f
}

// rewriteKeys are the fields that carry a rewritten input, per agent.
var rewriteKeys = []string{"updatedInput", "modifiedArgs", "updated_input", "tool_input"}

// reasonKeys are the fields that carry a reason to the agent or the user.
var reasonKeys = []string{"permissionDecisionReason", "reason", "user_message", "agent_message"}

func (f fields) str(key string) string {
	var s string
	_ = json.Unmarshal(f[key], &s)
	return s
}

// decision is the answer's decision word: permissionDecision, decision or
// permission.
func (f fields) decision() string {
	for _, k := range []string{"permissionDecision", "decision", "permission"} {
		if _, ok := f[k]; ok {
			return f.str(k)
		}
	}
	return ""
}

func (f fields) rewrite() (json.RawMessage, bool) {
	for _, k := range rewriteKeys {
		if v, ok := f[k]; ok {
			return v, true
		}
	}
	return nil, false
}

func (f fields) reason() string {
	for _, k := range reasonKeys {
		if _, ok := f[k]; ok {
			return f.str(k)
		}
	}
	return ""
}

// summary is the README's words for an answer: nothing, or the agent's
// decision word (`allow`, `deny`, `ask`, `block`; Cursor's `continue:
// false` or `followup_message`), then "rewrite" when it carries the
// rewritten input ("own input" when that is the call's own input), "reason"
// when a rewrite comes with a reason, and "rewritten call" when a block's
// reason gives the rewritten command; "exit N" first when the exit code is
// not 0, "(stderr)" after nothing when standard error says something.
func summary(t *testing.T, c tableCell, original json.RawMessage) string {
	t.Helper()
	var parts []string
	if c.ans.ExitCode != 0 {
		parts = append(parts, fmt.Sprintf("exit %d", c.ans.ExitCode))
	}
	if len(c.ans.Stdout) == 0 {
		s := "nothing"
		if c.ans.Stderr != "" {
			s += " (stderr)"
		}
		return strings.Join(append(parts, s), ", ")
	}
	f := answerFields(t, c.ans.Stdout)
	switch d := f.decision(); {
	case d != "":
		parts = append(parts, "`"+d+"`")
	case f["continue"] != nil:
		parts = append(parts, "`continue: "+string(f["continue"])+"`")
	case f["followup_message"] != nil:
		parts = append(parts, "`followup_message`")
	}
	if in, ok := f.rewrite(); ok {
		if sameJSON(t, in, original) {
			parts = append(parts, "own input")
		} else {
			parts = append(parts, "rewrite")
			if f.reason() != "" {
				parts = append(parts, "reason")
			}
		}
	} else if strings.Contains(f.reason(), `"pnpm add left-pad"`) {
		parts = append(parts, "rewritten call")
	}
	return strings.Join(parts, " + ")
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %s, %s", a, b)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// docsHeader is the header line of the agent × verdict tables in README.md
// and docs/agents.md.
const docsHeader = "| verdict | Claude Code | Codex | Copilot | Cursor | Gemini CLI |"

// docsAgents are the agents of docsHeader's columns, in order.
var docsAgents = []agent.Name{agent.Claude, agent.Codex, agent.Copilot, agent.Cursor, agent.Gemini}

// docsTable reads the agent × verdict table of the file at path (relative
// to the repository's root) and checks that it has one row per verdict of
// the golden table and nothing else; check compares each cell.
func docsTable(t *testing.T, path string, check func(cell string, c tableCell) error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseTable(string(data), docsHeader)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	golden := readTable(t)
	var seen []string
	for _, r := range rows {
		verdict := r[0]
		seen = append(seen, verdict)
		for i, name := range docsAgents {
			c, ok := golden[[2]string{string(name), verdict}]
			if !ok {
				t.Errorf("%s: the row %q is no verdict of %s", path, verdict, verdictTablePath)
				break
			}
			if err := check(stripNotes(r[i+1]), c); err != nil {
				t.Errorf("%s: %s / %s: %v\n(%s has %q %q exit %d)", path, verdict, name, err, verdictTablePath,
					c.ans.Stdout, c.ans.Stderr, c.ans.ExitCode)
			}
		}
	}
	for _, v := range requiredVerdicts(t) {
		if !slices.Contains(seen, v) {
			t.Errorf("%s: the table has no row %q", path, v)
		}
	}
}

// stripNotes removes the footnote marks (¹²³...) from a cell.
func stripNotes(cell string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if strings.ContainsRune("⁰¹²³⁴⁵⁶⁷⁸⁹", r) {
			return -1
		}
		return r
	}, cell))
}

// TestVerdictTableInDocs: the README's compact agent × verdict table says
// of each cell exactly what summary says of the golden answer, and
// docs/agents.md's full table names exactly the fields each golden answer
// writes (a `field: value` with its value), "nothing" where it writes
// nothing, standard error and exit codes where they say something.
func TestVerdictTableInDocs(t *testing.T) {
	original := map[string]json.RawMessage{}
	for name, events := range tablePayloads {
		p := events[luahook.PreToolUse]
		_, req := decodeTestdata(t, name, p.file, p.event)
		original[string(name)] = req.Input.ToolInput
	}
	docsTable(t, "README.md", func(cell string, c tableCell) error {
		if want := summary(t, c, original[c.agent]); cell != want {
			return fmt.Errorf("says %q, the answer is %q", cell, want)
		}
		return nil
	})
	docsTable(t, "docs/agents.md", func(cell string, c tableCell) error {
		return fieldsAgree(t, cell, c)
	})
}

// fieldsAgree checks a docs/agents.md cell against an answer: its code
// spans name the answer's fields (`name`, or `name: value` with the
// field's JSON value), all of them; "nothing" when there is no standard
// output; "stderr" when standard error says something; "exit N" when the
// exit code is N, not 0.
func fieldsAgree(t *testing.T, cell string, c tableCell) error {
	t.Helper()
	spans := codeSpans(cell)
	if got, want := strings.Contains(cell, "stderr"), c.ans.Stderr != ""; got != want {
		return fmt.Errorf("mentions stderr: %v, the answer writes on it: %v", got, want)
	}
	if c.ans.ExitCode != 0 && !strings.Contains(cell, fmt.Sprintf("exit %d", c.ans.ExitCode)) {
		return fmt.Errorf("does not say exit %d", c.ans.ExitCode)
	}
	if len(c.ans.Stdout) == 0 {
		if !strings.HasPrefix(cell, "nothing") || len(spans) > 0 {
			return fmt.Errorf("the answer writes nothing; the cell should begin with nothing and name no field")
		}
		return nil
	}
	f := answerFields(t, c.ans.Stdout)
	named := map[string]bool{}
	for _, s := range spans {
		key, value, hasValue := strings.Cut(s, ": ")
		v, ok := f[key]
		if !ok {
			return fmt.Errorf("names %s, which the answer does not write", key)
		}
		if hasValue && !sameJSON(t, json.RawMessage(value), v) {
			return fmt.Errorf("says %s is %s; it is %s", key, value, v)
		}
		named[key] = true
	}
	for key := range f {
		if !named[key] {
			return fmt.Errorf("does not name %s", key)
		}
	}
	return nil
}

// codeSpans returns the text of each `code span` in s.
func codeSpans(s string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(s, "`")
		if !ok {
			return out
		}
		span, after, ok := strings.Cut(rest, "`")
		if !ok {
			return out
		}
		out = append(out, span)
		s = after
	}
}

// outputHeader is the header line of README.md's output firewall table:
// agent × output action.
const outputHeader = "| output action | Claude Code | Codex | Copilot | Cursor | Gemini CLI |"

// outputCut is the output firewall table's row of an output cut past
// luahook.MaxScanBytes. The verdict table has no row for it (its answer
// is megabytes long): it is read from the "output cut" answer of the
// payload's golden testdata/<agent>/<payload>.outputs instead.
var outputCut = fmt.Sprintf("output cut (past %d MiB)", luahook.MaxScanBytes>>20)

// outputFieldKeys are the fields that carry a rewritten output in the
// agent's own field, per agent.
var outputFieldKeys = []string{"updatedToolOutput", "updatedMCPToolOutput", "modifiedResult", "updated_mcp_tool_output"}

// outputLead is the README's words for an answer to a rewritten output,
// the start of its cell: the field that carries the rewritten output, else
// the decision word of a block whose reason carries it (`block`, `deny`),
// else "context only" when the answer only tells the model what was taken
// out (and the model reads the original), else "nothing".
func outputLead(t *testing.T, ans agent.Answer) string {
	t.Helper()
	if len(ans.Stdout) == 0 {
		return "nothing"
	}
	f := answerFields(t, ans.Stdout)
	for _, k := range outputFieldKeys {
		if _, ok := f[k]; ok {
			return "`" + k + "`"
		}
	}
	if d := f.decision(); d != "" {
		return "`" + d + "`"
	}
	for _, k := range []string{"additionalContext", "additional_context"} {
		if _, ok := f[k]; ok {
			return "context only"
		}
	}
	return "fields " + string(ans.Stdout)
}

// cutAnswer reads the "output cut" answer of the golden outputs file of
// the agent's PostToolUse payload of the table.
func cutAnswer(t *testing.T, name agent.Name) agent.Answer {
	t.Helper()
	path := filepath.Join("testdata", string(name), tablePayloads[name][luahook.PostToolUse].file+".outputs")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "-- output cut --\n")
	if !ok {
		t.Fatalf("%s has no output cut answer", path)
	}
	section, _, _ = strings.Cut(section, "\n-- ")
	var ans agent.Answer
	for _, line := range strings.Split(section, "\n") {
		switch k, v, _ := strings.Cut(line, " "); k {
		case "exit":
			if ans.ExitCode, err = strconv.Atoi(v); err != nil {
				t.Fatalf("%s: output cut: exit %q", path, v)
			}
		case "stdout:":
			ans.Stdout = []byte(v + "\n")
		case "stderr:":
			ans.Stderr = v + "\n"
		}
	}
	return ans
}

// TestOutputTableInDocs: each cell of README.md's output firewall table
// (agent × output action) begins with what outputLead says of the agent's
// answer for that row, the row of testdata/verdicts.md (or, for the cut
// output, the golden "output cut" answer): the field that carries the
// rewritten output, the block that carries it, or "context only"; and the
// table has a row for every output row of the verdict table, and the cut.
func TestOutputTableInDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseTable(string(data), outputHeader)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	golden := readTable(t)
	var seen []string
	for _, r := range rows {
		action := r[0]
		seen = append(seen, action)
		if action != outputCut && !slices.Contains(requiredOutputRows(), action) {
			t.Errorf("README.md: the output row %q is no output row of %s", action, verdictTablePath)
			continue
		}
		for i, name := range docsAgents {
			ans := golden[[2]string{string(name), action}].ans
			if action == outputCut {
				ans = cutAnswer(t, name)
			}
			lead, cell := outputLead(t, ans), stripNotes(r[i+1])
			if rest, ok := strings.CutPrefix(cell, lead); !ok || rest != "" && !strings.ContainsAny(rest[:1], " :;,(") {
				t.Errorf("README.md: %s / %s: says %q, which should begin with %q (the answer is %s)", action, name, cell, lead, ans.Stdout)
			}
		}
	}
	for _, want := range append(requiredOutputRows(), outputCut) {
		if !slices.Contains(seen, want) {
			t.Errorf("README.md: the output firewall table has no row %q", want)
		}
	}
}
