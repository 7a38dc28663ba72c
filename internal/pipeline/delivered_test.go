package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTheDeliveredVerdictIsReadFromEveryRowOfTheVerdictTable reads each
// answer of agent/testdata/verdicts.md as the agent does: the verdict the
// row's policy reached, except where the agent has no way to say it (an
// ask, or a rewrite without an approval, on Codex and Cursor's preToolUse
// reads as a deny; Claude Code asks about a rewrite no policy approved), a
// blocked prompt or stop reading as a block or a deny.
func TestTheDeliveredVerdictIsReadFromEveryRowOfTheVerdictTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "agent", "testdata", "verdicts.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"no objection": "none", "allow": "allow", "ask": "ask", "deny": "deny", "mutate": "rewrite",
		"mutate + allow": "allow", "mutate + ask": "ask", "deny (prompt)": "block", "continue (Stop)": "block",
	}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 6 || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| agent") || strings.HasPrefix(line, "| ---") {
			continue
		}
		name, verdict := strings.TrimPrefix(cells[0], "| "), cells[1]
		exit, err := strconv.Atoi(cells[3])
		if err != nil {
			t.Fatalf("%s: exit %q", line, cells[3])
		}
		stdout := strings.Trim(cells[4], "`")
		if verdict == "redact" || verdict == "replace_output" || strings.HasPrefix(verdict, "output withheld") {
			// A PostToolUse output row delivers a rewritten output, not a
			// verdict: the agent package's and internal/parity's tests hold it.
			continue
		}
		w, ok := want[verdict]
		if !ok {
			t.Fatalf("%s: verdict %q not known to this test", line, verdict)
		}
		if (name == "codex" || name == "cursor") && (verdict == "ask" || verdict == "mutate + ask") || name == "codex" && verdict == "mutate" {
			w = "deny"
		}
		if name == "copilot" && verdict == "mutate + ask" {
			w = "deny" // Copilot CLI would ask about the original call
		}
		if name == "claude" && verdict == "mutate" {
			w = "ask" // Claude Code applies a rewrite no policy approved by asking the user
		}
		got := agentVerdict(&Reply{Stdout: []byte(stdout), ExitCode: exit})
		if got != w && !(w == "block" && got == "deny") {
			t.Errorf("%s %s: read as %q, want %q (%s)", name, verdict, got, w, stdout)
		}
		rows++
	}
	if rows < 40 {
		t.Fatalf("read %d rows of the verdict table", rows)
	}
}
