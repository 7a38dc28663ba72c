package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/luahook/luahook/engine"
)

// kind is what a door decided, apart from the reason and the rewrite.
type kind string

const (
	kindNone   kind = "none"   // no objection: the agent's own rules and prompts apply
	kindAllow  kind = "allow"  // an explicit approval (hook.allow())
	kindAsk    kind = "ask"    // the user decides
	kindDeny   kind = "deny"   // refused, or blocked because luahook could not decide
	kindMutate kind = "mutate" // go ahead with the rewritten input
	kindOutput kind = "output" // the model reads a rewritten tool output (PostToolUse)
	// kindError is no verdict at all: the door refused to answer (a
	// command that exits 1, an HTTP status other than 200 without a denial
	// in its body, a Go host's error, a server that did not start). It is
	// kept apart from the five verdicts so that the table shows it as it
	// is; no fixture expects it.
	kindError kind = "error"
)

// verdict is a door's answer, normalised.
type verdict struct {
	kind kind
	// reason is the reason given with a deny or an ask (and, for an
	// error, what the door said instead of a verdict).
	reason string
	// input is the rewritten tool input as canonical JSON (keys sorted):
	// set on mutate, and on ask when the user is asked about a rewrite.
	input string
	// output is the text the model reads in place of the tool's output
	// (modelText): set on output. Its reason is what the model is told
	// about it (what was taken out).
	output string
}

// sameAs reports whether v and w are the same decision: the same kind,
// the same rewritten input and the same output for the model to read.
// Reasons are worded by each door (a command hook's standard error, a
// JSON field, a reason cut to its limit) and are held to the fixture's
// substring instead.
func (v verdict) sameAs(w verdict) bool {
	return v.kind == w.kind && v.input == w.input && v.output == w.output
}

func (v verdict) String() string {
	s := string(v.kind)
	if v.input != "" {
		s += " " + v.input
	}
	if v.kind == kindOutput {
		s += " " + strconv.Quote(clip(v.output, 90))
	}
	if v.reason != "" {
		s += " " + strconv.Quote(clip(v.reason, 90))
	}
	return s
}

// answer is what one door said, as it said it.
type answer struct {
	exit    int    // the process's exit status; -1 when the door is not a process
	status  int    // the HTTP status; 0 when the door is not HTTP
	exitHdr string // POST /agent/claude: the Luahook-Exit-Code header
	stdout  string // standard output, or the HTTP body, or (Go host) the result as JSON
	stderr  string // standard error
	// failed is why the door gave no answer at all: it could not be run or
	// reached, or (Go host) the error it returned.
	failed string
	// result is the Go host's result (door 5), nil elsewhere.
	result *engine.Result
}

// String is the answer on one line, cut to a readable length.
func (a answer) String() string {
	var parts []string
	if a.failed != "" {
		parts = append(parts, "no answer: "+clip(a.failed, 300))
	}
	if a.exit >= 0 {
		parts = append(parts, fmt.Sprintf("exit %d", a.exit))
	}
	if a.status != 0 {
		s := fmt.Sprintf("HTTP %d", a.status)
		if a.exitHdr != "" {
			s += ", Luahook-Exit-Code " + a.exitHdr
		}
		parts = append(parts, s)
	}
	if a.stdout != "" {
		label := "out "
		if a.result != nil {
			label = "result "
		}
		parts = append(parts, label+clip(strings.TrimSpace(a.stdout), 300))
	}
	if a.stderr != "" {
		parts = append(parts, "err "+strconv.Quote(clip(strings.TrimSpace(a.stderr), 200)))
	}
	if len(parts) == 0 {
		return "(nothing)"
	}
	return strings.Join(parts, "; ")
}

