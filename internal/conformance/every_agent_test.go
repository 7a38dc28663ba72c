//go:build conformance

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fake is what the tests ask of every fake model: whether a request held
// a text, and how many conversation requests reached it.
type fake interface {
	received(text string) bool
	conversation() int
}

func (m *fakeModel) conversation() int     { return m.posts() }
func (m *fakeResponses) conversation() int { return m.count() }
func (m *fakeGemini) conversation() int    { return m.streamed() }

// agentCase is one agent's program as the suite runs it: its shell call
// that creates the marker, and a run of prompt in the project against a
// fake model that asks for that call.
type agentCase struct {
	name string
	// blockSays is what the agent prints when luahook blocks its prompt
	// (Codex never shows a block's reason: only that the hook blocked).
	blockSays string
	run       func(t *testing.T, p *project, call toolCall, prompt string) (fake, string, error)
	call      func(marker string) toolCall
}

var agentCases = []agentCase{
	{"claude", "20-broken.lua", func(t *testing.T, p *project, call toolCall, prompt string) (fake, string, error) {
		m := startFakeModel(t, call)
		out, err := p.claude(t, m, prompt)
		return m, out, err
	}, markerCall},
	{"gemini", "20-broken.lua", func(t *testing.T, p *project, call toolCall, prompt string) (fake, string, error) {
		m := startFakeGemini(t, call)
		out, err := p.gemini(t, m, prompt)
		return m, out, err
	}, shellCall},
	{"codex", "UserPromptSubmit Blocked", func(t *testing.T, p *project, call toolCall, prompt string) (fake, string, error) {
		m := startFakeResponses(t, call)
		out, err := p.codex(t, m, prompt)
		return m, out, err
	}, execCall},
	{"copilot", "20-broken.lua", func(t *testing.T, p *project, call toolCall, prompt string) (fake, string, error) {
		m := startFakeCompletions(t, call)
		out, err := p.copilot(t, m, prompt)
		return m, out, err
	}, copilotCall},
}

// markerPolicy denies every shell command that names a marker, whatever
// the agent calls its shell tool.
const markerPolicy = `hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("marker", 1, true) then return hook.deny("conformance: no markers here") end
end)
`

// Without luahook the fake model's shell call runs: the marker is created.
// This is what the other tests' "the marker was never created" stands on.
func TestEveryAgentRunsTheFakeModelsCall(t *testing.T) {
	for _, a := range agentCases {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, nil)
			marker := filepath.Join(t.TempDir(), "marker")
			_, out, err := a.run(t, p, a.call(marker), "create the marker")
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the call did not run (%v); %s said:\n%s", err, a.name, out)
			}
		})
	}
}

// A policy's deny, with the hooks luahook install writes: the call never
// runs and the model receives the policy's reason.
func TestEveryAgentKeepsADeniedCallFromRunningAndTellsTheModel(t *testing.T) {
	for _, a := range agentCases {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			marker := filepath.Join(t.TempDir(), "marker")
			model, out, err := a.run(t, p, a.call(marker), "create the marker")
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the denied call ran: the marker exists; %s said:\n%s", a.name, out)
			}
			observeAgent(t, a.name, checkDenyDoesNotRun, "yes")
			if !model.received("conformance: no markers here") {
				t.Errorf("the model never received the policy's reason; %s said:\n%s", a.name, out)
			} else {
				observeAgent(t, a.name, checkDenyReason, "yes")
			}
		})
	}
}

// A hooks folder that does not load (trusted, but one file does not
// compile) blocks every event that can: the prompt itself, so that no
// conversation request reaches the model, and so no tool call either.
func TestEveryAgentBlocksThePromptOfABrokenFolder(t *testing.T) {
	for _, a := range agentCases {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-marker.lua": markerPolicy, "20-broken.lua": "hook.register(\n"})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			marker := filepath.Join(t.TempDir(), "file")
			model, out, _ := a.run(t, p, a.call(marker), "create the file")
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("a call ran although the hooks folder does not load; %s said:\n%s", a.name, out)
			}
			if n := model.conversation(); n != 0 {
				t.Errorf("%d requests reached the model, want none: the prompt is blocked; %s said:\n%s", n, a.name, out)
			} else {
				observeAgent(t, a.name, checkBrokenFolder, "yes")
			}
			if !strings.Contains(out, a.blockSays) {
				t.Errorf("%s does not say %q:\n%s", a.name, a.blockSays, out)
			}
		})
	}
}
