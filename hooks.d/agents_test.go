package hooksd_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook/policytest"
)

// hostOnlyCases are the shipped cases no agent can send: a host's own
// toolCapabilities on a tool whose name says otherwise, which only a
// payload in luahook's format carries.
var hostOnlyCases = []string{
	"20-protect-secrets_test.lua a host's capabilities make an unknown tool a shell",
	"20-protect-secrets_test.lua a host's capabilities without shell make a shell-named tool none",
}

// TestShippedSuitesPassThroughEveryAgentsNativePayload runs the shipped
// hooks.d's test suites in luahook's own payload, where every case must
// pass, and unchanged as each of the five agents sends its payloads (their
// event and tool names, decoded by their adapters), so that a shipped hook
// that matched one agent's tool name, or read a field one adapter does not
// fill, fails here. Through an agent the only cases allowed to fail are
// hostOnlyCases, which the runner must report as payloads the agent cannot
// send, each saying why.
func TestShippedSuitesPassThroughEveryAgentsNativePayload(t *testing.T) {
	for _, agent := range suiteAgents() {
		name := agent
		if name == "" {
			name = "luahook"
		}
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			sum, err := policytest.Run(context.Background(), policytest.Options{
				Paths: []string{"."},
				Agent: agent,
				Out:   &out,
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			var failed []string
			for _, line := range strings.Split(out.String(), "\n") {
				if c, ok := strings.CutPrefix(line, "FAIL "); ok {
					failed = append(failed, c)
				}
			}
			if agent == "" {
				if sum.Failed != 0 || sum.Passed < 100 {
					t.Errorf("hooks.d: %v, want every shipped case to pass (and over 100 of them):\n%s", sum, out.String())
				}
			} else if !slices.Equal(failed, hostOnlyCases) || sum.Failed != len(hostOnlyCases) || sum.Unsent != sum.Failed ||
				strings.Count(out.String(), "toolCapabilities are") != sum.Unsent || sum.Passed < 100 {
				t.Errorf("hooks.d under %s: %v, failed %q; want every case to pass (and over 100 of them) but %q, "+
					"each said to be a payload %s cannot send:\n%s", agent, sum, failed, hostOnlyCases, agent, out.String())
			}
			for _, f := range []string{"10-dangerous-commands", "20-protect-secrets", "30-prefer-pnpm",
				"40-session-context", "50-rate-limit", "60-prompt-secrets", "lib-shell"} {
				if !strings.Contains(out.String(), "ok   "+f+"_test.lua ") {
					t.Errorf("under %s, no passing case from %s_test.lua:\n%s", agent, f, out.String())
				}
			}
		})
	}
}

// suiteAgents are the payload formats the suites run in: luahook's own
// ("") and all five agents', or, under the race detector (which a policy
// suite gives little to find, at ten times the cost), luahook's own only
// (the packs' suites carry each agent's adapter under -race:
// internal/packs agentsFor); .ci/run runs this test again without -race,
// in all six.
func suiteAgents() []string {
	if raceEnabled {
		return []string{""}
	}
	return []string{"", "claude", "codex", "copilot", "cursor", "gemini"}
}