// clip cuts s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// canonical returns raw as compact JSON with sorted keys, "" for none, and
// raw itself, marked, when it is not JSON.
func canonical(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "(not JSON) " + string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// modelText is the text a model reads of a tool's output given as the
// JSON value raw, whichever door gave it:
//
//	a string                                         -> the string
//	a shell's result (an object with a string stdout) -> stdout, then stderr on a line
//	                                                    of its own when there is one
//	MCP content blocks ([{type, text}...], or an
//	object with such a "content")                    -> the text blocks' texts, one a line
//	anything else                                    -> the value as canonical JSON
//
// so that luahook's own output text, Claude Code's Bash result with the
// same text as its stdout, and the same text in an MCP text block read
// the same.
func modelText(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return canonical(raw)
	}
	blocks := func(list []any) (string, bool) {
		var texts []string
		for _, b := range list {
			m, ok := b.(map[string]any)
			if !ok {
				return "", false
			}
			if _, ok := m["type"].(string); !ok {
				return "", false
			}
			if t, ok := m["text"].(string); ok && m["type"] == "text" {
				texts = append(texts, t)
			}
		}
		return strings.Join(texts, "\n"), len(list) > 0
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if s, ok := blocks(x); ok {
			return s
		}
	case map[string]any:
		if out, ok := x["stdout"].(string); ok {
			if e, _ := x["stderr"].(string); e != "" {
				out += "\n" + e
			}
			return out
		}
		if c, ok := x["content"].([]any); ok {
			if s, ok := blocks(c); ok {
				return s
			}
		}
	}
	return canonical(raw)
}

