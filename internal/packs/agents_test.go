package packs_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/policytest"
)

// packNames returns the packs of this folder: every <name>.lua with a
// <name>_test.lua next to it.
func packNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.lua")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(f, "_test.lua")
		if _, err := os.Stat(name + ".lua"); err == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no packs with tests found")
	}
	return names
}

// hooksFolder returns a hooks folder holding the shipped lib modules and
// the given files, as `luahook add` would install a pack.
func hooksFolder(t testing.TB, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	lib, err := fs.Sub(hooksd.FS, "lib")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "lib"), lib); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runWithSetting runs cases (a *_test.lua source) against pack with one
// line of its SETTINGS changed, from was to to, in a hooks folder of its
// own, as a user who changed that setting would, and returns the summary
// and the report. It fails t unless pack.lua holds was exactly once.
func runWithSetting(t *testing.T, pack, was, to, cases string) (policytest.Summary, string) {
	t.Helper()
	src, err := os.ReadFile(pack + ".lua")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), was); n != 1 {
		t.Fatalf("%s.lua holds %q %d times, want once", pack, was, n)
	}
	dir := hooksFolder(t)
	if err := os.WriteFile(filepath.Join(dir, pack+".lua"), []byte(strings.Replace(string(src), was, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pack+"_test.lua"), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{dir}, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out.String()
}

// allAgents are the five agents whose native payloads the suites run
// through.
var allAgents = []string{"claude", "codex", "copilot", "cursor", "gemini"}

// agentsFor returns the agents the k-th pack's suite runs through: all
// five, or, under the race detector (which a policy suite gives little to
// find, at ten times the cost, and which every suite already runs under in
// TestEveryPackPassesItsOwnTestsAlone), one agent for each pack at an
// even place, in turn, until each of the five has carried one suite;
// .ci/run runs this test again without -race, every suite through all
// five.
func agentsFor(k int) []string {
	if raceEnabled {
		if k%2 == 1 || k/2 >= len(allAgents) {
			return nil
		}
		return allAgents[k/2 : k/2+1]
	}
	return allAgents
}

// cursorMCP is what the runner says of a case that fires an MCP tool named
// with its server through Cursor, which names MCP tools MCP:tool: the one
// kind of payload of the packs' suites that an agent cannot send.
const cursorMCP = "cursor names an MCP tool MCP:<tool>, without its server"

// TestPackSuitesPassThroughEveryAgentsNativePayload runs each pack's test
// suite unchanged as each of the five agents sends it (their event and
// tool names, decoded by their adapters), so that a pack that matched one
// agent's tool name, or read a field one adapter does not fill, fails here.
// The only cases allowed to fail are those Cursor cannot send (an MCP tool
// named with its server), and the runner must say so of each and count it
// apart. (In luahook's own payload the suites run in
// TestEveryPackPassesItsOwnTestsAlone.)
func TestPackSuitesPassThroughEveryAgentsNativePayload(t *testing.T) {
	carried := map[string]bool{}
	for k, name := range packNames(t) {
		dir := hooksFolder(t, name+".lua", name+"_test.lua")
		for _, agent := range agentsFor(k) {
			carried[agent] = true
			t.Run(name+"/"+agent, func(t *testing.T) {
				var out bytes.Buffer
				sum, err := policytest.Run(context.Background(), policytest.Options{
					Paths: []string{dir},
					Agent: agent,
					Out:   &out,
				})
				if err != nil {
					t.Fatalf("%v\n%s", err, out.String())
				}
				checkThroughAgent(t, name, agent, sum, out.String())
			})
		}
	}
	if len(carried) != len(allAgents) {
		t.Errorf("the suites ran through %d agents, want all %d", len(carried), len(allAgents))
	}
}

// checkThroughAgent fails t unless every case of a suite run through agent
// passed, but those Cursor cannot send, each said to be so; at least 25
// cases must have run or been said unsendable, and some must have passed.
func checkThroughAgent(t *testing.T, suite, agent string, sum policytest.Summary, out string) {
	t.Helper()
	if agent != "cursor" && sum.Unsent != 0 {
		t.Errorf("%s under %s: %v, want no payload %s cannot send:\n%s", suite, agent, sum, agent, out)
	}
	if sum.Failed != sum.Unsent || strings.Count(out, cursorMCP) != sum.Unsent {
		t.Errorf("%s under %s: %v (%d cases saying %q), want every case to pass but those the agent cannot send, "+
			"each saying so:\n%s", suite, agent, sum, strings.Count(out, cursorMCP), cursorMCP, out)
	}
	if sum.Passed == 0 || sum.Passed+sum.Unsent < 25 {
		t.Errorf("%s under %s: %v, want at least 25 cases", suite, agent, sum)
	}
	if sum.Unsent > 0 {
		t.Logf("%s under %s: %v", suite, agent, sum)
	}
}
