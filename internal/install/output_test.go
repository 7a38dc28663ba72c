package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
)

// The output firewall follows the agent and its release: Claude Code
// replaces a built-in tool's output from 2.1.121 (an MCP tool's always),
// and 2.1.121 through 2.1.177 were reported to keep Bash's and WebFetch's;
// Cursor replaces an MCP tool's output only; Codex and Gemini CLI take the
// rewritten output as a block's reason; Copilot replaces it. Each place
// where the model can still read the tool's own output is a gap; a
// release that is not known is none.
func TestOutputFirewallFollowsTheAgentAndItsRelease(t *testing.T) {
	for _, c := range []struct {
		name    agent.Name
		release string // "" when not known
		// want is Replaced by Tools.
		want       map[string]string
		gap, note  string // "" when none
		noGapsLeft bool
	}{
		{name: agent.Claude, release: "2.1.100", want: map[string]string{BuiltinTools: NotReplaced, MCPTools: Replaced},
			gap: "Claude Code 2.1.100 cannot replace a built-in tool's output (only an MCP tool's, with updatedMCPToolOutput; the rest came in 2.1.121)"},
		{name: agent.Claude, release: "2.1.120", want: map[string]string{BuiltinTools: NotReplaced, MCPTools: Replaced}, gap: "upgrade Claude Code to 2.1.121 or later"},
		{name: agent.Claude, release: "2.1.121", want: map[string]string{AllTools: ReplacedMaybe},
			gap: "Claude Code 2.1.121 is among the releases reported to ignore updatedToolOutput for Bash and WebFetch (2.1.121 through 2.1.177"},
		{name: agent.Claude, release: "2.1.177", want: map[string]string{AllTools: ReplacedMaybe}, gap: "upgrade Claude Code past 2.1.177"},
		{name: agent.Claude, release: "2.1.178", want: map[string]string{AllTools: Replaced}},
		{name: agent.Claude, release: "2.1.332", want: map[string]string{AllTools: Replaced}},
		{name: agent.Claude, want: map[string]string{AllTools: ReplacedUnknown}},
		{name: agent.Codex, release: "0.142.5", want: map[string]string{AllTools: ReplacedByReason},
			note: `Codex takes a rewritten tool output only as a block's reason: where luahook's PostToolUse hooks redact or replace a tool's output, luahook answers "decision":"block"`},
		{name: agent.Codex, want: map[string]string{AllTools: ReplacedByReason}, note: "only as a block's reason"},
		{name: agent.Copilot, release: "1.0.102", want: map[string]string{AllTools: Replaced}},
		{name: agent.Cursor, want: map[string]string{BuiltinTools: NotReplaced, MCPTools: Replaced},
			gap: "Cursor cannot replace a built-in tool's output: where luahook's PostToolUse hooks redact or replace it, the model gets additional_context"},
		{name: agent.Gemini, release: "0.61.0", want: map[string]string{AllTools: ReplacedByReason}, note: `luahook answers "decision":"deny"`},
	} {
		t.Run(string(c.name)+" "+c.release, func(t *testing.T) {
			v, has := ParseVersion(c.release)
			ways, gaps, notes := OutputFirewall(c.name, v, has)
			got := map[string]string{}
			for _, w := range ways {
				got[w.Tools] = w.Replaced
				if w.Mode == "" {
					t.Errorf("%s: no mode", w.Tools)
				}
			}
			if len(got) != len(c.want) || len(ways) != len(c.want) {
				t.Errorf("ways %+v, want %v", ways, c.want)
			}
			for tools, want := range c.want {
				if got[tools] != want {
					t.Errorf("%s tools: replaced %q, want %q (ways %+v)", tools, got[tools], want, ways)
				}
			}
			if (c.gap == "") != (len(gaps) == 0) || len(gaps) > 1 || (c.gap != "" && !strings.Contains(gaps[0], c.gap)) {
				t.Errorf("gaps %q, want one holding %q", gaps, c.gap)
			}
			if (c.note == "") != (len(notes) == 0) || len(notes) > 1 || (c.note != "" && !strings.Contains(notes[0], c.note)) {
				t.Errorf("notes %q, want one holding %q", notes, c.note)
			}
		})
	}
}

