package luahook

import "encoding/json"

// ToolResult is what a tool returned, as PostToolUse hooks see it.
type ToolResult struct {
	Content string `json:"content"`
	IsError bool   `json:"isError"`
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
