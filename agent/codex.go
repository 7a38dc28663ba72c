package agent

import (
	"encoding/json"
	"strings"

	"github.com/luahook/luahook"
)

// codexAdapter speaks Codex's protocol: Claude Code's payload and output
// shapes, but Codex marks a hook failed (and runs the tool) on any output
// field it does not accept for the event, so only the accepted ones are
// written: no ask, and a rewrite needs an explicit allow.
type codexAdapter struct{}

func (codexAdapter) Name() Name { return Codex }

func (codexAdapter) Decode(data []byte, event string) (*Request, error) {
	return decodeClaude(Codex, data, event, claudeEvents)
}

func (codexAdapter) Encode(req *Request, d Decision) Answer {
	d = normalize(d)
	if d.Input != nil && req.Input != nil && req.Input.Event == luahook.PreToolUse && d.Verdict != Deny && !codexCanRewrite(req.Input.ToolName, d.Input) {
		// Codex would fail the hook and run the original call.
		d = Decision{Verdict: Deny, Reason: "luahook: Codex applies a rewritten " + req.Input.ToolName +
			" call only when it has a string \"command\"; the policy's rewrite has none"}
	}
	return encodeClaude(claudeFlavor{}, req, d)
}

func (codexAdapter) Block(event, reason string) Answer { return blockClaude(event, reason) }

// codexCanRewrite reports whether Codex accepts input as the rewritten
// input of tool: Bash and apply_patch need a string "command".
func codexCanRewrite(tool string, input json.RawMessage) bool {
	if !strings.EqualFold(tool, "Bash") && !strings.EqualFold(tool, "apply_patch") {
		return true
	}
	n, err := parseNative(input)
	if err != nil {
		return false
	}
	v := n.get("command")
	return v != nil && v[0] == '"'
}