// Every agent's output firewall rests on its adapter's own table: the
// fields the doctor names are the ones the adapter writes.
func TestOutputFirewallNamesTheAdaptersFields(t *testing.T) {
	for _, name := range agent.Names() {
		d, ok := agent.OutputSupport(name)
		if !ok {
			t.Fatalf("%s: no output support in package agent", name)
		}
		ways, _, _ := OutputFirewall(name, Version{9, 9, 9}, true)
		var fields []string
		for _, w := range ways {
			fields = append(fields, w.Fields)
		}
		if !slices.Contains(fields, d.Fields) {
			t.Errorf("%s: ways %+v name none of the adapter's fields %q", name, ways, d.Fields)
		}
	}
}

// install wires every agent on its own PostToolUse event, the one where
// luahook's hooks see a tool's output and can rewrite it: the event is
// among those written, Check finds luahook's entry there, and the agent's
// adapter reads the agent's own payload of that event as luahook's
// PostToolUse.
func TestEveryAgentIsWiredOnItsPostToolUseEvent(t *testing.T) {
	for _, name := range agent.Names() {
		t.Run(string(name), func(t *testing.T) {
			tg := targets[name]
			if tg.postToolUse == "" || !slices.Contains(tg.events, tg.postToolUse) {
				t.Fatalf("install writes %q, not the agent's PostToolUse event %q", tg.events, tg.postToolUse)
			}
			o := projectOptions(t, name)
			ch, err := Plan(o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ch.Write(); err != nil {
				t.Fatal(err)
			}
			rs := Check(context.Background(), CheckOptions{Agents: []agent.Name{name}, ProjectDir: o.ProjectDir, NoVersion: true})
			if len(rs) != 1 || !rs[0].PostToolUse || len(rs[0].Files) != 1 || !slices.Contains(rs[0].Files[0].Events, tg.postToolUse) {
				t.Fatalf("reports %+v: want luahook wired on %s", rs, tg.postToolUse)
			}
			if len(rs[0].Output) == 0 {
				t.Errorf("a wired agent's report has no output firewall")
			}
			for _, st := range rs[0].Steps {
				if strings.Contains(st, tg.postToolUse) {
					t.Errorf("step %q for a wiring that has %s", st, tg.postToolUse)
				}
			}
			native, err := os.ReadFile(filepath.Join("..", "..", "agent", "testdata", string(name), tg.postToolUse+".native.json"))
			if err != nil {
				t.Fatal(err)
			}
			a, err := agent.Lookup(string(name))
			if err != nil {
				t.Fatal(err)
			}
			req, err := a.Decode(native, tg.postToolUse)
			if err != nil {
				t.Fatal(err)
			}
			if req.Input == nil || req.Input.Event != luahook.PostToolUse {
				t.Errorf("the adapter reads %s as %+v, not PostToolUse", tg.postToolUse, req.Input)
			}
		})
	}
}

// A wired settings file without luahook on the agent's PostToolUse event
// lets no policy see a tool's output: the doctor gives the step of
// installing again, and says the agent is not wired there; that is no
// wiring that cannot block.
func TestCheckGivesAStepForAWiringWithoutPostToolUse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".cursor", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 1, "hooks": {"preToolUse": [{"command": "luahook fire --agent cursor --project"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := Check(context.Background(), CheckOptions{Agents: []agent.Name{agent.Cursor}, ProjectDir: dir, NoVersion: true})
	if len(rs) != 1 || !rs[0].Wired {
		t.Fatalf("reports %+v", rs)
	}
	r := rs[0]
	want := "run luahook install cursor again (project scope): " + path + " has no luahook entry on postToolUse, so no PostToolUse policy (redact, replace_output) sees Cursor's tool output"
	if r.PostToolUse || !slices.Contains(r.Steps, want) {
		t.Errorf("post_tool_use %v, steps %q; want the step %q", r.PostToolUse, r.Steps, want)
	}
	if len(r.CannotBlock) > 0 {
		t.Errorf("cannot block: %q", r.CannotBlock)
	}
}
