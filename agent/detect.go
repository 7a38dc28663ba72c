package agent

// geminiOnly are Gemini CLI's event names that no other agent uses.
var geminiOnly = map[string]bool{
	"BeforeTool": true, "AfterTool": true, "BeforeAgent": true, "AfterAgent": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true, "PreCompress": true,
}

// Detect names the agent whose payload data is, from its top-level keys,
// for `--agent auto`; ok is false for luahook's own format (a payload with
// "event", or with none of the agents' keys) and for anything that is not
// a JSON object. The rules, in order:
//
//   - "event": luahook's own format, not an agent.
//   - "hook_event_name" spelled camelCase (preToolUse): Cursor.
//   - "hook_event_name" naming a Gemini-only event (BeforeTool, AfterAgent...): Gemini CLI.
//   - "turn_id" (Codex sends it on turn events): Codex.
//   - "timestamp": Copilot's PascalCase dialect. Gemini CLI also sends it,
//     and on SessionStart and SessionEnd the two cannot be told apart:
//     auto picks Copilot (Gemini CLI is retired); name the agent to be exact.
//   - any other "hook_event_name": Claude Code. Codex's payloads without
//     turn_id (SessionStart) are Claude Code's too; both read the same
//     answer there.
//   - "toolArgs" or "timestamp" without "hook_event_name": Copilot's
//     camelCase dialect (its payload does not name the event: the caller
//     must).
//
// The answer is only as good as the payload: `luahook install` writes the
// agent's name into the hook command, so auto is for trying things out.
func Detect(data []byte) (Adapter, bool) {
	n, err := parseNative(data)
	if err != nil {
		return nil, false
	}
	defer n.release()
	if n.get("event") != nil {
		return nil, false
	}
	name, err := n.str("hook_event_name")
	switch {
	case err != nil:
		return nil, false
	case name != "":
		switch {
		case 'a' <= name[0] && name[0] <= 'z':
			return cursorAdapter{}, true
		case geminiOnly[name]:
			return geminiAdapter{}, true
		case n.get("turn_id") != nil:
			return codexAdapter{}, true
		case n.get("timestamp") != nil:
			return copilotAdapter{}, true
		}
		return claudeAdapter{}, true
	case n.get("toolArgs") != nil || n.get("timestamp") != nil:
		return copilotAdapter{}, true
	}
	return nil, false
}
