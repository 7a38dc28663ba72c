package luahook

import "encoding/json"

// ToolResult is what a tool returned, as PostToolUse hooks see it.
type ToolResult struct {
	Content string `json:"content"`
	IsError bool   `json:"isError"`
	// Cut is how many bytes of the tool's output were withheld before any
	// hook saw it, for being past MaxScanBytes (content then ends with
	// CutMarker); the output the model reads is then the cut one.
	Cut int64 `json:"cut,omitempty"`
}

// Compaction describes a context compaction (PreCompact, PostCompact).
type Compaction struct {
	Trigger      string `json:"trigger"` // auto | manual | overflow | tool
	Aggressive   bool   `json:"aggressive"`
	TokensBefore *int   `json:"tokensBefore,omitempty"`
	TokensAfter  *int   `json:"tokensAfter,omitempty"`
}

// Subagent describes a delegated sub-agent (SubagentStart, SubagentStop).
type Subagent struct {
	Target       string `json:"target"`
	Task         string `json:"task"`
	SubagentID   string `json:"subagentId,omitempty"`
	DelegationID string `json:"delegationId,omitempty"`
	Mode         string `json:"mode,omitempty"` // background | wait
	OK           *bool  `json:"ok,omitempty"`
	Status       string `json:"status,omitempty"`
	Summary      string `json:"summary,omitempty"`
	DurationMs   *int64 `json:"durationMs,omitempty"`
}

// NotificationInfo describes a request for the user's attention (Notification).
type NotificationInfo struct {
	Kind     string `json:"kind"` // permission | input
	Message  string `json:"message"`
	ToolName string `json:"toolName,omitempty"`
}

// Input is the payload every hook sees, whatever its transport: one flat JSON
// object with the contract's camelCase field names. ToolInput is kept as raw
// JSON so that it reaches Lua, subprocesses and HTTP endpoints without a detour
// through generic Go maps, and round-trips byte for byte.
type Input struct {
	Event            Event             `json:"event"`
	ToolName         string            `json:"toolName,omitempty"`
	ToolInput        json.RawMessage   `json:"toolInput,omitempty"`
	ToolCapabilities []string          `json:"toolCapabilities,omitzero"`
	ToolMutating     *bool             `json:"toolMutating,omitempty"`
	ToolResult       *ToolResult       `json:"toolResult,omitempty"`
	Prompt           string            `json:"prompt,omitempty"`
	Compaction       *Compaction       `json:"compaction,omitempty"`
	Subagent         *Subagent         `json:"subagent,omitempty"`
	Notification     *NotificationInfo `json:"notification,omitempty"`
	Cwd              string            `json:"cwd"`
	SessionID        string            `json:"sessionId,omitempty"`
	// Agent names the coding agent that sent the payload ("claude",
	// "codex", ...), empty for luahook's own format.
	Agent string `json:"agent,omitempty"`
	// Native is the agent's payload as it sent it, a JSON object, for what
	// the contract does not carry; nil for luahook's own format. It counts
	// towards the payload's caps (max_input_bytes, max_input_values) like
	// toolInput.
	Native json.RawMessage `json:"native,omitempty"`
	// Client names the client that asked luahook serve, as serve
	// authenticated it (a token's name, a client certificate's name),
	// so that policies can keep budgets per client; serve sets it,
	// whatever the payload said, and leaves it empty for a client it
	// knows no name of. Elsewhere it is what the payload says.
	Client string `json:"client,omitempty"`
}

// MatchKey returns what a matcher is compared with for this payload: the tool
// name for tool events, the sub-agent target, the notification kind or the
// compaction trigger for observational events, and "" (every hook matches)
// for UserPromptSubmit, SessionStart, Stop and SessionEnd.
func (in *Input) MatchKey() string {
	switch in.Event {
	case PreToolUse, PostToolUse:
		return in.ToolName
	case SubagentStart, SubagentStop:
		if in.Subagent != nil {
			return in.Subagent.Target
		}
	case Notification:
		if in.Notification != nil {
			return in.Notification.Kind
		}
	case PreCompact, PostCompact:
		if in.Compaction != nil {
			return in.Compaction.Trigger
		}
	}
	return ""
}

// Fields calls yield with each member of the payload's JSON form, in the
// order and with the omissions of encoding/json, until yield returns false.
// A nested object is a FieldObject, its fields, then a FieldEnd. It is the
// one listing of the payload's fields and their limits, which the Lua
// conversion reads: a field added to Input is added here, with its limit,
// and to Size and withinLimits, which read the fields directly on the hot
// path (their tests fail until it is).
func (in *Input) Fields(yield func(Field) bool) {
	l := fieldList{visit: yield}
	l.id("event", string(in.Event), MaxIDBytes, true)
	l.optID("toolName", in.ToolName, MaxIDBytes, true)
	l.optJSON("toolInput", in.ToolInput)
	l.ids("toolCapabilities", in.ToolCapabilities, MaxCapabilities, MaxCapabilityBytes)
	l.optBool("toolMutating", in.ToolMutating)
	if r := in.ToolResult; r != nil {
		o := l.open("toolResult")
		o.text("content", r.Content)
		o.boolean("isError", r.IsError)
		var cut *int64
		if r.Cut != 0 {
			cut = &r.Cut
		}
		optInt(&o, "cut", cut)
		l.close(&o)
	} else {
		l.skip()
	}
	l.optText("prompt", in.Prompt)
	if c := in.Compaction; c != nil {
		o := l.open("compaction")
		o.id("trigger", c.Trigger, MaxIDBytes, false)
		o.boolean("aggressive", c.Aggressive)
		optInt(&o, "tokensBefore", c.TokensBefore)
		optInt(&o, "tokensAfter", c.TokensAfter)
		l.close(&o)
	} else {
		l.skip()
	}
	if s := in.Subagent; s != nil {
		o := l.open("subagent")
		o.id("target", s.Target, MaxIDBytes, false)
		o.text("task", s.Task)
		o.optID("subagentId", s.SubagentID, MaxIDBytes, false)
		o.optID("delegationId", s.DelegationID, MaxIDBytes, false)
		o.optID("mode", s.Mode, MaxIDBytes, false)
		o.optBool("ok", s.OK)
		o.optID("status", s.Status, MaxIDBytes, false)
		o.optText("summary", s.Summary)
		optInt(&o, "durationMs", s.DurationMs)
		l.close(&o)
	} else {
		l.skip()
	}
	if m := in.Notification; m != nil {
		o := l.open("notification")
		o.id("kind", m.Kind, MaxIDBytes, false)
		o.text("message", m.Message)
		o.optID("toolName", m.ToolName, MaxIDBytes, false)
		l.close(&o)
	} else {
		l.skip()
	}
	l.id("cwd", in.Cwd, MaxCwdBytes, true)
	l.optID("sessionId", in.SessionID, MaxIDBytes, true)
	l.optID("agent", in.Agent, MaxIDBytes, true)
	l.optJSON("native", in.Native)
	l.optID("client", in.Client, MaxIDBytes, true)
}
