package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/luahook/luahook"
)

// codexAdapter speaks Codex's protocol: Claude Code's payload and output
// shapes, but Codex marks a hook failed (and runs the tool) on any output
// field it does not accept for the event, so only the accepted ones are
// written: no ask, no allow without updatedInput, and a rewrite only with
// an allow, which approves the call.
type codexAdapter struct{}

func (codexAdapter) Name() Name { return Codex }

func (codexAdapter) Decode(data []byte, event string) (*Request, error) {
	req, err := decodeClaude(Codex, data, event, claudeEvents)
	if err == nil && req.Input != nil && patchesThroughShell(req.Input) {
		req.Input.ToolCapabilities = shellPatchCapabilities
	}
	return req, err
}

// shellPatchCapabilities are those of a shell call that edits files with
// apply_patch.
var shellPatchCapabilities = []string{CapShell, CapFSWrite}

// patchesThroughShell reports whether in is a shell call whose input names
// apply_patch (or applypatch): Codex applies a patch given to its shell
// (apply_patch <<'EOF' ... EOF, or inside bash -lc) itself, as a file
// edit, but its hooks see a Bash call (seen in 0.171.0). Such a call is
// also an fs.write, so that a policy on file writes sees it; one that
// only names apply_patch is looked at by those policies too, which can
// only deny more.
func patchesThroughShell(in *luahook.Input) bool {
	if !hasCapability(in.ToolCapabilities, CapShell) || hasCapability(in.ToolCapabilities, CapFSWrite) {
		return false
	}
	return bytes.Contains(in.ToolInput, []byte("apply_patch")) || bytes.Contains(in.ToolInput, []byte("applypatch"))
}

func (codexAdapter) Encode(req *Request, d Decision) Answer {
	d = normalize(d)
	if req.Input != nil && req.Input.Event == luahook.PreToolUse {
		d = codexPreToolUse(req, d)
	}
	if req.Input != nil && req.Input.Event == luahook.PostToolUse && d.Output != nil {
		if _, known := claudeEvents[req.Event]; known {
			return codexPostToolUse(req, d)
		}
	}
	return encodeClaude(claudeFlavor{}, req, d)
}

// codexPostToolUse answers a rewritten output (d.Output) the one way every
// Codex release with PostToolUse hooks takes: "decision":"block", whose
// reason replaces the tool's result for the model; the reason is the
// rewritten output (cut to what fits, saying so), then what was taken out
// and not to bring back. updatedToolOutput and updatedMCPToolOutput are
// never written: Codex fails a hook on a field it does not accept, and
// keeps the original output, and no release is known to accept them
// (0.142.5 rejects updatedToolOutput). The hooks' context goes with it, as
// additionalContext. A failed tool's output (Codex dispatches no
// PostToolUseFailure) cannot be replaced: it gets the context alone.
func codexPostToolUse(req *Request, d Decision) Answer {
	if claudeEvents[req.Event].failure {
		d.Context, d.Output = outputContext(&d), nil
		return encodeClaude(claudeFlavor{}, req, d)
	}
	out := claudeOutput{Decision: "block", Reason: outputReason(d.Output)}
	if d.Context != "" {
		out.HookSpecificOutput = &claudeHSO{HookEventName: req.Event, AdditionalContext: d.Context}
	}
	return answer(out)
}

func (codexAdapter) Block(event, reason string) Answer { return blockClaude(event, reason) }

// codexPreToolUse is d as Codex can take it on PreToolUse without
// approving more than d did. Codex approves a call (and skips its own
// approval prompt) on "allow", which it accepts only with updatedInput, and
// applies updatedInput only with "allow"; it has no ask. So:
//
//   - a rewrite no hook allowed is a block whose reason gives the rewritten
//     call, for the model to make instead (it then meets the hooks and
//     Codex's own approval again);
//   - a rewrite with an ask is a block with the ask's reason and the
//     rewritten call; an ask alone, a block with its reason;
//   - an explicit allow without a rewrite is "allow" with the call's own
//     input as updatedInput (what Codex needs for an approval), or, when
//     Codex would not take that input back, no objection;
//   - a rewritten Bash or apply_patch call without a string "command" is
//     denied (Codex would fail the hook and run the original call).
//
// The rewrite's reason reaches Codex only in a block's reason: it reads
// permissionDecisionReason only with "deny".
func codexPreToolUse(req *Request, d Decision) Decision {
	in := req.Input
	if d.Input != nil && d.Verdict != Deny && !codexCanRewrite(in.ToolName, d.Input) {
		return Decision{Verdict: Deny, Context: d.Context, Reason: "luahook: Codex applies a rewritten " + in.ToolName +
			" call only when it has a string \"command\"; the policy's rewrite has none"}
	}
	switch {
	case d.Input != nil && d.Verdict == Ask:
		return Decision{Verdict: Deny, Context: d.Context,
			Reason: rewriteBlock(req, d, d.reason(), "Codex cannot ask the user, so this call is blocked", false)}
	case d.Input != nil && d.Verdict == NoObjection:
		return Decision{Verdict: Deny, Context: d.Context,
			Reason: rewriteBlock(req, d, "", "Codex applies a rewrite only by approving the call, which no policy did, so this call is blocked", true)}
	case d.Input == nil && d.Verdict == Allow:
		if in.ToolInput != nil && codexCanRewrite(in.ToolName, in.ToolInput) {
			d.Input = in.ToolInput
		} else {
			d.Verdict = NoObjection
		}
	}
	d.RewriteReason = ""
	return d
}

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
	defer n.release()
	v := n.get("command")
	return v != nil && v[0] == '"'
}