// outcomeVerdict reads luahook's outcome JSON ({"action":…,"reason":…,
// "input":…,"output":…}), as plain fire prints it and POST / answers it:
//
//	"deny"            -> deny, with reason
//	"ask"             -> ask, with reason (and input when the user is asked about a rewrite)
//	"mutate"          -> mutate, with input
//	"allow"           -> allow (today also no objection: the JSON cannot tell them apart)
//	"replace_output"  -> output, the modelText of output, with reason (what was taken out);
//	                     error when output is missing
//	no action ({})    -> none (context alone changes nothing)
//	anything else     -> error
//
// ok is false when body is not one JSON object.
func outcomeVerdict(body string) (v verdict, ok bool) {
	var o struct {
		Action string          `json:"action"`
		Reason string          `json:"reason"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		return verdict{}, false
	}
	switch o.Action {
	case "deny":
		return verdict{kind: kindDeny, reason: o.Reason}, true
	case "ask":
		return verdict{kind: kindAsk, reason: o.Reason, input: canonical(o.Input)}, true
	case "mutate":
		return verdict{kind: kindMutate, input: canonical(o.Input)}, true
	case "allow":
		return verdict{kind: kindAllow}, true
	case "replace_output":
		if canonical(o.Output) == "" {
			return verdict{kind: kindError, reason: "replace_output without an output"}, true
		}
		return verdict{kind: kindOutput, reason: o.Reason, output: modelText(o.Output)}, true
	case "":
		return verdict{kind: kindNone}, true
	}
	return verdict{kind: kindError, reason: "unknown action " + strconv.Quote(o.Action)}, true
}

// normalisePlainFire reads door 1, luahook fire with luahook's payload:
//
//	no answer (not run)                    -> error
//	exit 2                                 -> deny: the command-hook block, whatever the
//	                                          JSON says; reason from the JSON, else stderr
//	exit 0 and an outcome on stdout        -> the outcome (outcomeVerdict)
//	exit 0 and no outcome / any other exit -> error, stderr as its reason
func normalisePlainFire(a answer) verdict {
	if a.failed != "" {
		return verdict{kind: kindError, reason: a.failed}
	}
	v, ok := outcomeVerdict(a.stdout)
	switch {
	case a.exit == 2:
		reason := strings.TrimSpace(a.stderr)
		if ok && v.kind == kindDeny && v.reason != "" {
			reason = v.reason
		}
		return verdict{kind: kindDeny, reason: reason}
	case a.exit == 0 && ok:
		return v
	}
	return verdict{kind: kindError, reason: strings.TrimSpace(a.stderr)}
}

// normalisePlainHTTP reads door 3a, POST / with luahook's payload:
//
//	no answer (not reached)                 -> error
//	200 and an outcome                      -> the outcome (outcomeVerdict)
//	any other status with "action":"deny"   -> deny (serve's overload refusals)
//	any other status                        -> error, the body's "error" as its reason
func normalisePlainHTTP(a answer) verdict {
	if a.failed != "" {
		return verdict{kind: kindError, reason: a.failed}
	}
	v, ok := outcomeVerdict(a.stdout)
	if a.status == 200 && ok {
		return v
	}
	if ok && v.kind == kindDeny {
		return v
	}
	var e struct {
		Error string `json:"error"`
	}
	reason := strings.TrimSpace(a.stdout)
	if json.Unmarshal([]byte(a.stdout), &e) == nil && e.Error != "" {
		reason = e.Error
	}
	return verdict{kind: kindError, reason: fmt.Sprintf("HTTP %d: %s", a.status, reason)}
}

// rewroteReason is the reason Claude's answer carries when luahook turns a
// bare rewrite into "ask" (agent/claude.go): a rewrite reaches Claude Code
// only with a permission decision, and ask shows it to the user.
const rewroteReason = "luahook rewrote this call"

// claudeVerdict reads Claude Code's hook JSON on PreToolUse and
// PostToolUse (and the top-level refusal of the other events):
//
//	"" (nothing written)                          -> none
//	{"decision":"block"}                          -> deny, with reason
//	hookSpecificOutput.updatedToolOutput or
//	  updatedMCPToolOutput (PostToolUse)          -> output, the modelText of the one
//	                                                 given, with additionalContext as
//	                                                 its reason; error when both are
//	                                                 given, or with a permissionDecision
//	hookSpecificOutput.permissionDecision:
//	  "deny"                                      -> deny, with permissionDecisionReason
//	  "ask" with updatedInput and rewroteReason   -> mutate, with updatedInput
//	  "ask"                                       -> ask, with reason (and updatedInput)
//	  "allow" with updatedInput                   -> mutate, with updatedInput
//	  "allow"                                     -> allow
//	  none ({} or context alone)                  -> none
//	anything else                                 -> error
//
// ok is false when out is neither empty nor one JSON object.
func claudeVerdict(out string) (v verdict, ok bool) {
	if strings.TrimSpace(out) == "" {
		return verdict{kind: kindNone}, true
	}
	var c struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		HSO      *struct {
			PermissionDecision       string          `json:"permissionDecision"`
			PermissionDecisionReason string          `json:"permissionDecisionReason"`
			UpdatedInput             json.RawMessage `json:"updatedInput"`
			UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
			UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
			AdditionalContext        string          `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		return verdict{}, false
	}
	if c.Decision == "block" {
		return verdict{kind: kindDeny, reason: c.Reason}, true
	}
	if c.Decision != "" {
		return verdict{kind: kindError, reason: "unknown decision " + strconv.Quote(c.Decision)}, true
	}
	if c.HSO == nil {
		return verdict{kind: kindNone}, true
	}
	if tool, mcp := canonical(c.HSO.UpdatedToolOutput), canonical(c.HSO.UpdatedMCPToolOutput); tool != "" || mcp != "" {
		switch {
		case tool != "" && mcp != "":
			return verdict{kind: kindError, reason: "both updatedToolOutput and updatedMCPToolOutput"}, true
		case c.HSO.PermissionDecision != "":
			return verdict{kind: kindError, reason: "an output rewrite with permissionDecision " + strconv.Quote(c.HSO.PermissionDecision)}, true
		case tool != "":
			return verdict{kind: kindOutput, reason: c.HSO.AdditionalContext, output: modelText(c.HSO.UpdatedToolOutput)}, true
		}
		return verdict{kind: kindOutput, reason: c.HSO.AdditionalContext, output: modelText(c.HSO.UpdatedMCPToolOutput)}, true
	}
	in := canonical(c.HSO.UpdatedInput)
	switch c.HSO.PermissionDecision {
	case "deny":
		return verdict{kind: kindDeny, reason: c.HSO.PermissionDecisionReason}, true
	case "ask":
		if in != "" && c.HSO.PermissionDecisionReason == rewroteReason {
			return verdict{kind: kindMutate, input: in}, true
		}
		return verdict{kind: kindAsk, reason: c.HSO.PermissionDecisionReason, input: in}, true
	case "allow":
		if in != "" {
			return verdict{kind: kindMutate, input: in}, true
		}
		return verdict{kind: kindAllow}, true
	case "":
		return verdict{kind: kindNone}, true
	}
	return verdict{kind: kindError, reason: "unknown permissionDecision " + strconv.Quote(c.HSO.PermissionDecision)}, true
}

// normaliseClaudeCommand reads doors 2 and 4, a Claude Code command hook
// (luahook fire --agent claude, luahook-fire --agent claude --socket), as
// Claude Code reads it:
//
//	no answer (not run)            -> error
//	exit 2                         -> deny, stderr as the reason (Claude feeds it to the
//	                                  model and ignores stdout)
//	exit 0                         -> stdout read by claudeVerdict
//	exit 0 and stdout not JSON     -> error (Claude would show it and proceed)
//	any other exit                 -> error (Claude proceeds on it)
func normaliseClaudeCommand(a answer) verdict {
	if a.failed != "" {
		return verdict{kind: kindError, reason: a.failed}
	}
	switch a.exit {
	case 2:
		return verdict{kind: kindDeny, reason: strings.TrimSpace(a.stderr)}
	case 0:
		if v, ok := claudeVerdict(a.stdout); ok {
			return v
		}
		return verdict{kind: kindError, reason: "stdout is not JSON: " + clip(a.stdout, 200)}
	}
	return verdict{kind: kindError, reason: fmt.Sprintf("exit %d: %s", a.exit, strings.TrimSpace(a.stderr))}
}

// normaliseClaudeHTTP reads door 3b, POST /agent/claude, as Claude Code
// reads an HTTP hook's answer (the body), and as luahook fire --agent
// claude --http relays it (the Luahook-Exit-Code header):
//
//	no answer (not reached)                 -> error
//	a status other than 200                 -> error (Claude proceeds on it)
//	Luahook-Exit-Code 2                     -> deny, the body's reason
//	body "{}" (no objection)                -> none
//	any other body                          -> claudeVerdict
func normaliseClaudeHTTP(a answer) verdict {
	if a.failed != "" {
		return verdict{kind: kindError, reason: a.failed}
	}
	if a.status != 200 {
		return verdict{kind: kindError, reason: fmt.Sprintf("HTTP %d: %s", a.status, clip(strings.TrimSpace(a.stdout), 200))}
	}
	v, ok := claudeVerdict(a.stdout)
	if !ok {
		return verdict{kind: kindError, reason: "body is not JSON: " + clip(a.stdout, 200)}
	}
	if a.exitHdr == "2" && v.kind != kindDeny {
		return verdict{kind: kindDeny, reason: v.reason}
	}
	return v
}

// normaliseGoHost reads door 5, a Go host's result (engine.Result):
//
//	an error (payload not decoded, engine not opened) -> error
//	Denied                                            -> deny, with Reason
//	Asked                                             -> ask, with Reason (and Input)
//	Output set                                        -> output: the modelText of
//	                                                     Output.Value when a hook gave a
//	                                                     value, else Output.Content; with
//	                                                     Output.Summary() as its reason
//	Input set                                         -> mutate, with Input
//	Allowed                                           -> allow
//	otherwise                                         -> none
func normaliseGoHost(a answer) verdict {
	if a.failed != "" || a.result == nil {
		return verdict{kind: kindError, reason: a.failed}
	}
	r := a.result
	switch {
	case r.Denied():
		return verdict{kind: kindDeny, reason: r.Reason}
	case r.Asked():
		return verdict{kind: kindAsk, reason: r.Reason, input: canonical(r.Input)}
	case r.Output != nil:
		text := r.Output.Content
		if r.Output.Value != nil {
			text = modelText(r.Output.Value)
		}
		return verdict{kind: kindOutput, reason: r.Output.Summary(), output: text}
	case r.Input != nil:
		return verdict{kind: kindMutate, input: canonical(r.Input)}
	case r.Allowed():
		return verdict{kind: kindAllow}
	}
	return verdict{kind: kindNone}
}
